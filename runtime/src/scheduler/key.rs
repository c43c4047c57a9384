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

    /// A key whose event is already cancelled (a restored key whose event
    /// was no longer pending when the bench was saved).
    #[cfg(feature = "save")]
    pub(crate) fn cancelled() -> Self {
        EventKey {
            cancelled: Arc::new(AtomicBool::new(true)),
        }
    }

    /// What tells this key (and its clones) from every other live key.
    #[cfg(feature = "save")]
    pub(crate) fn identity(&self) -> usize {
        Arc::as_ptr(&self.cancelled) as usize
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
