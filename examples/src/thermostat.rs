//! A room, its heater and a thermostat: a sampled control loop.
//!
//! ```text
//!   Weather ──outdoor °C──▶ Room ◀──heat W── Heater ◀──on/off── Thermostat
//!                            ▲                                   │  ▲
//!                            └──────── temperature? ─────────────┘  └ setpoints
//!                                                                      (bench, daily)
//! ```
//!
//! The **room** is a single thermal mass that loses heat to the outside
//! through a thermal resistance: `C dT/dt = (T_out − T) / R + P`. Between
//! two events nothing changes but time, so the room does not step: when a
//! message arrives it advances its temperature with the exact solution of
//! that equation over the elapsed time. This is the discrete-event way of
//! simulating continuous physics: the cost follows the events, not a fixed
//! time step.
//!
//! The **thermostat** samples the temperature every 30 s (a periodic event
//! it schedules itself) through a request to the room, and switches the
//! heater with a hysteresis band: on below `setpoint − band`, off above
//! `setpoint + band`. The bench changes the setpoint twice a day (two
//! periodic events: 21 °C from 06:30, 18 °C from 22:00). The **weather**
//! sends a new outdoor temperature every hour, a daily sine.
//!
//! The room keeps an energy ledger (heat in, heat lost), which must match
//! its change in temperature: [`ThermoSummary::balance_error_kwh`].

use std::f64::consts::TAU;
use std::fmt;
use std::io::{Read, Write};
use std::time::Duration;

use causim::prelude::*;
use causim::{Progress, RestoreError, SaveError, SchedulingError};
use causim_record::{Recording, Series};
use serde::{Deserialize, Serialize};

/// One day.
pub const DAY: Duration = Duration::from_secs(24 * 3600);
/// The thermostat's sampling period.
pub const SAMPLE_PERIOD: Duration = Duration::from_secs(30);
/// Half-width of the hysteresis band, °C.
pub const BAND: f64 = 0.5;
/// Day setpoint, °C, from 06:30.
pub const DAY_SETPOINT: f64 = 21.0;
/// Night setpoint, °C, from 22:00 (and at the start, midnight).
pub const NIGHT_SETPOINT: f64 = 18.0;

/// The outdoor temperature: a daily sine, coldest at 05:00.
#[model(save)]
#[derive(Debug)]
pub struct Weather {
    /// The temperature, sent at the start and every hour.
    #[required]
    pub outdoor: Output<f64>,
}

#[model(save)]
impl Weather {
    /// The outdoor temperature at `time`, °C: 4 ± 5.
    pub fn temperature_at(time: SimTime) -> f64 {
        let day_fraction = (time.as_secs_f64() / DAY.as_secs_f64()).fract();
        let coldest = 5.0 / 24.0;
        4.0 - 5.0 * (TAU * (day_fraction - coldest)).cos()
    }

    /// Sends the first value and schedules the hourly update.
    #[init]
    async fn start(&mut self, cx: &mut Context<Self>) {
        self.update(cx).await;
        let hour = Duration::from_secs(3600);
        cx.schedule_periodic(hour, hour, Self::ports().update, ())
            .expect("an hour is a positive period");
    }

    /// Sends the current outdoor temperature.
    #[input]
    pub async fn update(&mut self, cx: &mut Context<Self>) {
        self.outdoor.send(Self::temperature_at(cx.time())).await;
    }
}

/// The room's thermal design.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoomSpec {
    /// Heat capacity, J/K.
    pub capacity_j_per_k: f64,
    /// Thermal resistance to the outside, K/W.
    pub resistance_k_per_w: f64,
}

impl Default for RoomSpec {
    /// A well-insulated room with its furniture and walls: τ = RC ≈ 5.6 h.
    fn default() -> Self {
        RoomSpec {
            capacity_j_per_k: 2.0e6,
            resistance_k_per_w: 0.01,
        }
    }
}

