//! Ring: one token passed around `models` models, `hops` deliveries in all.
//!
//! Nothing runs in parallel — each hop waits for the previous one — so this
//! measures the cost of one message end to end: send, wake, poll, dispatch.
//! With 100 models every mailbox stays in cache; with 100 000 each hop
//! touches cold memory.

pub mod causim;
pub mod nexosim;
pub mod tokio;

use super::{check, Params};
use crate::{Engine, Sample, Threads};

/// The parameter sets: K ∈ {100, 100 000} models, 10⁷ hops (10⁶ quick).
pub fn param_sets(quick: bool) -> Vec<Params> {
    let hops = if quick { 1_000_000 } else { 10_000_000 };
    [100, 100_000]
        .into_iter()
        .map(|models| Params::of(&[("models", models), ("hops", hops)]))
        .collect()
}

/// Runs the ring once and checks the hop count.
pub fn run(engine: Engine, threads: Threads, params: &Params) -> Sample {
    let (models, hops) = (params.count("models"), params.get("hops"));
    let (counted, elapsed) = match engine {
        Engine::Causim | Engine::CausimHand | Engine::CausimRecorded | Engine::CausimOrdered => {
            causim::run(models, hops, threads)
        }
        Engine::CausimComposite => causim::run_composite(models, hops, threads),
        Engine::Nexosim => nexosim::run(models, hops, threads),
        Engine::Tokio => tokio::run(models, hops, threads),
    };
    check("ring", engine, counted, hops);
    Sample::timed(counted, elapsed)
}
