//! A value that counts its drops: how the staging tests see when a
//! delivery, or a connection kept for one, goes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Adds one to its counter when dropped.
pub(crate) struct DropCount(pub(crate) Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}