/// The room's energy ledger.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RoomEnergy {
    /// Temperature at the start, °C.
    pub initial_c: f64,
    /// Temperature now, °C.
    pub temperature_c: f64,
    /// Heat from the heater, J.
    pub heat_in_j: f64,
    /// Heat lost to the outside, J.
    pub lost_j: f64,
}

/// A single thermal mass, advanced exactly between events.
#[model(save)]
#[derive(Debug)]
pub struct Room {
    /// Design values.
    spec: RoomSpec,
    /// Outdoor temperature, °C.
    outdoor_c: f64,
    /// Heater power, W.
    heat_w: f64,
    /// When `energy.temperature_c` was last brought up to date.
    updated: SimTime,
    /// The state and the ledger.
    energy: RoomEnergy,
}

#[model(save)]
impl Room {
    /// A room at `temperature_c`, with the heater off.
    pub fn new(spec: RoomSpec, temperature_c: f64) -> Self {
        Room {
            spec,
            outdoor_c: temperature_c,
            heat_w: 0.0,
            updated: SimTime::ZERO,
            energy: RoomEnergy {
                initial_c: temperature_c,
                temperature_c,
                ..RoomEnergy::default()
            },
        }
    }

    /// Brings the temperature and the ledger up to `now`, with the exact
    /// solution for constant heating and outdoor temperature.
    fn advance(&mut self, now: SimTime) {
        let dt = (now - self.updated).as_secs_f64();
        self.updated = now;
        if dt == 0.0 {
            return;
        }
        let RoomSpec {
            capacity_j_per_k: c,
            resistance_k_per_w: r,
        } = self.spec;
        let tau = r * c;
        let t0 = self.energy.temperature_c;
        // The temperature the room would settle at.
        let t_inf = self.outdoor_c + self.heat_w * r;
        let decay = (-dt / tau).exp();
        self.energy.temperature_c = t_inf + (t0 - t_inf) * decay;
        self.energy.heat_in_j += self.heat_w * dt;
        // ∫ (T − T_out) / R dt over the interval.
        self.energy.lost_j +=
            ((t_inf - self.outdoor_c) * dt + (t0 - t_inf) * tau * (1.0 - decay)) / r;
    }

    /// The heater's power changes.
    #[input]
    pub fn heat(&mut self, watts: f64, cx: &mut Context<Self>) {
        self.advance(cx.time());
        self.heat_w = watts;
    }

    /// The outdoor temperature changes.
    #[input]
    pub fn outdoor(&mut self, celsius: f64, cx: &mut Context<Self>) {
        self.advance(cx.time());
        self.outdoor_c = celsius;
    }

    /// The temperature now, °C.
    #[replier]
    pub fn temperature(&mut self, cx: &mut Context<Self>) -> f64 {
        self.advance(cx.time());
        self.energy.temperature_c
    }

    /// The ledger, up to now.
    #[replier]
    pub fn energy(&mut self, cx: &mut Context<Self>) -> RoomEnergy {
        self.advance(cx.time());
        self.energy
    }
}

/// An electric heater: turns on/off commands into power.
#[model(save)]
#[derive(Debug)]
pub struct Heater {
    /// The power it gives, W.
    #[required]
    pub heat: Output<f64>,
    /// Power when on, W.
    power_w: f64,
    /// Whether it is on.
    on: bool,
    /// Times it was switched on.
    starts: u32,
}

#[model(save)]
impl Heater {
    /// A heater of `power_w`, off.
    pub fn new(power_w: f64) -> Self {
        Heater {
            heat: Output::new(),
            power_w,
            on: false,
            starts: 0,
        }
    }

    /// Switches the heater; a command that changes nothing sends nothing.
    #[input]
    pub async fn command(&mut self, on: bool) {
        if on == self.on {
            return;
        }
        self.on = on;
        self.starts += u32::from(on);
        self.heat.send(if on { self.power_w } else { 0.0 }).await;
    }

