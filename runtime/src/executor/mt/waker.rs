//! The wakers of the multi-threaded executor's tasks.
//!
//! A waker is an `Arc<Task>`; waking marks the task and queues it if it was
//! idle ([`Task::wake_by_ref`]). With `std` this is `std::task::Wake`.
//! Under loom the `Arc` is loom's, which `Wake` does not accept, so a raw
//! waker over it stands in (test builds only).

use std::task::Waker;

use super::task::Task;
use crate::sync::Arc;

/// A waker for `task`.
#[cfg(not(causim_loom))]
pub(crate) fn waker(task: Arc<Task>) -> Waker {
    Waker::from(task)
}

#[cfg(not(causim_loom))]
impl std::task::Wake for Task {
    fn wake(self: Arc<Self>) {
        Task::wake_by_ref(&self);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        Task::wake_by_ref(self);
    }
}

/// A waker for `task`.
#[cfg(causim_loom)]
pub(crate) fn waker(task: Arc<Task>) -> Waker {
    loom_waker::waker(task)
}

/// A raw waker over loom's `Arc<Task>`.
#[cfg(causim_loom)]
mod loom_waker {
    use std::mem::ManuallyDrop;
    use std::task::{RawWaker, RawWakerVTable, Waker};

    use super::{Arc, Task};

    /// The waker functions.
    static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

    /// A waker owning one reference to `task`.
    pub(super) fn waker(task: Arc<Task>) -> Waker {
        let data = Arc::into_raw(task).cast::<()>();
        // SAFETY: `data` is an owned reference to a `Task` made by
        // `Arc::into_raw`, which is what every function of `VTABLE` expects.
        unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
    }

    /// Clones the waker: one more reference.
    ///
    /// # Safety
    ///
    /// `data` comes from [`waker`] and its reference is still owned.
    unsafe fn clone(data: *const ()) -> RawWaker {
        // SAFETY: per the contract, `data` is a live `Arc<Task>` pointer.
        unsafe { Arc::increment_strong_count(data.cast::<Task>()) };
        RawWaker::new(data, &VTABLE)
    }

    /// Wakes, consuming the reference.
    ///
    /// # Safety
    ///
    /// As for [`clone`]; the reference is given up.
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
        // reference owned by the waker.
        let task = ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<Task>()) });
        Task::wake_by_ref(&task);
    }

    /// Drops the waker's reference.
    ///
    /// # Safety
    ///
    /// As for [`clone`]; the reference is given up.
    unsafe fn drop_waker(data: *const ()) {
        // SAFETY: per the contract, we own this reference.
        drop(unsafe { Arc::from_raw(data.cast::<Task>()) });
    }
}
