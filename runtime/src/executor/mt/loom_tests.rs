//! Loom models of the executor: wake-up and parking without lost wake-ups,
//! exact step completion, and panics that neither hang nor leak a thread.
//!
//! Run with `RUSTFLAGS="--cfg causim_loom" cargo test -p causim --release
//! --lib loom` (see the README). `st3`'s queues are not instrumented (its
//! own loom suite checks them; a stand-in takes their place): the
//! interleavings explored are those of this crate's atomics, locks and
//! parking, the mailbox's consumer waker included.

use std::future::poll_fn;
use std::task::{Poll, Waker};

use super::task::{AfterPoll, Task};
use super::{await_running_polls, Executor};
use crate::executor::st::RunError;
use crate::executor::{ModelMailbox, TaskMeta, TaskProbe};
use crate::mailbox::channel::{Channel, Pushed};
use crate::name::Name;
use crate::sync::atomic::{AtomicBool, Ordering};
use crate::sync::{lock, Arc, Mutex};

/// The probe of a bench task named `name`.
fn meta(name: &str) -> std::sync::Arc<dyn TaskProbe> {
    TaskMeta {
        name: std::sync::Arc::from(name),
        model_type: "test",
        mailbox: None,
    }
    .into_probe()
}

/// A one-shot signal between two tasks.
struct Signal {
    /// Set once signalled.
    set: AtomicBool,
    /// The waiting task's waker.
    waker: Mutex<Option<Waker>>,
}

impl Signal {
    fn new() -> Arc<Self> {
        Arc::new(Signal {
            set: AtomicBool::new(false),
            waker: Mutex::new(None),
        })
    }

