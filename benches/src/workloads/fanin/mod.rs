//! Fan-in: many senders into one model's small mailbox.
//!
//! `senders` models each send one message to one consumer, all at the
//! same time: with a 16-slot mailbox, all but 16 of them wait for room,
//! and are served as the consumer frees slots. The same bench with a
//! mailbox as large as the burst (`capacity` = 0 in the parameters: one
//! slot per sender, nobody waits) is the reference: the target is
//! at most twice its cost per message. The time covers the step that
//! delivers the burst (the event to every sender, their sends, the
//! consumer's receptions), not the building of the bench.

pub mod causim;
pub mod nexosim;
pub mod tokio;

use super::{check, Params};
use crate::{Engine, Sample, Threads};

/// The small mailbox: the default capacity of causim and NeXosim.
pub const SMALL: u64 = 16;

/// The parameter sets: 10³, 10⁴, 10⁵ senders (10³ and 10⁴ quick), each
/// into a 16-slot mailbox and into one with a slot per sender.
pub fn param_sets(quick: bool) -> Vec<Params> {
    let senders: &[u64] = if quick {
        &[1_000, 10_000]
    } else {
        &[1_000, 10_000, 100_000]
    };
    senders
        .iter()
        .flat_map(|&n| {
            [SMALL, 0].map(|capacity| Params::of(&[("senders", n), ("capacity", capacity)]))
        })
        .collect()
}

/// The mailbox capacity a parameter set asks for (0: one slot per sender).
pub fn capacity(params: &Params) -> usize {
    match params.count("capacity") {
        0 => params.count("senders"),
        small => small,
    }
}

/// Runs the fan-in once and checks that every message arrived.
pub fn run(engine: Engine, threads: Threads, params: &Params) -> Sample {
    let (senders, capacity) = (params.count("senders"), capacity(params));
    let (counted, elapsed) = match engine {
        Engine::Causim
        | Engine::CausimHand
        | Engine::CausimComposite
        | Engine::CausimRecorded
        | Engine::CausimOrdered => causim::run(senders, capacity, threads),
        Engine::Nexosim => nexosim::run(senders, capacity, threads),
        Engine::Tokio => tokio::run(senders, capacity, threads),
    };
    check("fanin", engine, counted, senders as u64);
    Sample::timed(counted, elapsed)
}
