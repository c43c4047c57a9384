//! Tests of the executor on real threads, for what its loom models cannot
//! reach: `st3`'s queues are not instrumented under loom, but Miri runs
//! them as they are (`.ci/miri` runs these tests).

use std::future::poll_fn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::Executor;
use crate::bench::BenchId;
use crate::executor::st::TaskFuture;
use crate::executor::{FirstPoll, TaskMeta, TaskProbe};
use crate::mailbox::channel::{Channel, Pushed};
use crate::name::Name;

/// The probe of a bench task named `name`.
fn meta(name: &str) -> Arc<dyn TaskProbe> {
    TaskMeta {
        name: Arc::from(name),
        model_type: "test",
        mailbox: None,
    }
    .into_probe()
}

/// The calling thread keeps its lease from one step to the next, so it
/// ends a step on a plain load of the activity count. Each step queues two
/// tasks there and wakes the other worker, which steals one: the calling
/// thread, finding its queue emptied by the steal, must also see the
/// stealer's lease, or it ends the step while the stolen task runs.
/// (`st3` books a steal with an acquire-only exchange, which publishes
/// nothing; Miri found the step ending early until the stealer fenced.)
#[test]
fn a_step_ends_only_after_the_polls_of_stolen_tasks() {
    let steps = if cfg!(miri) { 60 } else { 2_000 };
    let mut executor = Executor::new(2, BenchId::new(), 1);
    let ran = Arc::new(AtomicUsize::new(0));
    for step in 0..steps {
        for name in ["x", "y"] {
            let ran = ran.clone();
            executor.spawn(
                Box::pin(async move {
                    ran.fetch_add(1, Ordering::Relaxed);
                }),
                meta(name),
            );
        }
        assert!(executor.run(None).is_ok());
        assert_eq!(
            ran.load(Ordering::Relaxed),
            2 * (step + 1),
            "step {step} ended before both tasks ran"
        );
    }
}

/// A gate that tasks wait at until one task opens it.
#[derive(Default)]
struct Gate {
    /// Open yet, and the wakers of the tasks waiting.
    state: std::sync::Mutex<(bool, Vec<std::task::Waker>)>,
}

impl Gate {
    /// Waits until the gate is open.
    async fn pass(&self) {
        std::future::poll_fn(|cx| {
            let mut state = self.state.lock().unwrap();
            if state.0 {
                return std::task::Poll::Ready(());
            }
            state.1.push(cx.waker().clone());
            std::task::Poll::Pending
        })
        .await
    }

    /// Opens the gate and wakes every task waiting, from inside a poll.
    fn open(&self) {
        let wakers = {
            let mut state = self.state.lock().unwrap();
            state.0 = true;
            std::mem::take(&mut state.1)
        };
        wakers.into_iter().for_each(std::task::Waker::wake);
    }
}

/// Worker queues of two tasks: one poll wakes six idle tasks, so the
/// worker's queue spills its older half to the injector (`st3`'s `drain`)
/// while the other worker (woken at once: a threshold of 1) steals from
/// it or takes from the injector. Every task must run once and the step
/// end only after all of them, step after step.
#[test]
fn a_spilling_queue_loses_no_task_to_a_stealing_worker() {
    let steps = if cfg!(miri) { 6 } else { 300 };
    let waiters = 6;
    let mut executor = Executor::with_queues(2, BenchId::new(), 1, 2);
    let ran = Arc::new(AtomicUsize::new(0));
    for step in 0..steps {
        let gate = Arc::new(Gate::default());
        for _ in 0..waiters {
            let (gate, ran) = (gate.clone(), ran.clone());
            executor.spawn(
                Box::pin(async move {
                    gate.pass().await;
                    ran.fetch_add(1, Ordering::Relaxed);
                }),
                meta("waiter"),
            );
        }
        assert!(executor.run(None).is_ok());
        executor.spawn(Box::pin(async move { gate.open() }), meta("opener"));
        assert!(executor.run(None).is_ok());
        assert_eq!(
            ran.load(Ordering::Relaxed),
            waiters * (step + 1),
            "step {step} ended before every woken task ran"
        );
    }
}

/// Pushes `value` into `channel`, which has room, from whatever thread.
fn push(channel: &Channel<u32>, value: u32) {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let pushed = channel.try_push_with(value, Some, &mut cx, None);
    assert_eq!(pushed, Ok(Pushed::Delivered));
}

/// A model's task: notes `(index, None)` when first polled, then
/// `(index, Some(value))` for each message of `mailbox`. An `async fn`,
/// whose declared `()` its endless loop coerces to (newer compilers do not
/// coerce an `async` block's `!`).
async fn consume(index: usize, polls: Polls, mailbox: Arc<Channel<u32>>) {
    polls.lock().unwrap().push((index, None));
    loop {
        // SAFETY: this task is the channel's only consumer.
        let value = poll_fn(|cx| unsafe { mailbox.poll_pop(cx) }).await;
        polls.lock().unwrap().push((index, Some(value)));
    }
}

/// The polls [`consume`] notes.
type Polls = Arc<Mutex<Vec<(usize, Option<u32>)>>>;

/// Spawned to be first polled on their first message (a restored bench's
/// tasks), tasks are parked on their empty mailboxes without a poll: a
/// message wakes its task, from the bench or from another thread, and a
/// task whose mailbox held a message already is queued at once.
#[test]
fn tasks_first_polled_on_their_first_message_wait_for_it() {
    let bench = BenchId::new();
    let channels: Vec<Arc<Channel<u32>>> = (0..3)
        .map(|place| {
            let channel = Arc::new(Channel::new(4));
            channel.bind(Name::from(format!("m{place}").as_str()), bench, place);
            channel
        })
        .collect();
    // Sent before the start: the third task's first poll must take it.
    push(&channels[2], 9);
    let polls = Polls::default();
    let tasks: Vec<(TaskFuture, Arc<dyn TaskProbe>)> = (channels.iter().enumerate())
        .map(|(index, channel)| {
            let task = consume(index, polls.clone(), channel.clone());
            let meta = TaskMeta {
                name: Arc::from(format!("m{index}")),
                model_type: "test",
                mailbox: Some(channel.clone() as Arc<dyn TaskProbe>),
            };
            (Box::pin(task) as TaskFuture, meta.into_probe())
        })
        .collect();
    let mut executor = Executor::new(2, bench, 1);
    executor.spawn_all(tasks.into_iter(), FirstPoll::OnFirstMessage);
    assert!(channels[0].is_idle() && channels[1].is_idle());
    assert!(executor.run(None).is_ok());
    assert_eq!(*polls.lock().unwrap(), [(2, None), (2, Some(9))]);

    executor.enter(|| push(&channels[1], 5));
    assert!(executor.run(None).is_ok());
    let sender = channels[0].clone();
    std::thread::spawn(move || push(&sender, 7)).join().unwrap();
    assert!(executor.run(None).is_ok());
    assert_eq!(
        polls.lock().unwrap()[2..],
        [(1, None), (1, Some(5)), (0, None), (0, Some(7))]
    );
    assert!(channels.iter().all(|channel| channel.is_idle()));
    assert!(executor.stuck().is_empty());
}
