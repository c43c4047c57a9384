//! Which thread polls a model on several threads (`SimInit::with_wake_threshold`):
//! a step with a few light models stays on the calling thread; many ready
//! models, or models whose polls are long, wake another worker.
//!
//! Each model notes the thread its tick ran on. The tests assert what the
//! rule makes certain, with room for a loaded machine: light steps stay
//! on the calling thread (nearly always: a preempted poll can make the
//! measure long for a step or two); polls long enough (milliseconds) are
//! seen on another thread once measured, whether the step starts with
//! them or a model fans out to them, and at once with a threshold of 1.
//!
//! This file picks its thread counts itself, so it is not part of the
//! executor matrix (`tests/matrix/suite.rs`).

mod common;
use common::*;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

/// The threads ticks ran on, shared by every model of a bench.
type Threads = Arc<Mutex<Vec<ThreadId>>>;

/// Notes the thread of each tick, after working for `busy`.
#[model]
struct Worker {
    busy: Duration,
    threads: Threads,
}

#[model]
impl Worker {
    #[input]
    fn tick(&mut self, _: ()) {
        if !self.busy.is_zero() {
            thread::sleep(self.busy);
        }
        self.threads
            .lock()
            .expect("not poisoned")
            .push(thread::current().id());
    }
}

/// Ticks every worker connected to it when it is ticked.
#[model]
struct Dispatcher {
    out: Output<()>,
}

#[model]
impl Dispatcher {
    #[input]
    async fn tick(&mut self, _: ()) {
        self.out.send(()).await;
    }
}

/// Adds `models` workers working `busy` a tick, which note their threads
/// in `threads`; their addresses.
fn add_workers(
    mut init: SimInit,
    models: usize,
    busy: Duration,
    threads: &Threads,
) -> (SimInit, Vec<Address<Worker>>) {
    let mut addresses = Vec::new();
    for i in 0..models {
        let mailbox = Mailbox::new();
        addresses.push(mailbox.address());
        let worker = Worker {
            busy,
            threads: threads.clone(),
        };
        init = init.add_model(worker, mailbox, format!("w{i}"));
    }
    (init, addresses)
}

/// `models` workers, ticked together at each of `steps` times; the
/// threads their ticks ran on.
fn run(init: SimInit, models: usize, busy: Duration, steps: u64) -> Vec<ThreadId> {
    let threads = Threads::default();
    let (init, workers) = add_workers(init, models, busy, &threads);
    run_steps(start(init), Worker::ports().tick, &workers, steps);
    ticks(&threads, models, steps)
}

/// `models` workers that one dispatcher ticks, itself ticked at each of
/// `steps` times: every step starts with one task, which wakes the
/// others; the threads the workers' ticks ran on.
fn run_fanned_out(init: SimInit, models: usize, busy: Duration, steps: u64) -> Vec<ThreadId> {
    let threads = Threads::default();
    let (init, workers) = add_workers(init, models, busy, &threads);
    let mut dispatcher = Dispatcher { out: Output::new() };
    for worker in &workers {
        dispatcher.out.connect(Worker::ports().tick, worker);
    }
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let simu = start(init.add_model(dispatcher, mailbox, "dispatcher"));
    run_steps(simu, Dispatcher::ports().tick, &[address], steps);
    ticks(&threads, models, steps)
}

/// Sends `port` to each of `targets` at times 1 to `steps` s, and runs
/// them.
fn run_steps<M: Model>(
    mut simu: Simulation,
    port: InputPort<M, ()>,
    targets: &[Address<M>],
    steps: u64,
) {
    // The spawned worker looks for work once before it first parks: let
    // it park, so that only the rule under test decides who polls.
    thread::sleep(Duration::from_millis(100));
    let scheduler = simu.scheduler();
    for step in 1..=steps {
        for address in targets {
            scheduler
                .schedule(SimTime::from_secs(step), port, (), address)
                .expect("in the future");
        }
    }
    simu.step_until(SimTime::from_secs(steps))
        .expect("the run succeeds");
}

/// The threads the ticks noted in `threads` ran on, once each of `models`
/// workers ticked at each of `steps` times.
fn ticks(threads: &Threads, models: usize, steps: u64) -> Vec<ThreadId> {
    let seen = threads.lock().expect("not poisoned").clone();
    assert_eq!(seen.len() as u64, models as u64 * steps, "every tick ran");
    seen
}

/// The threads other than the calling one that ran a tick.
fn others(seen: &[ThreadId]) -> HashSet<ThreadId> {
    let me = thread::current().id();
    seen.iter().copied().filter(|id| *id != me).collect()
}

#[test]
fn steps_of_a_few_light_models_stay_on_the_calling_thread() {
    // The last 20 of 50 steps: by then the measure has forgotten a start
    // slowed by a loaded machine (it moves a quarter of the way a step).
    let init = SimInit::new().with_threads(2);
    let seen = run(init, 2, Duration::ZERO, 50);
    let me = thread::current().id();
    let here = seen[60..].iter().filter(|id| **id == me).count();
    assert!(here >= 36, "{here} of 40 light ticks on the calling thread");
}

#[test]
fn more_ready_models_than_the_threshold_wake_a_worker() {
    // 200 ready models, each long enough that the woken worker gets there
    // before the calling thread is through them.
    let init = SimInit::new().with_threads(2);
    let seen = run(init, 200, Duration::from_micros(200), 1);
    assert!(!others(&seen).is_empty(), "a worker helped");
}

#[test]
fn long_polls_spread_two_models_once_measured() {
    // Two models, 5 ms a poll: the first step measures them, the next ones
    // wake a worker for the second model.
    let init = SimInit::new().with_threads(2);
    let seen = run(init, 2, Duration::from_millis(5), 6);
    assert!(!others(&seen).is_empty(), "a worker helped");
}

#[test]
fn long_polls_a_model_fans_out_to_spread_once_measured() {
    // Every step starts with the dispatcher alone; its send wakes four
    // models of 5 ms each: measured in the first step, spread in the next.
    let init = SimInit::new().with_threads(2);
    let seen = run_fanned_out(init, 4, Duration::from_millis(5), 4);
    assert!(!others(&seen).is_empty(), "a worker helped");
}

#[test]
fn a_threshold_of_one_spreads_two_models_from_the_first_step() {
    let init = SimInit::new().with_threads(2).with_wake_threshold(1);
    let seen = run(init, 2, Duration::from_millis(50), 1);
    assert_eq!(others(&seen).len(), 1, "the second model on the worker");
}

#[test]
fn the_threshold_has_no_effect_on_one_thread() {
    let init = SimInit::new().with_threads(1).with_wake_threshold(1);
    let seen = run(init, 4, Duration::ZERO, 2);
    assert!(others(&seen).is_empty());
}
