//! The wake-up state of a task of the single-threaded executor.
//!
//! A deterministic run wakes tasks only on the executor's own thread, so
//! that path uses no atomic read-modify-write: a relaxed load and store of
//! the `scheduled` flag (plain moves) and a push onto the thread's
//! [local queue](super::local_queue). Only that thread, while it runs the
//! executor, touches `scheduled`.
//!
//! A wake-up from anywhere else (another thread, or the bench between two
//! runs) goes to the shared queue behind its mutex, deduplicated by a
//! second flag, `remote`, that is swapped on both sides. The executor
//! clears `remote` with an acquire swap when it takes the task from the
//! shared queue, so whatever the waking thread did before it woke the task
//! (publishing a message, say) is visible to the poll that follows.
//!
//! **Where it lives.** A model's [`TaskWaker`] is a field of its mailbox's
//! channel, not an allocation of its own: a message sent to an idle model
//! finds the flag to test and the task to queue in the cache lines it
//! touches anyway, and a bench of a million idle models holds a million
//! allocations fewer. A task without a mailbox (a bench query) keeps one
//! in a small allocation of its own (`executor::BenchTask`). The `Waker`
//! handed to `poll` is made by the executor on the fly from the task's
//! probe (`executor::st::waker`): the task record holds no waker.
//!
//! **Its size.** The queues the task is put in are held through an
//! [`AtomicPtr`] set once by [`TaskWaker::register`] (8 bytes, where a
//! `OnceLock<Arc<_>>` took 16), so the whole state is 16 bytes, read in
//! the order a wake-up reads it.

use std::ptr::{self, NonNull};
use std::sync::Arc;

use super::RunQueue;
// Through `crate::sync`: loom models wake-ups from other threads.
use crate::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

/// The wake-up state of one task; inert until the executor
/// [registers](TaskWaker::register) the task.
///
/// `repr(C)`, in the order a wake-up reads it: the queues, the index, the
/// flag.
#[repr(C)]
pub(crate) struct TaskWaker {
    /// The queues to put the task in (from `Arc::into_raw`, owned by this
    /// waker), once it is spawned on a single-threaded executor; null
    /// before.
    queue: AtomicPtr<RunQueue>,
    /// Index of the task (set before `queue`, read only once that is set).
    id: AtomicU32,
    /// True while the task is in the local queue (executor thread only).
    pub(crate) scheduled: AtomicBool,
    /// True while the task is in the shared queue.
    pub(crate) remote: AtomicBool,
    /// True while the task is in the executor's list of deadlock
    /// candidates (executor thread only).
    pub(crate) listed: AtomicBool,
    /// True when the task's poll in progress parked it on its empty
    /// mailbox (executor thread only): cleared by the executor before each
    /// poll, set by the mailbox ([`note_parked`](TaskWaker::note_parked)),
    /// read after the poll. A task whose poll ends so is idle and need not
    /// be looked at for a deadlock.
    pub(crate) parked: AtomicBool,
}

// A waker hands out `&RunQueue` to any thread that holds it, and the last
// owner of the waker gives up its `Arc<RunQueue>` on whatever thread drops
// it: the queues must be `Send` and `Sync`, as `Arc<RunQueue>` in a
// `OnceLock` required.
const _: () = {
    const fn shareable<Q: Send + Sync>() {}
    shareable::<RunQueue>();
};

impl TaskWaker {
    /// The state of a task not spawned yet.
    pub(crate) fn new() -> Self {
        TaskWaker {
            queue: AtomicPtr::new(ptr::null_mut()),
            id: AtomicU32::new(0),
            scheduled: AtomicBool::new(false),
            remote: AtomicBool::new(false),
            listed: AtomicBool::new(false),
            parked: AtomicBool::new(false),
        }
    }

    /// Makes this the waker of task `id`, queued in `queue`; the first
    /// registration wins (a mailbox serves one task, spawned once), and a
    /// later one gives its `queue` back.
    ///
    /// The executor that spawns the task registers it; two registrations
    /// racing from two threads are not supported (the loser's `id` could
    /// overwrite the winner's).
    pub(crate) fn register(&self, id: u32, queue: Arc<RunQueue>) {
        if !self.queue.load(Ordering::Acquire).is_null() {
            return;
        }
        self.id.store(id, Ordering::Relaxed);
        let fresh = Arc::into_raw(queue).cast_mut();
        // Release: whoever sees the queue sees the id.
        let published = self.queue.compare_exchange(
            ptr::null_mut(),
            fresh,
            Ordering::Release,
            Ordering::Relaxed,
        );
        if published.is_err() {
            // SAFETY: `fresh` came from `Arc::into_raw` just above and was
            // not published (the exchange failed): its reference is ours
            // to give up.
            drop(unsafe { Arc::from_raw(fresh) });
        }
    }

