//! The scheduler workloads on NeXosim 1.0.

use std::time::Duration;

use nexosim::model::{schedulable, Context, Model};
use nexosim::ports::EventSource;
use nexosim::simulation::{Mailbox, SimInit};
use nexosim::time::MonotonicTime;
use serde::{Deserialize, Serialize};

use super::{period, Plan};
use crate::measure::time;
use crate::rng::Xorshift64;
use crate::workloads::tally::{self, Tally};

/// Schedules its own next tick until it has ticked `left` times.
#[derive(Serialize, Deserialize)]
pub struct Chain {
    left: u64,
    #[serde(skip)]
    ticks: Tally,
}

#[Model]
impl Chain {
    /// One step of the chain.
    #[nexosim(schedulable)]
    pub fn tick(&mut self, _: (), cx: &Context<Self>) {
        self.ticks.bump();
        self.left -= 1;
        if self.left > 0 {
            cx.schedule_event(Duration::from_secs(1), schedulable!(Self::tick), ())
                .expect("the future");
        }
    }
}

/// Schedules `events` hits at random times when started, counts them.
#[derive(Serialize, Deserialize)]
pub struct Drain {
    events: u64,
    rng: Xorshift64,
    #[serde(skip)]
    hits: Tally,
}

#[Model]
impl Drain {
    /// Schedules every hit.
    pub fn start(&mut self, _: (), cx: &Context<Self>) {
        for _ in 0..self.events {
            let at = MonotonicTime::EPOCH + Duration::from_secs(1 + self.rng.below(self.events));
            cx.schedule_event(at, schedulable!(Self::hit), ())
                .expect("the future");
        }
    }

    /// Counts one hit.
    #[nexosim(schedulable)]
    pub fn hit(&mut self, _: ()) {
        self.hits.bump();
    }
}

/// Counts its periodic ticks.
#[derive(Serialize, Deserialize)]
pub struct Periodic {
    #[serde(skip)]
    ticks: Tally,
}

#[Model]
impl Periodic {
    /// Counts one tick.
    pub fn tick(&mut self, _: ()) {
        self.ticks.bump();
    }
}

/// Runs `plan`; returns the events counted and the time taken.
pub fn run(plan: &Plan, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let init = SimInit::with_num_threads(threads);
    let elapsed = match *plan {
        Plan::Chain { steps } => chain(init, Tally::new(&total), steps),
        Plan::Drain { events } => drain(init, Tally::new(&total), events),
        Plan::Periodic {
            models,
            staggered,
            until,
        } => periodic(init, &total, models, staggered, until),
    };
    (tally::read(&total), elapsed)
}

/// The chain: one event per step.
fn chain(mut init: SimInit, ticks: Tally, steps: u64) -> Duration {
    let mailbox = Mailbox::new();
    let start = EventSource::new()
        .connect(Chain::tick, &mailbox)
        .register(&mut init);
    let chain = Chain { left: steps, ticks };
    let mut simu = init
        .add_model(chain, mailbox, "chain")
        .init(MonotonicTime::EPOCH)
        .expect("init");
    simu.scheduler()
        .schedule_event(Duration::from_secs(1), &start, ())
        .expect("the future");
    let (result, elapsed) = time(|| simu.run());
    result.expect("chain run");
    elapsed
}

/// Schedule everything at once, then drain.
fn drain(mut init: SimInit, hits: Tally, events: u64) -> Duration {
    let mailbox = Mailbox::new();
    let start = EventSource::new()
        .connect(Drain::start, &mailbox)
        .register(&mut init);
    let drain = Drain {
        events,
        rng: Xorshift64::new(7),
        hits,
    };
    let mut simu = init
        .add_model(drain, mailbox, "drain")
        .init(MonotonicTime::EPOCH)
        .expect("init");
    let (result, elapsed) = time(|| {
        simu.process_event(&start, ())?;
        simu.run()
    });
    result.expect("drain run");
    elapsed
}

/// Many periodic models, aligned or staggered.
fn periodic(
    mut init: SimInit,
    total: &std::sync::Arc<std::sync::atomic::AtomicU64>,
    models: usize,
    staggered: bool,
    until: Duration,
) -> Duration {
    let mut sources = Vec::with_capacity(models);
    for i in 0..models {
        let mailbox = Mailbox::new();
        sources.push(
            EventSource::new()
                .connect(Periodic::tick, &mailbox)
                .register(&mut init),
        );
        let model = Periodic {
            ticks: Tally::new(total),
        };
        init = init.add_model(model, mailbox, &format!("p{i}"));
    }
    let mut simu = init.init(MonotonicTime::EPOCH).expect("init");
    let scheduler = simu.scheduler();
    for (i, source) in sources.iter().enumerate() {
        let p = period(i, staggered);
        scheduler
            .schedule_periodic_event(p, p, source, ())
            .expect("the future");
    }
    let (result, elapsed) = time(|| simu.step_until(MonotonicTime::EPOCH + until));
    result.expect("periodic run");
    elapsed
}
