//! Unit tests of the mailbox queue.

use super::*;
use std::sync::atomic::AtomicUsize as Counter;
use std::sync::Arc;

/// An opened queue of `capacity` slots.
fn opened<T>(capacity: usize) -> ArrayQueue<T> {
    let queue = ArrayQueue::new(capacity);
    queue.open();
    queue
}

/// Counts its drops.
struct Tracked(Arc<Counter>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn the_ring_is_allocated_by_the_first_claim() {
    let queue = opened::<u32>(4);
    assert!(queue.ring().is_none(), "a new queue has no slots");
    // SAFETY: this test is the only consumer.
    assert_eq!(unsafe { queue.pop() }, None);
    assert!(queue.ring().is_none(), "popping does not allocate");
    queue.claim().unwrap().write(Some(5));
    assert_eq!(queue.ring().map(<[_]>::len), Some(4));
    // SAFETY: as above.
    assert_eq!(unsafe { queue.pop() }, Some(5));
}

#[test]
fn dropping_a_queue_drops_each_queued_message_once() {
    let drops = Arc::new(Counter::new(0));
    let queue = opened(3);
    for _ in 0..3 {
        queue.claim().unwrap().write(Some(Tracked(drops.clone())));
    }
    // SAFETY: this test is the only consumer.
    drop(unsafe { queue.pop() });
    assert_eq!(drops.load(Ordering::Relaxed), 1);
    drop(queue);
    assert_eq!(drops.load(Ordering::Relaxed), 3);
    // A queue that never allocated drops nothing.
    drop(ArrayQueue::<Tracked>::new(2));
}

#[test]
fn an_unopened_queue_refuses_claims_until_opened() {
    let queue = ArrayQueue::<u32>::new(2);
    assert_eq!(queue.claim().err(), Some(ClaimError::Unopened));
    assert!(queue.ring().is_none(), "a refused claim does not allocate");
    queue.open();
    queue.claim().unwrap().write(Some(1));
    assert_eq!(queue.len(), 1);
    // SAFETY: this test is the only consumer.
    assert_eq!(unsafe { queue.pop() }, Some(1));
}

#[test]
fn a_queue_closed_before_it_was_opened_reports_unopened() {
    let queue = ArrayQueue::<u32>::new(2);
    assert!(queue.close());
    assert_eq!(queue.claim().err(), Some(ClaimError::Unopened));
    assert_eq!(queue.len(), 0);
    // SAFETY: this test is the only consumer.
    unsafe { queue.drain_closed() };
    queue.open();
    assert_eq!(queue.claim().err(), Some(ClaimError::Closed));
}

/// The capacities the geometry tests run at: the smallest, powers of
/// two and their neighbours (a full ring, one spare index), a large one
/// (smaller under Miri, where its laps took most of these tests' time).
const CAPACITIES: [usize; 7] = [1, 2, 3, 15, 16, 17, if cfg!(miri) { 100 } else { 1000 }];

#[test]
fn the_packed_geometry_matches_the_capacity() {
    for capacity in CAPACITIES {
        let queue = ArrayQueue::<u32>::new(capacity);
        let mark_bit = (capacity + 1).next_power_of_two();
        assert_eq!(queue.capacity(), capacity);
        assert_eq!(queue.mark_bit(), mark_bit, "capacity {capacity}");
        assert_eq!(queue.geometry().index_mask(), mark_bit - 1);
        assert_eq!(queue.one_lap(), mark_bit << 3);
        assert_eq!(queue.unopened_bit(), mark_bit << 1);
        assert_eq!(queue.held_bit(), mark_bit << 2);
    }
    assert_eq!(ArrayQueue::<u32>::new(0).capacity(), 1, "at least one slot");
}

#[test]
fn a_capacity_above_the_geometrys_maximum_is_clamped() {
    // Never claimed: the ring of such a queue would not fit in memory.
    for capacity in [MAX_CAPACITY, MAX_CAPACITY + 1, usize::MAX] {
        let queue = ArrayQueue::<u32>::with_slots(capacity);
        assert_eq!(queue.capacity(), MAX_CAPACITY);
        assert_eq!(queue.mark_bit(), 1 << 31);
        assert_eq!(queue.one_lap(), 1 << 34);
        assert_eq!(queue.claim().err(), Some(ClaimError::Unopened));
        assert!(queue.close());
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "allocates and writes a 64 MiB ring: minutes under Miri"
)]
fn a_capacity_above_the_ring_budget_is_clamped_and_allocates() {
    // 16-byte slots: 4 Mi of them in 64 MiB.
    assert_eq!(std::mem::size_of::<Slot<u32>>(), 16);
    assert_eq!(ArrayQueue::<u32>::max_capacity(), 1 << 22);
    // Slots of large messages: fewer of them.
    let big = ArrayQueue::<[u64; 1024]>::max_capacity();
    assert!(big * std::mem::size_of::<Slot<[u64; 1024]>>() <= MAX_RING_BYTES);
    assert!(big > 0);
    let queue = ArrayQueue::<u32>::new(usize::MAX);
    assert_eq!(queue.capacity(), 1 << 22);
    queue.open();
    // The first claim allocates the whole ring.
    queue.claim().expect("room").write(Some(7));
    // SAFETY: this thread is the only consumer.
    assert_eq!(unsafe { queue.pop() }, Some(7));
}

#[test]
fn a_full_queue_keeps_order_across_laps() {
    for capacity in CAPACITIES {
        let queue = opened(capacity);
        let mut next = 0;
        for lap in 0..3 {
            for i in 0..capacity {
                queue.claim().unwrap().write(Some(lap * capacity + i));
            }
            assert_eq!(queue.len(), capacity);
            assert_eq!(queue.claim().err(), Some(ClaimError::Full));
            // SAFETY: this test is the only consumer.
            while let Some(value) = unsafe { queue.pop() } {
                assert_eq!(value, next, "capacity {capacity}, lap {lap}");
                next += 1;
            }
            assert_eq!(queue.len(), 0);
        }
        assert_eq!(next, 3 * capacity);
    }
}

#[test]
fn one_message_at_a_time_wraps_around_the_ring() {
    for capacity in CAPACITIES {
        let queue = opened(capacity);
        // Starts at every index in turn, for three laps and a bit;
        // every third claim is a hole, which the pop skips.
        for value in 0..3 * capacity + 1 {
            let message = (value % 3 != 0).then_some(value);
            queue.claim().unwrap().write(message);
            assert_eq!(queue.len(), 1);
            // SAFETY: this test is the only consumer.
            assert_eq!(unsafe { queue.pop() }, message, "capacity {capacity}");
            assert_eq!(queue.len(), 0);
        }
    }
}

#[test]
fn a_closed_queue_refuses_the_quick_claim_on_a_free_slot() {
    for capacity in CAPACITIES {
        let queue = opened::<u32>(capacity);
        // Allocate the ring and leave the slot at `tail` free, its
        // stamp equal to `tail`'s position: only the mark tells.
        queue.claim().unwrap().write(Some(1));
        // SAFETY: this test is the only consumer.
        assert_eq!(unsafe { queue.pop() }, Some(1));
        // A weak compare-and-swap may fail spuriously (Miri makes it
        // so at random): retry; nothing else races here.
        let claim = std::iter::repeat_with(|| queue.try_claim())
            .take(1000)
            .find_map(|claim| claim)
            .expect("a free slot is claimed");
        claim.write(None);
        // SAFETY: as above (skips the hole).
        assert_eq!(unsafe { queue.pop() }, None);
        assert!(queue.close());
        assert!(queue.try_claim().is_none(), "capacity {capacity}");
        assert_eq!(queue.claim().err(), Some(ClaimError::Closed));
        // SAFETY: as above.
        unsafe { queue.drain_closed() };
    }
}

#[test]
fn a_closed_queue_refuses_claims_before_allocating() {
    let queue = opened::<u32>(2);
    assert!(queue.close());
    assert_eq!(queue.claim().err(), Some(ClaimError::Closed));
    assert!(queue.ring().is_none());
    // SAFETY: this test is the only consumer.
    unsafe { queue.drain_closed() };
}

#[test]
fn a_held_queue_turns_claims_away_until_released() {
    let queue = ArrayQueue::<u32>::new(4);
    queue.open();
    queue.claim().expect("room").write(Some(1));
    queue.hold();
    assert!(queue.is_held());
    assert_eq!(
        queue.claim().err(),
        Some(ClaimError::Held),
        "room, but held"
    );
    assert_eq!(queue.len(), 1, "the mark is not a position");
    // SAFETY: the test is the queue's only consumer.
    assert_eq!(unsafe { queue.pop() }, Some(1));
    queue.release();
    assert!(!queue.is_held());
    queue.claim().expect("released").write(Some(2));
    // SAFETY: as above.
    assert_eq!(unsafe { queue.pop() }, Some(2));
    // Closing wins over holding.
    queue.hold();
    assert!(queue.close());
    assert_eq!(queue.claim().err(), Some(ClaimError::Closed));
}
