//! A gate that lets one of two parties at a time reach what it guards:
//! a task that may wait for its turn, or code outside it that never waits.
//!
//! A saveable model lives in a cell that its task and the bench's snapshot
//! code both reach (see `model/shared.rs`). The task holds the gate from
//! the moment it polls for a message until it waits for the next one with
//! its mailbox empty; the snapshot code goes through only while the task
//! does not hold it, and never waits: a task holding the gate between
//! steps is in the middle of a method, whose state is not to be read.
//!
//! In a correct bench the two never meet (no task runs between steps), so
//! the gate costs the task one compare-and-swap and one store each time
//! its mailbox runs empty. It makes sharing safe when they do meet: a
//! thread outside the simulation can send to a mailbox between steps, and
//! on several threads a worker then polls the task while the bench is
//! saved. The task then waits (yielding its thread) until the snapshot
//! code has left, which is the time of one model's save hook.

use super::atomic::{AtomicU8, Ordering};
use super::thread;

/// Nobody holds the gate.
const OPEN: u8 = 0;
/// The task holds it.
const TASK: u8 = 1;
/// Code outside the task holds it.
const OUTSIDE: u8 = 2;

/// See the module docs.
#[derive(Debug)]
pub(crate) struct Gate {
    /// `OPEN`, `TASK` or `OUTSIDE`.
    state: AtomicU8,
}

impl Gate {
    /// An open gate.
    pub(crate) fn new() -> Self {
        Gate {
            state: AtomicU8::new(OPEN),
        }
    }

    /// The task takes the gate, waiting while code outside holds it. What
    /// the outside wrote before leaving is visible after this returns.
    #[inline]
    pub(crate) fn enter(&self) {
        while self
            .state
            .compare_exchange_weak(OPEN, TASK, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.wait_for_outside();
        }
    }

    /// The task gives the gate back: what it wrote is visible to whoever
    /// takes the gate next.
    #[inline]
    pub(crate) fn leave(&self) {
        self.state.store(OPEN, Ordering::Release);
    }

    /// Code outside the task takes the gate, if the task does not hold it.
    pub(crate) fn try_enter_outside(&self) -> bool {
        self.state
            .compare_exchange(OPEN, OUTSIDE, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Code outside the task gives the gate back.
    pub(crate) fn leave_outside(&self) {
        self.state.store(OPEN, Ordering::Release);
    }

    /// Lets the outside finish (a rare case, see the module docs).
    #[cold]
    fn wait_for_outside(&self) {
        debug_assert_ne!(
            self.state.load(Ordering::Relaxed),
            TASK,
            "a task took its gate twice"
        );
        thread::yield_now();
    }
}

#[cfg(all(test, causim_loom))]
mod loom_tests;
