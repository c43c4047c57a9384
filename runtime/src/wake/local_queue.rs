//! Same-thread wake-ups without a lock.
//!
//! While the single-threaded executor runs, a waker called on the
//! executor's own thread — every wake-up of a deterministic run — pushes the
//! task id onto a queue that only that thread touches: no lock, no atomic
//! read-modify-write. A wake-up from another thread, or while the executor
//! is not running, goes to the shared queue behind its mutex as before, and
//! the executor takes from it when the local queue runs dry, so on one
//! thread the order is exactly the FIFO order of the wake-ups.
//!
//! It made a hop of the ring workload measurably faster (see
//! `docs/benchmarks.md`, "Measurements behind code decisions").

use std::cell::Cell;
use std::collections::VecDeque;

use crate::sync::cell::UnsafeCell;
use crate::thread_mark::{is_marked, CheckedSlot, ThreadMark};

#[cfg(not(causim_loom))]
std::thread_local! {
    /// The [`LocalQueue`] of the executor running on this thread (its
    /// address), or 0.
    static RUNNING: Cell<usize> = const { Cell::new(0) };
}

// Under loom, a loom thread-local: loom runs its threads on one OS thread.
#[cfg(causim_loom)]
loom::thread_local! {
    /// As above.
    static RUNNING: Cell<usize> = Cell::new(0);
}

/// Task ids woken on the executor's thread while it runs, oldest first.
pub(crate) struct LocalQueue {
    /// The ids; a loom cell under loom, which checks that no two threads
    /// ever touch them at once.
    ids: UnsafeCell<VecDeque<usize>>,
}

impl Default for LocalQueue {
    fn default() -> Self {
        LocalQueue {
            ids: UnsafeCell::new(VecDeque::new()),
        }
    }
}

// SAFETY: `ids` is only accessed through `with_ids`, which runs only on a
// thread whose `RUNNING` mark is this queue's address, and through
// `with_ids_running`, which runs only for the holder of this queue's
// `Running` guard: the thread that set that mark and has not restored it.
// Only `enter` sets that mark, only the executor's `&mut self` methods
// call `enter`, and the returned guard (not `Send`) restores the previous
// mark on the same thread before the method returns: at most one thread
// at a time carries the mark. Wakers on other threads see another mark
// and use the mutex.
unsafe impl Sync for LocalQueue {}

/// Marks this thread as running the executor of one [`LocalQueue`] until
/// dropped, then restores the previous mark.
///
/// Holding it proves the mark, for the queue it was made by: only
/// [`LocalQueue::enter`] makes one, it is not `Send`, and a nested mark
/// set during a poll is restored before the poll returns. So the
/// executor's own pops and peeks compare the guard's key with the queue's
/// (a register compare) instead of reading the thread-local mark; wakers,
/// which hold no guard, still read it.
pub(crate) struct Running {
    /// The mark, restored when dropped.
    _mark: ThreadMark<CheckedSlot>,
    /// The address of the queue that made it.
    key: usize,
}

impl LocalQueue {
    /// This queue's identity.
    fn key(&self) -> usize {
        self as *const LocalQueue as usize
    }

    /// Marks this thread as running this queue's executor.
    pub(crate) fn enter(&self) -> Running {
        Running {
            _mark: ThreadMark::set(&RUNNING, self.key()),
            key: self.key(),
        }
    }

    /// Runs `f` on the ids if this thread runs this queue's executor.
    ///
    /// Always inlined, with [`try_push_with`](LocalQueue::try_push_with):
    /// on the send path of every message (see `docs/benchmarks.md`,
    /// "Measurements behind code decisions").
    #[inline(always)]
    fn with_ids<R>(&self, f: impl FnOnce(&mut VecDeque<usize>) -> R) -> Option<R> {
        if !is_marked(&RUNNING, self.key()) {
            return None;
        }
        // SAFETY: see the `Sync` impl: only this thread accesses `ids` now,
        // and no reference to them outlives this call (`f` only pushes or
        // pops, and the flag-flipping closures of `try_push_with` run no
        // user code and cannot re-enter).
        Some(self.ids.with_mut(|ids| f(unsafe { &mut *ids })))
    }

