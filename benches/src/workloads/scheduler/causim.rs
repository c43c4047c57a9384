//! The scheduler workloads on causim.

use std::time::Duration;

use causim::prelude::*;

use super::{period, Plan};
use crate::measure::time;
use crate::rng::Xorshift64;
use crate::workloads::tally::{self, Tally};

/// Schedules its own next tick until it has ticked `left` times.
#[model]
pub struct Chain {
    left: u64,
    ticks: Tally,
}

#[model]
impl Chain {
    /// One step of the chain.
    #[input]
    pub fn tick(&mut self, cx: &mut Context<Self>) {
        self.ticks.bump();
        self.left -= 1;
        if self.left > 0 {
            cx.schedule(Duration::from_secs(1), Self::ports().tick, ())
                .expect("the future");
        }
    }
}

/// Schedules `events` hits at random times when started, counts them.
#[model]
pub struct Drain {
    events: u64,
    rng: Xorshift64,
    hits: Tally,
}

#[model]
impl Drain {
    /// Schedules every hit.
    #[input]
    pub fn start(&mut self, cx: &mut Context<Self>) {
        for _ in 0..self.events {
            let at = SimTime::from_secs(1 + self.rng.below(self.events));
            cx.schedule(at, Self::ports().hit, ()).expect("the future");
        }
    }

    /// Counts one hit.
    #[input]
    pub fn hit(&mut self) {
        self.hits.bump();
    }
}

/// Counts its periodic ticks.
#[model]
pub struct Periodic {
    ticks: Tally,
}

#[model]
impl Periodic {
    /// Counts one tick.
    #[input]
    pub fn tick(&mut self) {
        self.ticks.bump();
    }
}

/// Runs `plan`; returns the events counted and the time taken.
pub fn run(plan: &Plan, threads: usize, order: MessageOrder) -> (u64, Duration) {
    let total = tally::total();
    let init = SimInit::new()
        .with_threads(threads)
        .with_message_order(order);
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
fn chain(init: SimInit, ticks: Tally, steps: u64) -> Duration {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let chain = Chain { left: steps, ticks };
    let mut simu = init
        .add_model(chain, mailbox, "chain")
        .init(SimTime::ZERO)
        .expect("init");
    simu.scheduler()
        .schedule(SimTime::from_secs(1), Chain::ports().tick, (), &address)
        .expect("the future");
    let (result, elapsed) = time(|| simu.run());
    result.expect("chain run");
    elapsed
}

/// Schedule everything at once, then drain.
fn drain(init: SimInit, hits: Tally, events: u64) -> Duration {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let drain = Drain {
        events,
        rng: Xorshift64::new(7),
        hits,
    };
    let mut simu = init
        .add_model(drain, mailbox, "drain")
        .init(SimTime::ZERO)
        .expect("init");
    let (result, elapsed) = time(|| {
        simu.process_event(Drain::ports().start, (), &address)?;
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
    let mut addresses = Vec::with_capacity(models);
    for i in 0..models {
        let mailbox = Mailbox::new();
        addresses.push(mailbox.address());
        let model = Periodic {
            ticks: Tally::new(total),
        };
        init = init.add_model(model, mailbox, format!("p{i}"));
    }
    let mut simu = init.init(SimTime::ZERO).expect("init");
    let scheduler = simu.scheduler();
    for (i, address) in addresses.iter().enumerate() {
        let p = period(i, staggered);
        let first = SimTime::ZERO.checked_add(p).expect("small");
        scheduler
            .schedule_periodic(first, p, Periodic::ports().tick, (), address)
            .expect("the future");
    }
    let end = SimTime::ZERO.checked_add(until).expect("small");
    let (result, elapsed) = time(|| simu.step_until(end));
    result.expect("periodic run");
    elapsed
}
