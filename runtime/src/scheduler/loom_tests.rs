//! Loom models of the clock: a bench scheduler on another thread racing
//! the step that takes the due events and moves the clock, on the locked
//! path and on the driving thread's lock-free path (the published heap
//! top). In every interleaving the clock never goes backwards and an
//! accepted event is delivered at its time.
//!
//! Run with `RUSTFLAGS="--cfg causim_loom" cargo test -p causim --release
//! --lib loom`.

use super::*;
use loom::thread;
use tagged::{tag, Tagged};

/// The tests' tagged action, shared with the unit tests.
#[path = "tests/tagged.rs"]
mod tagged;

/// An event tagged `tag`.
fn event(tag: u32) -> Event {
    Event {
        action: Box::new(Tagged(tag)),
    }
}

/// `n` nanoseconds.
fn ns(n: u64) -> SimTime {
    SimTime::from_nanos(n)
}

/// Takes every step due up to `limit`, recording `(clock, tag)` for each
/// event.
fn steps(core: &SchedulerCore, limit: SimTime, seen: &mut Vec<(SimTime, u32)>) {
    let (mut due, mut incoming) = (Vec::new(), Vec::new());
    let mut returning = ReturningBox::default();
    while core.take_next_due(limit, &mut due, &mut incoming, &mut returning) {
        let now = core.time();
        seen.extend(due.drain(..).map(|mut e| (now, tag(&mut e.action))));
    }
}

/// `step_until(target)`: the steps due by `target`, then the clock moved
/// to `target` unless an event was queued by then meanwhile.
fn step_until(core: &SchedulerCore, target: SimTime, seen: &mut Vec<(SimTime, u32)>) {
    loop {
        steps(core, target, seen);
        if core.advance_to(target) {
            return;
        }
    }
}

/// Checks that the clock never went back and that every event came at
/// its own time.
fn assert_monotonic(seen: &[(SimTime, u32)], times: &[(u32, SimTime)]) {
    for pair in seen.windows(2) {
        assert!(pair[0].0 <= pair[1].0, "the clock went back: {seen:?}");
    }
    for (now, tag) in seen {
        let due = times.iter().find(|(t, _)| t == tag).map(|(_, time)| *time);
        assert_eq!(due, Some(*now), "event {tag} at the wrong time: {seen:?}");
    }
}

/// A model run with a bound on preemptions, to keep it tractable.
fn check(f: impl Fn() + Sync + Send + 'static) {
    crate::sync::loom_check(2, f);
}

#[test]
fn loom_a_bench_event_racing_a_locked_step_never_lands_behind_the_clock() {
    check(|| {
        let core = Arc::new(SchedulerCore::new(SimTime::ZERO));
        core.schedule(ns(4), None, BENCH_ORIGIN, 0, event(4), None)
            .unwrap();
        let other = Scheduler::new(core.clone());
        // 2 ns after the clock as it is queued: 2, 5 or 6.
        let racer = thread::spawn(move || {
            let now = other.time();
            let queued = other.schedule_event(Duration::from_nanos(2), event(2));
            assert_eq!(queued, Ok(()));
            assert!(other.time() >= now, "the clock went back");
        });
        let mut seen = Vec::new();
        // `step_until(3)`, then `step` until nothing is left.
        step_until(&core, ns(3), &mut seen);
        seen.push((core.time(), 0));
        steps(&core, SimTime::MAX, &mut seen);
        racer.join().unwrap();
        steps(&core, SimTime::MAX, &mut seen);
        let late = seen.iter().find(|(_, t)| *t == 2).map(|(now, _)| *now);
        let late = late.expect("the event raced in is delivered");
        assert!([ns(2), ns(5), ns(6)].contains(&late), "{seen:?}");
        assert_monotonic(&seen, &[(0, ns(3)), (4, ns(4)), (2, late)]);
    });
}

#[test]
fn loom_a_bench_event_racing_the_lock_free_step_never_lands_behind_the_clock() {
    check(|| {
        let core = Arc::new(SchedulerCore::new(SimTime::ZERO));
        let other = Scheduler::new(core.clone());
        let racer = thread::spawn(move || {
            // Before the staged event at 5 if the clock has not moved yet.
            let queued = other.schedule_event(ns(3), event(3));
            // Refused only once the clock is at the staged event.
            if let Err(error) = queued {
                assert_eq!(
                    error,
                    SchedulingError::NotInFuture {
                        now: ns(5),
                        requested: ns(3)
                    }
                );
            }
        });
        let driving = core.drive();
        // A model's own next tick, staged: taken without the lock unless
        // the racer's event is seen in the heap.
        let mut spare = SpareBox::default();
        core.schedule_checked_from_model(entry(ns(5), 1, 0, event(5), None), &mut spare);
        let mut seen = Vec::new();
        steps(&core, SimTime::MAX, &mut seen);
        racer.join().unwrap();
        steps(&core, SimTime::MAX, &mut seen);
        drop(driving);
        assert_eq!(seen.last().map(|&(_, tag)| tag), Some(5), "{seen:?}");
        assert_monotonic(&seen, &[(3, ns(3)), (5, ns(5))]);
    });
}

#[test]
fn loom_a_workers_event_of_the_step_comes_before_the_driving_threads_later_tick() {
    check(|| {
        let core = Arc::new(SchedulerCore::new(SimTime::ZERO));
        // The multi-threaded executor's active count, as the step's end
        // sees it: each worker gives its lease back with release ordering,
        // and the driving thread sees zero with acquire.
        let active = Arc::new(loom::sync::atomic::AtomicUsize::new(1));
        let worker = {
            let (core, active) = (core.clone(), active.clone());
            thread::spawn(move || {
                // A model polled on another worker: the locked queue.
                let mut spare = SpareBox::default();
                core.schedule_checked_from_model(entry(ns(3), 2, 0, event(3), None), &mut spare);
                active.fetch_sub(1, Ordering::AcqRel);
            })
        };
        let driving = core.drive();
        // A model polled on the driving thread in the same step: staged.
        let mut spare = SpareBox::default();
        core.schedule_checked_from_model(entry(ns(5), 1, 0, event(5), None), &mut spare);
        // The step ends when no task is active.
        while active.load(Ordering::Acquire) != 0 {
            thread::yield_now();
        }
        let mut seen = Vec::new();
        steps(&core, SimTime::MAX, &mut seen);
        drop(driving);
        worker.join().unwrap();
        assert_eq!(
            seen,
            [(ns(3), 3), (ns(5), 5)],
            "the staged tick must not pass the worker's event"
        );
    });
}
