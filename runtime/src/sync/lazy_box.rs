//! A box allocated by its first user, for state that most instances never
//! need.
//!
//! A bench can hold a million mailboxes, nearly all of which never overflow
//! or make a producer wait. What only those few need lives behind one
//! pointer, null until the first use installs a default value with a
//! compare-and-swap; it is freed with its owner. Readers on the hot path
//! pay one load of the pointer.

use std::ptr;

use crate::sync::atomic::{AtomicPtr, Ordering};

/// A `Box<T>` allocated on first use, then kept for the owner's life.
#[derive(Debug)]
pub(crate) struct LazyBox<T> {
    /// A leaked `Box<T>`, or null until the first use.
    value: AtomicPtr<T>,
}

// SAFETY: `LazyBox` owns the `T` behind its pointer (freed only in `drop`,
// with `&mut self`) and hands out shared references to it only: it is
// `Send` and `Sync` when `T` is both, like `Box<T>` shared by reference.
unsafe impl<T: Send + Sync> Send for LazyBox<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for LazyBox<T> {}

impl<T> LazyBox<T> {
    /// Nothing allocated yet.
    pub(crate) fn new() -> Self {
        LazyBox {
            value: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// The value, if it was ever allocated.
    #[inline]
    pub(crate) fn get(&self) -> Option<&T> {
        let value = self.value.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was installed by `get_or_default`
        // from a leaked `Box<T>` (the Acquire load pairs with its Release
        // exchange, so the value is initialised), and it is freed only in
        // `drop`, which has `&mut self`.
        (!value.is_null()).then(|| unsafe { &*value })
    }
}

impl<T: Default> LazyBox<T> {
    /// The value, allocated with its default by the first caller.
    pub(crate) fn get_or_default(&self) -> &T {
        if let Some(value) = self.get() {
            return value;
        }
        self.install()
    }

    /// Allocates a default value and installs it, unless another thread
    /// did first; returns the installed one.
    #[cold]
    fn install(&self) -> &T {
        let fresh = Box::into_raw(Box::<T>::default());
        match self.value.compare_exchange(
            ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: we just installed `fresh`, a leaked box freed only in
            // `drop` (`&mut self`).
            Ok(_) => unsafe { &*fresh },
            Err(installed) => {
                // SAFETY: `fresh` lost the race and was never shared: it is
                // still ours to free.
                drop(unsafe { Box::from_raw(fresh) });
                // SAFETY: `installed` is the winner's leaked box (see
                // `get`), initialised before its Release exchange.
                unsafe { &*installed }
            }
        }
    }
}

impl<T> Drop for LazyBox<T> {
    fn drop(&mut self) {
        let value = self.value.load(Ordering::Relaxed);
        if !value.is_null() {
            // SAFETY: a leaked `Box<T>` installed by `install`; `&mut self`
            // means nobody can reach it any more.
            drop(unsafe { Box::from_raw(value) });
        }
    }
}
