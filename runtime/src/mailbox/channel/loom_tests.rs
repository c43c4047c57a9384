//! Loom models of the channel: wake-ups of the consumer and of waiting
//! producers, binding and closing.

use super::*;
use loom::future::block_on;
use loom::thread;
use std::future::poll_fn;
use std::sync::Arc;

/// A bound channel of `capacity`.
fn channel(capacity: usize) -> Arc<Channel<u32>> {
    let channel = Arc::new(Channel::new(capacity));
    channel.bind(Name::from("test"), crate::bench::BenchId::new());
    channel
}

/// Sends `value`, waiting while the channel is full.
fn send(channel: &Channel<u32>, value: u32) {
    let mut arg = Some(value);
    block_on(poll_fn(|cx| {
        let value = arg.take().expect("polled after completion");
        match channel.try_push_with(value, Some, cx) {
            Ok(pushed) => {
                assert_eq!(pushed, Pushed::Delivered);
                Poll::Ready(())
            }
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

#[test]
fn loom_channel_wakes_consumer_and_full_producer() {
    crate::sync::loom_check(3, || {
        let channel = channel(1);
        let producer = {
            let channel = channel.clone();
            thread::spawn(move || {
                send(&channel, 1);
                send(&channel, 2);
            })
        };
        assert_eq!(recv(&channel), 1);
        assert_eq!(recv(&channel), 2);
        producer.join().unwrap();
        assert!(channel.is_idle() || channel.len() == 0);
    });
}

/// Three threads: at two preemptions the model ran for minutes (at
/// three, for more than eight), so it is bounded to one; the wake-up
/// of a single waiting producer is checked at three preemptions by
/// `loom_channel_wakes_consumer_and_full_producer`.
#[test]
fn loom_channel_two_waiting_producers_are_both_served() {
    crate::sync::loom_check(1, || {
        let channel = channel(1);
        let producers: Vec<_> = (0..2)
            .map(|value| {
                let channel = channel.clone();
                thread::spawn(move || send(&channel, value))
            })
            .collect();
        let mut received = [recv(&channel), recv(&channel)];
        producers.into_iter().for_each(|p| p.join().unwrap());
        received.sort_unstable();
        assert_eq!(received, [0, 1]);
    });
}

#[test]
fn loom_channel_send_racing_with_bind_is_delivered_or_unbound() {
    crate::sync::loom_check(3, || {
        let channel = Arc::new(Channel::<u32>::new(1));
        let producer = {
            let channel = channel.clone();
            thread::spawn(move || {
                let mut cx = Context::from_waker(std::task::Waker::noop());
                channel.try_push_with(7, Some, &mut cx)
            })
        };
        channel.bind(Name::from("test"), crate::bench::BenchId::new());
        let pushed = producer.join().unwrap();
        // SAFETY: the test's main thread is the only consumer.
        let received = unsafe { channel.queue.pop() };
        match pushed {
            Ok(Pushed::Delivered) => assert_eq!(received, Some(7)),
            Ok(Pushed::Unbound) => assert_eq!(received, None),
            other => panic!("unexpected {other:?}"),
        }
    });
}

#[test]
fn loom_channel_close_releases_waiting_producer() {
    crate::sync::loom_check(3, || {
        let channel = channel(1);
        let producer = {
            let channel = channel.clone();
            thread::spawn(move || {
                for value in 0..2 {
                    let mut arg = Some(value);
                    block_on(poll_fn(|cx| {
                        match channel.try_push_with(arg.take().unwrap(), Some, cx) {
                            Ok(_) => Poll::Ready(()),
                            Err(value) => {
                                arg = Some(value);
                                Poll::Pending
                            }
                        }
                    }));
                }
            })
        };
        // SAFETY: the test's main thread is the only consumer.
        unsafe { channel.close() };
        producer.join().unwrap();
        assert_eq!(channel.len(), 0);
    });
}
