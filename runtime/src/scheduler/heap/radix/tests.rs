//! The radix queue against a sorted list, on random schedules.

use super::*;
use crate::scheduler::heap::{EventOrder, Origin};
use crate::scheduler::key::EventKey;
use crate::scheduler::tests::tagged::{tag, Tagged};
use crate::time::SimTime;

/// A small xorshift generator: the schedules are random but repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An entry at `time` ns, tagged with its sequence number.
fn entry(time: u64, origin: Origin, seq: u64, key: Option<EventKey>) -> Entry {
    Entry {
        order: EventOrder {
            time: SimTime::from_nanos(time),
            origin,
            seq,
        },
        action: Box::new(Tagged(seq as u32)),
        key,
    }
}

/// Runs a random schedule: events pushed after the time of the last step
/// (near, far, or at the same times as others), some cancelled, popped with
/// random limits; every step must match the reference, a sorted list.
fn random_schedule(seed: u64, spread: u64) {
    let mut rng = Rng(seed);
    let mut queue = RadixQueue::default();
    let mut reference: Vec<(EventOrder, Option<EventKey>)> = Vec::new();
    let mut now = 0;
    let mut due = Vec::new();
    let rounds = 3_000;
    for seq in 0..rounds {
        // A few pushes, a pop.
        for push in 0..rng.below(4) {
            let time = now + 1 + rng.below(spread);
            let origin = rng.below(3) as Origin;
            let seq = seq * 4 + push;
            let key = (rng.below(4) == 0).then(EventKey::new);
            queue.push(entry(time, origin, seq, key.clone()));
            let order = EventOrder {
                time: SimTime::from_nanos(time),
                origin,
                seq,
            };
            reference.push((order, key));
        }
        if let Some((_, Some(key))) = reference.get(rng.below(8) as usize) {
            key.cancel();
        }
        reference.retain(|(_, key)| !key.as_ref().is_some_and(EventKey::is_cancelled));
        reference.sort_by_key(|(order, _)| *order);
        let limit = now.saturating_add(rng.below(2 * spread));
        let expected_time = reference
            .first()
            .map(|(order, _)| order.time.as_nanos())
            .filter(|&time| time <= limit);
        assert_eq!(queue.peek_time().is_some(), queue.len() > 0);
        let time = queue.pop_due(limit, &mut due);
        assert_eq!(time, expected_time);
        let Some(time) = time else {
            assert!(due.is_empty());
            continue;
        };
        let count = reference
            .iter()
            .take_while(|(order, _)| order.time.as_nanos() == time)
            .count();
        let expected: Vec<u32> = reference
            .drain(..count)
            .map(|(order, _)| order.seq as u32)
            .collect();
        let got: Vec<u32> = due.drain(..).map(|mut e| tag(&mut e.action)).collect();
        assert_eq!(got, expected);
        now = time;
    }
}

#[test]
fn pops_in_key_order_with_near_times() {
    // Many same-time events.
    random_schedule(1, 8);
}

#[test]
fn pops_in_key_order_with_spread_times() {
    random_schedule(2, 1 << 40);
}

#[test]
fn pops_in_key_order_with_mixed_times() {
    random_schedule(3, 1 << 12);
    random_schedule(4, 1 << 50);
}

#[test]
fn an_event_before_the_base_still_comes_first() {
    let mut queue = RadixQueue::default();
    let mut due = Vec::new();
    queue.push(entry(100, 1, 0, None));
    queue.push(entry(1_000, 1, 1, None));
    assert_eq!(queue.pop_due(u64::MAX, &mut due), Some(100));
    due.clear();
    // Only a hand-made queue can go back before the last step.
    queue.push(entry(50, 1, 2, None));
    assert_eq!(queue.peek_time(), Some(50));
    assert_eq!(queue.pop_due(u64::MAX, &mut due), Some(50));
    due.clear();
    assert_eq!(queue.pop_due(u64::MAX, &mut due), Some(1_000));
    assert_eq!(queue.len(), 0);
}

