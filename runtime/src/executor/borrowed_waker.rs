//! A `Waker` lent to one poll: it owns no reference to its task.
//!
//! Both executors hand `poll` a waker made over the task's own `Arc`
//! (for the single-threaded one, the task's probe; for the multi-threaded
//! one, the task) without touching its reference count: making and
//! dropping it costs two stores, where an owned waker cost two atomic
//! read-modify-writes per poll. Its clones, which a model may keep (its
//! mailbox's registered waker), own a reference each, like the wakers of
//! `std::task::Wake`. One type for both executors, so that the reasoning
//! about a waker that must never be dropped is written once.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::task::{RawWakerVTable, Waker};

/// A [`Waker`] borrowed from a task's `Arc` for `'a`; see the module docs.
pub(crate) struct BorrowedWaker<'a> {
    /// The waker; never dropped, as it owns no reference.
    waker: ManuallyDrop<Waker>,
    /// The `Arc` it borrows from.
    owner: PhantomData<&'a ()>,
}

impl<'a> BorrowedWaker<'a> {
    /// The waker with `data` and `vtable`, lent for `'a`.
    ///
    /// # Safety
    ///
    /// `data` and `vtable` make a valid waker for as long as `'a`: `data`
    /// points into an `Arc` that outlives the borrow, and `vtable`'s
    /// functions treat it so (its `clone` takes a reference of its own).
    /// The waker made here owns no reference: it is never dropped nor
    /// woken by value.
    #[inline]
    pub(crate) unsafe fn lend(data: *const (), vtable: &'static RawWakerVTable) -> Self {
        // SAFETY: per the contract, `data` and `vtable` make a valid waker
        // for `'a`; `ManuallyDrop` keeps it from giving up a reference it
        // does not own.
        let waker = unsafe { Waker::new(data, vtable) };
        BorrowedWaker {
            waker: ManuallyDrop::new(waker),
            owner: PhantomData,
        }
    }
}

impl Deref for BorrowedWaker<'_> {
    type Target = Waker;

    fn deref(&self) -> &Waker {
        &self.waker
    }
}
