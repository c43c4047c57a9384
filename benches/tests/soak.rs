//! The soak bench at CI size: 10⁶ events of periodic ticks, messages and
//! keyed events re-armed and cancelled, on 1, 2 and 4 threads. The queue of
//! scheduled events must stay bounded: cancelled events are reclaimed
//! rather than piling up until their (far) due time. Nothing is timed; the
//! long run with memory sampling is the `soak` binary.

use causim_benches::soak::Soak;

/// Models in the ring.
const MODELS: usize = 1000;
/// Events to run.
const EVENTS: u64 = 1_000_000;
/// Live events at any time: per model one periodic tick, one watchdog and
/// at most one blip.
const LIVE: usize = 3 * MODELS;
/// The queue may hold twice the live events, plus the minimum below which
/// it is never compacted.
const BOUND: usize = 2 * LIVE + 1024;

/// Runs the soak on `threads` threads, checking the queue after every
/// ten periods; returns the largest queue seen.
fn largest_queue(threads: usize) -> usize {
    let mut soak = Soak::new(MODELS, threads).expect("the soak bench builds");
    let mut largest = 0;
    while soak.events() < EVENTS {
        soak.run_periods(10).expect("the soak bench runs");
        let queued = soak.simu.queued_events();
        largest = largest.max(queued);
        assert!(
            queued <= BOUND,
            "{queued} events queued after {} events on {threads} thread(s)",
            soak.events()
        );
    }
    largest
}

#[test]
fn the_queue_stays_bounded_under_cancel_heavy_load() {
    for threads in [1, 2, 4] {
        let largest = largest_queue(threads);
        assert!(largest >= MODELS, "the bench kept events queued");
    }
}
