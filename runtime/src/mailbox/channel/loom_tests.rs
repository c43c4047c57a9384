//! Loom models of the channel: wake-ups of the consumer and of waiting
//! producers (one per freed slot, handed on by a producer that gives up),
//! binding and closing, and the overflow the bench pushes into past the
//! capacity.

use super::*;
use crate::sync::atomic::{AtomicBool, Ordering};
use loom::future::block_on;
use loom::thread;
use std::future::poll_fn;
use std::sync::Arc;

/// A bound channel of `capacity`.
fn channel(capacity: usize) -> Arc<Channel<u32>> {
    let channel = Arc::new(Channel::new(capacity));
    channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
    channel
}

/// Sends `value`, waiting while the channel is full.
fn send(channel: &Channel<u32>, value: u32) {
    let mut arg = Some(value);
    let mut ticket = WaitTicket::new();
    block_on(poll_fn(|cx| {
        let value = arg.take().expect("polled after completion");
        match channel.try_push_with(value, Some, cx, Some(&mut ticket)) {
            Ok(pushed) => {
                assert_eq!(pushed, Pushed::Delivered);
                ticket.leave_served();
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

/// Two producers push into an empty mailbox while its consumer parks
/// once, so that the swap of one of them may find the flag cleared by the
/// other (whose wake-up then covers both): the consumer must get both
/// messages. Three threads, bounded to two preemptions.
#[test]
fn loom_channel_two_producers_into_an_empty_mailbox_wake_its_consumer() {
    crate::sync::loom_check(2, || {
        let channel = channel(2);
        let producers: Vec<_> = (0..2)
            .map(|value| {
                let channel = channel.clone();
                thread::spawn(move || {
                    let mut cx = Context::from_waker(std::task::Waker::noop());
                    let pushed = channel.try_push_with(value, Some, &mut cx, None);
                    assert_eq!(pushed, Ok(Pushed::Delivered));
                })
            })
            .collect();
        // One `block_on`, one waker, for both messages.
        let mut received = Vec::new();
        block_on(poll_fn(|cx| {
            // SAFETY: the test's main thread is the only consumer.
            while let Poll::Ready(value) = unsafe { channel.poll_pop(cx) } {
                received.push(value);
            }
            if received.len() == 2 {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        producers.into_iter().for_each(|p| p.join().unwrap());
        received.sort_unstable();
        assert_eq!(received, [0, 1]);
    });
}

/// A waker that counts its wake-ups.
struct Counting(crate::sync::atomic::AtomicUsize);

impl std::task::Wake for Counting {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// A consumer parked before its first poll (a restored bench's task on
/// the multi-threaded executor) while a producer pushes: exactly one of
/// the two queues the task — the parking, which then sees the message
/// with nothing woken, or the push, which wakes the registered waker.
#[test]
fn loom_channel_an_unpolled_consumer_parked_while_a_producer_pushes_is_queued_once() {
    crate::sync::loom_check(3, || {
        let channel = channel(2);
        let producer = {
            let channel = channel.clone();
            thread::spawn(move || {
                let mut cx = Context::from_waker(std::task::Waker::noop());
                let pushed = channel.try_push_with(1, Some, &mut cx, None);
                assert_eq!(pushed, Ok(Pushed::Delivered));
            })
        };
        let wakes = std::sync::Arc::new(Counting(crate::sync::atomic::AtomicUsize::new(0)));
        let waker = std::task::Waker::from(wakes.clone());
        // SAFETY: no task polls this channel: the main thread parks once,
        // then consumes.
        let queue_it = !unsafe { channel.park_unpolled_remote(&waker) };
        producer.join().unwrap();
        let woken = wakes.0.load(Ordering::Relaxed);
        assert_eq!(
            usize::from(queue_it) + woken,
            1,
            "queued {queue_it}, woken {woken}"
        );
        // SAFETY: the test's main thread is the only consumer.
        assert_eq!(block_on(poll_fn(|cx| unsafe { channel.poll_pop(cx) })), 1);
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

/// A producer woken for the freed slot gives its send up instead of
/// claiming it (its ticket is dropped) after the consumer has parked: its
/// wake-up must go on to the producer waiting behind it. A lost hand-over
/// leaves the consumer parked on an empty queue (it counted the woken
/// producer as on its way) and the other producer waiting for a wake-up
/// that never comes, which loom reports as a deadlock (checked by making
/// the hand-over a no-op). Three threads, bounded to two preemptions
/// (about 8 s).
#[test]
fn loom_channel_a_woken_producer_that_gives_up_hands_its_wake_up_on() {
    crate::sync::loom_check(2, || {
        let channel = channel(1);
        send(&channel, 0);
        // The first producer waits, on this thread.
        let mut first = WaitTicket::new();
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert_eq!(
            channel.try_push_with(1, Some, &mut cx, Some(&mut first)),
            Err(1)
        );
        // The second one waits behind it, or finds the slot freed.
        let second = {
            let channel = channel.clone();
            thread::spawn(move || send(&channel, 2))
        };
        let done = Arc::new(AtomicBool::new(false));
        let consumer = {
            let (channel, done) = (channel.clone(), done.clone());
            thread::spawn(move || {
                assert_eq!(recv(&channel), 0);
                assert_eq!(recv(&channel), 2);
                done.store(true, Ordering::Release);
            })
        };
        // Once the consumer took 0 (waking the first producer) and parked,
        // or got everything, the first producer gives up.
        while !channel.is_idle() && !done.load(Ordering::Acquire) {
            thread::yield_now();
        }
        drop(first);
        consumer.join().unwrap();
        second.join().unwrap();
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
                channel.try_push_with(7, Some, &mut cx, None)
            })
        };
        channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
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
                    let mut ticket = WaitTicket::new();
                    block_on(poll_fn(|cx| {
                        let value = arg.take().unwrap();
                        match channel.try_push_with(value, Some, cx, Some(&mut ticket)) {
                            Ok(_) => {
                                ticket.leave_served();
                                Poll::Ready(())
                            }
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

/// Pushes as the bench does: never waits.
fn bench_push(channel: &Channel<u32>, value: u32) {
    assert_eq!(channel.push_from_bench(value, Some), Pushed::Delivered);
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
        let mut cx = Context::from_waker(std::task::Waker::noop());
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
            thread::spawn(move || send(&channel, 7))
        };
        let received = [recv(&channel), recv(&channel), recv(&channel)];
        sender.join().unwrap();
        assert_eq!(received, [0, 1, 7]);
    });
}
