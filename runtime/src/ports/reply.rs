//! Reply slots: how a replier's answer gets back to the requestor.
//!
//! Each connection of a requestor owns one [`ReplySlot`], allocated when the
//! connection is made and reused for every request, so a request/reply round
//! trip allocates nothing. The slot is armed for each request with a new
//! generation number; the [`ReplySender`] carried by the request message can
//! only fill the generation it was made for, so a stale reply can never be
//! taken for a later one.
//!
//! A `ReplySender` dropped without replying (its model went away with the
//! message in its mailbox) marks the slot abandoned, so the requestor does
//! not wait for a reply that will never come.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crate::sync::lock;

/// The requestor's side of a reply channel, reused across requests.
pub(crate) struct ReplySlot<R> {
    /// The slot's state under a lock (uncontended: one writer, one reader).
    state: Arc<Mutex<SlotState<R>>>,
}

/// What the slot holds.
struct SlotState<R> {
    /// Generation of the request currently awaited.
    generation: u64,
    /// The reply, once sent.
    value: Option<R>,
    /// True if the sender was dropped without replying.
    abandoned: bool,
    /// The requestor's waker while it waits.
    waker: Option<Waker>,
}

impl<R> ReplySlot<R> {
    /// An empty slot.
    pub(crate) fn new() -> Self {
        ReplySlot {
            state: Arc::new(Mutex::new(SlotState {
                generation: 0,
                value: None,
                abandoned: false,
                waker: None,
            })),
        }
    }

    /// Prepares the slot for a new request and returns the sender for it.
    pub(crate) fn arm(&self) -> ReplySender<R> {
        let mut state = lock(&self.state);
        state.generation += 1;
        state.value = None;
        state.abandoned = false;
        ReplySender {
            state: self.state.clone(),
            generation: state.generation,
            replied: false,
        }
    }

    /// The reply (`Some`), the news that none will come (`None`), or
    /// `Pending` with the waker registered.
    pub(crate) fn poll_take(&self, cx: &mut Context<'_>) -> Poll<Option<R>> {
        let mut state = lock(&self.state);
        if let Some(value) = state.value.take() {
            return Poll::Ready(Some(value));
        }
        if state.abandoned {
            return Poll::Ready(None);
        }
        match &mut state.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

/// The replier's side of a reply channel, carried by a replier message.
///
/// A hand-written model calls [`send`](ReplySender::send) with the reply.
pub struct ReplySender<R> {
    /// The slot of the requesting connection.
    state: Arc<Mutex<SlotState<R>>>,
    /// The request this sender answers.
    generation: u64,
    /// Set by `send`, so that `drop` does not report an abandoned request.
    replied: bool,
}

impl<R> ReplySender<R> {
    /// Sends the reply to the requestor.
    pub fn send(mut self, reply: R) {
        self.replied = true;
        let waker = {
            let mut state = lock(&self.state);
            if state.generation != self.generation {
                return;
            }
            state.value = Some(reply);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<R> Drop for ReplySender<R> {
    /// No reply will come: tell the requestor.
    fn drop(&mut self) {
        if self.replied {
            return;
        }
        let waker = {
            let mut state = lock(&self.state);
            if state.generation != self.generation {
                return;
            }
            state.abandoned = true;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<R> fmt::Debug for ReplySender<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplySender")
            .field("reply", &std::any::type_name::<R>())
            .finish()
    }
}

impl<R> fmt::Debug for ReplySlot<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplySlot")
            .field("reply", &std::any::type_name::<R>())
            .finish()
    }
}
