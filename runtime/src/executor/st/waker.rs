//! The waker of a task of the single-threaded executor.
//!
//! A deterministic run wakes tasks only on the executor's own thread, so
//! that path uses no atomic read-modify-write: a relaxed load and store of
//! the `scheduled` flag (plain moves) and a push onto the thread's
//! [local queue](super::local). Only that thread, while it runs the
//! executor, touches `scheduled`.
//!
//! A wake-up from anywhere else (another thread, or the bench between two
//! runs) goes to the shared queue behind its mutex, deduplicated by a
//! second flag, `remote`, that is swapped on both sides. The executor
//! clears `remote` with an acquire swap when it takes the task from the
//! shared queue, so whatever the waking thread did before it woke the task
//! (publishing a message, say) is visible to the poll that follows.
//!
//! The same waker serves a model's mailbox directly: a message sent on the
//! executor's thread to an idle model queues the model without going
//! through the generic [`Waker`](std::task::Waker) machinery (see
//! `Channel::try_push_with`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Wake;

use super::RunQueue;

/// The waker of one task.
pub(crate) struct TaskWaker {
    /// Index of the task.
    pub(super) id: usize,
    /// True while the task is in the local queue (executor thread only).
    pub(super) scheduled: AtomicBool,
    /// True while the task is in the shared queue.
    pub(super) remote: AtomicBool,
    /// The queues to put it in.
    pub(super) queue: Arc<RunQueue>,
}

impl TaskWaker {
    /// A waker for task `id` that queues it in `queue`.
    pub(super) fn new(id: usize, queue: Arc<RunQueue>) -> Self {
        TaskWaker {
            id,
            scheduled: AtomicBool::new(false),
            remote: AtomicBool::new(false),
            queue,
        }
    }

    /// Queues the task unless it is queued already.
    pub(crate) fn wake_task(&self) {
        self.wake_if(|| true);
    }

    /// Wakes the task, in two ways depending on the thread:
    /// - on the thread running the executor, queues it locally if
    ///   `should_wake` (called only there) says so and it is not queued
    ///   already;
    /// - anywhere else, queues it in the shared queue whatever
    ///   `should_wake` would say: a flag read without synchronisation
    ///   cannot be trusted from another thread.
    pub(crate) fn wake_if(&self, should_wake: impl FnOnce() -> bool) {
        let here = self.queue.local.try_push_with(|| {
            if !should_wake() {
                return None;
            }
            // Relaxed is enough: only this thread reads or writes the
            // flag while it runs the executor.
            let queued = self.scheduled.load(Ordering::Relaxed);
            self.scheduled.store(true, Ordering::Relaxed);
            (!queued).then_some(self.id)
        });
        if !here {
            self.wake_remote();
        }
    }

    /// Queues the task in the shared queue unless it is there already.
    pub(crate) fn wake_remote(&self) {
        // Release: pairs with the executor's acquire swap when it takes
        // the task from the shared queue (`Executor::next_woken`).
        if !self.remote.swap(true, Ordering::AcqRel) {
            self.queue.lock().push_back(self.id);
        }
    }
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_task();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wake_task();
    }
}