    /// Runs `f` on the queue's ids for the thread that holds `running`,
    /// without reading the thread-local mark (see [`Running`]).
    #[inline(always)]
    fn with_ids_running<R>(
        &self,
        running: &Running,
        f: impl FnOnce(&mut VecDeque<usize>) -> R,
    ) -> Option<R> {
        if running.key != self.key() {
            return None; // another queue's guard: a caller's bug, no access
        }
        // SAFETY: `running` is this queue's guard, alive on this thread
        // (it is not `Send`), so this thread carries the mark (see the
        // `Sync` impl and `Running`); no reference to the ids outlives
        // this call.
        Some(self.ids.with_mut(|ids| f(unsafe { &mut *ids })))
    }

    /// Queues `id` if called on the running executor's thread.
    #[cfg(test)]
    fn try_push(&self, id: usize) -> bool {
        self.try_push_with(|| Some(id))
    }

    /// If called on the running executor's thread, queues the id `f`
    /// returns, if any, and returns true; otherwise returns false without
    /// calling `f`.
    #[inline(always)]
    pub(crate) fn try_push_with(&self, f: impl FnOnce() -> Option<usize>) -> bool {
        self.with_ids(|ids| {
            if let Some(id) = f() {
                ids.push_back(id);
            }
        })
        .is_some()
    }

    /// The oldest local id.
    pub(crate) fn pop(&self, running: &Running) -> Option<usize> {
        self.with_ids_running(running, VecDeque::pop_front)
            .flatten()
    }

    /// The two oldest ids, if any.
    #[inline]
    pub(crate) fn peek_two(&self, running: &Running) -> (Option<usize>, Option<usize>) {
        self.with_ids_running(running, |ids| (ids.front().copied(), ids.get(1).copied()))
            .unwrap_or_default()
    }

    /// Puts `id` back at the front.
    pub(crate) fn push_front(&self, running: &Running, id: usize) {
        self.with_ids_running(running, |ids| ids.push_front(id));
    }

    /// Number of queued ids, whoever asks (the executor's std tests only).
    #[cfg(all(test, not(causim_loom)))]
    pub(crate) fn len_for_tests(&self) -> usize {
        // SAFETY: tests call this on the executor's thread, between runs.
        self.ids.with(|ids| unsafe { (*ids).len() })
    }

    /// Frees the capacity the queue does not use.
    pub(crate) fn shrink_to_fit(&self, running: &Running) {
        self.with_ids_running(running, VecDeque::shrink_to_fit);
    }

    /// Makes room for `additional` more ids.
    pub(crate) fn reserve(&self, running: &Running, additional: usize) {
        self.with_ids_running(running, |ids| ids.reserve(additional));
    }

    /// Queues `id` at the back.
    pub(crate) fn push_back(&self, running: &Running, id: usize) {
        self.with_ids_running(running, |ids| ids.push_back(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_running_thread_queues_locally() {
        let queue = LocalQueue::default();
        assert!(!queue.try_push(1), "not running: the mutex queue is used");
        let running = queue.enter();
        assert!(queue.try_push(2));
        std::thread::scope(|s| {
            s.spawn(|| assert!(!queue.try_push(3), "another thread uses the mutex"));
        });
        queue.push_front(&running, 1);
        assert_eq!(queue.pop(&running), Some(1));
        assert_eq!(queue.pop(&running), Some(2));
        assert_eq!(queue.pop(&running), None);
        drop(running);
        assert!(!queue.try_push(4));
    }

    #[test]
    fn nested_executors_restore_the_outer_one() {
        let (outer, inner) = (LocalQueue::default(), LocalQueue::default());
        let running_outer = outer.enter();
        {
            let _running_inner = inner.enter();
            assert!(!outer.try_push(1));
            assert!(inner.try_push(1));
        }
        assert!(outer.try_push(2));
        assert_eq!(outer.pop(&running_outer), Some(2));
    }

    #[test]
    fn a_guard_gives_access_to_its_own_queue_only() {
        let (outer, inner) = (LocalQueue::default(), LocalQueue::default());
        let running_outer = outer.enter();
        assert!(outer.try_push(1));
        let running_inner = inner.enter();
        // The inner guard's key is not the outer queue's: no access, even
        // though this thread holds both guards.
        assert_eq!(outer.pop(&running_inner), None);
        outer.push_back(&running_inner, 7);
        assert_eq!(outer.peek_two(&running_inner), (None, None));
        assert_eq!(inner.peek_two(&running_inner), (None, None));
        drop(running_inner);
        // The outer guard still reads its queue, untouched by the above.
        assert_eq!(outer.peek_two(&running_outer), (Some(1), None));
        assert_eq!(outer.pop(&running_outer), Some(1));
        assert_eq!(outer.pop(&running_outer), None);
    }
}
