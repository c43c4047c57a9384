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
//! is *held*: every other producer's claim fails, so that no message gets
//! ahead of the bench's. A model's message then goes behind them in the
//! overflow, as long as the messages in the ring (whoever sent them) and
//! the models' messages in the overflow stay within the capacity; past
//! that the model waits, as for a full mailbox. The consumer takes the ring first (its messages are
//! older), then the overflow; when the overflow is empty it releases the
//! queue. Back-pressure between models is unchanged (a mailbox's capacity
//! bounds what models queue, not what the bench schedules, which the
//! event list held anyway), and a model can still send to a mailbox it
//! must itself drain: had it to wait for the hold to end, it would wait
//! for itself.
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
    messages: Mutex<Messages<T>>,
}

/// The messages of an overflow.
#[derive(Debug)]
struct Messages<T> {
    /// Oldest first, each with whether a model sent it (else the bench).
    queue: VecDeque<(T, bool)>,
    /// How many of them models sent.
    from_models: usize,
}

impl<T> Default for Spilled<T> {
    fn default() -> Self {
        Spilled {
            count: AtomicUsize::new(0),
            messages: Mutex::new(Messages {
                queue: VecDeque::new(),
                from_models: 0,
            }),
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
        messages.queue.push_back((message, false));
        spilled.count.store(messages.queue.len(), Ordering::Release);
    }

    /// Appends a model's message `make(arg)` behind the others, if the
    /// overflow still holds messages (the queue is still held: the hold is
    /// lifted under this lock when it empties) and `has_room(n)` with the
    /// `n` messages of models already here; else hands `arg` and `make`
    /// back. `make` runs under the lock (it builds the message and runs a
    /// connection's mapping closure, which cannot reach this mailbox).
    pub(crate) fn push_from_model<A, F: FnOnce(A) -> Option<T>>(
        &self,
        arg: A,
        make: F,
        has_room: impl FnOnce(usize) -> bool,
    ) -> Result<(), (A, F)> {
        let Some(spilled) = self.spilled.get() else {
            return Err((arg, make));
        };
        let mut messages = lock(&spilled.messages);
        if messages.queue.is_empty() || !has_room(messages.from_models) {
            return Err((arg, make));
        }
        if let Some(message) = make(arg) {
            messages.queue.push_back((message, true));
            messages.from_models += 1;
            spilled.count.store(messages.queue.len(), Ordering::Release);
        }
        Ok(())
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
        let (message, from_model) = messages.queue.pop_front()?;
        if from_model {
            messages.from_models -= 1;
        }
        spilled.count.store(messages.queue.len(), Ordering::Release);
        if messages.queue.is_empty() {
            release();
        }
        Some(message)
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
                messages.from_models = 0;
                std::mem::take(&mut messages.queue)
            };
            // Outside the lock: a message's destructor may send.
            drop(dropped);
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
