//! Events that models schedule on the thread that runs their simulation,
//! staged without a lock.
//!
//! The thread that calls into the simulation polls models: every model on
//! the single-threaded executor, and those that worker 0 takes on the
//! multi-threaded one. A model that schedules its next event would
//! otherwise lock the queue and push into the heap, and the simulation
//! would lock it again at the next step to pop that very event. Instead,
//! while a simulation call is in progress its thread is *marked* as driving
//! the schedule, and a context on a marked thread appends its event to a
//! staging buffer and takes its model's spare box from here, with no lock
//! and no atomic read-modify-write. A single staged event strictly earlier
//! than everything in the heap (a model scheduling its own next tick; the
//! heap's earliest time is published in an atomic at every unlock) becomes
//! the next step's event without the lock or the heap; otherwise the step
//! moves the staged events to the heap under the lock. A model that
//! schedules many events in one call has them moved in batches of 64 as
//! it goes, so the buffer stays small. While a bench
//! `Scheduler` handle exists, that lock-free move of the clock is first
//! announced, so that a handle on another thread cannot queue an event
//! behind the new clock (see `SchedulerCore`).
//!
//! Contexts on any other thread (the multi-threaded executor's other
//! workers, the bench's `Scheduler` handles) use the locked queue. They
//! only run during a step, and the steps' events are taken between steps,
//! once every task is done: what they queued is in the heap, and its
//! earliest time published, before the driving thread looks. The order of
//! events is the `(time, origin, seq)` key wherever they wait, so staging
//! changes nothing about it.

use std::cell::{Cell, UnsafeCell};

use super::heap::Entry;
use super::spare::Spares;
use crate::thread_mark::{is_marked, CheckedSlot, ThreadMark};

#[cfg(not(causim_loom))]
std::thread_local! {
    /// The [`LocalSchedule`] driven by the simulation call in progress on
    /// this thread (its address), or 0.
    static DRIVING: Cell<usize> = const { Cell::new(0) };
}

// Under loom, a loom thread-local: loom runs its threads on one OS thread,
// and a model of a worker beside the driving thread needs them apart.
#[cfg(causim_loom)]
loom::thread_local! {
    /// As above.
    static DRIVING: Cell<usize> = Cell::new(0);
}

/// What models on the driving thread scheduled since the last step.
#[derive(Default)]
pub(crate) struct Staged {
    /// Events not yet in the heap, in the order they were scheduled.
    pub(crate) entries: Vec<Entry>,
    /// Fired boxes for the driving thread's contexts to reuse.
    pub(crate) spares: Spares,
}

/// The staging area of one schedule.
#[derive(Default)]
pub(crate) struct LocalSchedule {
    /// Accessed only through [`with`](LocalSchedule::with).
    staged: UnsafeCell<Staged>,
}

// SAFETY: `staged` is only accessed through `with` and `with_or`, which
// reach it only on a thread whose `DRIVING` mark is this schedule's
// address, and through `&mut self` (drop). Only `drive` sets the mark; it
// is called only by the one `Simulation` that owns this schedule, inside
// its own methods, and the returned guard (not `Send`) restores the
// previous mark on the same thread before the method returns. A
// `Simulation` is not `Sync`, so its methods run on one thread at a time:
// at most one thread carries the mark, and every access happens on it.
unsafe impl Sync for LocalSchedule {}

/// Marks this thread as driving one [`LocalSchedule`] until dropped, then
/// restores the previous mark.
pub(crate) type Driving = ThreadMark<CheckedSlot>;

impl LocalSchedule {
    /// This schedule's identity.
    fn key(&self) -> usize {
        self as *const LocalSchedule as usize
    }

    /// Marks this thread as driving this schedule. Only the simulation
    /// that owns it may call this (see the `Sync` impl).
    #[inline]
    pub(crate) fn drive(&self) -> Driving {
        ThreadMark::set(&DRIVING, self.key())
    }

    /// On the driving thread, runs `here` on the staged state with
    /// `value`; anywhere else, runs `elsewhere` with `value`.
    ///
    /// `here` must not run user code (drop an action, say): that code
    /// could schedule again and reach the staged state a second time.
    #[inline]
    pub(crate) fn with_or<T, R>(
        &self,
        value: T,
        here: impl FnOnce(&mut Staged, T) -> R,
        elsewhere: impl FnOnce(T) -> R,
    ) -> R {
        if !is_marked(&DRIVING, self.key()) {
            return elsewhere(value);
        }
        // SAFETY: this thread drives the schedule, so it is the only one
        // that reaches `staged` (see the `Sync` impl), and `here` does not
        // reach it again; no reference outlives this call.
        here(unsafe { &mut *self.staged.get() }, value)
    }

    /// On the driving thread, runs `f` on the staged state; elsewhere
    /// returns `None`. The same rule as for [`with_or`] holds for `f`.
    ///
    /// [`with_or`]: LocalSchedule::with_or
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut Staged) -> R) -> Option<R> {
        self.with_or((), |staged, ()| Some(f(staged)), |()| None)
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn only_the_driving_thread_reaches_the_staged_state() {
        let local = LocalSchedule::default();
        assert!(local.with(|_| ()).is_none(), "not driving");
        let driving = local.drive();
        assert!(local.with(|_| ()).is_some());
        std::thread::scope(|s| {
            s.spawn(|| assert!(local.with(|_| ()).is_none(), "another thread"));
        });
        drop(driving);
        assert!(local.with(|_| ()).is_none());
    }

    #[test]
    fn nested_schedules_restore_the_outer_one() {
        let (outer, inner) = (LocalSchedule::default(), LocalSchedule::default());
        let _outer = outer.drive();
        {
            let _inner = inner.drive();
            assert!(outer.with(|_| ()).is_none());
            assert!(inner.with(|_| ()).is_some());
        }
        assert!(outer.with(|_| ()).is_some());
    }
}
