//! The synchronisation primitives of the lock-free lanes, from `std` or
//! from `loom`.
//!
//! A normal build gets `std`'s; a build with `RUSTFLAGS="--cfg
//! causim_loom"` gets `loom`'s, so that the loom model of `lane.rs`
//! explores every interleaving of the code that ships.

use std::sync::PoisonError;

#[cfg(not(causim_loom))]
pub(crate) use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc, Mutex, MutexGuard,
};

#[cfg(causim_loom)]
pub(crate) use loom::sync::{
    atomic::{AtomicU64, Ordering},
    Arc, Mutex, MutexGuard,
};

/// Locks `mutex`; a panic while it was held (in a user's conversion, say)
/// leaves what it guards usable, since every writer keeps it consistent
/// between its statements.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