    /// This waker, once its task is spawned on a single-threaded executor
    /// (before that, or on the multi-threaded executor, a mailbox wakes
    /// its consumer through its `ConsumerWaker`).
    #[inline]
    pub(crate) fn get(&self) -> Option<Registered<'_>> {
        // Acquire: pairs with the Release of `register`, so the id is set.
        let queue = NonNull::new(self.queue.load(Ordering::Acquire))?;
        // SAFETY: a non-null `queue` was published by `register` from
        // `Arc::into_raw`, and that reference is given up only in `drop`,
        // which has `&mut self`: the queues outlive this borrow of `self`.
        let queue = unsafe { queue.as_ref() };
        Some(Registered { waker: self, queue })
    }

    /// The task's index.
    #[inline]
    pub(crate) fn id(&self) -> usize {
        self.id.load(Ordering::Relaxed) as usize
    }

    /// Notes that the task, being polled by its single-threaded executor
    /// (on that executor's thread), parks on its empty mailbox: its poll
    /// ends now, leaving it idle.
    #[inline]
    pub(crate) fn note_parked(&self) {
        // Relaxed: only the executor's thread touches the flag.
        self.parked.store(true, Ordering::Relaxed);
    }

    /// Queues the task unless it is queued already; nothing before the
    /// task is registered.
    pub(crate) fn wake_task(&self) {
        if let Some(registered) = self.get() {
            registered.wake_if(|| true);
        }
    }
}

/// A registered [`TaskWaker`] with its queues, as found by one look at
/// the registration.
#[derive(Clone, Copy)]
pub(crate) struct Registered<'a> {
    /// The waker state.
    waker: &'a TaskWaker,
    /// The queues it was registered with.
    queue: &'a RunQueue,
}

impl Registered<'_> {
    /// Wakes the task, in two ways depending on the thread:
    /// - on the thread running the executor, queues it locally if
    ///   `should_wake` (called only there) says so and it is not queued
    ///   already;
    /// - anywhere else, queues it in the shared queue whatever
    ///   `should_wake` would say: a flag read without synchronisation
    ///   cannot be trusted from another thread.
    #[inline]
    pub(crate) fn wake_if(self, should_wake: impl FnOnce() -> bool) {
        let waker = self.waker;
        let here = self.queue.local.try_push_with(|| {
            if !should_wake() {
                return None;
            }
            // Relaxed is enough: only this thread reads or writes the
            // flag while it runs the executor.
            let queued = waker.scheduled.load(Ordering::Relaxed);
            waker.scheduled.store(true, Ordering::Relaxed);
            (!queued).then_some(waker.id())
        });
        if !here {
            self.wake_remote();
        }
    }

    /// Queues the task in the shared queue unless it is there already.
    fn wake_remote(self) {
        // Release: pairs with the executor's acquire swap when it takes
        // the task from the shared queue (`Executor::next_woken`).
        if !self.waker.remote.swap(true, Ordering::AcqRel) {
            self.queue.push_remote(self.waker.id());
        }
    }
}

impl Default for TaskWaker {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for TaskWaker {
    fn drop(&mut self) {
        // A load, not `get_mut` (which loom's atomics lack); `&mut self`
        // orders it after every other access.
        let queue = self.queue.load(Ordering::Relaxed);
        if !queue.is_null() {
            // SAFETY: a non-null `queue` was published by `register` from
            // `Arc::into_raw`, and this waker owns that reference; `&mut
            // self` means no `Registered` borrows it any more.
            drop(unsafe { Arc::from_raw(queue) });
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    /// Empty run queues.
    fn run_queue() -> Arc<RunQueue> {
        Arc::new(RunQueue::new())
    }

    #[test]
    fn the_first_registration_wins() {
        let (first, second) = (run_queue(), run_queue());
        let waker = TaskWaker::new();
        assert!(waker.get().is_none(), "inert until registered");
        waker.register(3, first.clone());
        waker.register(5, second.clone());
        let registered = waker.get().expect("registered");
        assert!(ptr::eq(registered.queue, &*first));
        assert_eq!(waker.id(), 3);
        assert_eq!(Arc::strong_count(&first), 2, "kept by the waker");
        assert_eq!(Arc::strong_count(&second), 1, "given back");
        // Off the executor's thread, a wake-up goes to the shared queue.
        waker.wake_task();
        assert_eq!(*first.lock(), [3]);
    }

    #[test]
    fn dropping_a_waker_gives_its_queues_back() {
        let queue = run_queue();
        let waker = TaskWaker::new();
        waker.register(0, queue.clone());
        assert_eq!(Arc::strong_count(&queue), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&queue), 1);
        // An unregistered waker holds nothing.
        drop(TaskWaker::new());
    }
}