#[test]
fn the_next_live_time_skips_cancelled_events() {
    let mut queue = RadixQueue::default();
    let key = EventKey::new();
    queue.push(entry(10, 1, 0, Some(key.clone())));
    queue.push(entry(20, 1, 1, None));
    key.cancel();
    assert_eq!(queue.peek_time(), Some(10), "cancelled, still counted");
    assert_eq!(queue.next_live_time(), Some(20));
    assert_eq!(queue.len(), 1);
}

/// Pops every event of `queue`, in batches of the events due at one time.
fn pop_all(queue: &mut RadixQueue) -> Vec<EventOrder> {
    let mut due = Vec::new();
    let mut popped = Vec::new();
    while queue.pop_due(u64::MAX, &mut due).is_some() {
        popped.extend(due.drain(..).map(|e| e.order));
    }
    popped
}

/// `count` events at random times in `from..from + spread`, a third of
/// them keyed; with their orders and keys.
fn random_events(rng: &mut Rng, count: u64, from: u64, spread: u64) -> Vec<(Entry, EventOrder)> {
    (0..count)
        .map(|seq| {
            let time = from + rng.below(spread);
            let key = (rng.below(3) == 0).then(EventKey::new);
            let entry = entry(time, rng.below(3) as Origin, seq, key);
            let order = entry.order;
            (entry, order)
        })
        .collect()
}

#[test]
fn buckets_of_many_blocks_pop_in_key_order() {
    let count = 20_000;
    for (seed, spread) in [(11, 64), (12, 1 << 20), (13, 1 << 44)] {
        let mut rng = Rng(seed);
        let mut queue = RadixQueue::default();
        let mut live = Vec::new();
        for (entry, order) in random_events(&mut rng, count, 1_000, spread) {
            // Half the keyed events cancelled: dropped as the queue looks
            // for its next live time, or by the `retain` below.
            if entry.key.as_ref().is_some_and(|_| rng.below(2) == 0) {
                entry.key.as_ref().map(EventKey::cancel);
            } else {
                live.push(order);
            }
            queue.push(entry);
        }
        assert!(
            queue.blocks_made > 0,
            "seed {seed}: no bucket filled a block"
        );
        let next = queue.next_live_time();
        let earliest = live.iter().map(|order| order.time.as_nanos()).min();
        assert_eq!(next, earliest, "seed {seed}: next live time");
        // Whole blocks emptied too: every event of a range of times.
        let gap = 1_000 + spread / 4..1_000 + spread / 2;
        let kept = |order: &EventOrder| {
            !order.seq.is_multiple_of(7) && !gap.contains(&order.time.as_nanos())
        };
        queue.retain(|entry| kept(&entry.order) && !entry.is_cancelled());
        let mut expected: Vec<EventOrder> = live.into_iter().filter(kept).collect();
        expected.sort();
        assert_eq!(queue.len(), expected.len(), "seed {seed}: events kept");
        // The earliest events popped, which moves the base to their time;
        // then an event before it refiles the whole queue, blocks and all.
        let first = expected[0].time.as_nanos();
        let mut due = Vec::new();
        assert_eq!(queue.pop_due(first, &mut due), Some(first));
        let taken = due.len();
        let popped: Vec<EventOrder> = due.iter().map(|e| e.order).collect();
        assert_eq!(popped[..], expected[..taken], "seed {seed}: first events");
        assert!((0..BUCKETS).any(|bucket| queue.is_spilled(bucket)));
        let made = queue.blocks_made;
        queue.push(entry(first - 1, 0, u64::MAX, None));
        // The refile reuses the blocks it empties: none made.
        assert_eq!(queue.blocks_made, made, "seed {seed}: blocks made");
        let popped = pop_all(&mut queue);
        assert_eq!(popped[0].time.as_nanos(), first - 1);
        assert_eq!(
            popped[1..],
            expected[taken..],
            "seed {seed}: popped in key order"
        );
    }
}