    /// Times switched on so far.
    #[replier]
    pub fn starts(&mut self) -> u32 {
        self.starts
    }
}

/// One thermostat sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThermoSample {
    /// Simulation time, s.
    pub time_s: f64,
    /// Measured temperature, °C.
    pub temperature_c: f64,
    /// The setpoint in force, °C.
    pub setpoint_c: f64,
    /// Whether the heater is commanded on after this sample.
    pub heating: bool,
}

/// A sampling thermostat with hysteresis.
#[model(save)]
#[derive(Debug)]
pub struct Thermostat {
    /// Reads the room temperature.
    #[required]
    pub temperature: Requestor<(), f64>,
    /// Commands the heater.
    #[required]
    pub heater: Output<bool>,
    /// One record per sample.
    pub telemetry: Output<ThermoSample>,
    /// The target, °C.
    setpoint_c: f64,
    /// Whether the heater is on.
    heating: bool,
}

#[model(save)]
impl Thermostat {
    /// A thermostat aiming at `setpoint_c`.
    pub fn new(setpoint_c: f64) -> Self {
        Thermostat {
            temperature: Requestor::new(),
            heater: Output::new(),
            telemetry: Output::new(),
            setpoint_c,
            heating: false,
        }
    }

    /// Samples now and then every [`SAMPLE_PERIOD`].
    #[init]
    async fn start(&mut self, cx: &mut Context<Self>) {
        self.sample(cx).await;
        cx.schedule_periodic(SAMPLE_PERIOD, SAMPLE_PERIOD, Self::ports().sample, ())
            .expect("the sampling period is a positive constant");
    }

    /// A new target; it takes effect at the next sample.
    #[input]
    pub fn set_point(&mut self, celsius: f64) {
        self.setpoint_c = celsius;
    }

    /// Reads the temperature and applies the hysteresis rule.
    #[input]
    pub async fn sample(&mut self, cx: &mut Context<Self>) {
        let Some(temperature_c) = self.temperature.send(()).await.next() else {
            return;
        };
        let heating = if temperature_c < self.setpoint_c - BAND {
            true
        } else if temperature_c > self.setpoint_c + BAND {
            false
        } else {
            self.heating
        };
        if heating != self.heating {
            self.heating = heating;
            self.heater.send(heating).await;
        }
        let sample = ThermoSample {
            time_s: cx.time().as_secs_f64(),
            temperature_c,
            setpoint_c: self.setpoint_c,
            heating,
        };
        self.telemetry.send(sample).await;
    }
}

/// What to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThermoConfig {
    /// Days to simulate, from midnight.
    pub days: u32,
    /// The room's temperature at midnight of day 1, °C.
    pub initial_c: f64,
    /// Heater power, W.
    pub heater_w: f64,
    /// The room.
    pub room: RoomSpec,
    /// Executor threads (1: deterministic).
    pub threads: usize,
}

impl Default for ThermoConfig {
    fn default() -> Self {
        ThermoConfig {
            days: 3,
            initial_c: 14.0,
            heater_w: 3000.0,
            room: RoomSpec::default(),
            threads: 1,
        }
    }
}

/// The trace between two setpoint changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    /// When it started, s.
    pub start_s: f64,
    /// When it ended, s.
    pub end_s: f64,
    /// The setpoint, °C.
    pub setpoint_c: f64,
    /// From the phase start to the first sample inside the band, s
    /// (`None`: never reached).
    pub settling_s: Option<f64>,
    /// Lowest and highest temperature after settling, °C.
    pub min_c: f64,
    /// Highest temperature after settling, °C.
    pub max_c: f64,
    /// Mean temperature after settling, °C.
    pub mean_c: f64,
    /// Fraction of samples with the heater on, whole phase.
    pub duty: f64,
}

