//! The event heap: order of same-time events, limits and cancellation.

use super::*;
use crate::scheduler::tests::tagged::{tag, Tagged};

/// An entry tagged `tag`, at `secs` for `origin` with `seq`.
fn entry(secs: u64, origin: Origin, seq: u64, tag: u32, key: Option<EventKey>) -> Entry {
    Entry {
        order: EventOrder {
            time: SimTime::from_secs(secs),
            origin,
            seq,
        },
        action: Box::new(Tagged(tag)),
        key,
    }
}

/// Pops every time step, returning the tags in delivery order.
fn drain(heap: &mut EventHeap) -> Vec<Vec<u32>> {
    let mut steps = Vec::new();
    let mut due = Vec::new();
    while heap.pop_due(SimTime::MAX, &mut due).is_some() {
        steps.push(due.drain(..).map(|mut e| tag(&mut e.action)).collect());
    }
    steps
}

#[test]
fn entries_stay_small() {
    // The queue moves entries as it files them again.
    assert!(std::mem::size_of::<Entry>() <= 48);
}

#[test]
fn same_time_events_come_by_origin_then_sequence() {
    let mut heap = EventHeap::default();
    // Pushed in scrambled order.
    heap.push(entry(2, 1, 0, 5, None));
    heap.push(entry(1, 2, 0, 3, None));
    heap.push(entry(1, 1, 1, 2, None));
    heap.push(entry(1, BENCH_ORIGIN, 7, 0, None));
    heap.push(entry(1, 1, 0, 1, None));
    heap.push(entry(2, BENCH_ORIGIN, 0, 4, None));
    heap.push(entry(1, 2, 1, 30, None));
    assert_eq!(drain(&mut heap), vec![vec![0, 1, 2, 3, 30], vec![4, 5]]);
    assert_eq!(heap.len(), 0);
}

#[test]
fn nothing_is_taken_after_the_limit() {
    let mut heap = EventHeap::default();
    heap.push(entry(5, 1, 0, 1, None));
    let mut due = Vec::new();
    assert!(heap.pop_due(SimTime::from_secs(4), &mut due).is_none());
    assert!(due.is_empty());
    assert_eq!(heap.len(), 1);
    let time = heap.pop_due(SimTime::from_secs(5), &mut due);
    assert_eq!(time, Some(SimTime::from_secs(5)));
    assert_eq!(due.len(), 1);
}

#[test]
fn cancelled_events_are_skipped_first_or_not() {
    let mut heap = EventHeap::default();
    let first = EventKey::new();
    let middle = EventKey::new();
    heap.push(entry(1, 1, 0, 1, Some(first.clone())));
    heap.push(entry(1, 1, 1, 2, None));
    heap.push(entry(1, 1, 2, 3, Some(middle.clone())));
    heap.push(entry(1, 1, 3, 4, None));
    heap.push(entry(2, 1, 4, 5, Some(EventKey::new())));
    first.cancel();
    middle.cancel();
    assert_eq!(heap.next_time(), Some(SimTime::from_secs(1)));
    assert_eq!(drain(&mut heap), vec![vec![2, 4], vec![5]]);
}

#[test]
fn cancelled_events_do_not_pile_up() {
    let mut heap = EventHeap::default();
    // A few live events, then a long run of timeouts armed and cancelled
    // far in the future, as a cancel-heavy model does.
    for seq in 0..10 {
        heap.push(entry(1, 1, seq, seq as u32, None));
    }
    let mut most = 0;
    // Under Miri, enough to compact a few times (each push is slow there).
    let pushes = if cfg!(miri) {
        4 * COMPACT_MIN as u64
    } else {
        100_000
    };
    for seq in 10..pushes {
        let key = EventKey::new();
        heap.push(entry(1_000_000 + seq, 2, seq, 0, Some(key.clone())));
        key.cancel();
        most = most.max(heap.len());
    }
    assert!(most <= COMPACT_MIN, "the heap grew to {most} entries");
    // Only the live events come out, in order.
    assert_eq!(drain(&mut heap), vec![(0..10).collect::<Vec<_>>()]);
}

#[test]
fn compaction_keeps_the_order_of_live_events() {
    let mut heap = EventHeap::default();
    let mut keys = Vec::new();
    // Live events of two origins at two times, interleaved with cancelled
    // ones, enough to compact several times.
    for seq in 0..(4 * COMPACT_MIN as u64) {
        let (secs, origin) = (1 + seq % 2, 1 + (seq % 3) as Origin);
        let key = EventKey::new();
        heap.push(entry(secs, origin, seq, seq as u32, Some(key.clone())));
        if seq % 4 != 0 {
            key.cancel();
        }
        keys.push(key);
    }
    assert!(heap.len() < 4 * COMPACT_MIN, "compacted at least once");
    let mut expected: Vec<(u64, Origin, u64)> = (0..(4 * COMPACT_MIN as u64))
        .filter(|seq| seq % 4 == 0)
        .map(|seq| (1 + seq % 2, 1 + (seq % 3) as Origin, seq))
        .collect();
    expected.sort();
    let steps = drain(&mut heap);
    let delivered: Vec<u32> = steps.into_iter().flatten().collect();
    let expected: Vec<u32> = expected.into_iter().map(|(_, _, seq)| seq as u32).collect();
    assert_eq!(delivered, expected);
}

