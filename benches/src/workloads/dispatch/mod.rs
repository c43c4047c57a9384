//! Dispatch: the same model with its `#[model]`-generated dispatch and with
//! a hand-written `Model` impl, on the same ring.
//!
//! The model has four ports (a forwarding async input, a sync input, an
//! input without payload and a replier), so the generated `match` has
//! several arms, as in real models; only the forwarding input is driven.
//! The ratio generated ÷ hand-written is the price of the macro (the
//! target is ≤ 1.02). NeXosim and Tokio run the ring workload's model at
//! the same size, for scale.

pub mod generated;
pub mod hand;

use super::{check, ring, Params};
use crate::{Engine, Sample, Threads};

/// The one parameter set: 100 models, 10⁶ hops (2·10⁵ quick).
pub fn param_sets(quick: bool) -> Vec<Params> {
    let hops = if quick { 200_000 } else { 1_000_000 };
    vec![Params::of(&[("models", 100), ("hops", hops)])]
}

/// Runs the dispatch ring once and checks the hop count.
pub fn run(engine: Engine, threads: Threads, params: &Params) -> Sample {
    let (models, hops) = (params.count("models"), params.get("hops"));
    let (counted, elapsed) = match engine {
        Engine::Causim
        | Engine::CausimComposite
        | Engine::CausimRecorded
        | Engine::CausimOrdered => generated::run(models, hops, threads),
        Engine::CausimHand => hand::run(models, hops, threads),
        Engine::Nexosim => ring::nexosim::run(models, hops, threads),
        Engine::Tokio => ring::tokio::run(models, hops, threads),
    };
    check("dispatch", engine, counted, hops);
    Sample::timed(counted, elapsed)
}

/// Builds a ring of `models` relays with `make(next_mailbox_index)`, passes
/// a token `hops` times, and returns the hops counted and the step's time.
fn run_ring<M: causim::Model>(
    models: usize,
    hops: u64,
    threads: usize,
    make: impl Fn(&causim::Mailbox<M>) -> M,
    token: causim::InputPort<M, u64>,
) -> std::time::Duration {
    use causim::prelude::*;
    let mailboxes: Vec<Mailbox<M>> = (0..models).map(|_| Mailbox::new()).collect();
    let first = mailboxes[0].address();
    let relays: Vec<M> = (0..models)
        .map(|i| make(&mailboxes[(i + 1) % models]))
        .collect();
    let mut init = SimInit::new().with_threads(threads);
    for (i, (relay, mailbox)) in relays.into_iter().zip(mailboxes).enumerate() {
        init = init.add_model(relay, mailbox, format!("relay{i}"));
    }
    let mut simu = init.init(SimTime::ZERO).expect("dispatch init");
    simu.scheduler()
        .schedule(SimTime::from_secs(1), token, hops, &first)
        .expect("t1 is in the future");
    let (result, elapsed) = crate::measure::time(|| simu.step());
    result.expect("dispatch step");
    elapsed
}
