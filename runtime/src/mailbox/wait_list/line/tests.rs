//! Unit tests of the line of waiting producers.

use super::*;
use crate::mailbox::wait_list::tests::Woken;

/// Wakes the next producer of `line`, if any.
fn wake_next(line: &mut Line) {
    if let Some(waker) = line.wake_next() {
        waker.wake();
    }
}

#[test]
fn producers_are_woken_one_at_a_time_in_the_order_they_joined() {
    let woken = Woken::default();
    let mut line = Line::default();
    let numbers: Vec<u64> = (0..5).map(|id| line.join(&woken.waker(id))).collect();
    assert_eq!(numbers, [0, 1, 2, 3, 4]);
    assert_eq!(line.waiting(), 5);
    wake_next(&mut line);
    assert_eq!(woken.take(), [0]);
    wake_next(&mut line);
    wake_next(&mut line);
    assert_eq!(woken.take(), [1, 2]);
    assert_eq!((line.waiting(), line.woken()), (2, 3));
}

#[test]
fn a_woken_producer_that_waits_again_keeps_its_place_at_the_front() {
    let woken = Woken::default();
    let mut line = Line::default();
    let first = line.join(&woken.waker(0));
    line.join(&woken.waker(1));
    wake_next(&mut line);
    assert_eq!(woken.take(), [0]);
    // The slot was taken by a sender that never waited: 0 waits again.
    assert!(line.wait_again(first, &woken.waker(0)).is_none());
    wake_next(&mut line);
    assert_eq!(woken.take(), [0], "the first in line is woken first again");
    assert_eq!((line.waiting(), line.woken()), (1, 1));
}

#[test]
fn a_producer_that_leaves_is_skipped_and_its_place_reclaimed() {
    let woken = Woken::default();
    let mut line = Line::default();
    let numbers: Vec<u64> = (0..3).map(|id| line.join(&woken.waker(id))).collect();
    // Leaving from the middle, then from the front.
    assert!(matches!(line.leave(numbers[1]), (false, Some(_))));
    assert_eq!(
        line.places.len(),
        3,
        "a mark stays until it reaches the front"
    );
    assert!(matches!(line.leave(numbers[0]), (false, Some(_))));
    assert_eq!(line.places.len(), 1, "both marks are gone");
    assert_eq!(line.first, 2);
    wake_next(&mut line);
    assert_eq!(woken.take(), [2]);
    assert!(line.leave(numbers[2]).0, "it had been woken");
    assert!(line.places.is_empty());
    assert!(line.wake_next().is_none());
    // Numbers keep growing: a new producer is found at its place.
    let next = line.join(&woken.waker(3));
    assert_eq!(next, 3);
    wake_next(&mut line);
    assert_eq!(woken.take(), [3]);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "`Waker::will_wake` is best-effort: under Miri it can say false for the same waker"
)]
fn a_new_waker_replaces_the_old_one_only_when_it_differs() {
    let woken = Woken::default();
    let mut line = Line::default();
    let waker = woken.waker(0);
    let number = line.join(&waker);
    assert!(
        line.wait_again(number, &waker).is_none(),
        "same waker: kept"
    );
    assert!(line.wait_again(number, &woken.waker(7)).is_some());
    wake_next(&mut line);
    assert_eq!(woken.take(), [7], "the latest waker is used");
}

#[test]
fn wake_all_wakes_every_waiting_producer_once() {
    let woken = Woken::default();
    let mut line = Line::default();
    for id in 0..4 {
        line.join(&woken.waker(id));
    }
    wake_next(&mut line);
    let mut wakers = Vec::new();
    line.wake_all(&mut wakers);
    wakers.into_iter().for_each(Waker::wake);
    assert_eq!(woken.take(), [0, 1, 2, 3]);
    assert_eq!((line.waiting(), line.woken()), (0, 4));
}

#[test]
fn a_long_run_of_waits_keeps_the_buffer_small() {
    // Producers join, are woken and leave, always a few at a time: the
    // buffer holds the live places only.
    let woken = Woken::default();
    let mut line = Line::default();
    let mut live = std::collections::VecDeque::new();
    // Under Miri (no `unsafe` here, and each wait is slow there), enough
    // to wrap the buffer many times.
    let run = if cfg!(miri) { 500 } else { 10_000 };
    for id in 0..run {
        live.push_back(line.join(&woken.waker(id)));
        if live.len() > 4 {
            wake_next(&mut line);
            line.leave(live.pop_front().unwrap());
        }
    }
    assert!(line.places.len() <= 5, "{}", line.places.len());
    assert_eq!(woken.take(), (0..run - 4).collect::<Vec<_>>());
}
