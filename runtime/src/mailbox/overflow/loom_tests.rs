//! Loom models of a channel's overflow: the bench spilling past the
//! capacity while the consumer reads, and the release of the hold waking
//! a model that waits to send.

use std::future::poll_fn;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use loom::future::block_on;
use loom::thread;

use crate::mailbox::channel::{Channel, Pushed};
use crate::mailbox::WaitTicket;
use crate::name::Name;

/// A bound channel of `capacity`.
fn channel(capacity: usize) -> Arc<Channel<u32>> {
    let channel = Arc::new(Channel::new(capacity));
    channel.bind(Name::from("test"), crate::bench::BenchId::new());
    channel
}

/// Pushes as the bench does: never waits.
fn bench_push(channel: &Channel<u32>, value: u32) {
    assert_eq!(channel.push_from_bench(value, Some), Pushed::Delivered);
}

/// Sends as a model does: waits (in line) while the channel is full, or
/// held with no room left for models.
fn model_send(channel: &Channel<u32>, value: u32) {
    let mut arg = Some(value);
    let mut ticket = WaitTicket::new();
    block_on(poll_fn(|cx| {
        let value = arg.take().expect("polled after completion");
        match channel.try_push_with(value, Some, cx, Some(&mut ticket)) {
            Ok(_) => Poll::Ready(()),
            Err(value) => {
                arg = Some(value);
                Poll::Pending
            }
        }
    }));
}

/// Receives a message, waiting while the channel is empty.
fn recv(channel: &Channel<u32>) -> u32 {
    // SAFETY: the test's main thread is the only consumer.
    block_on(poll_fn(|cx| unsafe { channel.poll_pop(cx) }))
}

/// The bench spills on one thread while the consumer reads on another:
/// every message arrives, in order, and the hold is gone at the end.
#[test]
fn loom_overflow_spill_racing_the_consumer_keeps_the_order() {
    crate::sync::loom_check(3, || {
        let channel = channel(1);
        let bench = {
            let channel = channel.clone();
            thread::spawn(move || (0..3).for_each(|value| bench_push(&channel, value)))
        };
        let received = [recv(&channel), recv(&channel), recv(&channel)];
        bench.join().unwrap();
        assert_eq!(received, [0, 1, 2]);
        assert_eq!(channel.len(), 0);
        // Released: a model's send goes straight in.
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(
            channel.try_push_with(9, Some, &mut cx, None),
            Ok(Pushed::Delivered)
        );
    });
}

/// A model waiting on a held mailbox is woken when the consumer takes the
/// overflow's last message, and its message comes after the bench's.
#[test]
fn loom_overflow_release_wakes_a_waiting_sender() {
    crate::sync::loom_check(3, || {
        let channel = channel(1);
        (0..2).for_each(|value| bench_push(&channel, value));
        let sender = {
            let channel = channel.clone();
            thread::spawn(move || model_send(&channel, 7))
        };
        let received = [recv(&channel), recv(&channel), recv(&channel)];
        sender.join().unwrap();
        assert_eq!(received, [0, 1, 7]);
    });
}
