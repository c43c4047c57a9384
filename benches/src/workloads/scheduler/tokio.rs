//! The scheduler workloads on Tokio, with the hand-rolled event driver of
//! [`tokio_des`](crate::workloads::tokio_des).

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use super::{period, Plan, SECOND_NS};
use crate::measure::time;
use crate::rng::Xorshift64;
use crate::workloads::tally::{self, Tally};
use crate::workloads::tokio_des::{runtime, Delivery, Driver, Port, Reply};

/// Payload that starts the drain model.
const START: u64 = 0;
/// Payload of a drained hit.
const HIT: u64 = 1;

/// Runs `plan`; returns the events counted and the time taken.
pub fn run(plan: &Plan, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let rt = runtime(threads);
    let mut driver = Driver::new();
    let until = match *plan {
        Plan::Chain { steps } => {
            let port = driver.add_model();
            rt.spawn(chain(port, steps, Tally::new(&total)));
            driver.schedule(at(SECOND_NS), 0);
            u64::MAX
        }
        Plan::Drain { events } => {
            let port = driver.add_model();
            rt.spawn(drain(port, events, Tally::new(&total)));
            driver.schedule(
                Delivery {
                    payload: START,
                    ..at(0)
                },
                0,
            );
            u64::MAX
        }
        Plan::Periodic {
            models,
            staggered,
            until,
        } => {
            spawn_periodic(&rt, &mut driver, &total, models, staggered);
            until.as_nanos() as u64
        }
    };
    let (_, elapsed) = time(|| rt.block_on(driver.run_until(until)));
    drop(rt);
    (tally::read(&total), elapsed)
}

/// An event for model 0 at `time` ns.
fn at(time: u64) -> Delivery {
    Delivery {
        time,
        model: 0,
        payload: HIT,
    }
}

/// The chain model: each tick schedules the next one, a second later.
async fn chain(mut port: Port, mut left: u64, mut ticks: Tally) {
    while let Some(d) = port.inbox.recv().await {
        ticks.bump();
        left -= 1;
        if left > 0 {
            let _ = port.replies.send(Reply::Schedule(at(d.time + SECOND_NS)));
        }
        let _ = port.replies.send(Reply::Done);
    }
}

/// The drain model: schedules `events` hits when started, counts them.
async fn drain(mut port: Port, events: u64, mut hits: Tally) {
    let mut rng = Xorshift64::new(7);
    while let Some(d) = port.inbox.recv().await {
        if d.payload == START {
            for _ in 0..events {
                let t = (1 + rng.below(events)) * SECOND_NS;
                let _ = port.replies.send(Reply::Schedule(at(t)));
            }
        } else {
            hits.bump();
        }
        let _ = port.replies.send(Reply::Done);
    }
}

/// A periodic model: counts its ticks.
async fn periodic(mut port: Port, mut ticks: Tally) {
    while port.inbox.recv().await.is_some() {
        ticks.bump();
        let _ = port.replies.send(Reply::Done);
    }
}

/// Spawns the periodic models and schedules their first ticks.
fn spawn_periodic(
    rt: &tokio::runtime::Runtime,
    driver: &mut Driver,
    total: &Arc<AtomicU64>,
    models: usize,
    staggered: bool,
) {
    for model in 0..models {
        let port = driver.add_model();
        rt.spawn(periodic(port, Tally::new(total)));
        let p = period(model, staggered).as_nanos() as u64;
        driver.schedule(
            Delivery {
                time: p,
                model,
                payload: HIT,
            },
            p,
        );
    }
}
