//! Reusing the boxes of fired events, so that a model's steady stream of
//! scheduled events allocates nothing.
//!
//! Scheduled events are type-erased: each holds its action in a
//! `Box<dyn Action>` (see `ports::event`), because the queue holds events
//! for every model type. A model that schedules its own next tick would
//! then allocate a box and free one at every step. Instead, the box of a
//! model's fired one-shot event goes back to that model, and its next event
//! for an input of the same payload type is written into it. The box
//! travels in a loop, each leg under a lock the schedule takes anyway (or
//! none, on the driving thread):
//!
//! 1. the simulation files a delivered one-shot event of a model as a
//!    [`ReturningBox`]: the model's origin and the box (a bench event's or
//!    a periodic event's box is not returned);
//! 2. at the next step the schedule keeps it in that model's slot of
//!    [`Spares`] ([`Spares::take_back`]): the staging area's on the driving
//!    thread, the locked queue's otherwise. A slot holds one box; a second
//!    one stays in the `ReturningBox`, for the simulation to drop outside
//!    the lock (a drop may release a mailbox and the messages it holds);
//! 3. each context holds one [`SpareBox`]: its next event is written into
//!    it ([`SpareBox::event`]) if it is a one-shot event of the same port
//!    type, otherwise it is dropped and a new box allocated; the context
//!    then restocks it from its model's slot as it queues that event
//!    ([`SpareBox::restock`]).
//!
//! An event is built only once its time was checked, so a refused event
//! does not use up the spare box.

use std::any::Any;

use super::heap::Origin;
use crate::mailbox::Address;
use crate::model::Model;
use crate::ports::event::{Action, Event, OnceAction};
use crate::ports::InputPort;

/// The box a context writes its model's next one-shot event into.
#[derive(Default)]
pub(crate) struct SpareBox {
    /// A fired action of this model, if the context holds one.
    action: Option<Box<dyn Action>>,
}

impl SpareBox {
    /// An event delivering `payload` to `port` of the model at `address`:
    /// written into the spare box if it is a one-shot event of the same
    /// port type, in a new box otherwise (the spare is then dropped).
    #[inline]
    pub(crate) fn event<M: Model, T: Send + 'static>(
        &mut self,
        port: InputPort<M, T>,
        payload: T,
        address: &Address<M>,
    ) -> Event {
        if let Some(mut action) = self.action.take() {
            // `Any` is a supertrait of `Action`: one load to upcast.
            let any: &mut dyn Any = &mut *action;
            if let Some(once) = any.downcast_mut::<OnceAction<M, T>>() {
                once.refill(port, payload, address);
                return Event { action };
            }
        }
        Event::new(port, payload, address)
    }

    /// If the context holds no box, takes the one kept for its model
    /// (`origin`) in `spares`, if any.
    #[inline]
    pub(crate) fn restock(&mut self, spares: &mut Spares, origin: Origin) {
        if self.action.is_none() {
            self.action = spares.take(origin);
        }
    }

    /// The box held, if any (for the schedule's tests).
    #[cfg(all(test, not(causim_loom)))]
    pub(crate) fn get_mut(&mut self) -> Option<&mut Box<dyn Action>> {
        self.action.as_mut()
    }
}

/// The fired action of a model's one-shot event on its way back to that
/// model, between the step that delivered it and the next one.
#[derive(Default)]
pub(crate) struct ReturningBox {
    /// The origin that scheduled it, and the action.
    fired: Option<(Origin, Box<dyn Action>)>,
}

impl ReturningBox {
    /// Sends `action`, fired, back to `origin` (replacing, and dropping, a
    /// box already on its way).
    #[inline]
    pub(crate) fn send(&mut self, origin: Origin, action: Box<dyn Action>) {
        self.fired = Some((origin, action));
    }

    /// Drops the box the schedule did not keep, if any: outside its lock.
    #[inline]
    pub(crate) fn drop_unkept(&mut self) {
        self.fired = None;
    }

    /// The returning box, if any (for the schedule's tests).
    #[cfg(all(test, not(causim_loom)))]
    pub(crate) fn get_mut(&mut self) -> Option<&mut (Origin, Box<dyn Action>)> {
        self.fired.as_mut()
    }
}

/// One fired action per model origin (indexed by origin), for that model's
/// next event to reuse.
#[derive(Default)]
pub(crate) struct Spares {
    /// The actions by origin.
    by_origin: Vec<Option<Box<dyn Action>>>,
}

impl Spares {
    /// Keeps the box of `returning`, if any, as the spare of its origin if
    /// it has none; otherwise leaves it there, for the caller to drop
    /// outside any lock.
    #[inline]
    pub(crate) fn take_back(&mut self, returning: &mut ReturningBox) {
        if let Some((origin, action)) = returning.fired.take() {
            if let Some(kept) = self.put(origin, action) {
                returning.fired = Some((origin, kept));
            }
        }
    }

    /// Keeps `action`, which has fired, as the spare of `origin` if it has
    /// none; otherwise hands it back.
    #[inline]
    fn put(&mut self, origin: Origin, action: Box<dyn Action>) -> Option<Box<dyn Action>> {
        // One bounds check on the common path; the slot is made once.
        match self.by_origin.get_mut(origin as usize) {
            Some(Some(_)) => Some(action),
            Some(empty) => {
                *empty = Some(action);
                None
            }
            None => self.put_first(origin, action),
        }
    }

    /// [`put`](Spares::put) for an origin without a slot yet (once per
    /// origin): makes one, holding `action`.
    #[cold]
    #[inline(never)]
    fn put_first(&mut self, origin: Origin, action: Box<dyn Action>) -> Option<Box<dyn Action>> {
        let index = origin as usize;
        self.by_origin.resize_with(index + 1, || None);
        self.by_origin[index] = Some(action);
        None
    }

    /// Takes the spare action of `origin`, if any.
    pub(crate) fn take(&mut self, origin: Origin) -> Option<Box<dyn Action>> {
        self.by_origin
            .get_mut(origin as usize)
            .and_then(Option::take)
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