#[test]
fn a_queue_without_keyed_events_is_not_scanned_for_cancelled_ones() {
    let mut heap = EventHeap::default();
    let pushes = 4 * COMPACT_MIN as u64;
    for seq in 0..pushes {
        heap.push(entry(1 + seq % 5, 1, seq, seq as u32, None));
    }
    assert_eq!(heap.compactions, 0, "no keyed event, no pass");
    // One keyed event, cancelled: the next compaction drops it, and those
    // after it have nothing to look for again.
    let key = EventKey::new();
    heap.push(entry(9, 1, pushes, 0, Some(key.clone())));
    key.cancel();
    for seq in pushes + 1..4 * pushes {
        heap.push(entry(1 + seq % 5, 1, seq, seq as u32, None));
    }
    assert_eq!(heap.compactions, 1);
    assert_eq!(
        heap.len() as u64,
        4 * pushes - 1,
        "the cancelled one dropped"
    );
}

/// Keyed events that arrive through a step's incoming events are counted
/// too: a cancelled one among them is dropped by the next compaction.
#[test]
fn keyed_events_merged_from_a_step_are_counted() {
    let mut heap = EventHeap::default();
    let key = EventKey::new();
    let mut incoming = vec![
        entry(9, 1, 0, 0, Some(key.clone())),
        entry(9, 1, 1, 1, None),
    ];
    let mut due = Vec::new();
    // Nothing due before 1 s: both are queued, not popped.
    assert_eq!(
        heap.pop_due_with(SimTime::from_secs(1), &mut incoming, &mut due),
        None
    );
    key.cancel();
    let pushes = 4 * COMPACT_MIN as u64;
    for seq in 2..pushes {
        heap.push(entry(1 + seq % 5, 1, seq, seq as u32, None));
    }
    assert_eq!(heap.compactions, 1, "the merged keyed event counted");
    assert_eq!(heap.len() as u64, pushes - 1, "the cancelled one dropped");
}

/// Events put back after a save may all have keys: a key cancelled after
/// that is still looked for by the next compaction.
#[cfg(feature = "save")]
#[test]
fn events_put_back_are_looked_at_by_the_next_compaction() {
    let mut heap = EventHeap::default();
    let keys: Vec<EventKey> = (0..8).map(|_| EventKey::new()).collect();
    for (seq, key) in keys.iter().enumerate() {
        heap.push(entry(2, 1, seq as u64, seq as u32, Some(key.clone())));
    }
    let taken = heap.take_all();
    heap.put_back_all(taken, 8);
    keys[3].cancel();
    let pushes = 4 * COMPACT_MIN as u64;
    for seq in 8..pushes {
        heap.push(entry(1 + seq % 5, 1, seq, seq as u32, None));
    }
    assert!(heap.compactions >= 1, "a pass over the put-back events");
    assert_eq!(heap.len() as u64, pushes - 1, "the cancelled one dropped");
}

/// A save leaves the cancelled events in the queue it puts back: saving
/// often, while a model keeps re-arming a far-future timeout, must not put
/// the next compaction off for good. The queue stays within twice its live
/// events (or the minimum), however many saves.
#[cfg(feature = "save")]
#[test]
fn saves_between_cancellations_keep_the_queue_bounded() {
    let mut heap = EventHeap::default();
    let live = 10;
    for seq in 0..live {
        heap.push(entry(1, 1, seq, seq as u32, None));
    }
    let mut armed = EventKey::new();
    let mut most = 0;
    // Enough re-arms to outgrow the bound several times (fewer under Miri,
    // whose bound is smaller).
    let rearms = if cfg!(miri) { 6 } else { 40 } * COMPACT_MIN as u64;
    for seq in live..live + rearms {
        // Re-arm: the old timeout cancelled, a new one queued.
        armed.cancel();
        armed = EventKey::new();
        heap.push(entry(1_000, 2, seq, seq as u32, Some(armed.clone())));
        // A save every few steps: taken, read, put back as it was.
        if seq % 7 == 0 {
            let taken = heap.take_all();
            let alive = taken.entries().filter(|e| !e.is_cancelled()).count();
            heap.put_back_all(taken, alive);
        }
        most = most.max(heap.len());
    }
    assert!(most <= 2 * COMPACT_MIN, "the queue grew to {most} entries");
}
