//! The bench the server's tests and benchmark drive: a heated tank.
//!
//! A heater switched from outside warms a tank that loses heat to its
//! surroundings; the tank samples its temperature every `period_ms` and
//! sends it out. Endpoints: `tank/heater_on` (event, `bool`),
//! `tank/setpoint` (event, a struct), `tank/status` (query), and the sinks
//! `tank/temperature` (`f64`) and `tank/samples` (a struct).

use causim::ports::{InputRef, ReplierRef};
use causim::prelude::*;
use causim_server::{Bench, Endpoints};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The bench's configuration: what `Init` takes.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TankConfig {
    /// Executor threads.
    pub threads: usize,
    /// Sampling period, ms of simulated time.
    pub period_ms: u64,
    /// Initial temperature, °C.
    pub initial_celsius: f64,
    /// A sample at this time (ms) makes the tank panic: a fatal error.
    pub panic_at_ms: Option<u64>,
}

impl Default for TankConfig {
    fn default() -> Self {
        TankConfig {
            threads: 1,
            period_ms: 1000,
            initial_celsius: 20.0,
            panic_at_ms: None,
        }
    }
}

/// A temperature target.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Setpoint {
    /// °C.
    pub celsius: f64,
}

/// What the tank says when asked.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TankStatus {
    /// Whether the heater is on.
    pub heater_on: bool,
    /// °C.
    pub celsius: f64,
    /// The last setpoint received, °C.
    pub setpoint: Option<f64>,
    /// Samples taken.
    pub samples: u64,
}

/// One sample.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Sample {
    /// Seconds of simulated time.
    pub time_s: f64,
    /// °C.
    pub celsius: f64,
}

/// The tank and its heater (saveable with the `save` feature: every field
/// but the ports is state).
#[cfg_attr(feature = "save", model(save))]
#[cfg_attr(not(feature = "save"), model)]
#[derive(Debug)]
pub struct Tank {
    /// One temperature per period.
    pub temperature: Output<f64>,
    /// One sample per period.
    pub samples: Output<Sample>,
    /// The state the status query reports.
    status: TankStatus,
    /// Sampling period.
    period: Duration,
    /// When to panic, if ever.
    panic_at: Option<SimTime>,
}

#[cfg_attr(feature = "save", model(save))]
#[cfg_attr(not(feature = "save"), model)]
impl Tank {
    /// Starts sampling.
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        cx.schedule_periodic(self.period, self.period, Self::ports().sample, ())
            .expect("a positive period");
    }

    /// Switches the heater.
    #[input]
    pub fn heater_on(&mut self, on: bool) {
        self.status.heater_on = on;
    }

    /// Takes a setpoint.
    #[input]
    pub fn setpoint(&mut self, setpoint: Setpoint) {
        self.status.setpoint = Some(setpoint.celsius);
    }

    /// One period of heating and losses, then a sample.
    #[input]
    pub async fn sample(&mut self, cx: &mut Context<Self>) {
        if Some(cx.time()) == self.panic_at {
            panic!("the tank burst at {}", cx.time());
        }
        let status = &mut self.status;
        let gain = if status.heater_on { 0.5 } else { 0.0 };
        status.celsius += gain - 0.01 * (status.celsius - 20.0);
        status.samples += 1;
        let celsius = status.celsius;
        self.temperature.send(celsius).await;
        let time_s = cx.time().as_secs_f64();
        self.samples.send(Sample { time_s, celsius }).await;
    }

    /// The tank's status.
    #[replier]
    pub fn status(&mut self) -> TankStatus {
        self.status
    }
}

/// Builds the tank bench of `config`.
pub fn build(config: TankConfig) -> Result<Bench, SimulationError> {
    if config.period_ms == 0 {
        return Err(SimulationError::InvalidTick);
    }
    let init = SimInit::new().with_threads(config.threads);
    let mut endpoints = Endpoints::new(init.time_view());
    let mut tank = Tank {
        temperature: Output::new(),
        samples: Output::new(),
        status: TankStatus {
            heater_on: false,
            celsius: config.initial_celsius,
            setpoint: None,
            samples: 0,
        },
        period: Duration::from_millis(config.period_ms),
        panic_at: config.panic_at_ms.map(SimTime::from_millis),
    };
    let mailbox = Mailbox::new();
    endpoints
        .input(
            "tank/heater_on",
            &InputRef::new(Tank::ports().heater_on, &mailbox),
            "switches the heater",
        )
        .input(
            "tank/setpoint",
            &InputRef::new(Tank::ports().setpoint, &mailbox),
            "a temperature target",
        )
        .replier(
            "tank/status",
            &ReplierRef::new(Tank::ports().status, &mailbox),
            "the tank's state",
        );
    let temperature = endpoints.sink::<f64>("tank/temperature", "°C, once per period");
    tank.temperature.connect_sink(&temperature);
    let samples = endpoints.sink::<Sample>("tank/samples", "time and temperature");
    tank.samples.connect_sink(&samples);
    let init = init
        .add_model(tank, mailbox, "tank")
        .add_sink(&temperature, "tank/temperature")
        .add_sink(&samples, "tank/samples");
    Ok(Bench::new(init, endpoints))
}
