//! The schedule's fast paths: the one-read time check of deadlines,
//! staging on the driving thread and handing fired boxes back.

use super::*;
use tagged::{tag, Tagged};

pub(in crate::scheduler) mod tagged;

/// An event tagged `tag`.
fn event(tag: u32) -> Event {
    Event {
        action: Box::new(Tagged(tag)),
    }
}

/// A fired box tagged `tag`, returning to `origin`.
fn fired(origin: Origin, tag: u32) -> ReturningBox {
    let mut returning = ReturningBox::default();
    returning.send(origin, Box::new(Tagged(tag)));
    returning
}

/// The tags of `due`, emptied.
fn tags(due: &mut Vec<Entry>) -> Vec<u32> {
    due.drain(..).map(|mut e| tag(&mut e.action)).collect()
}

#[test]
fn a_delay_resolves_as_the_time_it_adds_up_to() {
    let now = SimTime::from_secs(5);
    let core = SchedulerCore::new(now);
    let room = Duration::from_nanos(u64::MAX - now.as_nanos());
    for delay in [
        Duration::ZERO,
        Duration::from_nanos(1),
        Duration::from_secs(1),
        room,
        room + Duration::from_nanos(1),
        Duration::MAX,
    ] {
        let absolute = now
            .checked_add(delay)
            .ok_or(SchedulingError::TimeOverflow { now, delay })
            .and_then(|time| core.resolve(time));
        assert_eq!(core.resolve(delay), absolute, "{delay:?}");
    }
    assert_eq!(
        core.resolve(Duration::ZERO),
        Err(SchedulingError::NotInFuture {
            now,
            requested: now
        })
    );
    assert_eq!(
        core.resolve(now),
        Err(SchedulingError::NotInFuture {
            now,
            requested: now
        })
    );
}

#[test]
fn the_driving_thread_takes_a_lone_staged_event_and_keeps_the_fired_box() {
    let core = SchedulerCore::new(SimTime::ZERO);
    let _driving = core.drive();
    let (mut due, mut incoming, mut spare) = (Vec::new(), Vec::new(), SpareBox::default());
    let at = SimTime::from_secs(1);
    core.schedule_checked_from_model(entry(at, 1, 0, event(1), None), &mut spare);
    let mut back = fired(1, 10);
    assert!(core.take_next_due(SimTime::MAX, &mut due, &mut incoming, &mut back));
    assert!(back.get_mut().is_none(), "kept as origin 1's spare");
    assert_eq!((core.time(), tags(&mut due)), (at, vec![1]));
    // A second fired box of the same origin is handed back to be dropped.
    let mut again = fired(1, 11);
    assert!(!core.take_next_due(SimTime::MAX, &mut due, &mut incoming, &mut again));
    assert_eq!(again.get_mut().map(|(o, a)| (*o, tag(a))), Some((1, 11)));
    // The next event of origin 1 gets the kept box.
    let later = SimTime::from_secs(2);
    core.schedule_checked_from_model(entry(later, 1, 1, event(2), None), &mut spare);
    assert_eq!(spare.get_mut().map(tag), Some(10));
}

#[test]
fn a_staged_event_not_before_the_heap_goes_through_the_lock() {
    let core = SchedulerCore::new(SimTime::ZERO);
    let at = SimTime::from_secs(1);
    // From the bench: same time, earlier origin.
    core.schedule(at, None, BENCH_ORIGIN, 0, event(1), None)
        .unwrap();
    let _driving = core.drive();
    let (mut due, mut incoming, mut spare) = (Vec::new(), Vec::new(), SpareBox::default());
    core.schedule_checked_from_model(entry(at, 1, 0, event(2), None), &mut spare);
    let mut back = fired(1, 10);
    assert!(core.take_next_due(SimTime::MAX, &mut due, &mut incoming, &mut back));
    assert!(back.get_mut().is_none(), "kept once, on the driving thread");
    assert_eq!(tags(&mut due), vec![1, 2]);
    assert!(core.lock_heap().spares.take(1).is_none(), "not kept twice");
}

#[test]
fn another_thread_queues_under_the_lock_and_keeps_fired_boxes_there() {
    let core = SchedulerCore::new(SimTime::ZERO);
    let (mut due, mut incoming, mut spare) = (Vec::new(), Vec::new(), SpareBox::default());
    let at = SimTime::from_secs(1);
    core.schedule_checked_from_model(entry(at, 2, 0, event(1), None), &mut spare);
    assert_eq!(core.lock_heap().len(), 1);
    let mut back = fired(2, 10);
    assert!(core.take_next_due(SimTime::MAX, &mut due, &mut incoming, &mut back));
    assert!(back.get_mut().is_none());
    assert_eq!((core.time(), tags(&mut due)), (at, vec![1]));
    core.schedule_checked_from_model(
        entry(SimTime::from_secs(2), 2, 1, event(2), None),
        &mut spare,
    );
    assert_eq!(spare.get_mut().map(tag), Some(10));
}

#[test]
fn advancing_to_a_target_moves_the_clock_unless_an_event_is_due_by_then() {
    let core = SchedulerCore::new(SimTime::ZERO);
    let (mut due, mut incoming) = (Vec::new(), Vec::new());
    let mut fired = ReturningBox::default();
    let later = SimTime::from_secs(9);
    core.schedule(later, None, BENCH_ORIGIN, 0, event(1), None)
        .unwrap();
    assert!(!core.advance_to(later), "an event is due by then");
    assert_eq!(core.time(), SimTime::ZERO);
    let target = SimTime::from_secs(3);
    assert!(core.advance_to(target));
    assert_eq!(core.time(), target);
    // A relative bench event counts from the new clock.
    let delay = Duration::from_secs(1);
    core.schedule(delay, None, BENCH_ORIGIN, 1, event(2), None)
        .unwrap();
    assert!(core.take_next_due(SimTime::MAX, &mut due, &mut incoming, &mut fired));
    assert_eq!((core.time(), tags(&mut due)), (target + delay, vec![2]));
}

#[test]
fn a_closed_schedule_refuses_bench_events_and_drops_the_queued_ones() {
    let core = SchedulerCore::new(SimTime::ZERO);
    let at = SimTime::from_secs(1);
    core.schedule(at, None, BENCH_ORIGIN, 0, event(1), None)
        .unwrap();
    core.close();
    assert_eq!(core.queued(), 0);
    let refused = core.schedule(at, None, BENCH_ORIGIN, 1, event(2), None);
    assert_eq!(refused, Err(SchedulingError::SimulationDropped));
}

#[test]
fn scheduler_handles_are_counted_for_the_lock_free_step() {
    let core = Arc::new(SchedulerCore::new(SimTime::ZERO));
    let handles = || core.handles.load(Ordering::Relaxed);
    let first = Scheduler::new(core.clone());
    let second = first.clone();
    assert_eq!(handles(), 2);
    drop(first);
    assert_eq!(handles(), 1);
    drop(second);
    assert_eq!(handles(), 0);
}
