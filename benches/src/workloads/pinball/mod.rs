//! Pinball: rigs of fully connected models bouncing balls, all at one
//! simulation time.
//!
//! Each rig has `models` models wired all-to-all; `balls` balls start at
//! models `0, 1, 2, …` (round robin) and each is delivered `hops / balls`
//! times, every hop to a uniformly random other model of its rig, drawn
//! from the sending model's own seeded xorshift. Rigs never talk to each
//! other, so a multi-threaded engine has `rigs` independent streams of
//! work: this is the workload where parallelism should pay.
//!
//! A ball is a `u64`: the deliveries it has left, itself included. Every
//! mailbox holds all the balls of its rig, so no send ever waits and the
//! run is free of back-pressure deadlocks on every engine.

pub mod causim;
pub mod causim_recorded;
pub mod nexosim;
pub mod tokio;

use super::{check, Params};
use crate::{Engine, Sample, Threads};
use ::causim::MessageOrder;

/// The shape of one pinball run.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Independent rigs.
    pub rigs: usize,
    /// Models per rig.
    pub models: usize,
    /// Balls per rig.
    pub balls: usize,
    /// Deliveries of each ball.
    pub hops_per_ball: u64,
    /// `causim-recorded` only: map the recording's memory before the step
    /// (`reserve=1`; not in the standard sets, see `causim_recorded.rs`).
    pub reserve: bool,
    /// `causim-recorded` only: record with a tap kept in the model and
    /// called directly, instead of through an output (`probe=1`).
    pub probe: bool,
}

impl Shape {
    /// The shape described by `params`.
    pub fn of(params: &Params) -> Self {
        let balls = params.count("balls");
        Shape {
            rigs: params.count("rigs"),
            models: params.count("models"),
            balls,
            hops_per_ball: params.get("hops") / balls as u64,
            reserve: params.get_or("reserve", 0) != 0,
            probe: params.get_or("probe", 0) != 0,
        }
    }

    /// The events every correct run delivers.
    pub fn expected(&self) -> u64 {
        (self.rigs * self.balls) as u64 * self.hops_per_ball
    }

    /// A mailbox capacity that holds every ball of a rig.
    pub fn capacity(&self) -> usize {
        (self.balls + 1).max(16)
    }

    /// The model where ball `ball` starts.
    pub fn start(&self, ball: usize) -> usize {
        ball % self.models
    }
}

/// The parameter sets: M ∈ {1, 7, 41, 241} balls per rig.
pub fn param_sets(quick: bool) -> Vec<Params> {
    let hops = if quick { 25_000 } else { 250_000 };
    [1, 7, 41, 241]
        .into_iter()
        .map(|balls| {
            Params::of(&[
                ("rigs", 61),
                ("models", 13),
                ("balls", balls),
                ("hops", hops),
            ])
        })
        .collect()
}

/// Runs pinball once and checks the hop count.
pub fn run(engine: Engine, threads: Threads, params: &Params) -> Sample {
    let shape = Shape::of(params);
    let (counted, elapsed) = match engine {
        Engine::Causim | Engine::CausimHand | Engine::CausimComposite => {
            causim::run(&shape, threads, MessageOrder::Causal)
        }
        Engine::CausimOrdered => causim::run(&shape, threads, MessageOrder::Deterministic),
        Engine::CausimRecorded => causim_recorded::run(&shape, threads),
        Engine::Nexosim => nexosim::run(&shape, threads),
        Engine::Tokio => tokio::run(&shape, threads),
    };
    check("pinball", engine, counted, shape.expected());
    Sample::timed(counted, elapsed)
}
