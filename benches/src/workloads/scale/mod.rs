//! Scale: many trivial models — how long a bench takes to build, what one
//! event to every model costs, and how much memory an idle model holds.
//!
//! Each model counts the pokes it gets. Building happens in three phases
//! on every engine: make the mailboxes (channels), connect one event
//! source to all of them, then add the models and initialise. Resident
//! memory is read around the first and last phase only, so the bytes per
//! model are those of an idle model with its mailbox, registered in its
//! bench — not of the benchmark's event source. The vector that holds the
//! mailboxes (or Tokio senders) between phases, 8 bytes per model, is
//! counted in. The memory the delivery adds is measured too, so the table
//! also shows what a model holds once it has received one message.

pub mod causim;
pub mod nexosim;
pub mod tokio;

use std::time::Duration;

use super::{check, Params};
use crate::measure::{self, resident_bytes};
use crate::{Engine, Sample, Threads};

/// The parameter sets: 10⁵, 10⁶, 10⁷ models (10⁴, 10⁵ quick).
pub fn param_sets(quick: bool) -> Vec<Params> {
    let sizes: &[u64] = if quick {
        &[10_000, 100_000]
    } else {
        &[100_000, 1_000_000, 10_000_000]
    };
    sizes
        .iter()
        .map(|&n| Params::of(&[("models", n)]))
        .collect()
}

/// What an engine reports from one scale run.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// Pokes counted by the models.
    pub counted: u64,
    /// Time to build and initialise the bench.
    pub build: Duration,
    /// Resident bytes added by the models (mailbox and model phases).
    pub model_bytes: Option<u64>,
    /// Time to deliver one poke to every model.
    pub deliver: Duration,
    /// Resident bytes added while delivering the pokes.
    pub deliver_bytes: Option<u64>,
}

/// Resident memory added during two phases of a build.
#[derive(Debug, Default)]
pub struct Phases {
    added: Option<u64>,
    start: Option<u64>,
}

impl Phases {
    /// Starts a measured phase.
    pub fn begin(&mut self) {
        self.start = resident_bytes();
    }

    /// Ends a measured phase, adding what it took.
    pub fn end(&mut self) {
        let (Some(start), Some(end)) = (self.start.take(), resident_bytes()) else {
            return;
        };
        let added = end.saturating_sub(start);
        self.added = Some(self.added.unwrap_or(0) + added);
    }

    /// The bytes added over all measured phases.
    pub fn added(&self) -> Option<u64> {
        self.added
    }
}

/// Runs `f` (the timed delivery) and returns its result, its duration and
/// the resident bytes it added: what the models' first message cost them
/// (a mailbox's slots are allocated by its first message on causim).
pub fn deliver<R>(f: impl FnOnce() -> R) -> (R, Duration, Option<u64>) {
    let before = resident_bytes();
    let (result, elapsed) = measure::time(f);
    let added = resident_bytes()
        .zip(before)
        .map(|(after, before)| after.saturating_sub(before));
    (result, elapsed, added)
}

/// Runs the scale workload once and checks the poke count.
pub fn run(engine: Engine, threads: Threads, params: &Params) -> Sample {
    let models = params.count("models");
    let outcome = match engine {
        Engine::Causim | Engine::CausimHand | Engine::CausimRecorded | Engine::CausimOrdered => {
            causim::run(models, threads)
        }
        Engine::CausimComposite => causim::run_composite(models, threads),
        Engine::Nexosim => nexosim::run(models, threads),
        Engine::Tokio => tokio::run(models, threads),
    };
    check("scale", engine, outcome.counted, models as u64);
    Sample {
        events: outcome.counted,
        elapsed: outcome.deliver,
        build: Some(outcome.build),
        bytes_per_model: measure::bytes_per_model(Some(0), outcome.model_bytes, models),
        bytes_per_model_after_event: measure::bytes_per_model(
            Some(0),
            outcome
                .model_bytes
                .zip(outcome.deliver_bytes)
                .map(|(a, b)| a + b),
            models,
        ),
    }
}
