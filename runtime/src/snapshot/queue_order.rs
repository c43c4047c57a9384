//! The pending events in queue order, for a save.
//!
//! A snapshot lists the pending events in the order the event list would
//! take them, `(time, origin, seq)`, so that the same bench saves the same
//! bytes whatever its queue's layout. The event list's buckets hold
//! ever later times, each in no order: a save lists each bucket's events
//! that are not cancelled as [`Placed`] items (24 bytes: the key and where
//! the entry is) and sorts those, bucket by bucket, leaving the event list
//! as it was.
//!
//! The entries were once sorted where they lie, 48 bytes moved per swap,
//! with a bucket's blocks gathered into one list first (fresh memory) and
//! the cancelled events dropped by a pass of their own: most of a save of
//! many events (docs/benchmarks.md, "Measurements behind code
//! decisions"). The save now reads each entry out of order, twice (to
//! number its key, then to save it), each time a few events after starting
//! to load it (see `pending.rs`). When every sequence number fits
//! in 32 bits (always, but after four billion events scheduled by one
//! model) the origin and sequence number pack into one word, and the key
//! into one `u128`, compared in two instructions instead of three fields
//! one after the other.

use crate::scheduler::heap::{Entry, EventOrder};

/// A pending event, as a save sorts it.
#[derive(Clone, Copy)]
pub(super) struct Placed<'q> {
    /// When it is due, in nanoseconds.
    pub(super) time: u64,
    /// Its origin and sequence number packed (see [`pack`]), if the list
    /// it is in is packed.
    then: u64,
    /// The event.
    pub(super) entry: &'q Entry,
}

/// The events of a save that are not cancelled, in queue order.
#[derive(Default)]
pub(super) struct InQueueOrder<'q> {
    /// The events.
    pub(super) placed: Vec<Placed<'q>>,
    /// Whether every event's origin and sequence number are packed in
    /// [`Placed::then`].
    packed: bool,
}

impl<'q> InQueueOrder<'q> {
    /// Lists the events of `buckets` that are not cancelled, in queue
    /// order, the buckets holding ever later times, each in no order;
    /// `len` is about how many there are.
    pub(super) fn list<B>(buckets: impl Iterator<Item = B>, len: usize) -> Self
    where
        B: Iterator<Item = &'q Entry>,
    {
        let mut placed = Vec::with_capacity(len);
        let mut packed = true;
        for bucket in buckets {
            let start = placed.len();
            placed.extend(bucket.filter(|entry| !entry.is_cancelled()).map(|entry| {
                packed &= packable(&entry.order);
                Placed {
                    time: entry.order.time.as_nanos(),
                    then: pack(&entry.order),
                    entry,
                }
            }));
            let bucket = &mut placed[start..];
            if packed {
                bucket.sort_unstable_by_key(|p| packed_key(p.time, p.then));
            } else {
                bucket.sort_unstable_by_key(|p| p.entry.order);
            }
        }
        // A bucket sorted by its packed keys before one that was not is
        // in order too; only the packed fields are no longer all there.
        InQueueOrder { placed, packed }
    }

    /// The origin and sequence number of event `i`, read where the entry
    /// is only if they are not packed.
    #[inline]
    pub(super) fn origin_and_seq(&self, i: usize) -> (u32, u64) {
        let placed = &self.placed[i];
        if self.packed {
            (
                (placed.then >> 32) as u32,
                placed.then & u64::from(u32::MAX),
            )
        } else {
            (placed.entry.order.origin, placed.entry.order.seq)
        }
    }
}

/// The key of an event due at `time` whose origin and sequence number
/// pack into `then`, as one number that sorts as the key does.
#[inline]
fn packed_key(time: u64, then: u64) -> u128 {
    (u128::from(time) << 64) | u128::from(then)
}

/// Whether `order` packs into one word that sorts as it does.
fn packable(order: &EventOrder) -> bool {
    order.seq <= u64::from(u32::MAX)
}

