//! The queue of scheduled events.
//!
//! Events are ordered by [`EventOrder`]: time first, then origin (the bench
//! before the models, models in the order they were added), then the
//! origin's own scheduling sequence. Every component of the key is fixed by
//! the origin itself, never by thread timing, so the order of same-time
//! events is the same on every run and with any number of threads.
//!
//! The events are filed by time in a radix heap ([`radix`]): simulated time
//! never goes backwards, and that lets the queue append and stream through
//! vectors where a comparison heap walked its levels at random. (The name
//! `EventHeap` stayed.)
//!
//! The queue also keeps, per model origin, the fired event boxes handed
//! back under its lock, for the models' next events to reuse (see
//! [`spare`](super::spare)).
//!
//! An entry is kept small (the period of a periodic event lives in its
//! action) because the queue moves entries as it files them again.
//!
//! Cancelling only flips the key's flag, so a cancelled event stays queued
//! until its time comes. A model that keeps arming and cancelling
//! far-future timeouts would then grow the queue without bound; instead,
//! whenever the queue has doubled since it was last compacted, the
//! cancelled entries are dropped. Each compaction costs the queue's length,
//! after at least half that many pushes: O(1) amortised per push, and the
//! queue never holds more than twice the live events it kept at its last
//! compaction, or had when a save put it back (or [`COMPACT_MIN`]).
//! Dropping entries moves no other one to another bucket, so the order of
//! the live events is unchanged. Only an event with a key can be
//! cancelled: a queue that holds none (the queue counts them, from above)
//! skips the compaction's pass.

mod radix;

#[cfg(feature = "save")]
pub(crate) use radix::RadixQueue;

use super::key::EventKey;
use super::spare::Spares;
use crate::ports::event::Action;
use crate::time::SimTime;
#[cfg(not(feature = "save"))]
use radix::RadixQueue;

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

/// The queue length below which it is never compacted (smaller under
/// Miri, so that the tests of compaction reach it in a few of Miri's slow
/// pushes; the rule and the order are the same, only the count of
/// cancelled events still queued, which `Simulation::queued_events`
/// includes, differs).
pub(crate) const COMPACT_MIN: usize = if cfg!(miri) { 64 } else { 1024 };

/// Incoming buffers larger than this (in entries) are freed once their
/// events are queued, instead of kept for the next step.
const KEEP_INCOMING: usize = 4096;

/// The queue of scheduled events, with spare actions for reuse.
pub(crate) struct EventHeap {
    /// The events, by time (see [`radix`]).
    queue: RadixQueue,
    /// The queue length at which its cancelled entries are dropped next:
    /// twice its length after the last compaction, at least
    /// [`COMPACT_MIN`].
    compact_at: usize,
    /// The keyed entries queued since the last compaction, and those it
    /// kept: at least the number of queued entries that can be cancelled.
    /// None can when it is 0, and a compaction then skips its pass.
    keyed: usize,
    /// Fired actions for contexts that schedule under the lock.
    pub(crate) spares: Spares,
    /// The passes of compaction over the queue (for the tests).
    #[cfg(all(test, not(causim_loom)))]
    compactions: usize,
}

impl Default for EventHeap {
    fn default() -> Self {
        EventHeap {
            queue: RadixQueue::default(),
            compact_at: COMPACT_MIN,
            keyed: 0,
            spares: Spares::default(),
            #[cfg(all(test, not(causim_loom)))]
            compactions: 0,
        }
    }
}

impl EventHeap {
    /// Adds an event.
    #[inline]
    pub(crate) fn push(&mut self, entry: Entry) {
        self.queue_entry(entry);
        self.compact_if_grown();
    }

    /// Adds an event, counting it if it has a key.
    #[inline]
    fn queue_entry(&mut self, entry: Entry) {
        self.keyed += usize::from(entry.key.is_some());
        self.queue.push(entry);
    }

    /// Drops the cancelled entries once the queue has doubled since the
    /// last time.
    #[inline]
    fn compact_if_grown(&mut self) {
        if self.queue.len() >= self.compact_at {
            self.compact();
        }
    }

    /// Drops the cancelled entries.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        if self.keyed > 0 {
            let mut keyed = 0;
            self.queue.retain(|entry| {
                let keep = !entry.is_cancelled();
                keyed += usize::from(keep && entry.key.is_some());
                keep
            });
            self.keyed = keyed;
            #[cfg(all(test, not(causim_loom)))]
            {
                self.compactions += 1;
            }
        }
        self.compact_at = (2 * self.queue.len()).max(COMPACT_MIN);
    }

    /// Takes every queued event out, leaving the queue empty.
    pub(crate) fn take_all(&mut self) -> RadixQueue {
        self.compact_at = COMPACT_MIN;
        self.keyed = 0;
        std::mem::take(&mut self.queue)
    }

    /// Queues again the events [`take_all`](EventHeap::take_all) took (or
    /// a restore's), `live` of which are not cancelled, with those queued
    /// since. The taken queue is kept whole (a save reads it in place, and
    /// leaves its cancelled events in it): the next compaction comes once
    /// the queue holds twice its live events, as if it had just run.
    #[cfg(feature = "save")]
    pub(crate) fn put_back_all(&mut self, mut queue: RadixQueue, live: usize) {
        let live = live + self.queue.len();
        queue.append(std::mem::take(&mut self.queue));
        self.queue = queue;
        self.compact_at = (2 * live).max(COMPACT_MIN);
        // Not counted: every entry may have a key.
        self.keyed = self.queue.len();
    }

    /// The time of the earliest event, cancelled or not.
    #[inline]
    pub(crate) fn peek_time(&self) -> Option<SimTime> {
        self.queue.peek_time().map(SimTime::from_nanos)
    }

    /// The time of the earliest event that is not cancelled, dropping
    /// cancelled ones on the way.
    pub(crate) fn next_time(&mut self) -> Option<SimTime> {
        self.queue.next_live_time().map(SimTime::from_nanos)
    }

    /// If the earliest event is due no later than `limit`, moves it and
    /// every other event due at the same time into `due`, in order, and
    /// returns their time. Cancelled events are dropped on the way.
    #[inline]
    pub(crate) fn pop_due(&mut self, limit: SimTime, due: &mut Vec<Entry>) -> Option<SimTime> {
        self.queue
            .pop_due(limit.as_nanos(), due)
            .map(SimTime::from_nanos)
    }

    /// Number of queued events (cancelled ones included).
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Like [`pop_due`](EventHeap::pop_due), after moving the events of
    /// `incoming` (not yet queued) to the queue, but a single incoming
    /// event earlier than every queued one — a model's next tick — goes
    /// straight to `due` without passing through the queue.
    #[inline]
    pub(crate) fn pop_due_with(
        &mut self,
        limit: SimTime,
        incoming: &mut Vec<Entry>,
        due: &mut Vec<Entry>,
    ) -> Option<SimTime> {
        if let [only] = incoming.as_slice() {
            let time = only.order.time;
            if time <= limit && self.queue.len() == 0 && only.key.is_none() {
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
            // Earlier than every queued event, cancelled ones included.
            if time <= limit && !only.is_cancelled() && self.peek_time().is_none_or(|t| time < t) {
                due.extend(incoming.pop());
                return Some(time);
            }
        }
        // Popped, not drained (cheaper; the order of pushes does not
        // matter).
        while let Some(entry) = incoming.pop() {
            self.queue_entry(entry);
        }
        if incoming.capacity() > KEEP_INCOMING {
            *incoming = Vec::new();
        }
        self.compact_if_grown();
        self.pop_due(limit, due)
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