/// The key numbers of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ThermoSummary {
    /// Days simulated.
    pub days: u32,
    /// One entry per setpoint phase.
    pub phases: Vec<Phase>,
    /// Times the heater was switched on.
    pub heater_starts: u32,
    /// The room's ledger.
    pub energy: RoomEnergy,
    /// The room's heat capacity, J/K.
    pub capacity_j_per_k: f64,
}

/// Joules per kWh.
const J_PER_KWH: f64 = 3.6e6;

impl ThermoSummary {
    /// Heat in − heat lost − heat stored, kWh: zero up to rounding.
    pub fn balance_error_kwh(&self) -> f64 {
        let e = &self.energy;
        let stored = self.capacity_j_per_k * (e.temperature_c - e.initial_c);
        (e.heat_in_j - e.lost_j - stored) / J_PER_KWH
    }
}

impl fmt::Display for ThermoSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>11} {:>9} {:>9} {:>8} {:>8} {:>8} {:>7}",
            "from", "setpoint", "settled", "min", "max", "mean", "duty"
        )?;
        for p in &self.phases {
            let settled = p
                .settling_s
                .map_or("never".to_string(), |s| format!("{:.0} min", s / 60.0));
            writeln!(
                f,
                "{:>11} {:>7.1}°C {:>9} {:>6.2}°C {:>6.2}°C {:>6.2}°C {:>6.0}%",
                clock(p.start_s),
                p.setpoint_c,
                settled,
                p.min_c,
                p.max_c,
                p.mean_c,
                100.0 * p.duty
            )?;
        }
        writeln!(
            f,
            "settled: from the setpoint change to the first sample in the band;\n\
             min, max and mean: from then to the next change."
        )?;
        let e = &self.energy;
        writeln!(f)?;
        writeln!(f, "{:<30}{:>10}", "heater starts", self.heater_starts)?;
        writeln!(
            f,
            "{:<30}{:>10.2}",
            "heater energy (kWh)",
            e.heat_in_j / J_PER_KWH
        )?;
        writeln!(
            f,
            "{:<30}{:>10.2}",
            "heat lost outside (kWh)",
            e.lost_j / J_PER_KWH
        )?;
        writeln!(f, "{:<30}{:>10.2}", "room at start (°C)", e.initial_c)?;
        writeln!(f, "{:<30}{:>10.2}", "room at end (°C)", e.temperature_c)?;
        write!(
            f,
            "{:<30}{:>10.2e}",
            "energy balance error (kWh)",
            self.balance_error_kwh()
        )
    }
}

/// `d1 06:30`-style clock time of `seconds` since the start.
pub fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!(
        "d{} {:02}:{:02}",
        s / 86_400 + 1,
        s % 86_400 / 3600,
        s % 3600 / 60
    )
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct ThermoRun {
    /// The key numbers.
    pub summary: ThermoSummary,
    /// Every thermostat sample.
    pub samples: Vec<ThermoSample>,
    /// The recorded series (see [`record`]): what the example writes.
    pub series: Vec<Series>,
}

/// What a bench recorded: the thermostat's samples and the series.
#[derive(Debug, Clone, PartialEq)]
pub struct ThermoOutputs {
    /// The thermostat samples not taken yet.
    pub samples: Vec<ThermoSample>,
    /// Every recorded series so far.
    pub series: Vec<Series>,
}

/// The assembled bench, run one hour at a time.
///
/// It can be saved between two calls and restored into a bench built
/// again from the same [`ThermoConfig`] ([`ThermoBench::save`],
/// [`ThermoBench::restore`]).
#[derive(Debug)]
pub struct ThermoBench {
    /// The simulation.
    simu: Simulation,
    /// What was asked.
    config: ThermoConfig,
    /// The room, for its ledger.
    room: Address<Room>,
    /// The heater, for its start count.
    heater: Address<Heater>,
    /// The thermostat, for its setpoints.
    thermostat: Address<Thermostat>,
    /// The thermostat's samples.
    telemetry: EventQueue<ThermoSample>,
    /// The series written to files.
    recording: Recording,
}