#[test]
fn more_same_time_events_than_a_block_come_in_key_order() {
    let count = 5 * BLOCK as u64;
    let mut rng = Rng(21);
    let mut queue = RadixQueue::default();
    let mut expected = Vec::new();
    for seq in (0..count).rev() {
        let entry = entry(100, rng.below(4) as Origin, seq, None);
        expected.push(entry.order);
        queue.push(entry);
    }
    // They fill several blocks of one bucket, then a split files them all
    // in bucket 0.
    queue.push(entry(1 << 30, 0, 0, None));
    let mut due = Vec::new();
    assert_eq!(queue.pop_due(u64::MAX, &mut due), Some(100));
    expected.sort();
    let popped: Vec<EventOrder> = due.iter().map(|e| e.order).collect();
    assert_eq!(popped, expected);
}

/// The time of the events of [`same_time_set`].
const SAME_TIME: u64 = 1 << 20;

/// `count` events at one time, filed in key order (as periodic events put
/// back are), over several blocks of one bucket.
fn same_time_set(count: u64) -> RadixQueue {
    let mut queue = RadixQueue::default();
    for seq in 0..count {
        queue.push(entry(SAME_TIME, 1, seq, None));
    }
    queue
}

/// Splits the first bucket of `queue`, which has blocks; returns the
/// sequence numbers of bucket 0 in the order the split filed them.
fn split_set(queue: &mut RadixQueue) -> Vec<u64> {
    let bucket = queue.first_occupied().expect("filed");
    assert!(queue.is_spilled(bucket));
    queue.split(bucket, SAME_TIME);
    queue.buckets[0].iter().map(|e| e.order.seq).collect()
}

#[test]
fn a_split_files_a_bucket_again_in_reverse() {
    // A set filed in key order must reach bucket 0 reversed, which its
    // sort finishes in one pass.
    let count = 5 * BLOCK as u64 + 3;
    let mut queue = same_time_set(count);
    let reversed: Vec<u64> = (0..count).rev().collect();
    assert_eq!(split_set(&mut queue), reversed);
}

#[test]
fn a_split_after_a_retain_still_files_in_reverse() {
    let count = 5 * BLOCK as u64 + 3;
    let mut queue = same_time_set(count);
    queue.retain(|entry| !entry.order.seq.is_multiple_of(3));
    let reversed: Vec<u64> = (0..count)
        .rev()
        .filter(|seq| !seq.is_multiple_of(3))
        .collect();
    assert_eq!(split_set(&mut queue), reversed);
}

/// The queue's events, each bucket's sorted by key, one bucket after the
/// other.
fn sorted_bucket_by_bucket(queue: &RadixQueue) -> Vec<EventOrder> {
    let mut read = Vec::new();
    for bucket in queue.buckets() {
        let start = read.len();
        read.extend(bucket.map(|e| e.order));
        read[start..].sort();
    }
    read
}

#[test]
fn a_bucket_of_many_blocks_is_read_whole() {
    let mut rng = Rng(51);
    let mut queue = RadixQueue::default();
    // Times 16..32: one bucket (digit 1, value 1).
    for seq in 0..5 * BLOCK as u64 {
        queue.push(entry(16 + rng.below(16), rng.below(3) as Origin, seq, None));
    }
    let bucket = queue.first_occupied().expect("filed");
    assert!(queue.is_spilled(bucket));
    let mut orders: Vec<EventOrder> = queue.entries().map(|e| e.order).collect();
    orders.sort();
    assert_eq!(sorted_bucket_by_bucket(&queue), orders);
    assert_eq!(pop_all(&mut queue), orders);
}

