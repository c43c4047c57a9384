//! Unit tests of a channel's overflow: the bench's delivery past the
//! capacity, the hold on other producers, and the release.

use std::task::{Context, Poll, Waker};

use crate::mailbox::channel::{Channel, Pushed};
use crate::name::Name;

/// A bound channel of `capacity`.
fn channel(capacity: usize) -> Channel<u32> {
    let channel = Channel::new(capacity);
    channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
    channel
}

/// One push attempt, as a model's send would make it.
fn try_push(channel: &Channel<u32>, value: u32) -> Result<Pushed, u32> {
    let mut cx = Context::from_waker(Waker::noop());
    channel.try_push_with(value, Some, &mut cx, None)
}

/// A push as the bench makes it: never waits.
fn bench_push(channel: &Channel<u32>, value: u32) -> Pushed {
    channel.push_from_bench(value, Some)
}

/// Polls the channel once, as its single consumer.
fn poll(channel: &Channel<u32>) -> Poll<u32> {
    let mut cx = Context::from_waker(Waker::noop());
    // SAFETY: the test is the channel's only consumer.
    unsafe { channel.poll_pop(&mut cx) }
}

#[test]
fn the_bench_delivers_past_the_capacity_in_order() {
    let channel = channel(4);
    for value in 0..20 {
        assert_eq!(bench_push(&channel, value), Pushed::Delivered);
    }
    assert_eq!(channel.len(), 20);
    for value in 0..20 {
        assert_eq!(poll(&channel), Poll::Ready(value));
    }
    assert_eq!(poll(&channel), Poll::Pending);
    assert!(channel.is_idle());
}

#[test]
fn models_queue_behind_the_overflow_within_the_capacity() {
    let channel = channel(2);
    (0..5).for_each(|value| assert_eq!(bench_push(&channel, value), Pushed::Delivered));
    // Held, and the ring is full: a model's send waits.
    assert_eq!(try_push(&channel, 100), Err(100));
    assert_eq!(poll(&channel), Poll::Ready(0));
    // A slot of the capacity is free: the model's message goes behind the
    // bench's, never ahead of them; then the capacity is used up again.
    assert_eq!(try_push(&channel, 100), Ok(Pushed::Delivered));
    assert_eq!(try_push(&channel, 101), Err(101));
    (1..5).for_each(|value| assert_eq!(poll(&channel), Poll::Ready(value)));
    assert_eq!(poll(&channel), Poll::Ready(100));
    // Released with the last message of the overflow: the ring again.
    assert_eq!(try_push(&channel, 101), Ok(Pushed::Delivered));
    assert_eq!(poll(&channel), Poll::Ready(101));
    assert_eq!(poll(&channel), Poll::Pending);
    assert!(channel.is_idle());
}

#[test]
fn a_bench_push_behind_the_overflow_waits_its_turn() {
    let channel = channel(2);
    (0..3).for_each(|value| assert_eq!(bench_push(&channel, value), Pushed::Delivered));
    // The ring has room again, but 2 is still in the overflow.
    assert_eq!(poll(&channel), Poll::Ready(0));
    assert_eq!(bench_push(&channel, 3), Pushed::Delivered);
    (1..4).for_each(|value| assert_eq!(poll(&channel), Poll::Ready(value)));
}

#[test]
fn models_sends_never_overflow() {
    let channel = channel(1);
    assert_eq!(try_push(&channel, 1), Ok(Pushed::Delivered));
    assert_eq!(try_push(&channel, 2), Err(2));
    assert_eq!(channel.len(), 1);
}

#[test]
fn closing_drops_the_overflow_and_later_sends_are_no_ops() {
    let channel = channel(1);
    (0..3).for_each(|value| assert_eq!(bench_push(&channel, value), Pushed::Delivered));
    // SAFETY: the test is the channel's only consumer.
    unsafe { channel.close() };
    assert_eq!(channel.len(), 0);
    assert_eq!(try_push(&channel, 9), Ok(Pushed::Closed));
    assert_eq!(bench_push(&channel, 9), Pushed::Closed);
}

#[test]
fn the_bench_reports_a_mailbox_never_added() {
    let channel = Channel::<u32>::new(1);
    assert_eq!(bench_push(&channel, 1), Pushed::Unbound);
    assert_eq!(channel.len(), 0);
}
