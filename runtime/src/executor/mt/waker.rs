//! The wakers of the multi-threaded executor's tasks.
//!
//! A waker is a reference to an `Arc<Task>`; waking marks the task and
//! queues it if it was idle ([`Task::wake_by_ref`]). The functions are a
//! raw waker table over the `Arc` (std's, or loom's under loom, which
//! `std::task::Wake` would not accept), so that a poll can lend its task's
//! waker without touching the reference count ([`borrowed`]): two
//! read-modify-writes of the task's count per poll fewer. Clones a model
//! keeps (its mailbox's registered waker) own a reference each, as usual.

use std::mem::ManuallyDrop;
use std::task::{RawWaker, RawWakerVTable};

use super::task::{Task, TaskRef};
use crate::executor::borrowed_waker::BorrowedWaker;
use crate::sync::Arc;

/// The waker functions.
static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// A waker lent by `task`'s `Arc` for as long as the borrow: it owns no
/// reference (making and dropping it costs no atomic operation); clones
/// own one each.
///
/// Made from the task's [`TaskRef`], whose pointer came from the `Arc`
/// and so may reach its counts, which a clone increments; a pointer made
/// from `&Task` may not (Miri's Stacked Borrows reports it).
///
/// # Safety
///
/// `task` points to the `Task` inside an `Arc<Task>` that outlives the
/// borrow `'a` (a clone of the waker takes a reference count on it).
pub(crate) unsafe fn borrowed<'a>(task: TaskRef) -> BorrowedWaker<'a> {
    let data = task.as_ptr().cast::<()>();
    // SAFETY: `data` points to the `Task` inside a live `Arc` (the
    // caller's contract), which the borrow keeps alive as long as the
    // waker; its clones take their own reference (`clone`).
    unsafe { BorrowedWaker::lend(data, &VTABLE) }
}

/// Clones the waker: one more reference.
///
/// # Safety
///
/// `data` points to the `Task` of a live `Arc<Task>` (a reference owned by
/// the waker, or borrowed by it for longer than this call).
unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: per the contract, `data` is a live `Arc<Task>` pointer.
    unsafe { Arc::increment_strong_count(data.cast::<Task>()) };
    RawWaker::new(data, &VTABLE)
}

/// Wakes, consuming the reference.
///
/// # Safety
///
/// As for [`clone`], and the waker owns its reference (only clones are
/// consumed: a [`BorrowedWaker`] is never dropped or woken by value).
unsafe fn wake(data: *const ()) {
    // SAFETY: per the contract, we own this reference.
    let task = unsafe { Arc::from_raw(data.cast::<Task>()) };
    Task::wake_by_ref(&task);
}

/// Wakes, keeping the reference.
///
/// # Safety
///
/// As for [`clone`].
unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: per the contract `data` is live; `ManuallyDrop` keeps the
    // reference, owned or borrowed, where it is.
    let task = ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<Task>()) });
    Task::wake_by_ref(&task);
}

/// Drops the waker's reference.
///
/// # Safety
///
/// As for [`wake`].
unsafe fn drop_waker(data: *const ()) {
    // SAFETY: per the contract, we own this reference.
    drop(unsafe { Arc::from_raw(data.cast::<Task>()) });
}
