//! A test action that only says which event it is, for the schedule's and
//! the queue's tests.

use std::any::Any;

use crate::poll_report::Unbound;
use crate::ports::event::Action;

/// An action that only says which event it is.
pub(in crate::scheduler) struct Tagged(pub(in crate::scheduler) u32);

impl Action for Tagged {
    fn fire(&mut self) {}

    fn unbound_recipient(&self) -> Option<Unbound> {
        None
    }
}

/// The tag of an action.
pub(in crate::scheduler) fn tag(action: &mut Box<dyn Action>) -> u32 {
    let any: &mut dyn Any = &mut **action;
    any.downcast_mut::<Tagged>()
        .map(|t| t.0)
        .expect("a tagged action")
}
