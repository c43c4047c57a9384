//! A spacecraft electrical power subsystem in low Earth orbit.
//!
//! The bench follows a small satellite for a few orbits of 95 minutes, each
//! with 60 minutes of sunlight and 35 of eclipse:
//!
//! ```text
//!            sunlit ┌──────────▶ SolarArray (two wings) ◀─┐ solar: volts → amps
//!   Orbit ──────────┼─ map !sunlit ─▶ battery heater ◀───┤ loads: volts → amps
//!                   ├─ filter sunrise ─▶ Sequencer ─▶ payload ◀─┤
//!                   └─▶ sink (eclipse count)    avionics ◀─┤
//!                                        survival heater ◀─┤ (switched by the bench)
//!                                                          │
//!               Battery ◀── state / charge ── PowerBus ────┘ ──▶ telemetry sink
//! ```
//!
//! The bench is built the way an engineer draws the satellite: the orbit
//! beside a spacecraft composite `sat`, which holds the `power`, `payload`
//! and `thermal` subsystems and the avionics (see [`subsystems`]). Every
//! model has a path, `sat/power/battery` for instance, which errors and
//! reports use.
//!
//! The **power bus** is where the physics meets: every 10 s it asks the
//! battery for its voltage (a battery-dominated, unregulated 24–33 V bus),
//! then asks each load and each solar wing what current it draws or gives
//! *at that voltage*. That is the power line as request/reply: voltage
//! goes out on a `Requestor<f64, f64>`, current comes back, and fan-in sums
//! the replies. The net power is held for the next 10 s (a zero-order hold)
//! and charged into or drawn from the battery, whose charge limit and
//! efficiencies decide how much is stored, lost or shunted away.
//!
//! The bus keeps the energy ledger (solar in, loads out, shunted) and the
//! battery keeps its own (stored, lost); the two are kept by different
//! models and must agree, which [`PowerSummary::balance_error_wh`] checks.
//!
//! Timing: orbit events fall on whole 10 s marks and the bus samples at
//! 5 s past them, so no two models act on the same thing at the same
//! instant and the run is identical on one thread or several.

use std::fmt;
use std::io::{Read, Write};
use std::time::Duration;

use causim::ports::{InputRef, ReplierRef};
use causim::prelude::*;
use causim::topology::Topology;
use causim::{RestoreError, SaveError, SchedulingError};
use causim_record::{Recording, Series};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod campaign;
pub mod fork;
pub mod partitioned;
pub mod remote;
pub mod subsystems;

pub use subsystems::Spacecraft;

/// One orbit: 95 minutes.
pub const ORBIT_PERIOD: Duration = Duration::from_secs(95 * 60);
/// The eclipse part of an orbit: 35 minutes.
pub const ECLIPSE: Duration = Duration::from_secs(35 * 60);
/// How often the bus samples currents and updates the battery.
pub const BUS_PERIOD: Duration = Duration::from_secs(10);
/// The bus samples this long after each 10 s mark (see the module docs).
pub const BUS_PHASE: Duration = Duration::from_secs(5);

/// The sun and Earth's shadow: tells who cares whether the craft is lit.
///
/// Starts at sunrise; eclipse begins after the sunlit part of each orbit and
/// ends with the orbit.
#[model(save)]
#[derive(Debug)]
pub struct Orbit {
    /// `true` at sunrise, `false` at eclipse entry.
    #[required]
    pub sunlit: Output<bool>,
}

#[model(save)]
impl Orbit {
    /// Schedules both transitions as periodic events, once per orbit.
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        let sunlit_part = ORBIT_PERIOD - ECLIPSE;
        cx.schedule_periodic(sunlit_part, ORBIT_PERIOD, Self::ports().enter_eclipse, ())
            .expect("orbit durations are positive constants");
        cx.schedule_periodic(ORBIT_PERIOD, ORBIT_PERIOD, Self::ports().exit_eclipse, ())
            .expect("orbit durations are positive constants");
    }

    /// The craft enters Earth's shadow.
    #[input]
    pub async fn enter_eclipse(&mut self) {
        self.sunlit.send(false).await;
    }

    /// Sunrise.
    #[input]
    pub async fn exit_eclipse(&mut self) {
        self.sunlit.send(true).await;
    }
}

