//! The synchronisation primitives of the concurrent parts, from `std` or
//! from `loom`.
//!
//! The mailbox queue and the multi-threaded executor name their atomics,
//! cells, locks and thread operations through this module only. A normal
//! build gets `std`'s; a build with `RUSTFLAGS="--cfg causim_loom"` gets
//! `loom`'s, so that the loom tests explore every interleaving of exactly
//! the code that ships.
//!
//! `Arc` is here too, for what the executor shares between threads: loom
//! must see the reference counts to know when a drop is synchronised.
//! Under loom, `st3`'s queues and `diatomic-waker` are replaced by
//! instrumented stand-ins (see `stand_in`), so that loom sees every
//! hand-over between threads.

#[cfg(causim_loom)]
mod stand_in;

#[cfg(not(causim_loom))]
pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

#[cfg(causim_loom)]
pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

#[cfg(not(causim_loom))]
pub(crate) use diatomic_waker::DiatomicWaker;

#[cfg(causim_loom)]
pub(crate) use stand_in::DiatomicWaker;

/// The work-stealing run queues of the multi-threaded executor.
pub(crate) mod work_queue {
    #[cfg(not(causim_loom))]
    pub(crate) use st3::fifo::{Stealer, Worker};
    #[cfg(not(causim_loom))]
    pub(crate) use st3::StealError;

    #[cfg(causim_loom)]
    pub(crate) use super::stand_in::{StealError, Stealer, Worker};
}

/// Atomic types and fences.
pub(crate) mod atomic {
    #[cfg(not(causim_loom))]
    pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicU8, AtomicUsize, Ordering};

    #[cfg(causim_loom)]
    pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicU8, AtomicUsize, Ordering};
}

/// Thread handles, parking and spawning.
pub(crate) mod thread {
    #[cfg(not(causim_loom))]
    pub(crate) use std::thread::{current, park, yield_now, JoinHandle, Thread};

    #[cfg(causim_loom)]
    pub(crate) use loom::thread::{current, park, yield_now, JoinHandle, Thread};

    /// Parks the current thread until unparked or `timeout` passes
    /// (spurious returns are allowed, as with `std::thread::park`).
    #[cfg(not(causim_loom))]
    pub(crate) fn park_timeout(timeout: std::time::Duration) {
        std::thread::park_timeout(timeout);
    }

    /// Loom has no clock: parking with a timeout is plain parking.
    #[cfg(causim_loom)]
    pub(crate) fn park_timeout(_timeout: std::time::Duration) {
        loom::thread::park();
    }

    /// Spawns a named thread.
    #[cfg(not(causim_loom))]
    pub(crate) fn spawn_named<F>(name: String, f: F) -> std::io::Result<JoinHandle<()>>
    where
        F: FnOnce() + Send + 'static,
    {
        std::thread::Builder::new().name(name).spawn(f)
    }

    /// Spawns a (named) loom thread.
    #[cfg(causim_loom)]
    pub(crate) fn spawn_named<F>(name: String, f: F) -> std::io::Result<JoinHandle<()>>
    where
        F: FnOnce() + Send + 'static,
    {
        loom::thread::Builder::new().name(name).spawn(f)
    }
}

/// A cell whose accesses loom can check.
pub(crate) mod cell {
    #[cfg(causim_loom)]
    pub(crate) use loom::cell::UnsafeCell;

    /// `std`'s `UnsafeCell` with loom's closure-based access API.
    #[cfg(not(causim_loom))]
    #[derive(Debug)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    #[cfg(not(causim_loom))]
    impl<T> UnsafeCell<T> {
        /// A cell holding `data`.
        pub(crate) const fn new(data: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(data))
        }

        /// Runs `f` with a shared pointer to the contents.
        #[inline(always)]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Runs `f` with an exclusive pointer to the contents.
        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

/// Locks `mutex`, ignoring poisoning: every critical section in this crate
/// leaves its data consistent even if a panic unwinds through it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