impl ThermoBench {
    /// Builds the bench of the module docs and starts it at midnight.
    pub fn new(config: ThermoConfig) -> Result<Self, SimulationError> {
        let (init, bench) = Self::assemble(config);
        let bench = bench(init.init(SimTime::ZERO)?);
        schedule_setpoints(&bench.simu.scheduler(), &bench.thermostat)?;
        Ok(bench)
    }

    /// Builds the bench of `config` again and continues it from
    /// `snapshot`, written by [`ThermoBench::save`] of a bench of the same
    /// configuration (the number of threads may differ). The setpoint
    /// timetable is not scheduled again: its periodic events are in the
    /// snapshot. The restored bench's outputs start empty.
    pub fn restore(config: ThermoConfig, snapshot: impl Read) -> Result<Self, RestoreError> {
        let (init, bench) = Self::assemble(config);
        Ok(bench(init.restore(snapshot)?))
    }

    /// Writes the bench's state to `out` (see [`ThermoBench::restore`]).
    pub fn save(&mut self, out: &mut impl Write) -> Result<(), SaveError> {
        self.simu.save(out)
    }

    /// The bench of the module docs, identically each time (a restore
    /// needs the same bench): its builder, and what makes the bench
    /// around the simulation once it is started.
    fn assemble(config: ThermoConfig) -> (SimInit, impl FnOnce(Simulation) -> Self) {
        let weather_mb = Mailbox::new();
        let room_mb = Mailbox::new();
        let heater_mb = Mailbox::new();
        let thermostat_mb = Mailbox::new();

        let mut weather = Weather {
            outdoor: Output::new(),
        };
        weather.outdoor.connect(Room::ports().outdoor, &room_mb);
        let mut heater = Heater::new(config.heater_w);
        heater.heat.connect(Room::ports().heat, &room_mb);
        let mut thermostat = Thermostat::new(NIGHT_SETPOINT);
        thermostat
            .temperature
            .connect(Room::ports().temperature, &room_mb);
        thermostat
            .heater
            .connect(Heater::ports().command, &heater_mb);
        let telemetry = EventQueue::new();
        thermostat.telemetry.connect_sink(&telemetry);
        let init = SimInit::new().with_threads(config.threads);
        let recording = Recording::new(init.time_view());
        record(&recording, &mut thermostat.telemetry, &mut weather.outdoor);

        let room = room_mb.address();
        let heater_addr = heater_mb.address();
        let thermostat_addr = thermostat_mb.address();
        let init = init
            .add_model(weather, weather_mb, "weather")
            .add_model(Room::new(config.room, config.initial_c), room_mb, "room")
            .add_model(heater, heater_mb, "heater")
            .add_model(thermostat, thermostat_mb, "thermostat");
        let bench = move |simu| ThermoBench {
            simu,
            config,
            room,
            heater: heater_addr,
            thermostat: thermostat_addr,
            telemetry,
            recording,
        };
        (init, bench)
    }

    /// The thermostat samples recorded since the last call (or the
    /// start), and every series so far.
    pub fn take_outputs(&mut self) -> ThermoOutputs {
        ThermoOutputs {
            samples: self.telemetry.take_all(),
            series: self.recording.series(),
        }
    }

    /// Hours to simulate.
    pub fn hours(&self) -> u32 {
        self.config.days * 24
    }

    /// Runs until the end of hour `hour` (1-based).
    pub fn run_until_hour(&mut self, hour: u32) -> Result<(), SimulationError> {
        self.simu
            .step_until(SimTime::ZERO + Duration::from_secs(3600) * hour)
    }