/// One solar array wing with a maximum-power-point tracker.
///
/// The tracker delivers the wing's power whatever the bus voltage, so the
/// current it gives is `power / volts`. Power is proportional to the
/// illumination: full sun or none (penumbra lasts seconds and is ignored).
#[model(save)]
#[derive(Debug)]
pub struct SolarArray {
    /// Electrical power in full sun, W.
    rated_w: f64,
    /// 1.0 in sunlight, 0.0 in eclipse.
    illumination: f64,
}

#[model(save)]
impl SolarArray {
    /// A wing of `area_m2` with cells of `efficiency`, starting in sunlight.
    pub fn new(area_m2: f64, efficiency: f64) -> Self {
        /// Solar flux at 1 AU, W/m².
        const SOLAR_CONSTANT: f64 = 1361.0;
        SolarArray {
            rated_w: SOLAR_CONSTANT * area_m2 * efficiency,
            illumination: 1.0,
        }
    }

    /// The orbit says whether the sun is visible.
    #[input]
    pub fn set_sunlit(&mut self, sunlit: bool) {
        self.illumination = if sunlit { 1.0 } else { 0.0 };
    }

    /// The power line: bus voltage in, current given to the bus out.
    #[replier]
    pub fn current(&mut self, volts: f64) -> f64 {
        self.rated_w * self.illumination / volts
    }
}

/// How a load draws current.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum LoadKind {
    /// A heater element: `I = V / R`.
    Resistive {
        /// Resistance, Ω.
        ohms: f64,
    },
    /// A unit behind a DC/DC converter: `I = P / V`.
    ConstantPower {
        /// Power drawn, W.
        watts: f64,
    },
}

/// A switchable load on the power line.
#[model(save)]
#[derive(Debug)]
pub struct Load {
    /// How it draws current when on.
    kind: LoadKind,
    /// Whether it is switched on.
    on: bool,
}

#[model(save)]
impl Load {
    /// A load of `kind`, initially `on` or off.
    pub fn new(kind: LoadKind, on: bool) -> Self {
        Load { kind, on }
    }

    /// Switches the load on or off.
    #[input]
    pub fn switch(&mut self, on: bool) {
        self.on = on;
    }

    /// The power line: bus voltage in, current drawn out.
    #[replier]
    pub fn current(&mut self, volts: f64) -> f64 {
        match (self.on, self.kind) {
            (false, _) => 0.0,
            (true, LoadKind::Resistive { ohms }) => volts / ohms,
            (true, LoadKind::ConstantPower { watts }) => watts / volts,
        }
    }
}

/// The payload's observation plan: on some minutes after each sunrise, for
/// a fixed time. It schedules its own commands through its context.
#[model(save)]
#[derive(Debug)]
pub struct Sequencer {
    /// Switches the payload.
    #[required]
    pub payload: Output<bool>,
    /// From sunrise to payload on.
    delay: Duration,
    /// How long the payload stays on.
    duration: Duration,
}

#[model(save)]
impl Sequencer {
    /// Turns the payload on `delay` after each sunrise, for `duration`.
    pub fn new(delay: Duration, duration: Duration) -> Self {
        Sequencer {
            payload: Output::new(),
            delay,
            duration,
        }
    }

    /// The run starts at sunrise: plan the first pass.
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        self.sunrise(cx);
    }

    /// Plans the payload's on and off commands for this sunlit period.
    #[input]
    pub fn sunrise(&mut self, cx: &mut Context<Self>) {
        cx.schedule(self.delay, Self::ports().command, true)
            .expect("the delay is positive");
        cx.schedule(self.delay + self.duration, Self::ports().command, false)
            .expect("the delay is positive");
    }

    /// A planned command comes due.
    #[input]
    pub async fn command(&mut self, on: bool) {
        self.payload.send(on).await;
    }
}

/// The battery's design values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BatterySpec {
    /// Usable energy when full, Wh.
    pub capacity_wh: f64,
    /// Fraction of the charging power that is stored.
    pub charge_efficiency: f64,
    /// Fraction of the drawn stored energy that reaches the bus.
    pub discharge_efficiency: f64,
    /// Most power the charge regulator accepts, W.
    pub max_charge_w: f64,
    /// Open-circuit voltage when empty, V.
    pub empty_volts: f64,
    /// Open-circuit voltage when full, V.
    pub full_volts: f64,
}

