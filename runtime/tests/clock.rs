//! The clock never goes backwards, even while another thread schedules
//! events through a `Scheduler` handle during simulation calls; and a
//! `Scheduler` outliving its simulation refuses events.
//!
//! The bench thread alternates `step()` and `step_until(now + 500 ns)`
//! while a second thread keeps scheduling events 1 to 1000 ns ahead, and a
//! model keeps scheduling its own next tick (the lock-free path on one
//! thread). Every time seen by the bench (`Simulation::time`) and by the
//! model (`Context::time`) must be at least the one before.

mod common;
use common::*;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use causim::SchedulingError;

/// How long the race runs at most (wall clock), and how many bench calls.
const RACE_FOR: Duration = Duration::from_millis(1500);
const MAX_CALLS: u64 = 400_000;
/// Pokes scheduled and not yet delivered, at most (bounds the queue).
const IN_FLIGHT: u64 = 64;

/// Ticks itself every few nanoseconds and takes pokes from the other
/// thread; counts every time its context's clock went backwards.
#[model]
struct Watcher {
    /// The latest time the context showed.
    last: SimTime,
    /// A small generator for the next tick's delay.
    seed: u64,
    /// Times the clock was seen to go backwards.
    backwards: Arc<AtomicU64>,
    /// Pokes received.
    poked: Arc<AtomicU64>,
}

impl Watcher {
    /// A watcher counting into `backwards` and `poked`.
    fn new(backwards: &Arc<AtomicU64>, poked: &Arc<AtomicU64>) -> Self {
        Watcher {
            last: SimTime::ZERO,
            seed: 7,
            backwards: backwards.clone(),
            poked: poked.clone(),
        }
    }

    /// Notes the context's time, counting a decrease.
    fn observe(&mut self, cx: &Context<Self>) {
        let now = cx.time();
        if now < self.last {
            self.backwards.fetch_add(1, Ordering::Relaxed);
        }
        self.last = now;
    }
}

#[model]
impl Watcher {
    #[input]
    async fn tick(&mut self, _: (), cx: &mut Context<Self>) {
        self.observe(cx);
        self.seed = self.seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let delay = Duration::from_nanos(1 + (self.seed >> 33) % 700);
        cx.schedule(delay, Self::ports().tick, ())
            .expect("a positive delay is in the future");
    }

    #[input]
    async fn poke(&mut self, _: (), cx: &mut Context<Self>) {
        self.observe(cx);
        self.poked.fetch_add(1, Ordering::Relaxed);
    }
}

/// What one race saw.
struct Seen {
    /// Decreases of `Simulation::time`.
    bench: u64,
    /// Decreases of `Context::time`.
    model: u64,
    /// Events the other thread scheduled.
    scheduled: u64,
    /// Events the other thread was refused.
    refused: u64,
}

/// Runs the race.
fn race() -> Seen {
    let backwards = Arc::new(AtomicU64::new(0));
    let poked = Arc::new(AtomicU64::new(0));
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let watcher = Watcher::new(&backwards, &poked);
    let mut simu = start(sim_init().add_model(watcher, mbox, "watcher"));
    simu.process_event(Watcher::ports().tick, (), &addr)
        .unwrap();
    let scheduler = simu.scheduler();
    let stop = AtomicBool::new(false);
    let mut bench_backwards = 0;
    let (scheduled, refused) = std::thread::scope(|s| {
        let poker = s.spawn(|| poke_until(&stop, &poked, &scheduler, &addr));
        let started = Instant::now();
        let mut last = simu.time();
        for call in 0..MAX_CALLS {
            if call % 2 == 0 {
                simu.step().unwrap();
            } else {
                let target = simu.time() + Duration::from_nanos(500);
                simu.step_until(target).unwrap();
            }
            let now = simu.time();
            if now < last {
                bench_backwards += 1;
            }
            last = now;
            if started.elapsed() > RACE_FOR {
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
        poker.join().expect("the scheduling thread does not panic")
    });
    Seen {
        bench: bench_backwards,
        model: backwards.load(Ordering::Relaxed),
        scheduled,
        refused,
    }
}

/// Schedules pokes 1 to 1000 ns ahead until `stop`, at most
/// [`IN_FLIGHT`] not yet delivered (`poked` counts the delivered ones);
/// returns how many were scheduled and how many refused.
fn poke_until(
    stop: &AtomicBool,
    poked: &AtomicU64,
    scheduler: &Scheduler,
    addr: &Address<Watcher>,
) -> (u64, u64) {
    let mut seed = 11u64;
    let (mut scheduled, mut refused) = (0, 0);
    while !stop.load(Ordering::Relaxed) {
        if scheduled - poked.load(Ordering::Relaxed) >= IN_FLIGHT {
            std::thread::yield_now();
            continue;
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let delay = Duration::from_nanos(1 + (seed >> 33) % 1000);
        match scheduler.schedule(delay, Watcher::ports().poke, (), addr) {
            Ok(()) => scheduled += 1,
            Err(_) => refused += 1,
        }
    }
    (scheduled, refused)
}

#[test]
fn time_never_goes_backwards_while_another_thread_schedules() {
    let seen = race();
    assert!(seen.scheduled > 0, "the other thread scheduled nothing");
    assert_eq!(seen.bench, 0, "the bench saw the clock go back");
    assert_eq!(seen.model, 0, "the model saw the clock go back");
    // A delay is counted from the clock as the event is queued: a positive
    // one is always in the future.
    assert_eq!(seen.refused, 0, "events 1 to 1000 ns ahead were refused");
}

#[test]
fn a_scheduler_whose_simulation_was_dropped_refuses_events() {
    let counter = Arc::new(AtomicU64::new(0));
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let simu = start(sim_init().add_model(Watcher::new(&counter, &counter), mbox, "watcher"));
    let scheduler = simu.scheduler();
    let poke = Watcher::ports().poke;
    assert_eq!(scheduler.schedule(secs(1), poke, (), &addr), Ok(()));
    drop(simu);
    let dropped = Err(SchedulingError::SimulationDropped);
    assert_eq!(scheduler.schedule(secs(1), poke, (), &addr), dropped);
    assert_eq!(scheduler.schedule(t(2), poke, (), &addr), dropped);
    let keyed = scheduler.schedule_keyed(secs(1), poke, (), &addr);
    assert_eq!(keyed.map(|_| ()), dropped);
    let periodic = scheduler.schedule_periodic(secs(1), secs(1), poke, (), &addr);
    assert_eq!(periodic.map(|_| ()), dropped);
    let message = SchedulingError::SimulationDropped.to_string();
    assert!(
        message.contains("simulation") && message.contains("dropped"),
        "{message}"
    );
}