/// The origin and sequence number of `order` as one number that sorts as
/// they do, if [`packable`].
fn pack(order: &EventOrder) -> u64 {
    (u64::from(order.origin) << 32) | (order.seq & u64::from(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::BenchId;
    use crate::poll_report::Misaddressed;
    use crate::ports::event::Action;
    use crate::scheduler::EventKey;
    use crate::time::SimTime;

    /// An action that does nothing.
    struct Idle;

    impl Action for Idle {
        fn fire(&mut self) {}

        fn misaddressed(&self, _bench: BenchId) -> Option<Misaddressed> {
            None
        }
    }

    fn entry(time: u64, origin: u32, seq: u64, key: Option<EventKey>) -> Entry {
        let time = SimTime::from_nanos(time);
        let order = EventOrder { time, origin, seq };
        let action = Box::new(Idle);
        Entry { order, action, key }
    }

    /// Buckets of ever later times, each shuffled, at both ends of each
    /// field's range; every fourth event keyed, every third of those
    /// cancelled; sequence numbers past 32 bits from bucket `big_from` on.
    fn buckets(big_from: usize) -> Vec<Vec<Entry>> {
        let times: [&[u64]; 4] = [&[0], &[1, 7], &[8, 9, 15], &[1 << 40, u64::MAX]];
        let mut made = 0u64;
        let mut buckets = Vec::new();
        for (index, times) in times.iter().enumerate() {
            // 2³² packs as 0 if wrongly packed: it would sort first.
            let seqs: &[u64] = if index >= big_from {
                &[0, 5, 1 << 32, u64::MAX]
            } else {
                &[0, 5, u32::MAX as u64]
            };
            let mut bucket = Vec::new();
            for &time in *times {
                for origin in [0, 3, u32::MAX] {
                    for &seq in seqs {
                        made += 1;
                        let key = made.is_multiple_of(4).then(EventKey::new);
                        if made.is_multiple_of(12) {
                            key.as_ref().map(EventKey::cancel);
                        }
                        bucket.push(entry(time, origin, seq, key));
                    }
                }
            }
            // Shuffled by a stride prime to the length.
            let len = bucket.len();
            let mut slots: Vec<Option<Entry>> = bucket.into_iter().map(Some).collect();
            let shuffled = (0..len).map(|i| slots[i * 7 % len].take().expect("once"));
            buckets.push(shuffled.collect());
        }
        buckets
    }

    #[test]
    fn events_are_listed_in_queue_order_without_the_cancelled_packed_or_not() {
        for big_from in [0, 2, 4] {
            let buckets = buckets(big_from);
            let listed = InQueueOrder::list(buckets.iter().map(|b| b.iter()), 0);
            assert_eq!(listed.packed, big_from == 4, "big from {big_from}");
            let read: Vec<EventOrder> = listed.placed.iter().map(|p| p.entry.order).collect();
            let mut expected: Vec<EventOrder> = buckets
                .iter()
                .flatten()
                .filter(|entry| !entry.is_cancelled())
                .map(|entry| entry.order)
                .collect();
            expected.sort();
            assert_eq!(read, expected, "big from {big_from}");
            for (i, placed) in listed.placed.iter().enumerate() {
                let order = placed.entry.order;
                assert_eq!(placed.time, order.time.as_nanos());
                assert_eq!(listed.origin_and_seq(i), (order.origin, order.seq));
            }
        }
    }

    #[test]
    fn packed_keys_sort_as_the_orders_do() {
        let buckets = buckets(4);
        let all: Vec<&Entry> = buckets.iter().flatten().collect();
        let key = |e: &Entry| packed_key(e.order.time.as_nanos(), pack(&e.order));
        for a in &all {
            for b in &all {
                assert_eq!(key(a).cmp(&key(b)), a.order.cmp(&b.order));
            }
        }
    }
}