impl Default for BatterySpec {
    /// An 8-cell lithium-ion pack of 300 Wh on a 28 V-class bus.
    fn default() -> Self {
        BatterySpec {
            capacity_wh: 300.0,
            charge_efficiency: 0.95,
            discharge_efficiency: 0.95,
            max_charge_w: 150.0,
            empty_volts: 24.0,
            full_volts: 32.8,
        }
    }
}

/// What the bus reads from the battery at each sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct BatteryState {
    /// Open-circuit (and bus) voltage, V.
    pub volts: f64,
    /// State of charge, 0 to 1.
    pub soc: f64,
}

/// A request to move energy: `power_w > 0` charges, `< 0` discharges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exchange {
    /// Power on the bus side, W.
    pub power_w: f64,
    /// For how long, s.
    pub seconds: f64,
}

/// The battery's own ledger, read at the end of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatteryReport {
    /// Stored energy at the start, Wh.
    pub initial_wh: f64,
    /// Stored energy now, Wh.
    pub stored_wh: f64,
    /// Energy taken from the bus, Wh.
    pub charged_wh: f64,
    /// Energy given to the bus, Wh.
    pub discharged_wh: f64,
    /// Energy lost as heat in charge and discharge, Wh.
    pub losses_wh: f64,
    /// Lowest state of charge seen.
    pub min_soc: f64,
}

/// A battery with a state of charge, efficiencies and a charge limit.
#[model(save)]
#[derive(Debug)]
pub struct Battery {
    /// Design values.
    spec: BatterySpec,
    /// The ledger.
    report: BatteryReport,
}

#[model(save)]
impl Battery {
    /// A battery of `spec` at state of charge `soc`.
    pub fn new(spec: BatterySpec, soc: f64) -> Self {
        let stored_wh = spec.capacity_wh * soc.clamp(0.0, 1.0);
        Battery {
            spec,
            report: BatteryReport {
                initial_wh: stored_wh,
                stored_wh,
                charged_wh: 0.0,
                discharged_wh: 0.0,
                losses_wh: 0.0,
                min_soc: soc,
            },
        }
    }

    fn soc(&self) -> f64 {
        self.report.stored_wh / self.spec.capacity_wh
    }

    /// Voltage and state of charge.
    #[replier]
    pub fn state(&mut self) -> BatteryState {
        let soc = self.soc();
        let volts = self.spec.empty_volts + (self.spec.full_volts - self.spec.empty_volts) * soc;
        BatteryState { volts, soc }
    }

    /// Charges or discharges; replies with the bus-side power actually
    /// accepted (positive) or delivered (negative).
    #[replier]
    pub fn exchange(&mut self, request: Exchange) -> f64 {
        let hours = request.seconds / 3600.0;
        if hours <= 0.0 {
            return 0.0;
        }
        let power_w = if request.power_w >= 0.0 {
            self.charge(request.power_w, hours)
        } else {
            -self.discharge(-request.power_w, hours)
        };
        self.report.min_soc = self.report.min_soc.min(self.soc());
        power_w
    }

    /// Stores what the regulator and the free capacity allow.
    fn charge(&mut self, offered_w: f64, hours: f64) -> f64 {
        let spec = self.spec;
        let room_w = (spec.capacity_wh - self.report.stored_wh) / hours / spec.charge_efficiency;
        let accepted_w = offered_w.min(spec.max_charge_w).min(room_w).max(0.0);
        self.report.stored_wh += accepted_w * spec.charge_efficiency * hours;
        self.report.charged_wh += accepted_w * hours;
        self.report.losses_wh += accepted_w * (1.0 - spec.charge_efficiency) * hours;
        accepted_w
    }

    /// Delivers what the stored energy allows.
    fn discharge(&mut self, demanded_w: f64, hours: f64) -> f64 {
        let eff = self.spec.discharge_efficiency;
        let delivered_w = demanded_w.min(self.report.stored_wh * eff / hours);
        self.report.stored_wh -= delivered_w / eff * hours;
        self.report.discharged_wh += delivered_w * hours;
        self.report.losses_wh += delivered_w * (1.0 / eff - 1.0) * hours;
        delivered_w
    }

