//! What-if cases from a common state: the power bench run once to the
//! first eclipse, saved, and continued under several load scenarios at
//! once.
//!
//! ```text
//!                         ┌─ restore ─▶ nominal                 ─▶ min SoC
//!  run to first eclipse ──┼─ restore ─▶ payload on for 15 min   ─▶ min SoC
//!        save             └─ restore ─▶ payload on all eclipse  ─▶ min SoC
//! ```
//!
//! The common part runs once; each scenario restores the same snapshot
//! bytes into its own freshly built bench, on its own thread, then
//! changes a load: the payload instrument, normally off in eclipse, is
//! switched on at once (an operator's command, `process_event`) and off
//! again by an event the bench schedules. Each scenario then runs to the
//! end, and its battery's lowest state of charge says whether the
//! spacecraft could afford it. The restored benches start from the same
//! state: [`Outcome::soc_at_fork`] is the same for each, and equals the
//! saved bench's.

use std::error::Error;
use std::time::Duration;

use causim::SimTime;

use super::{PowerBench, PowerConfig, ECLIPSE, ORBIT_PERIOD};

/// Any error of a fork: the bench's, the save's or a restore's.
pub type ForkError = Box<dyn Error + Send + Sync>;

/// A load scenario: how long the payload runs in eclipse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    /// What it is called in reports.
    pub name: &'static str,
    /// How long the payload is on from the fork (zero: not switched).
    pub payload_on: Duration,
}

/// The three scenarios of the example, by increasing load.
pub const SCENARIOS: [Scenario; 3] = [
    Scenario {
        name: "nominal",
        payload_on: Duration::ZERO,
    },
    Scenario {
        name: "payload on for 15 min",
        payload_on: Duration::from_secs(15 * 60),
    },
    Scenario {
        name: "payload on all eclipse",
        payload_on: ECLIPSE,
    },
];

/// How one scenario went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The scenario.
    pub scenario: Scenario,
    /// The battery's state of charge right after the restore.
    pub soc_at_fork: f64,
    /// The lowest state of charge of the whole run (the battery's ledger).
    pub min_soc: f64,
    /// The state of charge at the end.
    pub final_soc: f64,
    /// Demand the battery could not supply, Wh.
    pub unmet_wh: f64,
}

/// The common run and every scenario's outcome.
#[derive(Debug, Clone)]
pub struct Fork {
    /// When the bench was saved: the first eclipse's entry.
    pub time: SimTime,
    /// The saved bench's state of charge then.
    pub soc_at_fork: f64,
    /// The snapshot every scenario started from.
    pub snapshot: Vec<u8>,
    /// One per scenario, in the order given.
    pub outcomes: Vec<Outcome>,
}

/// When the first eclipse begins.
pub fn first_eclipse() -> SimTime {
    SimTime::ZERO + (ORBIT_PERIOD - ECLIPSE)
}

/// Runs `config` to the first eclipse, saves it, then runs each of
/// `scenarios` from the snapshot to the end of `config.orbits` orbits,
/// each on its own thread.
pub fn fork(config: PowerConfig, scenarios: &[Scenario]) -> Result<Fork, ForkError> {
    let time = first_eclipse();
    let mut bench = PowerBench::new(config)?;
    bench.run_until(time)?;
    let soc_at_fork = bench.state_of_charge()?;
    let mut snapshot = Vec::new();
    bench.save(&mut snapshot)?;
    drop(bench);

    let outcomes = std::thread::scope(|scope| {
        let runs: Vec<_> = scenarios
            .iter()
            .map(|&scenario| {
                let snapshot = snapshot.as_slice();
                scope.spawn(move || run_scenario(config, snapshot, scenario))
            })
            .collect();
        runs.into_iter()
            .map(|run| {
                run.join()
                    .map_err(|_| ForkError::from("a scenario panicked"))?
            })
            .collect::<Result<Vec<_>, ForkError>>()
    })?;
    Ok(Fork {
        time,
        soc_at_fork,
        snapshot,
        outcomes,
    })
}

/// Restores `snapshot` into a fresh bench, applies `scenario` and runs it
/// to the end.
fn run_scenario(
    config: PowerConfig,
    snapshot: &[u8],
    scenario: Scenario,
) -> Result<Outcome, ForkError> {
    let mut bench = PowerBench::restore(config, snapshot)?;
    let soc_at_fork = bench.state_of_charge()?;
    if !scenario.payload_on.is_zero() {
        bench.switch_payload(true)?;
        bench.schedule_payload(bench.time() + scenario.payload_on, false)?;
    }
    while bench.remaining() > 0 {
        bench.run_orbit()?;
    }
    let summary = bench.finish()?.summary;
    Ok(Outcome {
        scenario,
        soc_at_fork,
        min_soc: summary.battery.min_soc,
        final_soc: summary.battery.stored_wh / config.battery.capacity_wh,
        unmet_wh: summary.bus.unmet_wh,
    })
}
