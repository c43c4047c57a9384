//! A test action that only says which event it is, for the schedule's and
//! the queue's tests.

use std::any::Any;

use crate::bench::BenchId;
use crate::poll_report::Misaddressed;
use crate::ports::event::Action;

/// An action that only says which event it is.
pub(in crate::scheduler) struct Tagged(pub(in crate::scheduler) u32);

impl Action for Tagged {
    fn fire(&mut self) {}

    fn misaddressed(&self, _bench: BenchId) -> Option<Misaddressed> {
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