    /// The ledger so far.
    #[replier]
    pub fn report(&mut self) -> BatteryReport {
        self.report
    }
}

/// One row of the bus telemetry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct BusSample {
    /// Simulation time, s.
    pub time_s: f64,
    /// Bus voltage, V.
    pub volts: f64,
    /// Power from the solar array, W.
    pub solar_w: f64,
    /// Power drawn by the loads, W.
    pub load_w: f64,
    /// Battery state of charge, 0 to 1.
    pub soc: f64,
}

/// The bus's energy ledger.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BusLedger {
    /// Energy from the solar array, Wh.
    pub solar_wh: f64,
    /// Energy the loads asked for, Wh.
    pub load_wh: f64,
    /// Surplus the battery could not take, dumped by the shunt, Wh.
    pub shunt_wh: f64,
    /// Demand the battery could not supply (brown-out), Wh.
    pub unmet_wh: f64,
    /// Lowest and highest bus voltage, V.
    pub min_volts: f64,
    /// Highest bus voltage, V.
    pub max_volts: f64,
}

/// The power held between two samples.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct OperatingPoint {
    /// When it was sampled.
    time: SimTime,
    /// Solar power, W.
    solar_w: f64,
    /// Load power, W.
    load_w: f64,
}

/// The power conditioning and distribution unit: samples the power line,
/// moves energy in and out of the battery, and keeps the ledger.
#[model(save)]
#[derive(Debug)]
pub struct PowerBus {
    /// The solar wings: bus voltage in, current out.
    #[required]
    pub solar: Requestor<f64, f64>,
    /// The loads: bus voltage in, current out.
    #[required]
    pub loads: Requestor<f64, f64>,
    /// One sample per bus period.
    pub telemetry: Output<BusSample>,
    /// The battery's voltage and state of charge.
    battery_state: UniRequestor<(), BatteryState>,
    /// Charges and discharges the battery.
    battery_exchange: UniRequestor<Exchange, f64>,
    /// The power held since the last sample.
    held: Option<OperatingPoint>,
    /// The ledger.
    ledger: BusLedger,
}

#[model(save)]
impl PowerBus {
    /// A bus whose battery has mailbox address `battery`.
    pub fn new(battery: &Address<Battery>) -> Self {
        PowerBus {
            solar: Requestor::new(),
            loads: Requestor::new(),
            telemetry: Output::new(),
            battery_state: UniRequestor::new(Battery::ports().state, battery),
            battery_exchange: UniRequestor::new(Battery::ports().exchange, battery),
            held: None,
            ledger: BusLedger {
                min_volts: f64::INFINITY,
                max_volts: f64::NEG_INFINITY,
                ..BusLedger::default()
            },
        }
    }

    /// Takes the first sample and starts the periodic ones.
    #[init]
    async fn start(&mut self, cx: &mut Context<Self>) {
        self.sample(cx).await;
        cx.schedule_periodic(BUS_PHASE, BUS_PERIOD, Self::ports().sample, ())
            .expect("the bus period is a positive constant");
    }

    /// Settles the interval since the last sample with the battery, then
    /// samples the power line for the next one.
    #[input]
    pub async fn sample(&mut self, cx: &mut Context<Self>) {
        let now = cx.time();
        if let Some(held) = self.held.take() {
            self.settle(held, now).await;
        }
        let battery = self.battery_state.send(()).await;
        let volts = battery.volts;
        let solar_a: f64 = self.solar.send(volts).await.sum();
        let load_a: f64 = self.loads.send(volts).await.sum();
        self.held = Some(OperatingPoint {
            time: now,
            solar_w: volts * solar_a,
            load_w: volts * load_a,
        });
        self.ledger.min_volts = self.ledger.min_volts.min(volts);
        self.ledger.max_volts = self.ledger.max_volts.max(volts);
        let sample = BusSample {
            time_s: now.as_secs_f64(),
            volts,
            solar_w: volts * solar_a,
            load_w: volts * load_a,
            soc: battery.soc,
        };
        self.telemetry.send(sample).await;
    }