    fn raise(&self) {
        let waker = {
            let mut waker = lock(&self.waker);
            self.set.store(true, Ordering::Release);
            waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    async fn wait(&self) {
        poll_fn(|cx| {
            let mut waker = lock(&self.waker);
            if self.set.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
            *waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}

/// Spawns task `name`, which waits for `signal`, then counts itself in
/// `ran`.
fn spawn_counting_waiter(
    executor: &mut Executor,
    signal: &Arc<Signal>,
    ran: &Arc<crate::sync::atomic::AtomicUsize>,
    name: &str,
) {
    let (signal, ran) = (signal.clone(), ran.clone());
    executor.spawn(
        Box::pin(async move {
            signal.wait().await;
            ran.fetch_add(1, Ordering::Relaxed);
        }),
        meta(name),
    );
}

/// A model run with a bound on preemptions, to keep it tractable.
fn every_interleaving(f: impl Fn() + Sync + Send + 'static) {
    crate::sync::loom_check(2, f);
}

#[test]
fn loom_executor_runs_woken_tasks_to_completion() {
    every_interleaving(|| {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        let signal = Signal::new();
        let (waiter, raiser) = (signal.clone(), signal);
        executor.spawn(Box::pin(async move { waiter.wait().await }), meta("a"));
        executor.spawn(Box::pin(async move { raiser.raise() }), meta("b"));
        assert!(executor.run(None).is_ok());
        assert!(executor.stuck().is_empty(), "a woken task was lost");
        assert_eq!(executor.task_count(), 0);
    });
}

#[test]
fn loom_executor_step_ends_with_a_task_that_can_never_run() {
    every_interleaving(|| {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        let never = Signal::new();
        let signal = Signal::new();
        let (waiter, raiser) = (signal.clone(), signal);
        executor.spawn(
            Box::pin(async move {
                waiter.wait().await;
                never.wait().await;
            }),
            meta("blocked"),
        );
        executor.spawn(Box::pin(async move { raiser.raise() }), meta("b"));
        assert!(executor.run(None).is_ok());
        let stuck = executor.stuck();
        assert_eq!(stuck.len(), 1);
        assert_eq!(&*stuck[0].meta.name, "blocked");
    });
}

#[test]
fn loom_executor_reports_a_panic_and_joins_its_workers() {
    every_interleaving(|| {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        executor.spawn(Box::pin(async { panic!("boom") }), meta("fragile"));
        executor.spawn(Box::pin(async {}), meta("fine"));
        match executor.run(None) {
            Err(RunError::Panic { meta, message }) => {
                assert_eq!(&*meta.name, "fragile");
                assert_eq!(message, "boom");
            }
            other => panic!("expected a panic report, got {other:?}"),
        }
        drop(executor);
    });
}

/// Activity leases: one task wakes two idle ones, so worker 0's queue holds
/// two tasks that the other worker may steal while worker 0 polls and then
/// gives its lease back; the step must end only after both ran, and a
/// second step (the lease carried home in between) must do the same.
#[test]
fn loom_executor_step_waits_for_stolen_tasks() {
    every_interleaving(|| {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        let ran = Arc::new(crate::sync::atomic::AtomicUsize::new(0));
        let (first, second) = (Signal::new(), Signal::new());
        for (signal, name) in [(&first, "x"), (&second, "y")] {
            spawn_counting_waiter(&mut executor, signal, &ran, name);
        }
        assert!(executor.run(None).is_ok());
        assert_eq!(ran.load(Ordering::Relaxed), 0);
        executor.spawn(
            Box::pin(async move {
                first.raise();
                second.raise();
            }),
            meta("waker"),
        );
        assert!(executor.run(None).is_ok());
        assert_eq!(
            ran.load(Ordering::Relaxed),
            2,
            "a stolen task outlived its step"
        );
        assert!(executor.stuck().is_empty());
        assert_eq!(executor.task_count(), 0);
    });
}

/// Injected batches: three idle tasks woken from outside the workers (the
/// bench, between two steps) wait on the injector; the first worker to
/// take one moves another into its own queue under the same lock and
/// gives back that task's unit of the activity count, while the other
/// worker may take the third. The step must end only once all three ran,
/// each exactly once, with the count back at zero (a second step then
/// runs and ends too).
#[test]
fn loom_executor_takes_injected_tasks_in_a_batch() {
    every_interleaving(|| {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        let ran = Arc::new(crate::sync::atomic::AtomicUsize::new(0));
        let signals = [Signal::new(), Signal::new(), Signal::new()];
        for (signal, name) in signals.iter().zip(["x", "y", "z"]) {
            spawn_counting_waiter(&mut executor, signal, &ran, name);
        }
        assert!(executor.run(None).is_ok());
        assert_eq!(ran.load(Ordering::Relaxed), 0);
        // From this thread, outside any worker: each wake injects.
        for signal in &signals {
            signal.raise();
        }
        assert!(executor.run(None).is_ok());
        assert_eq!(
            ran.load(Ordering::Relaxed),
            3,
            "an injected task outlived its step"
        );
        assert!(executor.stuck().is_empty());
        assert_eq!(executor.task_count(), 0);
        assert!(executor.run(None).is_ok(), "the count was left unbalanced");
    });
}

/// A spilled queue: with worker queues of two tasks, one poll wakes four
/// idle tasks; the first waits in the `next` slot, the next two fill the
/// queue, and the fourth finds it full and moves its older task and the
/// new one to the injector under one lock, while the other
/// worker (woken at once: a threshold of 1) may be stealing from that
/// queue or taking from the injector. Each task must run exactly once and
/// the step end only after all of them, with the count back at zero.
#[test]
fn loom_executor_spills_a_full_queue_while_a_worker_steals() {
    every_interleaving(|| {
        let bench = crate::bench::BenchId::new();
        let mut executor = Executor::with_queues(2, bench, 1, 2);
        let ran = Arc::new(crate::sync::atomic::AtomicUsize::new(0));
        let signals = [Signal::new(), Signal::new(), Signal::new(), Signal::new()];
        for (signal, name) in signals.iter().zip(["w", "x", "y", "z"]) {
            spawn_counting_waiter(&mut executor, signal, &ran, name);
        }
        assert!(executor.run(None).is_ok());
        let raisers = signals.clone();
        executor.spawn(
            Box::pin(async move { raisers.iter().for_each(|signal| signal.raise()) }),
            meta("fan"),
        );
        assert!(executor.run(None).is_ok());
        assert_eq!(ran.load(Ordering::Relaxed), 4, "a spilled task was lost");
        assert!(executor.stuck().is_empty());
        assert_eq!(executor.task_count(), 0);
        assert!(executor.run(None).is_ok(), "the count was left unbalanced");
    });
}

/// Uncounted queue entries: a thread outside the executor wakes a task
/// (which then sits in the injector as a bare pointer) while the executor
/// is dropped. The teardown must take the task's future exactly once and
/// free the task only after that thread's waker let go; no access may
/// race with the teardown (loom checks the future's cell and the `Arc`s).
#[test]
fn loom_executor_teardown_races_a_wake_from_outside() {
    every_interleaving(|| {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        let signal = Signal::new();
        let waiter = signal.clone();
        executor.spawn(Box::pin(async move { waiter.wait().await }), meta("a"));
        assert!(executor.run(None).is_ok());
        // The task now waits with its waker in `signal`.
        let outside = loom::thread::spawn(move || signal.raise());
        drop(executor);
        outside.join().unwrap();
    });
}

/// A model type to see a channel as a model's mailbox.
struct Sink;

impl crate::Model for Sink {
    type Message = u32;

    async fn dispatch(&mut self, _message: u32, _cx: &mut crate::Context<Self>) {}

    fn metadata() -> crate::model::ModelMetadata {
        crate::model::ModelMetadata {
            type_name: "Sink",
            inputs: &[],
            outputs: &[],
        }
    }
}

/// A mailbox's consumer side: closes the channel when its task goes.
struct Consumer(std::sync::Arc<Channel<u32>>);

impl Drop for Consumer {
    fn drop(&mut self) {
        // SAFETY: the task that owns this is the channel's only consumer.
        unsafe { self.0.close() };
    }
}

/// Spawns a bench task that pushes one message into `channel`, which has
/// room for it.
fn spawn_producer(executor: &mut Executor, channel: &std::sync::Arc<Channel<u32>>) {
    let producer = channel.clone();
    executor.spawn(
        Box::pin(async move {
            poll_fn(|cx| {
                assert_eq!(
                    producer.try_push_with(7, Some, cx, None),
                    Ok(Pushed::Delivered)
                );
                Poll::Ready(())
            })
            .await
        }),
        meta("producer"),
    );
}

/// The cycle every model makes on several threads: its task holds its
/// mailbox's channel (as its probe), and the channel keeps the waker the
/// task registered for as long as the channel lives (see
/// `mailbox/channel/consumer_waker.rs`). A task receives a message, parks
/// on its empty mailbox, and the executor is dropped: loom fails the model
/// if the task's `Arc` (and so the channel) is never freed.
#[test]
fn loom_executor_teardown_frees_a_task_its_mailbox_wakes() {
    every_interleaving(|| {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        let channel = std::sync::Arc::new(Channel::<u32>::new(1));
        channel.bind(Name::from("sink"), crate::bench::BenchId::new(), 0);
        let received = Arc::new(crate::sync::atomic::AtomicUsize::new(0));
        let consumer = Consumer(channel.clone());
        let seen = received.clone();
        executor.spawn(
            Box::pin(async move {
                loop {
                    // SAFETY: this task is the channel's only consumer.
                    poll_fn(|cx| unsafe { consumer.0.poll_pop(cx) }).await;
                    seen.fetch_add(1, Ordering::Relaxed);
                }
            }),
            ModelMailbox::<Sink>::probe(channel.clone()),
        );
        spawn_producer(&mut executor, &channel);
        assert!(executor.run(None).is_ok());
        assert_eq!(received.load(Ordering::Relaxed), 1);
        assert!(executor.stuck().is_empty());
        drop(executor);
        drop(channel);
    });
}

/// A poll that ends parked on its empty mailbox does not list its task as
/// a deadlock candidate (`run_task`): a model's first poll races with a
/// push from a task on the other worker; whether it parks first or takes
/// the message at once, it then waits on a signal nobody raises, and the
/// end of the step must name it as stuck. The model fails if the parking
/// is noted before the waker is registered (a push between the two is
/// then missed while the task goes unlisted), and, at this bound of three
/// preemptions, if the end of the step does not synchronise with the
/// workers' lease releases (every ordering on the activity count made
/// relaxed), after which the relaxed `has_candidates` misses the listing.
#[test]
fn loom_executor_a_model_idle_after_one_poll_and_stuck_after_the_next_is_named() {
    crate::sync::loom_check(3, || {
        let mut executor = Executor::new(2, crate::bench::BenchId::new(), 1);
        let channel = std::sync::Arc::new(Channel::<u32>::new(1));
        channel.bind(Name::from("sink"), crate::bench::BenchId::new(), 0);
        let consumer = Consumer(channel.clone());
        let never = Signal::new();
        executor.spawn(
            Box::pin(async move {
                // SAFETY: this task is the channel's only consumer.
                poll_fn(|cx| unsafe { consumer.0.poll_pop(cx) }).await;
                never.wait().await;
            }),
            ModelMailbox::<Sink>::probe(channel.clone()),
        );
        spawn_producer(&mut executor, &channel);
        assert!(executor.run(None).is_ok());
        let stuck = executor.stuck();
        assert_eq!(stuck.len(), 1, "the waiting model was not named");
        assert_eq!(&*stuck[0].meta.name, "sink");
        drop(executor);
        drop(channel);
    });
}

/// A timeout's report (`Executor::busy`) while a poll is still under way:
/// model `x`, polled by a worker, hands a message to the idle model `y`
/// (wakes it) and ends its poll. Read one after the other, without the
/// wait for running polls, `y` could be seen before the wake and `x`
/// after its poll ended, and the report would name neither (checked: the
/// model fails without `await_running_polls`). With it, one of the two is
/// always named.
#[test]
fn loom_a_timeout_report_sees_a_message_handed_over_during_it() {
    every_interleaving(|| {
        let task = |name: &str| {
            let shared = Arc::new(super::shared::Shared::new(Vec::new()));
            let future = Box::pin(std::future::pending());
            Arc::new(Task::new_scheduled(future, meta(name), shared))
        };
        // Spawn order: `y` before `x`, as the report reads them.
        let (y, x) = (task("y"), task("x"));
        assert!(y.start_poll());
        assert_eq!(y.end_poll(), AfterPoll::Idle);
        assert!(x.start_poll());
        let (worker_x, worker_y) = (x.clone(), y.clone());
        let worker = loom::thread::spawn(move || {
            worker_y.mark_woken();
            assert_eq!(worker_x.end_poll(), AfterPoll::Idle);
        });
        let tasks = [y, x];
        await_running_polls(&tasks, || {
            loom::thread::yield_now();
            true
        });
        let named = tasks.iter().filter(|task| task.is_running_or_queued());
        assert!(named.count() > 0, "the hand-over was missed");
        worker.join().unwrap();
    });
}
