//! Scheduler: the cost of simulation time itself.
//!
//! - **chain**: one model schedules its next event, one event per time
//!   step — the fixed cost of a step;
//! - **drain**: one model schedules `events` events at random times at
//!   once, then the simulation drains them — the event queue under load;
//! - **aligned**: `models` models with periodic events of one period, all
//!   due at the same times — many events per step;
//! - **staggered**: `models` models, model `i` with period `1000 + i` ms —
//!   mostly one event per step among many idle models.
//!
//! Every event is counted by the model that receives it.

pub mod causim;
pub mod nexosim;
pub mod tokio;

use std::time::Duration;

use super::{check, Params, Workload};
use crate::{Engine, Sample, Threads};
use ::causim::MessageOrder;

/// A second, in nanoseconds.
pub const SECOND_NS: u64 = 1_000_000_000;

/// What one scheduler run does.
#[derive(Debug, Clone, Copy)]
pub enum Plan {
    /// One model, `steps` self-scheduled events one second apart.
    Chain { steps: u64 },
    /// One model schedules `events` events at random whole seconds in
    /// `1..=events`, then they are drained.
    Drain { events: u64 },
    /// Model `i` of `models` fires every `period(i)` from `period(i)` on,
    /// until `until` (inclusive).
    Periodic {
        models: usize,
        staggered: bool,
        until: Duration,
    },
}

impl Plan {
    /// The plan of `workload` with `params`.
    pub fn of(workload: Workload, params: &Params) -> Self {
        match workload {
            Workload::SchedChain => Plan::Chain {
                steps: params.get("steps"),
            },
            Workload::SchedDrain => Plan::Drain {
                events: params.get("events"),
            },
            _ => Plan::Periodic {
                models: params.count("models"),
                staggered: workload == Workload::SchedStaggered,
                until: Duration::from_secs(params.get("until_s")),
            },
        }
    }

    /// The events every correct run delivers.
    pub fn expected(&self) -> u64 {
        match *self {
            Plan::Chain { steps } => steps,
            Plan::Drain { events } => events,
            Plan::Periodic {
                models,
                staggered,
                until,
            } => (0..models)
                .map(|i| (until.as_nanos() / period(i, staggered).as_nanos()) as u64)
                .sum(),
        }
    }
}

/// The period of model `i`: one second, or `1000 + i` ms when staggered.
pub fn period(i: usize, staggered: bool) -> Duration {
    if staggered {
        Duration::from_millis(1000 + i as u64)
    } else {
        Duration::from_secs(1)
    }
}

/// The parameter sets of `workload`.
pub fn param_sets(workload: Workload, quick: bool) -> Vec<Params> {
    // Quick: chain and drain ÷20 (NeXosim's and Tokio's steps on 2 threads
    // are slow: `docs/benchmarks.md`, "Measurements behind code
    // decisions"), the periodic ones ÷10.
    let (one_model, periodic) = if quick { (20, 10) } else { (1, 1) };
    let params = match workload {
        Workload::SchedChain => Params::of(&[("steps", 1_000_000 / one_model)]),
        Workload::SchedDrain => Params::of(&[("events", 1_000_000 / one_model)]),
        _ => Params::of(&[("models", 1000), ("until_s", 1000 / periodic)]),
    };
    vec![params]
}

/// Runs one scheduler workload once and checks the event count.
pub fn run(workload: Workload, engine: Engine, threads: Threads, params: &Params) -> Sample {
    let plan = Plan::of(workload, params);
    let (counted, elapsed) = match engine {
        Engine::Causim | Engine::CausimHand | Engine::CausimComposite | Engine::CausimRecorded => {
            causim::run(&plan, threads, MessageOrder::Causal)
        }
        Engine::CausimOrdered => causim::run(&plan, threads, MessageOrder::Deterministic),
        Engine::Nexosim => nexosim::run(&plan, threads),
        Engine::Tokio => tokio::run(&plan, threads),
    };
    check(workload.name(), engine, counted, plan.expected());
    Sample::timed(counted, elapsed)
}