    /// Applies the held power from `held.time` to `now`.
    async fn settle(&mut self, held: OperatingPoint, now: SimTime) {
        let seconds = (now - held.time).as_secs_f64();
        let hours = seconds / 3600.0;
        let net_w = held.solar_w - held.load_w;
        let exchange = Exchange {
            power_w: net_w,
            seconds,
        };
        let battery_w = self.battery_exchange.send(exchange).await;
        let ledger = &mut self.ledger;
        ledger.solar_wh += held.solar_w * hours;
        ledger.load_wh += held.load_w * hours;
        if net_w >= 0.0 {
            ledger.shunt_wh += (net_w - battery_w) * hours;
        } else {
            ledger.unmet_wh += (battery_w - net_w) * hours;
        }
    }

    /// The ledger so far.
    #[replier]
    pub fn ledger(&mut self) -> BusLedger {
        self.ledger
    }
}

/// What to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerConfig {
    /// Number of orbits.
    pub orbits: u32,
    /// Executor threads (1: deterministic).
    pub threads: usize,
    /// Initial battery state of charge.
    pub initial_soc: f64,
    /// The battery.
    pub battery: BatterySpec,
    /// The solar cells' efficiency (each wing is 0.4 m²).
    pub panel_efficiency: f64,
    /// The avionics' power, always drawn, W.
    pub avionics_w: f64,
}

impl Default for PowerConfig {
    fn default() -> Self {
        PowerConfig {
            orbits: 5,
            threads: 1,
            initial_soc: 0.9,
            battery: BatterySpec::default(),
            panel_efficiency: 0.28,
            avionics_w: 60.0,
        }
    }
}

/// The key numbers of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerSummary {
    /// Orbits simulated.
    pub orbits: u32,
    /// Eclipses entered.
    pub eclipses: usize,
    /// Time in eclipse, from the bus samples, s.
    pub eclipse_time_s: f64,
    /// The bus's ledger.
    pub bus: BusLedger,
    /// The battery's ledger.
    pub battery: BatteryReport,
}

impl PowerSummary {
    /// Energy that entered the system and is not accounted for, Wh:
    /// solar − supplied loads − shunt − battery losses − change in storage.
    /// Zero up to rounding when the bus and battery ledgers agree.
    pub fn balance_error_wh(&self) -> f64 {
        let supplied = self.bus.load_wh - self.bus.unmet_wh;
        let stored = self.battery.stored_wh - self.battery.initial_wh;
        self.bus.solar_wh - supplied - self.bus.shunt_wh - self.battery.losses_wh - stored
    }
}

impl fmt::Display for PowerSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.bus;
        let bat = &self.battery;
        writeln!(f, "{:<34}{:>12}", "orbits", self.orbits)?;
        writeln!(f, "{:<34}{:>12}", "eclipses", self.eclipses)?;
        writeln!(
            f,
            "{:<34}{:>12.1}",
            "time without solar power (min)",
            self.eclipse_time_s / 60.0
        )?;
        writeln!(
            f,
            "{:<34}{:>12.1}",
            "energy in: solar array (Wh)", b.solar_wh
        )?;
        writeln!(f, "{:<34}{:>12.1}", "energy out: loads (Wh)", b.load_wh)?;
        writeln!(f, "{:<34}{:>12.1}", "energy out: shunt (Wh)", b.shunt_wh)?;
        writeln!(f, "{:<34}{:>12.1}", "battery charged (Wh)", bat.charged_wh)?;
        writeln!(
            f,
            "{:<34}{:>12.1}",
            "battery discharged (Wh)", bat.discharged_wh
        )?;
        writeln!(f, "{:<34}{:>12.1}", "battery losses (Wh)", bat.losses_wh)?;
        writeln!(f, "{:<34}{:>12.1}", "stored at start (Wh)", bat.initial_wh)?;
        writeln!(f, "{:<34}{:>12.1}", "stored at end (Wh)", bat.stored_wh)?;
        writeln!(
            f,
            "{:<34}{:>12.1}",
            "minimum state of charge (%)",
            100.0 * bat.min_soc
        )?;
        writeln!(f, "{:<34}{:>12.2}", "bus voltage min (V)", b.min_volts)?;
        writeln!(f, "{:<34}{:>12.2}", "bus voltage max (V)", b.max_volts)?;
        writeln!(f, "{:<34}{:>12.1}", "unmet load (Wh)", b.unmet_wh)?;
        write!(
            f,
            "{:<34}{:>12.2e}",
            "energy balance error (Wh)",
            self.balance_error_wh()
        )
    }
}

