//! The `Waker` of a task of the single-threaded executor.
//!
//! A task's wake-up state ([`TaskWaker`]) lives inside its probe (for a
//! model, its mailbox's channel; see [`crate::wake`]). The waker handed to
//! `poll` is a raw waker over the probe's `Arc`, whose functions reach that
//! state ([`raw_waker`], [`HasTaskWaker`]). It is made on the fly for each
//! poll from where the state is and which functions serve the probe
//! ([`StateRef`], found once at spawn): the task record holds no waker, and
//! a poll makes no dynamic call.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{RawWaker, RawWakerVTable, Waker};

use crate::executor::borrowed_waker::BorrowedWaker;
use crate::executor::TaskProbe;
use crate::wake::TaskWaker;

/// Where a task's waker state is, and the functions of a waker over its
/// probe: found once, at spawn, with a dynamic call, so that a poll needs
/// none.
pub(super) struct StateRef {
    /// The [`TaskWaker`] inside the probe's allocation.
    state: NonNull<TaskWaker>,
    /// The functions of a waker whose data is the probe's `Arc`.
    vtable: &'static RawWakerVTable,
}

// SAFETY: a `StateRef` is a shared reference to a `TaskWaker` (which is
// `Sync`) inside a probe kept alive beside it, and a `'static` table of
// functions: sending or sharing it is sending or sharing `&TaskWaker`.
unsafe impl Send for StateRef {}
// SAFETY: as above.
unsafe impl Sync for StateRef {}

impl StateRef {
    /// Where `probe`'s waker state is.
    pub(super) fn of(probe: &Arc<dyn TaskProbe>) -> Self {
        let (state, raw) = probe.waker_parts();
        // SAFETY: per the contract of `TaskProbe`, `raw` was made by
        // `raw_waker` from the value behind `probe`; the waker is only
        // read (`ManuallyDrop`: it owns no reference to give up).
        let waker = ManuallyDrop::new(unsafe { Waker::from_raw(raw) });
        StateRef {
            state: NonNull::from(state),
            vtable: waker.vtable(),
        }
    }

    /// The waker state; `probe` must be the one given to
    /// [`of`](StateRef::of).
    #[inline]
    pub(super) fn get<'a>(&self, _probe: &'a Arc<dyn TaskProbe>) -> &'a TaskWaker {
        // SAFETY: `state` points into the value behind `probe` (see
        // `of`; the task record keeps the two together), which the
        // borrow keeps alive.
        unsafe { self.state.as_ref() }
    }

    /// The waker state and a waker borrowed from `probe`, which must be
    /// the one given to [`of`](StateRef::of).
    #[inline]
    pub(super) fn waker<'a>(
        &self,
        probe: &'a Arc<dyn TaskProbe>,
    ) -> (&'a TaskWaker, BorrowedWaker<'a>) {
        let data = Arc::as_ptr(probe).cast::<()>();
        // SAFETY: `vtable` holds the functions that `raw_waker` chose for
        // the concrete type behind `probe` (see `of`), and `data` points
        // to that value, inside its `Arc`; the borrow keeps the `Arc`
        // alive as long as the waker.
        let waker = unsafe { BorrowedWaker::lend(data, self.vtable) };
        (self.get(probe), waker)
    }
}

/// A raw waker over `owner`, which must be the contents of an `Arc<C>`
/// for as long as the waker (or any clone) lives.
pub(crate) fn raw_waker<C: HasTaskWaker>(owner: &C) -> RawWaker {
    RawWaker::new((owner as *const C).cast::<()>(), vtable::<C>())
}

/// Something whose [`TaskWaker`] a raw waker can reach.
pub(crate) trait HasTaskWaker: Send + Sync + 'static {
    /// The waker state.
    fn task_waker(&self) -> &TaskWaker;
}

/// The functions of a waker whose data is an `Arc<C>` (made by
/// `Arc::into_raw` or borrowed from one).
fn vtable<C: HasTaskWaker>() -> &'static RawWakerVTable {
    &Vtable::<C>::VTABLE
}

/// Holder of the waker functions for `C`.
struct Vtable<C>(PhantomData<C>);

impl<C: HasTaskWaker> Vtable<C> {
    /// The waker functions.
    const VTABLE: RawWakerVTable =
        RawWakerVTable::new(Self::clone, Self::wake, Self::wake_by_ref, Self::drop);

    /// One more reference.
    ///
    /// # Safety
    ///
    /// `data` points to a live `Arc<C>` value (owned by the waker, or
    /// borrowed by it for longer than this call).
    unsafe fn clone(data: *const ()) -> RawWaker {
        // SAFETY: per the contract, `data` comes from a live `Arc<C>`.
        unsafe { Arc::increment_strong_count(data.cast::<C>()) };
        RawWaker::new(data, &Self::VTABLE)
    }

    /// Wakes, giving up the waker's reference.
    ///
    /// # Safety
    ///
    /// As for `clone`, and the waker owns the reference.
    unsafe fn wake(data: *const ()) {
        // SAFETY: per the contract, this reference is ours to give up.
        let owner = unsafe { Arc::from_raw(data.cast::<C>()) };
        owner.task_waker().wake_task();
    }

    /// Wakes, keeping the reference.
    ///
    /// # Safety
    ///
    /// As for `clone`.
    unsafe fn wake_by_ref(data: *const ()) {
        // SAFETY: per the contract, `data` points to a live `C`.
        unsafe { &*data.cast::<C>() }.task_waker().wake_task();
    }

    /// Gives up the waker's reference.
    ///
    /// # Safety
    ///
    /// As for `wake`.
    unsafe fn drop(data: *const ()) {
        // SAFETY: per the contract, this reference is ours to give up.
        drop(unsafe { Arc::from_raw(data.cast::<C>()) });
    }
}
