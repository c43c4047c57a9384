//! Messages the bench delivers beyond a mailbox's capacity.
//!
//! The same-time rule (docs/guide.md, "Events at the same time"): every
//! event due at a time, and every event the bench processes now, is in its
//! mailbox before any model runs at that time, so a message a model causes
//! at that time comes after all of them. A bounded ring cannot keep that
//! promise alone: twenty events due at once for a mailbox of four slots do
//! not fit, and making the bench wait for room would run the models first,
//! whose messages could then slip in ahead of the remaining events.
//!
//! So the bench never waits. Its deliveries (the scheduled events it fires
//! and the events it processes now) push through their own entry,
//! `Channel::push_from_bench`: a message that finds the ring full goes to
//! the mailbox's *overflow*, an unbounded FIFO behind the ring, and the queue
//! is *held*: every other producer's claim fails as if the mailbox were
//! full, and it waits. The consumer takes the ring first (its messages
//! are older), then the overflow; when the overflow is empty it releases
//! the queue and wakes the waiting producers. Sends between models never
//! overflow: their back-pressure is unchanged, and a mailbox's capacity
//! bounds what models queue, not what the bench schedules (which the
//! event list held anyway).
//!
//! The overflow is allocated by the first delivery that needs it: a
//! mailbox that never overflows holds one null pointer.

use std::collections::VecDeque;

use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::{lock, LazyBox, Mutex};

/// The messages past a mailbox's ring, oldest first.
#[derive(Debug)]
pub(crate) struct Overflow<T> {
    /// Allocated by the first message that overflows.
    spilled: LazyBox<Spilled<T>>,
}

/// The overflow of a mailbox that has overflowed at least once.
#[derive(Debug)]
struct Spilled<T> {
    /// Number of messages, readable without the lock.
    count: AtomicUsize,
    /// The messages, oldest first.
    messages: Mutex<VecDeque<T>>,
}

impl<T> Default for Spilled<T> {
    fn default() -> Self {
        Spilled {
            count: AtomicUsize::new(0),
            messages: Mutex::new(VecDeque::new()),
        }
    }
}

impl<T> Overflow<T> {
    /// An empty overflow, with nothing allocated.
    pub(crate) fn new() -> Self {
        Overflow {
            spilled: LazyBox::new(),
        }
    }

    /// Appends `message`; `hold` runs under the overflow's lock, before the
    /// message is visible, so that the consumer cannot release the queue
    /// between the two.
    pub(crate) fn push(&self, message: T, hold: impl FnOnce()) {
        let spilled = self.spilled.get_or_default();
        let mut messages = lock(&spilled.messages);
        hold();
        messages.push_back(message);
        spilled.count.store(messages.len(), Ordering::Release);
    }

    /// Takes the oldest message; when that empties the overflow, `release`
    /// runs under its lock (a push cannot come between the two).
    ///
    /// The consumer calls this when its ring is empty: one load of a null
    /// pointer for a mailbox that never overflowed.
    #[inline]
    pub(crate) fn pop(&self, release: impl FnOnce()) -> Option<T> {
        let spilled = self.spilled.get()?;
        if spilled.count.load(Ordering::Acquire) == 0 {
            return None;
        }
        Self::pop_spilled(spilled, release)
    }

    /// The locked part of [`pop`](Overflow::pop).
    #[cold]
    fn pop_spilled(spilled: &Spilled<T>, release: impl FnOnce()) -> Option<T> {
        let mut messages = lock(&spilled.messages);
        let message = messages.pop_front();
        spilled.count.store(messages.len(), Ordering::Release);
        if messages.is_empty() {
            release();
        }
        message
    }

    /// Number of messages waiting here.
    pub(crate) fn len(&self) -> usize {
        self.spilled
            .get()
            .map_or(0, |s| s.count.load(Ordering::Acquire))
    }

    /// Drops every message (the model is gone).
    pub(crate) fn clear(&self) {
        if let Some(spilled) = self.spilled.get() {
            let dropped = {
                let mut messages = lock(&spilled.messages);
                spilled.count.store(0, Ordering::Release);
                std::mem::take(&mut *messages)
            };
            // Outside the lock: a message's destructor may send.
            drop(dropped);
        }
    }
}

#[cfg(all(test, causim_loom))]
mod loom_tests;

#[cfg(all(test, not(causim_loom)))]
mod tests;