/// The spacecraft's ports that the bench reads its results through.
#[derive(Debug)]
struct Endpoints {
    /// Takes a last bus sample.
    sample: InputRef<PowerBus, ()>,
    /// The bus's ledger.
    ledger: ReplierRef<PowerBus, (), BusLedger>,
    /// The battery's voltage and state of charge.
    battery_state: ReplierRef<Battery, (), BatteryState>,
    /// The battery's ledger.
    battery_report: ReplierRef<Battery, (), BatteryReport>,
    /// Switches the payload instrument.
    payload: InputRef<Load, bool>,
}

/// A finished run: the summary, the bus telemetry and the bench's graph.
#[derive(Debug, Clone)]
pub struct PowerRun {
    /// The key numbers.
    pub summary: PowerSummary,
    /// One sample per bus period.
    pub samples: Vec<BusSample>,
    /// The bench's models and connections, for its diagram.
    pub topology: Topology,
    /// The recorded series (see [`record`]): what the example writes.
    pub series: Vec<Series>,
}

/// What a bench recorded: its bus telemetry and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerOutputs {
    /// The bus telemetry not taken yet.
    pub samples: Vec<BusSample>,
    /// Every recorded series so far.
    pub series: Vec<Series>,
}

/// The assembled bench, run one orbit at a time.
///
/// It can be saved between two calls and restored into a bench built
/// again from the same [`PowerConfig`] ([`PowerBench::save`],
/// [`PowerBench::restore`]); the restored bench goes on exactly as the
/// saved one would have, and [`fork::fork`] starts several from one
/// snapshot.
#[derive(Debug)]
pub struct PowerBench {
    /// The simulation.
    simu: Simulation,
    /// What was asked.
    config: PowerConfig,
    /// The ports the bench reads the ledgers through.
    endpoints: Endpoints,
    /// Every sunrise (`true`) and eclipse entry (`false`).
    transitions: EventQueue<bool>,
    /// The bus telemetry.
    telemetry: EventQueue<BusSample>,
    /// The series written to files.
    recording: Recording,
}

/// What the bench keeps of the bench of the module docs, built but not
/// started.
struct Assembly {
    /// The ports read by the bench.
    endpoints: Endpoints,
    /// The survival heater's switch, driven by the bench's timetable.
    survival_heater: InputRef<Load, bool>,
    /// Every sunrise and eclipse entry.
    transitions: EventQueue<bool>,
    /// The bus telemetry.
    telemetry: EventQueue<BusSample>,
    /// The recorders.
    recording: Recording,
}

impl Assembly {
    /// Builds the orbit and the spacecraft (see [`subsystems`] for its
    /// composites), identically each time: a restore needs the same bench.
    /// Returns the builder, every model and sink added.
    fn new(config: &PowerConfig) -> (SimInit, Self) {
        let mut sat = Spacecraft::new(config);
        let mut orbit = Orbit {
            sunlit: Output::new(),
        };
        sat.connect_sun(&mut orbit.sunlit);
        let transitions = EventQueue::new();
        orbit.sunlit.connect_sink(&transitions);
        let telemetry = EventQueue::new();
        sat.power.telemetry().connect_sink(&telemetry);
        let init = SimInit::new().with_threads(config.threads);
        let recording = Recording::new(init.time_view());
        let init = record(&recording, sat.power.telemetry(), &mut orbit.sunlit, init);

        let endpoints = Endpoints {
            sample: sat.power.sample(),
            ledger: sat.power.ledger(),
            battery_state: sat.power.battery_state(),
            battery_report: sat.power.battery_report(),
            payload: sat.payload.switch(),
        };
        let survival_heater = sat.thermal.survival_heater();
        let init = init
            .add_model(orbit, Mailbox::new(), "orbit")
            .add_composite(sat, "sat")
            .add_sink(&transitions, "sun transitions")
            .add_sink(&telemetry, "bus telemetry");
        let assembly = Assembly {
            endpoints,
            survival_heater,
            transitions,
            telemetry,
            recording,
        };
        (init, assembly)
    }

