//! Hold: the classic benchmark of an event list.
//!
//! `pending` events wait in the queue; each one that fires schedules one
//! new event at its time plus a random increment, so the queue keeps
//! `pending` events while time moves on. A *hold* is one fire and its new
//! event: a pop and a push at the queue's size. Two distributions of the
//! increment:
//!
//! - **exponential** (mean 2¹⁶ units): the usual test of a steady queue;
//! - **bimodal**: 9 in 10 increments uniform on 1..=6 554 units, 1 in 10
//!   uniform on 6 553 600..=6 560 153 — a near cluster and a far one 1 000
//!   times later, which defeats queues that size their buckets for one
//!   typical gap (calendar queues).
//!
//! Event times are whole nanoseconds: a unit of increment is 2²⁴ ns, and
//! the low 24 bits of an event's time are its *lane*, one per pending event
//! (so `pending` ≤ 2²⁴). No two pending events share a time: every step of
//! every engine fires exactly one event, and the same random numbers
//! give the same event times on every engine.
//!
//! One model on every engine: its `start` input schedules lane `i`'s first
//! event at `i`'s increment from time zero (untimed, with the first step,
//! which queues them all and fires one: the memory of the pending events is
//! read after it); then `holds` steps are timed, each firing one event that
//! schedules the next of its lane.

pub mod causim;
pub mod nexosim;
pub mod tokio;

use serde::{Deserialize, Serialize};

use super::{check, Params, Workload};
use crate::measure::resident_bytes;
use crate::rng::Xorshift64;
use crate::{Engine, Sample, Threads};

/// Bits of an event time below a unit of increment: the lane.
pub const LANE_BITS: u32 = 24;

/// The largest number of pending events (one lane each).
pub const MAX_PENDING: u64 = 1 << LANE_BITS;

/// The distribution of increments, by its parameter value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dist {
    /// Exponential with a mean of 2¹⁶ units (`dist=0`).
    Exponential,
    /// 90 % near, 10 % a thousand times further (`dist=1`).
    Bimodal,
}

impl Dist {
    /// The distribution of parameter value `value`.
    pub fn of(value: u64) -> Self {
        match value {
            0 => Dist::Exponential,
            1 => Dist::Bimodal,
            _ => panic!("dist must be 0 (exponential) or 1 (bimodal), got {value}"),
        }
    }
}

/// A model's random increments, and the event times they make.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Increments {
    /// The generator (seeded alike on every engine).
    rng: Xorshift64,
    /// Their distribution.
    dist: Dist,
    /// The time of the last event that fired: every engine must fire them
    /// in time order.
    last_fired: u64,
}

impl Increments {
    /// The increments of a run with distribution `dist`.
    pub fn new(dist: Dist) -> Self {
        Increments {
            rng: Xorshift64::new(20),
            dist,
            last_fired: 0,
        }
    }

    /// The next increment, in units (at least 1).
    #[inline]
    fn draw(&mut self) -> u64 {
        match self.dist {
            Dist::Exponential => {
                // Uniform on (0, 1]: 53 random bits, plus one.
                let u = ((self.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
                1 + (-u.ln() * 65_536.0) as u64
            }
            Dist::Bimodal => {
                if self.rng.below(10) < 9 {
                    1 + self.rng.below(6_554)
                } else {
                    6_553_600 + self.rng.below(6_554)
                }
            }
        }
    }

    /// The first event time of `lane`, from time zero, in nanoseconds.
    #[inline]
    pub fn first(&mut self, lane: u64) -> u64 {
        (self.draw() << LANE_BITS) | lane
    }

    /// The next event time of the lane of `now` (the time of the event that
    /// fired), in nanoseconds. Panics if `now` is not after the time of the
    /// previous event: the engine's queue fired them out of order.
    #[inline]
    pub fn after(&mut self, now: u64) -> u64 {
        assert!(now > self.last_fired, "events fired out of time order");
        self.last_fired = now;
        let lane = now & (MAX_PENDING - 1);
        (((now >> LANE_BITS) + self.draw()) << LANE_BITS) | lane
    }
}

/// The parameter sets: N ∈ {10³, 10⁵, 10⁶, 10⁷} pending events (10³, 10⁵
/// and 10⁶ quick), each with both distributions.
pub fn param_sets(quick: bool) -> Vec<Params> {
    let (sizes, holds): (&[u64], u64) = if quick {
        (&[1_000, 100_000, 1_000_000], 200_000)
    } else {
        (&[1_000, 100_000, 1_000_000, 10_000_000], 1_000_000)
    };
    let mut sets = Vec::new();
    for &pending in sizes {
        for dist in [0, 1] {
            sets.push(Params::of(&[
                ("pending", pending),
                ("holds", holds),
                ("dist", dist),
            ]));
        }
    }
    sets
}

/// What one hold run is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Events kept pending.
    pub pending: u64,
    /// Timed steps, one hold each.
    pub holds: u64,
    /// The distribution of increments.
    pub dist: Dist,
}

impl Plan {
    /// The plan of `params`.
    pub fn of(params: &Params) -> Self {
        let pending = params.get("pending");
        assert!(
            (1..=MAX_PENDING).contains(&pending),
            "pending must be in 1..={MAX_PENDING}"
        );
        Plan {
            pending,
            holds: params.get("holds"),
            dist: Dist::of(params.get("dist")),
        }
    }
}

/// What an engine reports from one hold run.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// Events the model received, the untimed first one included.
    pub fired: u64,
    /// The timed holds.
    pub elapsed: std::time::Duration,
    /// Resident bytes added by queueing the pending events (and the first
    /// step).
    pub queued_bytes: Option<u64>,
}

/// Resident memory before the pending events are queued, for
/// [`Outcome::queued_bytes`].
pub fn memory_mark() -> Option<u64> {
    resident_bytes()
}

/// The bytes added since `mark`.
pub fn memory_since(mark: Option<u64>) -> Option<u64> {
    Some(resident_bytes()?.saturating_sub(mark?))
}

/// Runs one hold workload once and checks the event count.
pub fn run(engine: Engine, threads: Threads, params: &Params) -> Sample {
    let plan = Plan::of(params);
    let outcome = match engine {
        Engine::Causim
        | Engine::CausimHand
        | Engine::CausimComposite
        | Engine::CausimRecorded
        | Engine::CausimOrdered => causim::run(&plan, threads),
        Engine::Nexosim => nexosim::run(&plan, threads),
        Engine::Tokio => tokio::run(&plan, threads),
    };
    // The untimed first step fired one event.
    check(
        Workload::SchedHold.name(),
        engine,
        outcome.fired,
        plan.holds + 1,
    );
    let mut sample = Sample::timed(plan.holds, outcome.elapsed);
    sample.bytes_per_model = outcome.queued_bytes.map(|b| b as f64 / plan.pending as f64);
    sample
}
