//! Unit tests of the mailbox channel.

use super::*;
use std::task::Waker;

/// Polls the channel once, as its single consumer.
fn poll(channel: &Channel<u32>) -> Poll<u32> {
    let mut cx = Context::from_waker(Waker::noop());
    // SAFETY: the test is the channel's only consumer.
    unsafe { channel.poll_pop(&mut cx) }
}

/// Pushes `value`, which must find room.
fn push(channel: &Channel<u32>, value: u32) {
    let mut cx = Context::from_waker(Waker::noop());
    assert_eq!(
        channel.try_push_with(value, Some, &mut cx),
        Ok(Pushed::Delivered)
    );
}

#[test]
fn taking_a_message_ends_the_idle_state() {
    let channel = Channel::new(2);
    channel.bind(Name::from("test"), crate::bench::BenchId::new());
    assert_eq!(poll(&channel), Poll::Pending);
    assert!(channel.is_idle(), "parked on an empty queue");
    push(&channel, 1);
    push(&channel, 2);
    assert!(!channel.is_idle(), "a message is waiting");
    assert_eq!(poll(&channel), Poll::Ready(1));
    // Busy with the message, one still queued.
    assert!(!channel.is_idle());
    assert_eq!(poll(&channel), Poll::Ready(2));
    assert!(!channel.is_idle(), "busy with the last message");
    assert_eq!(poll(&channel), Poll::Pending);
    assert!(channel.is_idle());
}