    /// The bench around `simu`, started from this assembly's builder.
    fn bench(self, simu: Simulation, config: PowerConfig) -> (PowerBench, InputRef<Load, bool>) {
        let bench = PowerBench {
            simu,
            config,
            endpoints: self.endpoints,
            transitions: self.transitions,
            telemetry: self.telemetry,
            recording: self.recording,
        };
        (bench, self.survival_heater)
    }
}

impl PowerBench {
    /// Builds the bench of the module docs and starts it at time zero.
    pub fn new(config: PowerConfig) -> Result<Self, SimulationError> {
        let (init, assembly) = Assembly::new(&config);
        let simu = init.init(SimTime::ZERO)?;
        let (bench, survival_heater) = assembly.bench(simu, config);
        schedule_survival_heater(&bench.simu.scheduler(), &survival_heater)?;
        Ok(bench)
    }

    /// Builds the bench of `config` again and continues it from
    /// `snapshot`, written by [`PowerBench::save`] of a bench of the same
    /// configuration (the number of threads may differ). The survival
    /// heater's timetable is not scheduled again: its periodic events are
    /// in the snapshot. The restored bench's outputs (telemetry, series)
    /// start empty, at the saved time.
    pub fn restore(config: PowerConfig, snapshot: impl Read) -> Result<Self, RestoreError> {
        let (init, assembly) = Assembly::new(&config);
        let simu = init.restore(snapshot)?;
        Ok(assembly.bench(simu, config).0)
    }

    /// Writes the bench's state to `out` (see [`PowerBench::restore`]).
    pub fn save(&mut self, out: &mut impl Write) -> Result<(), SaveError> {
        self.simu.save(out)
    }

    /// The simulation time.
    pub fn time(&self) -> SimTime {
        self.simu.time()
    }

    /// Orbits completed.
    pub fn completed(&self) -> u32 {
        let orbits = self.time().as_nanos() / ORBIT_PERIOD.as_nanos() as u64;
        u32::try_from(orbits).unwrap_or(u32::MAX)
    }

    /// Orbits still to run.
    pub fn remaining(&self) -> u32 {
        self.config.orbits.saturating_sub(self.completed())
    }

    /// Runs to the end of the current orbit.
    pub fn run_orbit(&mut self) -> Result<(), SimulationError> {
        let end = SimTime::ZERO + ORBIT_PERIOD * (self.completed() + 1);
        self.simu.step_until(end)
    }

    /// Runs until `time`, the events due at `time` included.
    pub fn run_until(&mut self, time: SimTime) -> Result<(), SimulationError> {
        self.simu.step_until(time)
    }

    /// The battery's state of charge now, 0 to 1.
    pub fn state_of_charge(&mut self) -> Result<f64, SimulationError> {
        let battery = &self.endpoints.battery_state;
        let state = self
            .simu
            .process_query(battery.port(), (), battery.address())?;
        Ok(state.soc)
    }

    /// Switches the payload instrument now: an operator's command.
    pub fn switch_payload(&mut self, on: bool) -> Result<(), SimulationError> {
        self.simu.process(self.endpoints.payload.event(on))
    }

    /// Plans a payload command at `time`, from the bench.
    pub fn schedule_payload(&self, time: SimTime, on: bool) -> Result<(), SchedulingError> {
        let payload = &self.endpoints.payload;
        self.simu
            .scheduler()
            .schedule(time, payload.port(), on, payload.address())
    }

    /// The telemetry recorded since the last call (or the start), and
    /// every series so far.
    pub fn take_outputs(&mut self) -> PowerOutputs {
        PowerOutputs {
            samples: self.telemetry.take_all(),
            series: self.recording.series(),
        }
    }

