//! The workloads, their parameters and the one entry point that runs any
//! of them on any engine.
//!
//! Each workload lives in its own module with one file per engine; the
//! module's `mod.rs` holds the parameters, the expected event count and the
//! check, so the engines cannot disagree on what a correct run is.

pub mod dispatch;
pub mod fanin;
pub mod hold;
pub mod params;
pub mod pinball;
pub mod ring;
pub mod scale;
pub mod scheduler;
pub mod tally;
pub mod tokio_des;

use std::fmt;
use std::str::FromStr;

pub use params::Params;

use crate::{Engine, Sample, Threads};

/// A workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Workload {
    /// One model type, macro-generated vs hand-written dispatch.
    Dispatch,
    /// Many senders into one small mailbox, vs a mailbox nobody waits on.
    Fanin,
    /// Rigs of fully connected models bouncing balls at one time.
    Pinball,
    /// One token around a ring of models.
    Ring,
    /// One model scheduling its next event, one event per time step.
    SchedChain,
    /// One model scheduling many events at once, then draining them.
    SchedDrain,
    /// Many models with periodic events at the same times.
    SchedAligned,
    /// Many models with periodic events of different periods.
    SchedStaggered,
    /// A queue of N pending events, each fire scheduling one new event.
    SchedHold,
    /// Many trivial models: build, one event each, memory.
    Scale,
}

impl Workload {
    /// Every workload, in report order.
    pub const ALL: [Workload; 10] = [
        Workload::Dispatch,
        Workload::Fanin,
        Workload::Pinball,
        Workload::Ring,
        Workload::SchedChain,
        Workload::SchedDrain,
        Workload::SchedAligned,
        Workload::SchedStaggered,
        Workload::SchedHold,
        Workload::Scale,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Dispatch => "dispatch",
            Workload::Fanin => "fanin",
            Workload::Pinball => "pinball",
            Workload::Ring => "ring",
            Workload::SchedChain => "scheduler-chain",
            Workload::SchedDrain => "scheduler-drain",
            Workload::SchedAligned => "scheduler-aligned",
            Workload::SchedStaggered => "scheduler-staggered",
            Workload::SchedHold => "scheduler-hold",
            Workload::Scale => "scale",
        }
    }

    /// The engines this workload runs on.
    pub fn engines(self) -> &'static [Engine] {
        match self {
            Workload::Dispatch => &[
                Engine::Causim,
                Engine::CausimHand,
                Engine::Nexosim,
                Engine::Tokio,
            ],
            Workload::Ring | Workload::Scale => &[
                Engine::Causim,
                Engine::CausimComposite,
                Engine::Nexosim,
                Engine::Tokio,
            ],
            Workload::Pinball => &[
                Engine::Causim,
                Engine::CausimRecorded,
                Engine::CausimOrdered,
                Engine::Nexosim,
                Engine::Tokio,
            ],
            Workload::SchedChain
            | Workload::SchedDrain
            | Workload::SchedAligned
            | Workload::SchedStaggered => &[
                Engine::Causim,
                Engine::CausimOrdered,
                Engine::Nexosim,
                Engine::Tokio,
            ],
            _ => &[Engine::Causim, Engine::Nexosim, Engine::Tokio],
        }
    }

    /// The thread counts this workload runs with.
    pub fn threads(self) -> &'static [Threads] {
        match self {
            // The generated/hand-written ratio is a single-thread figure;
            // the event list's targets are too (and NeXosim's and Tokio's
            // two-thread steps take 20-50 µs: 10⁶ holds would take a
            // minute per run).
            Workload::Dispatch | Workload::SchedHold => &[1],
            _ => &[1, 2],
        }
    }

    /// The fewest repetitions worth reporting: the dispatch ratio has a 2 %
    /// target, and single processes of the same code differ by more than
    /// that (code and heap placement), so it gets more.
    pub fn min_repetitions(self) -> usize {
        match self {
            Workload::Dispatch => 15,
            _ => 5,
        }
    }

    /// The parameter sets of a full run, or of a `--quick` one.
    pub fn param_sets(self, quick: bool) -> Vec<Params> {
        match self {
            Workload::Dispatch => dispatch::param_sets(quick),
            Workload::Fanin => fanin::param_sets(quick),
            Workload::Pinball => pinball::param_sets(quick),
            Workload::Ring => ring::param_sets(quick),
            Workload::SchedChain
            | Workload::SchedDrain
            | Workload::SchedAligned
            | Workload::SchedStaggered => scheduler::param_sets(self, quick),
            Workload::SchedHold => hold::param_sets(quick),
            Workload::Scale => scale::param_sets(quick),
        }
    }

    /// Runs the workload once on `engine` with `threads` threads.
    ///
    /// Panics if the engine delivered a wrong number of events.
    pub fn run(self, engine: Engine, threads: Threads, params: &Params) -> Sample {
        match self {
            Workload::Dispatch => dispatch::run(engine, threads, params),
            Workload::Fanin => fanin::run(engine, threads, params),
            Workload::Pinball => pinball::run(engine, threads, params),
            Workload::Ring => ring::run(engine, threads, params),
            Workload::SchedChain
            | Workload::SchedDrain
            | Workload::SchedAligned
            | Workload::SchedStaggered => scheduler::run(self, engine, threads, params),
            Workload::SchedHold => hold::run(engine, threads, params),
            Workload::Scale => scale::run(engine, threads, params),
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Workload {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| format!("unknown workload {s:?}"))
    }
}

/// Panics unless an engine delivered exactly the expected events.
pub fn check(workload: &str, engine: Engine, counted: u64, expected: u64) {
    assert_eq!(
        counted, expected,
        "{workload} on {engine}: {counted} events delivered, {expected} expected"
    );
}
