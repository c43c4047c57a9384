//! Counting delivered events without sharing a cache line per event.
//!
//! Each model (or task) counts in a plain field and adds its count to the
//! run's shared total once, when it is dropped — which every engine does
//! when its simulation or runtime is dropped. The hot path stays a local
//! increment on every engine, and the total is still checked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A model's local count, flushed into the shared total on drop.
#[derive(Debug, Default)]
pub struct Tally {
    local: u64,
    total: Arc<AtomicU64>,
}

impl Tally {
    /// A zero count feeding `total`.
    pub fn new(total: &Arc<AtomicU64>) -> Self {
        Tally {
            local: 0,
            total: total.clone(),
        }
    }

    /// Counts one event.
    #[inline]
    pub fn bump(&mut self) {
        self.local += 1;
    }

    /// Events counted so far by this model.
    pub fn local(&self) -> u64 {
        self.local
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        self.total.fetch_add(self.local, Ordering::Relaxed);
    }
}

/// The shared total of a run.
pub fn total() -> Arc<AtomicU64> {
    Arc::new(AtomicU64::new(0))
}

/// Reads the total once every tally is dropped.
pub fn read(total: &Arc<AtomicU64>) -> u64 {
    total.load(Ordering::Relaxed)
}
