//! The engines compared and how many threads they run on.

use std::fmt;
use std::str::FromStr;

/// What runs a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Engine {
    /// causim, models written with `#[model]`.
    Causim,
    /// causim, the same model with a hand-written `Model` impl (dispatch
    /// workload only).
    CausimHand,
    /// causim, the same bench built from composites (subsystems) instead of
    /// flat (ring and scale workloads only): a composite must cost nothing
    /// on the message path.
    CausimComposite,
    /// causim, with every event also recording one sample through a
    /// `causim-record` recorder (pinball only): the cost of recording.
    CausimRecorded,
    /// causim in the deterministic message order
    /// (`MessageOrder::Deterministic`; pinball and the scheduler workloads
    /// only): the cost of delivering same-time messages in rounds.
    CausimOrdered,
    /// NeXosim 1.0 from crates.io.
    Nexosim,
    /// Tokio tasks and `tokio::sync::mpsc`, with a hand-rolled event queue
    /// where the workload needs simulation time.
    Tokio,
}

impl Engine {
    /// Every engine, in table order.
    pub const ALL: [Engine; 7] = [
        Engine::Causim,
        Engine::CausimHand,
        Engine::CausimComposite,
        Engine::CausimRecorded,
        Engine::CausimOrdered,
        Engine::Nexosim,
        Engine::Tokio,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Causim => "causim",
            Engine::CausimHand => "causim-hand",
            Engine::CausimComposite => "causim-composite",
            Engine::CausimRecorded => "causim-recorded",
            Engine::CausimOrdered => "causim-ordered",
            Engine::Nexosim => "nexosim",
            Engine::Tokio => "tokio",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Engine {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Engine::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown engine {s:?}"))
    }
}

/// Worker threads: 1 is each engine's single-threaded mode (causim's
/// deterministic executor, NeXosim's `with_num_threads(1)`, Tokio's
/// current-thread runtime); more is its multi-threaded one.
pub type Threads = usize;
