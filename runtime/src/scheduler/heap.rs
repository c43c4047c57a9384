//! The heap of scheduled events: the schedule's priority queue.
//!
//! Events are ordered by [`EventOrder`]: time first, then origin (the bench
//! before the models, models in the order they were added), then the
//! origin's own scheduling sequence. Every component of the key is fixed by
//! the origin itself, never by thread timing, so the order of same-time
//! events is the same on every run and with any number of threads.
//!
//! The queue also keeps, per model origin, the fired event boxes handed
//! back under its lock, for the models' next events to reuse (see
//! [`spare`](super::spare)).
//!
//! An entry is kept small (the period of a periodic event lives in its
//! action) because the heap moves entries on every push and pop.
//!
//! Cancelling only flips the key's flag, so a cancelled event stays in the
//! heap until it reaches the top. A model that keeps arming and cancelling
//! far-future timeouts would then grow the heap without bound; instead,
//! whenever the heap has doubled since it was last compacted, the cancelled
//! entries are dropped and the heap rebuilt. Each compaction costs the
//! heap's length, after at least half that many pushes: O(1) amortised per
//! push, and the heap never holds more than twice the live events it kept
//! at its last compaction (or [`COMPACT_MIN`]). The order of events is their key, so a rebuilt
//! heap delivers them in the same order.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::key::EventKey;
use super::spare::Spares;
use crate::ports::event::Action;
use crate::time::SimTime;

/// Who scheduled an event: the bench, or model number `n` (add order).
pub(crate) type Origin = u32;

/// The origin of events scheduled from the bench.
pub(crate) const BENCH_ORIGIN: Origin = 0;

/// The deterministic order of scheduled events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct EventOrder {
    /// When the event is due.
    pub(crate) time: SimTime,
    /// Who scheduled it.
    pub(crate) origin: Origin,
    /// The origin's scheduling counter at the time.
    pub(crate) seq: u64,
}

/// A scheduled event.
pub(crate) struct Entry {
    /// Its place in the queue.
    pub(crate) order: EventOrder,
    /// What it delivers (and, for a periodic event, its period).
    pub(crate) action: Box<dyn Action>,
    /// Its cancellation key, for keyed and periodic events.
    pub(crate) key: Option<EventKey>,
}

impl Entry {
    /// True if the event was cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.key.as_ref().is_some_and(EventKey::is_cancelled)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.order == other.order
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    /// Reversed, so that `BinaryHeap` pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.order.cmp(&self.order)
    }
}

/// The heap length below which it is never compacted.
pub(crate) const COMPACT_MIN: usize = 1024;

/// A min-heap of scheduled events, with spare actions for reuse.
pub(crate) struct EventHeap {
    /// The events, earliest on top.
    heap: BinaryHeap<Entry>,
    /// The heap length at which its cancelled entries are dropped next:
    /// twice its length after the last compaction, at least
    /// [`COMPACT_MIN`].
    compact_at: usize,
    /// Fired actions for contexts that schedule under the lock.
    pub(crate) spares: Spares,
}

impl Default for EventHeap {
    fn default() -> Self {
        EventHeap {
            heap: BinaryHeap::new(),
            compact_at: COMPACT_MIN,
            spares: Spares::default(),
        }
    }
}

impl EventHeap {
    /// Adds an event.
    #[inline]
    pub(crate) fn push(&mut self, entry: Entry) {
        self.heap.push(entry);
        self.compact_if_grown();
    }

    /// Drops the cancelled entries once the heap has doubled since the
    /// last time.
    #[inline]
    fn compact_if_grown(&mut self) {
        if self.heap.len() >= self.compact_at {
            self.compact();
        }
    }

    /// Drops the cancelled entries and rebuilds the heap.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        self.heap.retain(|entry| !entry.is_cancelled());
        self.compact_at = (2 * self.heap.len()).max(COMPACT_MIN);
    }

    /// Takes every queued event out, leaving the queue empty.
    pub(crate) fn take_all(&mut self) -> BinaryHeap<Entry> {
        self.compact_at = COMPACT_MIN;
        std::mem::take(&mut self.heap)
    }

    /// The time of the earliest event, cancelled or not.
    #[inline]
    pub(crate) fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.order.time)
    }

    /// The time of the earliest event that is not cancelled, dropping the
    /// cancelled ones found on top.
    pub(crate) fn next_time(&mut self) -> Option<SimTime> {
        while let Some(top) = self.heap.peek() {
            if !top.is_cancelled() {
                return Some(top.order.time);
            }
            self.heap.pop();
        }
        None
    }

    /// If the earliest event is due no later than `limit`, moves it and
    /// every other event due at the same time into `due`, in order, and
    /// returns their time. Cancelled events are dropped on the way.
    pub(crate) fn pop_due(&mut self, limit: SimTime, due: &mut Vec<Entry>) -> Option<SimTime> {
        let time = self.next_time().filter(|&t| t <= limit)?;
        due.extend(self.heap.pop());
        while self.heap.peek().is_some_and(|e| e.order.time <= time) {
            if let Some(entry) = self.heap.pop() {
                if !entry.is_cancelled() {
                    due.push(entry);
                }
            }
        }
        Some(time)
    }

    /// Number of queued events (cancelled ones included).
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Like [`pop_due`](EventHeap::pop_due), after moving the events of
    /// `incoming` (not yet queued) to the queue, but a single incoming
    /// event earlier than every queued one — a model's next tick — goes
    /// straight to `due` without passing through the heap.
    #[inline]
    pub(crate) fn pop_due_with(
        &mut self,
        limit: SimTime,
        incoming: &mut Vec<Entry>,
        due: &mut Vec<Entry>,
    ) -> Option<SimTime> {
        if let [only] = incoming.as_slice() {
            let time = only.order.time;
            if time <= limit && self.heap.is_empty() && only.key.is_none() {
                due.extend(incoming.pop());
                return Some(time);
            }
        }
        self.merge_and_pop_due(limit, incoming, due)
    }

    /// The general case of [`pop_due_with`](EventHeap::pop_due_with).
    #[inline(never)]
    fn merge_and_pop_due(
        &mut self,
        limit: SimTime,
        incoming: &mut Vec<Entry>,
        due: &mut Vec<Entry>,
    ) -> Option<SimTime> {
        if let [only] = incoming.as_slice() {
            let time = only.order.time;
            if time <= limit && !only.is_cancelled() && self.next_time().is_none_or(|t| time < t) {
                due.extend(incoming.pop());
                return Some(time);
            }
        }
        self.heap.extend(incoming.drain(..));
        self.compact_if_grown();
        self.pop_due(limit, due)
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
