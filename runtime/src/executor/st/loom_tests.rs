//! Loom models of the single-threaded executor woken from other threads.
//!
//! A deterministic run wakes tasks on the executor's own thread only, but
//! a bench may hand a model's mailbox to another thread, whose sends wake
//! the model through the executor's shared queue (the waker's `remote`
//! flag, the queue's mutex and its `remote_pending` flag) while the
//! executor runs, or between two runs. These models check that such a
//! wake-up is never lost, never queues the task twice, and never touches
//! the executor's thread-local queue (a loom cell: a touch from the other
//! thread is reported as a race).
//!
//! Run with the other loom models (see the README).

use std::future::poll_fn;
use std::sync::Arc;
use std::task::Context;

use loom::thread;

use super::Executor;
use crate::executor::{TaskMeta, TaskProbe};
use crate::mailbox::channel::{Channel, Pushed};
use crate::mailbox::WaitTicket;
use crate::name::Name;
use crate::sync::atomic::{AtomicUsize, Ordering};

/// A model run with a bound on preemptions, to keep it tractable.
fn every_interleaving(f: impl Fn() + Sync + Send + 'static) {
    crate::sync::loom_check(2, f);
}

/// An executor whose one task drains a bound channel of `capacity`,
/// counting the messages, run once so that it parks on its empty mailbox.
fn consumer(capacity: usize) -> (Executor, Arc<Channel<u32>>, Arc<AtomicUsize>) {
    let channel = Arc::new(Channel::new(capacity));
    channel.bind(Name::from("consumer"), crate::bench::BenchId::new(), 0);
    let count = Arc::new(AtomicUsize::new(0));
    let mut executor = Executor::new();
    let task = {
        let (channel, count) = (channel.clone(), count.clone());
        async move {
            loop {
                // SAFETY: this task is the channel's only consumer.
                let _ = poll_fn(|cx| unsafe { channel.poll_pop(cx) }).await;
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
    };
    let probe: Arc<dyn TaskProbe> = channel.clone();
    let meta = TaskMeta {
        name: Arc::from("consumer"),
        model_type: "Test",
        mailbox: Some(probe),
    };
    executor.spawn(Box::pin(task), meta.into_probe());
    executor.run(None).expect("first poll");
    assert!(channel.is_idle(), "the consumer parks on its empty mailbox");
    (executor, channel, count)
}

/// Sends `value` from the calling thread, which must find room.
fn send(channel: &Channel<u32>, value: u32) {
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let pushed = channel.try_push_with(value, Some, &mut cx, None);
    assert!(matches!(pushed, Ok(Pushed::Delivered)), "{pushed:?}");
}

/// One send from another thread races with a run: whichever run comes
/// after the send (this one or the next) delivers the message, once.
#[test]
fn loom_st_a_wake_from_another_thread_during_a_run_is_not_lost() {
    every_interleaving(|| {
        let (mut executor, channel, count) = consumer(2);
        let producer = {
            let channel = channel.clone();
            thread::spawn(move || send(&channel, 1))
        };
        executor.run(None).expect("no panic");
        producer.join().unwrap();
        executor.run(None).expect("no panic");
        assert_eq!(count.load(Ordering::Relaxed), 1, "a wake-up was lost");
        assert!(channel.is_idle(), "parked again on its empty mailbox");
        assert!(executor.stuck().is_empty());
    });
}

/// Two sends from another thread, and one from the executor's own thread
/// inside a run's `enter`, while the executor runs: the task is queued at
/// most once in each queue and every message is handled.
#[test]
fn loom_st_local_and_remote_wakes_of_one_task_meet() {
    every_interleaving(|| {
        let (mut executor, channel, count) = consumer(4);
        let producer = {
            let channel = channel.clone();
            thread::spawn(move || {
                send(&channel, 1);
                send(&channel, 2);
            })
        };
        executor.enter(|| send(&channel, 3));
        executor.run(None).expect("no panic");
        producer.join().unwrap();
        executor.run(None).expect("no panic");
        assert_eq!(
            count.load(Ordering::Relaxed),
            3,
            "a message was not handled"
        );
        assert!(channel.is_idle());
    });
}

/// A producer on another thread fills a one-slot mailbox and waits for
/// room while the executor drains it: the consumer frees the slot without
/// a fence (`WaitList::wake_all_local`), so the producer, after it
/// registers, wakes the consumer through the shared queue; neither side
/// may be left waiting on the other.
#[test]
fn loom_st_a_producer_on_another_thread_waiting_on_a_full_mailbox_is_woken() {
    every_interleaving(|| {
        let (mut executor, channel, count) = consumer(1);
        let producer = {
            let channel = channel.clone();
            thread::spawn(move || {
                for value in 1..=2 {
                    let mut arg = Some(value);
                    let mut ticket = WaitTicket::new();
                    loom::future::block_on(poll_fn(|cx| {
                        let value = arg.take().unwrap();
                        match channel.try_push_with(value, Some, cx, Some(&mut ticket)) {
                            Ok(_) => {
                                ticket.leave_served();
                                std::task::Poll::Ready(())
                            }
                            Err(value) => {
                                arg = Some(value);
                                std::task::Poll::Pending
                            }
                        }
                    }));
                }
            })
        };
        // A lost wake-up spins here until loom gives up on the branches.
        while count.load(Ordering::Relaxed) < 2 {
            executor.run(None).expect("no panic");
            thread::yield_now();
        }
        producer.join().unwrap();
        assert!(channel.is_idle());
    });
}
