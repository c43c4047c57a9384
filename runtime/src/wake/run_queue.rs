//! The queues a wake-up puts a task of the single-threaded executor in.
//!
//! Two queues of task ids, oldest first: a [local one](LocalQueue) that
//! only the executor's thread touches while it runs (every wake-up of a
//! deterministic run), and a shared one behind a mutex for wake-ups from
//! anywhere else, which the executor drains into the local one when that
//! runs dry, so that on one thread the order is the FIFO order of the
//! wake-ups.

use std::collections::VecDeque;

use super::local_queue::LocalQueue;
// Through `crate::sync`: the shared queue is what a waker on another
// thread touches, which the loom models check.
use crate::sync::atomic::{AtomicBool, Ordering};
use crate::sync::{Mutex, MutexGuard};

/// Task ids waiting to be polled, oldest first.
pub(crate) struct RunQueue {
    /// Woken from another thread, or while the executor is not running.
    ids: Mutex<VecDeque<usize>>,
    /// True while `ids` may be non-empty; written under its lock, read
    /// without it, so that a run that drained its local queue does not
    /// lock an empty shared one (that lock was a tenth of a one-event
    /// step).
    remote_pending: AtomicBool,
    /// Woken on the executor's thread while it runs.
    pub(crate) local: LocalQueue,
}

impl RunQueue {
    /// Empty queues.
    pub(crate) fn new() -> Self {
        RunQueue {
            ids: Mutex::new(VecDeque::new()),
            remote_pending: AtomicBool::new(false),
            local: LocalQueue::default(),
        }
    }

    /// The shared queue, locked.
    pub(super) fn lock(&self) -> MutexGuard<'_, VecDeque<usize>> {
        crate::sync::lock(&self.ids)
    }

    /// Queues `id` in the shared queue.
    pub(crate) fn push_remote(&self, id: usize) {
        let mut ids = self.lock();
        ids.push_back(id);
        // Under the lock, so it cannot be overtaken by the reset in
        // `take_remote` of a drain that missed this id.
        self.remote_pending.store(true, Ordering::Release);
    }

    /// Swaps the shared queue's ids into `into` (empty), unless it holds
    /// none, which is found without the lock; false then.
    #[inline]
    pub(crate) fn take_remote(&self, into: &mut VecDeque<usize>) -> bool {
        // Acquire: pairs with the Release in `push_remote`. A push this
        // load misses is not lost: the flag stays set for the next look,
        // exactly as if the push had come just after this drain.
        if !self.remote_pending.load(Ordering::Acquire) {
            return false;
        }
        let mut ids = self.lock();
        self.remote_pending.store(false, Ordering::Relaxed);
        std::mem::swap(&mut *ids, into);
        true
    }

    /// Gives back the shared queue's unused memory.
    pub(crate) fn shrink_remote(&self) {
        self.lock().shrink_to_fit();
    }
}
