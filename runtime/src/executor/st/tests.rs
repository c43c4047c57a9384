//! Wake-ups of the single-threaded executor's mailbox fast path from other
//! threads: the path that cannot rely on the consumer's flag.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use super::Executor;
use crate::executor::{TaskMeta, TaskProbe};
use crate::mailbox::channel::{Channel, Pushed};
use crate::mailbox::WaitTicket;
use crate::name::Name;

/// Wakes a thread blocked in [`block_on`].
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to completion on this thread, parking while it waits.
fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
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
    }))
}

/// An executor whose one task drains a bound channel of `capacity` into a
/// sum and a count.
fn consumer(
    capacity: usize,
) -> (
    Executor,
    Arc<Channel<u32>>,
    Arc<AtomicUsize>,
    Arc<AtomicUsize>,
) {
    let channel = Arc::new(Channel::new(capacity));
    channel.bind(Name::from("consumer"), crate::bench::BenchId::new(), 0);
    let (sum, count) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut executor = Executor::new();
    let task = {
        let (channel, sum, count) = (channel.clone(), sum.clone(), count.clone());
        async move {
            loop {
                // SAFETY: this task is the channel's only consumer.
                let value = poll_fn(|cx| unsafe { channel.poll_pop(cx) }).await;
                sum.fetch_add(value as usize, Ordering::Relaxed);
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
    (executor, channel, sum, count)
}

/// Runs the executor until the consumer has counted `expected` messages;
/// panics if that takes more than 20 s (a lost wake-up).
fn run_until(executor: &mut Executor, count: &AtomicUsize, expected: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while count.load(Ordering::Relaxed) < expected {
        executor.run(None).expect("no task panics");
        assert!(
            Instant::now() < deadline,
            "lost wake-up: {} of {expected} messages received",
            count.load(Ordering::Relaxed)
        );
        thread::yield_now();
    }
}

#[test]
fn a_send_from_another_thread_wakes_a_parked_consumer() {
    let (mut executor, channel, sum, count) = consumer(16);
    let producer = {
        let channel = channel.clone();
        thread::spawn(move || (1..=10).for_each(|v| send(&channel, v)))
    };
    run_until(&mut executor, &count, 10);
    producer.join().unwrap();
    assert_eq!(sum.load(Ordering::Relaxed), 55);
    assert!(channel.is_idle());
}

#[test]
fn a_producer_on_another_thread_waiting_on_a_full_mailbox_is_woken() {
    // Capacity 2 and many messages (fewer under Miri, which still
    // interleaves the two threads at every step): the producer waits on a
    // full mailbox again and again, and the consumer wakes it without a
    // fence.
    let messages: u32 = if cfg!(miri) { 150 } else { 500 };
    let (mut executor, channel, sum, count) = consumer(2);
    let producer = {
        let channel = channel.clone();
        thread::spawn(move || (1..=messages).for_each(|v| send(&channel, v)))
    };
    run_until(&mut executor, &count, messages as usize);
    producer.join().unwrap();
    let messages = messages as usize;
    assert_eq!(sum.load(Ordering::Relaxed), messages * (messages + 1) / 2);
}

#[test]
fn a_send_on_the_executor_thread_queues_the_parked_consumer_once() {
    let (mut executor, channel, sum, count) = consumer(16);
    // As the scheduler does: sends from the bench, inside `enter`.
    executor.enter(|| {
        for v in 1..=3 {
            send(&channel, v);
        }
    });
    assert_eq!(
        executor.queue.local.len_for_tests(),
        1,
        "queued once, not three times"
    );
    executor.run(None).unwrap();
    assert_eq!(
        (count.load(Ordering::Relaxed), sum.load(Ordering::Relaxed)),
        (3, 6)
    );
    assert!(channel.is_idle());
}

/// A task's poll that ends parked on its empty mailbox leaves it out of
/// the deadlock candidates; any other pending poll lists it, and a listed
/// task that parks later is not reported.
#[test]
fn only_tasks_that_did_not_park_on_their_mailbox_are_looked_at() {
    let (mut executor, channel, _sum, count) = consumer(16);
    assert!(
        executor.candidates.borrow().is_empty(),
        "parked on its mailbox: not a candidate"
    );
    assert!(executor.stuck().is_empty());

    // Waits on something else first (listed), then parks on its mailbox.
    let other = Arc::new(Channel::<u32>::new(4));
    other.bind(Name::from("late"), crate::bench::BenchId::new(), 0);
    let mut yielded = false;
    let late = {
        let other = other.clone();
        async move {
            poll_fn(|cx| {
                if yielded {
                    return Poll::Ready(());
                }
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            })
            .await;
            // SAFETY: this task is the channel's only consumer.
            let _ = poll_fn(|cx| unsafe { other.poll_pop(cx) }).await;
        }
    };
    let probe: Arc<dyn TaskProbe> = other.clone();
    let meta = |name: &str, mailbox| TaskMeta {
        name: Arc::from(name),
        model_type: "Test",
        mailbox,
    };
    executor.spawn(Box::pin(late), meta("late", Some(probe)).into_probe());
    // Never ready, no mailbox: stuck.
    executor.spawn(
        Box::pin(std::future::pending()),
        meta("blocked", None).into_probe(),
    );
    executor.run(None).unwrap();
    assert!(other.is_idle());
    let names = |stuck: Vec<super::Stuck>| -> Vec<String> {
        stuck.iter().map(|s| s.meta.name.to_string()).collect()
    };
    assert_eq!(names(executor.stuck()), ["blocked"]);
    // Found stuck, it is looked at again without being polled.
    assert_eq!(names(executor.stuck()), ["blocked"]);

    // The consumer handles a message and parks again: still not stuck.
    executor.enter(|| send(&channel, 5));
    executor.run(None).unwrap();
    assert_eq!(count.load(Ordering::Relaxed), 1);
    assert_eq!(names(executor.stuck()), ["blocked"]);
}

/// Yields once: wakes its own task and returns pending, then ready.
async fn yield_once() {
    let mut yielded = false;
    poll_fn(|cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await
}

/// Two tasks that each keep a `&mut` into their own future across their
/// suspensions, as a model's task does (`run_model`), polled in turns: the
/// executor prefetches each one while the other runs. The prefetch must
/// not make a reference to the waiting future — Miri (Stacked Borrows)
/// reports that as invalidating the future's own borrow (it did, before
/// the prefetch read the future's address through raw pointers only).
#[test]
fn prefetching_a_future_leaves_its_borrows_of_itself_valid() {
    const TURNS: usize = 8;
    let total = Arc::new(AtomicUsize::new(0));
    let mut executor = Executor::new();
    for name in ["a", "b"] {
        let total = total.clone();
        let task = async move {
            let mut state = (0usize, [0u8; 32]);
            let (count, _) = &mut state;
            for _ in 0..TURNS {
                yield_once().await;
                *count += 1;
            }
            total.fetch_add(*count, Ordering::Relaxed);
        };
        let meta = TaskMeta {
            name: Arc::from(name),
            model_type: "Test",
            mailbox: None,
        };
        executor.spawn(Box::pin(task), meta.into_probe());
    }
    executor.run(None).unwrap();
    assert_eq!(total.load(Ordering::Relaxed), 2 * TURNS);
    assert_eq!(executor.task_count(), 0);
}

/// Mailboxes of `count` models of one bench, bound at places 0, 1, ….
fn bound_channels(count: u32) -> Vec<Arc<Channel<u32>>> {
    let bench = crate::bench::BenchId::new();
    (0..count)
        .map(|place| {
            let channel = Arc::new(Channel::new(4));
            channel.bind(Name::from(format!("m{place}").as_str()), bench, place);
            channel
        })
        .collect()
}

/// The task of consumer `index` of [`consumers`]: an `async fn`, whose
/// declared `()` output its endless loop coerces to (an `async` block
/// ending in the loop would be a `!` future, which newer compilers do not
/// coerce to a model task's).
async fn consume<T>(
    index: usize,
    notes: Notes<T>,
    mailbox: Arc<Channel<u32>>,
    note: fn(usize, Option<u32>) -> Option<T>,
) {
    notes.lock().unwrap().extend(note(index, None));
    loop {
        // SAFETY: this task is the channel's only consumer.
        let value = poll_fn(|cx| unsafe { mailbox.poll_pop(cx) }).await;
        notes.lock().unwrap().extend(note(index, Some(value)));
    }
}

/// What the tasks of [`consumers`] noted, in order.
type Notes<T> = Arc<std::sync::Mutex<Vec<T>>>;

/// A consumer task for each channel, as a model's: each notes
/// `note(index, None)` when first polled and `note(index, Some(value))`
/// for each message, keeping what `note` returns.
fn consumers<T: Send + 'static>(
    channels: &[Arc<Channel<u32>>],
    notes: &Notes<T>,
    note: fn(usize, Option<u32>) -> Option<T>,
) -> Vec<(super::TaskFuture, Arc<dyn TaskProbe>)> {
    channels
        .iter()
        .enumerate()
        .map(|(index, channel)| {
            let task = consume(index, notes.clone(), channel.clone(), note);
            let probe: Arc<dyn TaskProbe> = channel.clone();
            let meta = TaskMeta {
                name: Arc::from(format!("m{index}")),
                model_type: "Test",
                mailbox: Some(probe),
            };
            (Box::pin(task) as super::TaskFuture, meta.into_probe())
        })
        .collect()
}

/// The tasks of a bench's models, spawned together at its start, are
/// queued on the local queue once each, in the order given: a message
/// that reaches one before its first poll does not queue it again, and the
/// first polls come in that order.
#[test]
fn tasks_spawned_together_are_first_polled_in_their_order() {
    let polls = Notes::default();
    let channels = bound_channels(3);
    let tasks = consumers(&channels, &polls, |index, value| Some((index, value)));
    let mut executor = Executor::new();
    executor.spawn_all(tasks.into_iter(), crate::executor::FirstPoll::AtStart);
    assert_eq!(executor.queue.local.len_for_tests(), 3);
    // As the scheduler sends: from the bench, inside `enter`; and a wake
    // that does not look at the mailbox's flag.
    executor.enter(|| {
        send(&channels[2], 7);
        channels[2].task_waker().wake_task();
    });
    assert_eq!(executor.queue.local.len_for_tests(), 3, "queued once");
    executor.run(None).unwrap();
    assert_eq!(
        *polls.lock().unwrap(),
        [(0, None), (1, None), (2, None), (2, Some(7))]
    );
    assert!(channels.iter().all(|channel| channel.is_idle()));
    // Parked, each is woken by its next message.
    executor.enter(|| send(&channels[0], 1));
    executor.run(None).unwrap();
    assert_eq!(polls.lock().unwrap().last(), Some(&(0, Some(1))));
}

/// Spawned to be first polled on their first message, tasks are not
/// queued at all, but marked idle: a message wakes its task, which is
/// polled then, and a task whose mailbox already held a message is queued
/// at once.
#[test]
fn tasks_first_polled_on_their_first_message_wait_for_it() {
    let polls = Notes::default();
    let channels = bound_channels(3);
    // Sent before the start: the third model's first poll must take it.
    send(&channels[2], 9);
    let tasks = consumers(&channels, &polls, |index, value| value.map(|v| (index, v)));
    let mut executor = Executor::new();
    executor.spawn_all(
        tasks.into_iter(),
        crate::executor::FirstPoll::OnFirstMessage,
    );
    assert_eq!(executor.queue.local.len_for_tests(), 1, "the third only");
    assert!(channels[0].is_idle() && channels[1].is_idle());
    executor.run(None).unwrap();
    assert_eq!(*polls.lock().unwrap(), [(2, 9)]);
    executor.enter(|| send(&channels[1], 5));
    executor.run(None).unwrap();
    assert_eq!(*polls.lock().unwrap(), [(2, 9), (1, 5)]);
    assert!(executor.stuck().is_empty());
    assert!(executor.busy().is_empty(), "idle, never polled or parked");
}
