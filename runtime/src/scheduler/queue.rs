//! The priority queue of scheduled events.
//!
//! Events are ordered by [`EventOrder`]: time first, then origin (the bench
//! before the models, models in the order they were added), then the
//! origin's own scheduling sequence. Every component of the key is fixed by
//! the origin itself, never by thread timing, so the order of same-time
//! events is the same on every run and with any number of threads.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::Duration;

use super::action::Action;
use super::key::EventKey;
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
    /// What it delivers.
    pub(crate) action: Box<dyn Action>,
    /// Its cancellation key, for keyed and periodic events.
    pub(crate) key: Option<EventKey>,
    /// Its period, for periodic events.
    pub(crate) period: Option<Duration>,
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

/// A min-queue of scheduled events.
#[derive(Default)]
pub(crate) struct EventQueue {
    /// The events, earliest on top.
    heap: BinaryHeap<Entry>,
}

impl EventQueue {
    /// Adds an event.
    pub(crate) fn push(&mut self, entry: Entry) {
        self.heap.push(entry);
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

    /// Moves every event due at `time` into `due`, in order.
    pub(crate) fn pop_due(&mut self, time: SimTime, due: &mut Vec<Entry>) {
        while self.heap.peek().is_some_and(|e| e.order.time <= time) {
            if let Some(entry) = self.heap.pop() {
                if !entry.is_cancelled() {
                    due.push(entry);
                }
            }
        }
    }

    /// Number of queued events (cancelled ones included).
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}
