//! Keys that cancel scheduled events.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A handle that cancels a keyed or periodic event.
///
/// Cancelling is O(1): the event stays in the queue and is skipped when its
/// time comes, or dropped earlier when the queue compacts (whenever it has
/// doubled in length). Cancelling an event that already fired, or twice,
/// does nothing. Clones cancel the same event.
#[derive(Debug, Clone)]
pub struct EventKey {
    /// Set once the event is cancelled.
    cancelled: Arc<AtomicBool>,
}

impl EventKey {
    /// A key for an event that is still to come.
    pub(crate) fn new() -> Self {
        EventKey {
            cancelled: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Cancels the event (and every later occurrence of a periodic event).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// True once [`cancel`](EventKey::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}