    /// Reads the ledgers and summarises the trace: the room's ledger and
    /// the heater's count are the models' own, so they cover the whole run
    /// (a restored bench's included); the samples, phases and series are
    /// those this bench recorded.
    pub fn finish(mut self) -> Result<ThermoRun, SimulationError> {
        let energy = self
            .simu
            .process_query(Room::ports().energy, (), &self.room)?;
        let heater_starts = self
            .simu
            .process_query(Heater::ports().starts, (), &self.heater)?;
        let samples = self.telemetry.take_all();
        Ok(ThermoRun {
            summary: ThermoSummary {
                days: self.config.days,
                phases: phases(&samples),
                heater_starts,
                energy,
                capacity_j_per_k: self.config.room.capacity_j_per_k,
            },
            samples,
            series: self.recording.series(),
        })
    }
}

/// Runs `config` to the end in one call, reporting its progress to
/// `on_progress` about ten times a second (see [`Simulation::set_progress`]).
pub fn run(
    config: ThermoConfig,
    on_progress: impl FnMut(&Progress) + Send + 'static,
) -> Result<ThermoRun, SimulationError> {
    let mut bench = ThermoBench::new(config)?;
    bench
        .simu
        .set_progress(Duration::from_millis(100), on_progress);
    bench.run_until_hour(bench.hours())?;
    bench.finish()
}

/// Records the thermostat's telemetry and the weather, under the paths of
/// the models that send them.
pub fn record(
    recording: &Recording,
    telemetry: &mut Output<ThermoSample>,
    outdoor: &mut Output<f64>,
) {
    let temperature = recording.record_map("thermostat/temperature_c", |s: &ThermoSample| {
        s.temperature_c
    });
    let setpoint = recording.record_map("thermostat/setpoint_c", |s: &ThermoSample| s.setpoint_c);
    let heating = recording.record_map("thermostat/heating", |s: &ThermoSample| s.heating);
    telemetry.connect_sink(temperature.sink());
    telemetry.connect_sink(setpoint.sink());
    telemetry.connect_sink(heating.sink());
    outdoor.connect_sink(recording.record::<f64>("weather/outdoor_c").sink());
}

/// The daily timetable: two periodic events from the bench.
fn schedule_setpoints(
    scheduler: &Scheduler,
    thermostat: &Address<Thermostat>,
) -> Result<(), SchedulingError> {
    let morning = SimTime::from_secs(6 * 3600 + 1800);
    let evening = SimTime::from_secs(22 * 3600);
    let set_point = Thermostat::ports().set_point;
    scheduler.schedule_periodic(morning, DAY, set_point, DAY_SETPOINT, thermostat)?;
    scheduler.schedule_periodic(evening, DAY, set_point, NIGHT_SETPOINT, thermostat)?;
    Ok(())
}

/// Splits the trace where the setpoint changes and summarises each part.
pub fn phases(samples: &[ThermoSample]) -> Vec<Phase> {
    samples
        .chunk_by(|a, b| a.setpoint_c == b.setpoint_c)
        .map(phase)
        .collect()
}

/// Summarises one constant-setpoint part of the trace.
fn phase(samples: &[ThermoSample]) -> Phase {
    let first = samples[0];
    let sp = first.setpoint_c;
    let in_band = |s: &&ThermoSample| (s.temperature_c - sp).abs() <= BAND;
    let settled_at = samples.iter().position(|s| in_band(&s));
    let settled = settled_at.map_or(&[][..], |i| &samples[i..]);
    let temps = settled.iter().map(|s| s.temperature_c);
    let n = settled.len().max(1) as f64;
    Phase {
        start_s: first.time_s,
        end_s: samples[samples.len() - 1].time_s,
        setpoint_c: sp,
        settling_s: settled_at.map(|i| samples[i].time_s - first.time_s),
        min_c: temps.clone().fold(f64::INFINITY, f64::min),
        max_c: temps.clone().fold(f64::NEG_INFINITY, f64::max),
        mean_c: temps.sum::<f64>() / n,
        duty: samples.iter().filter(|s| s.heating).count() as f64 / samples.len() as f64,
    }
}
