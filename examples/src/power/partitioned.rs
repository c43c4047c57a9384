//! The power bench split over two partitions: the orbit (the space
//! environment) and the spacecraft, joined by a `sunlight` link.
//!
//! The orbit's sun output crosses the link with a lookahead of
//! [`SUN_LINK_DELAY`] (the sun sensor's processing, say): every sunrise and
//! eclipse reaches the spacecraft one second after the orbit sends it. The
//! spacecraft side passes it on to the same four pieces of equipment as in
//! the one-process bench (`Spacecraft::connect_sun`), through the link's
//! delivery output. Everything else is the bench of the parent module.
//!
//! Every deployment of this bench — both partitions in one process, or
//! each in its own process over Zenoh — records the same bus telemetry, bit
//! for bit (the example `power_partitioned` and the test of the same name
//! check it). It differs from [`PowerBench`](super::PowerBench)'s only by
//! that second.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use causim::ports::InputRef;
use causim::prelude::*;
use causim_zenoh::{Deployment, PartitionError, PartitionedBench, Transport};

use super::{
    schedule_survival_heater, BusSample, Load, Orbit, PowerConfig, Spacecraft, ORBIT_PERIOD,
};

/// The delay of the sunlight link.
pub const SUN_LINK_DELAY: Duration = Duration::from_secs(1);

/// The partitions' names.
pub const PARTITIONS: [&str; 2] = ["orbit", "sat"];

/// What the spacecraft's process records.
#[derive(Debug, Clone, Default)]
pub struct PartitionedOutputs {
    /// The bus telemetry.
    pub telemetry: EventQueue<BusSample>,
    /// The survival heater's switch, once the spacecraft is built here.
    survival_heater: Arc<Mutex<Option<InputRef<Load, bool>>>>,
}

/// The partitioned power bench of `config`, recording into `outputs` in
/// the process that hosts the spacecraft.
pub fn bench(config: &PowerConfig, outputs: &PartitionedOutputs) -> PartitionedBench {
    let mut bench = PartitionedBench::new();
    let threads = config.threads;
    bench.configure(move |init| init.with_threads(threads));
    let sunlight = bench.link::<bool>("sunlight", PARTITIONS[0], PARTITIONS[1], SUN_LINK_DELAY);
    bench.partition(PARTITIONS[0], move |p| {
        let mut orbit = Orbit {
            sunlit: Output::new(),
        };
        p.link_from(sunlight, &mut orbit.sunlit);
        p.add_model(orbit, Mailbox::new(), "orbit");
    });
    let (config, outputs) = (*config, outputs.clone());
    bench.partition(PARTITIONS[1], move |p| {
        let mut sat = Spacecraft::new(&config);
        p.link_to_output(sunlight, |sun| sat.connect_sun(sun));
        sat.power.telemetry().connect_sink(&outputs.telemetry);
        *outputs
            .survival_heater
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(sat.thermal.survival_heater());
        p.add_composite(sat, "sat");
    });
    bench
}

/// Runs process `process` of `deployment` of the partitioned bench of
/// `config` to the end of its orbits, exchanging over `transport`; returns
/// the bus telemetry if this process hosts the spacecraft.
pub fn run(
    config: &PowerConfig,
    deployment: &Deployment,
    process: usize,
    transport: impl Transport + 'static,
) -> Result<Option<Vec<BusSample>>, PartitionError> {
    let outputs = PartitionedOutputs::default();
    let hosted = bench(config, &outputs).host(deployment, process)?;
    let mut runner = hosted.init(SimTime::ZERO, transport)?;
    let heater = outputs
        .survival_heater
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some(heater) = &heater {
        schedule_survival_heater(&runner.simulation().scheduler(), heater).map_err(|error| {
            PartitionError::Declaration(format!("the survival heater's timetable: {error}"))
        })?;
    }
    for orbit in 1..=config.orbits {
        let end = SimTime::ZERO + ORBIT_PERIOD * orbit;
        runner.run_until(end)?;
    }
    Ok(heater.map(|_| outputs.telemetry.take_all()))
}