    /// Closes the ledger at the current time and returns the results.
    ///
    /// The ledgers are the models' own, so they cover the whole run, a
    /// restored bench's included; the samples, eclipses and series are
    /// those this bench recorded (since its restore, for a restored one).
    pub fn finish(mut self) -> Result<PowerRun, SimulationError> {
        // One last sample now settles the interval since the previous one,
        // so the ledgers cover the run exactly.
        let Endpoints {
            sample,
            ledger,
            battery_report,
            ..
        } = &self.endpoints;
        self.simu.process(sample.event(()))?;
        let bus = self
            .simu
            .process_query(ledger.port(), (), ledger.address())?;
        let battery =
            self.simu
                .process_query(battery_report.port(), (), battery_report.address())?;
        let samples = self.telemetry.take_all();
        let eclipses = self.transitions.take_all().iter().filter(|&&s| !s).count();
        let eclipse_time_s = eclipse_time(&samples);
        Ok(PowerRun {
            summary: PowerSummary {
                orbits: self.completed(),
                eclipses,
                eclipse_time_s,
                bus,
                battery,
            },
            samples,
            topology: self.simu.topology(),
            series: self.recording.series(),
        })
    }
}

/// One quantity of the bus telemetry.
type Quantity = fn(&BusSample) -> f64;

/// Records the bus telemetry's quantities and the orbit's light, under
/// the paths of the models that send them; the recorders are the bench's
/// sinks of those names (in its diagram too).
pub fn record(
    recording: &Recording,
    telemetry: &mut Output<BusSample>,
    sunlit: &mut Output<bool>,
    mut init: SimInit,
) -> SimInit {
    let bus = "sat/power/bus";
    let quantities: [(&str, Quantity); 4] = [
        ("volts", |s| s.volts),
        ("solar_w", |s| s.solar_w),
        ("load_w", |s| s.load_w),
        ("soc_percent", |s| 100.0 * s.soc),
    ];
    for (name, quantity) in quantities {
        let path = format!("{bus}/{name}");
        let recorder = recording.record_map(path.clone(), quantity);
        telemetry.connect_sink(recorder.sink());
        init = init.add_sink(recorder.sink(), path);
    }
    let light = recording.record::<bool>("orbit/sunlit");
    sunlit.connect_sink(light.sink());
    init.add_sink(light.sink(), "orbit/sunlit")
}

/// Runs `config` to the end; `on_orbit` is called after each orbit.
pub fn run(config: PowerConfig, mut on_orbit: impl FnMut()) -> Result<PowerRun, SimulationError> {
    let mut bench = PowerBench::new(config)?;
    while bench.remaining() > 0 {
        bench.run_orbit()?;
        on_orbit();
    }
    bench.finish()
}

/// Time without solar power, from the samples (each holds until the next).
fn eclipse_time(samples: &[BusSample]) -> f64 {
    samples
        .windows(2)
        .filter(|w| w[0].solar_w == 0.0)
        .map(|w| w[1].time_s - w[0].time_s)
        .sum()
}

/// Flight computer, radio, attitude control: always on, drawing `watts`.
fn avionics(watts: f64) -> Load {
    Load::new(LoadKind::ConstantPower { watts }, true)
}

/// The science instrument, switched by the sequencer.
fn payload() -> Load {
    Load::new(LoadKind::ConstantPower { watts: 150.0 }, false)
}

/// The battery heater, on in eclipse: 39 W at 28 V.
fn battery_heater() -> Load {
    Load::new(LoadKind::Resistive { ohms: 20.0 }, false)
}

/// The propellant-line survival heater: 26 W at 28 V.
fn survival_heater() -> Load {
    Load::new(LoadKind::Resistive { ohms: 30.0 }, false)
}

/// The survival heater runs 10 minutes in every 30, on a fixed timetable
/// kept by the bench: two periodic events, one to switch on, one off.
fn schedule_survival_heater(
    scheduler: &Scheduler,
    heater: &InputRef<Load, bool>,
) -> Result<(), SchedulingError> {
    let period = Duration::from_secs(30 * 60);
    let on_at = SimTime::from_secs(10 * 60);
    let off_at = SimTime::from_secs(20 * 60);
    scheduler.schedule_periodic(on_at, period, heater.port(), true, heater.address())?;
    scheduler.schedule_periodic(off_at, period, heater.port(), false, heater.address())?;
    Ok(())
}