#[test]
fn the_next_occupied_bucket_is_found_past_any_word() {
    let mut rng = Rng(41);
    // The edges of the mask's words first, then random sets of buckets.
    let edges = [
        vec![63],
        vec![64],
        vec![63, 64],
        vec![255],
        vec![256],
        vec![0, 256],
    ];
    let random = (0..200).map(|_| {
        let count = rng.below(6);
        (0..count)
            .map(|_| rng.below(BUCKETS as u64) as usize)
            .collect::<Vec<_>>()
    });
    for set in edges.into_iter().chain(random.collect::<Vec<_>>()) {
        let mut queue = RadixQueue::default();
        for bucket in &set {
            queue.occupied[bucket / 64] |= 1 << (bucket % 64);
        }
        // From the last bucket down, the nearest occupied one above (one
        // sweep: a search from each bucket took Miri 40 s).
        let mut expected = None;
        for bucket in (0..BUCKETS).rev() {
            assert_eq!(
                queue.occupied_after(bucket),
                expected,
                "{set:?} after {bucket}"
            );
            if queue.is_occupied(bucket) {
                expected = Some(bucket);
            }
        }
    }
}

#[test]
fn a_queue_drained_takes_its_blocks_from_the_pool() {
    let count = 50_000;
    let mut rng = Rng(31);
    let mut queue = RadixQueue::default();
    for (entry, _) in random_events(&mut rng, count, 1, 1 << 40) {
        queue.push(entry);
    }
    let filled = queue.blocks_made;
    assert!(filled > 0);
    // Every split files its events into blocks that earlier splits
    // emptied: the drain makes none.
    assert_eq!(pop_all(&mut queue).len(), count as usize);
    assert_eq!(queue.blocks_made, filled);
}

/// A queue of events pushed at random times, some popped on the way (so
/// that its base moved and its buckets were split), with the orders of the
/// events still queued, sorted.
#[cfg(feature = "save")]
fn filled_queue(seed: u64, spread: u64) -> (RadixQueue, Vec<EventOrder>) {
    let mut rng = Rng(seed);
    let mut queue = RadixQueue::default();
    let mut due = Vec::new();
    let mut now = 0;
    let rounds = 2_000;
    for seq in 0..rounds {
        let time = now + rng.below(spread);
        queue.push(entry(time, rng.below(3) as Origin, seq, None));
        if rng.below(3) == 0 {
            if let Some(time) = queue.pop_due(now + rng.below(spread), &mut due) {
                now = time;
            }
            due.clear();
        }
    }
    let mut orders: Vec<EventOrder> = queue.entries().map(|e| e.order).collect();
    orders.sort();
    (queue, orders)
}

#[test]
fn buckets_each_sorted_read_in_key_order() {
    for (seed, spread) in [(5, 8), (6, 1 << 12), (7, 1 << 40)] {
        let (mut queue, orders) = filled_queue(seed, spread);
        assert_eq!(
            sorted_bucket_by_bucket(&queue),
            orders,
            "seed {seed}: read in key order"
        );
        let mut due = Vec::new();
        let mut popped = Vec::new();
        while queue.pop_due(u64::MAX, &mut due).is_some() {
            popped.extend(due.drain(..).map(|e| e.order));
        }
        assert_eq!(popped, orders, "seed {seed}: popped in key order");
    }
}

#[cfg(feature = "save")]
#[test]
fn an_appended_queue_pops_in_key_order_with_the_other() {
    let (mut queue, mut orders) = filled_queue(8, 1 << 20);
    let (other, other_orders) = filled_queue(9, 1 << 20);
    queue.append(other);
    orders.extend(other_orders);
    orders.sort();
    assert_eq!(queue.len(), orders.len());
    let mut due = Vec::new();
    let mut popped = Vec::new();
    while queue.pop_due(u64::MAX, &mut due).is_some() {
        popped.extend(due.drain(..).map(|e| e.order));
    }
    assert_eq!(popped, orders);
}
