//! The power bench served remotely: the orbit and the spacecraft of the
//! module above, with named endpoints for a test engineer's script.
//!
//! ```sh
//! cargo run --example power_server -- --listen 127.0.0.1:50051
//! ```
//!
//! | endpoint            | kind  | type                          |
//! |---------------------|-------|-------------------------------|
//! | `power/heater_on`   | event | `bool`: the survival heater   |
//! | `power/sample`      | event | `()` (JSON `null`): sample now|
//! | `power/ledger`      | query | `()` → [`BusLedger`](super::BusLedger)|
//! | `power/battery`     | query | `()` → [`BatteryReport`](super::BatteryReport)|
//! | `power/bus_voltage` | sink  | `f64`, V, every bus sample    |
//! | `power/telemetry`   | sink  | [`BusSample`]                 |
//! | `orbit/sunlit`      | sink  | `bool`, at sunrise and eclipse|
//!
//! Unlike the example run, the survival heater is the operator's: its
//! timetable is off unless the configuration asks for it.

use causim::prelude::*;
use causim_server::endpoints::DEFAULT_SINK_CAPACITY;
use causim_server::{Bench, Endpoints};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{schedule_survival_heater, BatterySpec, BusSample, Orbit, PowerConfig, Spacecraft};

/// The most executor threads a client may ask for.
pub const MAX_THREADS: usize = 64;

/// Reads a thread count from 1 to [`MAX_THREADS`].
fn threads<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    let threads = usize::deserialize(deserializer)?;
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(threads)
    } else {
        Err(serde::de::Error::custom(format_args!(
            "`threads` must be from 1 to {MAX_THREADS}, got {threads}"
        )))
    }
}

/// What a client may configure when it builds the bench (`Init`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RemoteConfig {
    /// Executor threads (1: deterministic), at most [`MAX_THREADS`]: a
    /// client cannot make the server start thousands of threads.
    #[serde(deserialize_with = "threads")]
    #[schemars(range(min = 1, max = 64))]
    pub threads: usize,
    /// Initial battery state of charge, 0 to 1.
    pub initial_soc: f64,
    /// Usable battery energy when full, Wh.
    pub battery_capacity_wh: f64,
    /// Switch the survival heater on its fixed timetable (10 minutes in
    /// every 30), as the example run does.
    pub heater_timetable: bool,
}

impl Default for RemoteConfig {
    fn default() -> Self {
        let power = PowerConfig::default();
        RemoteConfig {
            threads: 1,
            initial_soc: power.initial_soc,
            battery_capacity_wh: power.battery.capacity_wh,
            heater_timetable: false,
        }
    }
}

/// Builds the bench of `config`, with the endpoints of the module docs.
pub fn build(config: RemoteConfig) -> Result<Bench, SimulationError> {
    let power = PowerConfig {
        orbits: 0,
        threads: config.threads,
        initial_soc: config.initial_soc,
        battery: BatterySpec {
            capacity_wh: config.battery_capacity_wh,
            ..BatterySpec::default()
        },
        ..PowerConfig::default()
    };
    let mut sat = Spacecraft::new(&power);
    let mut orbit = Orbit {
        sunlit: Output::new(),
    };
    sat.connect_sun(&mut orbit.sunlit);
    let init = SimInit::new().with_threads(config.threads);
    let mut endpoints = Endpoints::new(init.time_view());

    let survival_heater = sat.thermal.survival_heater();
    endpoints
        .input(
            "power/heater_on",
            &survival_heater,
            "switches the propellant-line survival heater (30 Ω: 26 W at 28 V)",
        )
        .input(
            "power/sample",
            &sat.power.sample(),
            "makes the bus take a sample now (payload: null)",
        )
        .replier(
            "power/ledger",
            &sat.power.ledger(),
            "the bus's energy ledger so far (request: null)",
        )
        .replier(
            "power/battery",
            &sat.power.battery_report(),
            "the battery's ledger so far (request: null)",
        );
    let voltage = endpoints.sink_map(
        "power/bus_voltage",
        "the bus voltage at each sample (every 10 s), V",
        DEFAULT_SINK_CAPACITY,
        |sample: BusSample| sample.volts,
    );
    let telemetry = endpoints.sink::<BusSample>("power/telemetry", "each bus sample");
    let sunlit = endpoints.sink::<bool>("orbit/sunlit", "true at sunrise, false at eclipse entry");
    sat.power.telemetry().connect_sink(&voltage);
    sat.power.telemetry().connect_sink(&telemetry);
    orbit.sunlit.connect_sink(&sunlit);

    let init = init
        .add_model(orbit, Mailbox::new(), "orbit")
        .add_composite(sat, "sat")
        .add_sink(&voltage, "power/bus_voltage")
        .add_sink(&telemetry, "power/telemetry")
        .add_sink(&sunlit, "orbit/sunlit");
    let bench = Bench::new(init, endpoints);
    if !config.heater_timetable {
        return Ok(bench);
    }
    // Scheduled once, after a fresh start (a restored bench has them).
    Ok(bench.after_init(move |simulation| {
        schedule_survival_heater(&simulation.scheduler(), &survival_heater)?;
        Ok(())
    }))
}
