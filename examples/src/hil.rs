//! Hardware in the loop: on-board software and a spacecraft, paced to the
//! wall clock, commanded by a ground station over UDP.
//!
//! ```text
//!  ground station ──UDP telecommands──▶ uplink thread ──injector──▶ obsw
//!        ▲                                                          │ 10 Hz loop
//!        └────────────UDP telemetry──── radio ◀── 1 Hz housekeeping ─┤
//!                                                                   ▼
//!                                                  thermal (a panel and its heater)
//! ```
//!
//! The **on-board software** (`sat/obsw`) runs a 10 Hz control loop: it
//! reads the panel temperature and switches the heater around its
//! setpoint, in nominal mode; in safe mode the heater stays on. Once a
//! second it sends housekeeping telemetry. Telecommands change the
//! setpoint or the mode.
//!
//! The **ground station** is another thread (it could be another process
//! or machine) with its own UDP socket on the loopback interface: it sends
//! telecommands as they fall due on its own wall-clock timetable and
//! counts the telemetry it receives. Each frame names the model it comes
//! from by its path in the bench (`sat/obsw`, from the model's context),
//! as a packet names its source. The simulation's **uplink** thread
//! receives the datagrams and injects each telecommand into the running
//! simulation through a logging injector, so every telecommand is applied
//! at the next millisecond tick and logged with the time and order of
//! that step.
//!
//! When the session ends, its log is **replayed** into a fresh bench, as
//! fast as possible, on one thread and without sockets: the telemetry must
//! come out identical, value for value. This is how an anomaly seen once
//! on a real-time bench becomes a deterministic reproduction.
//!
//! Nothing here waits without a bound: every socket read and write has a
//! timeout (a read's is also how often the threads look at the stop
//! flag), and the session waits a bounded time for each thread to stop,
//! so a wedged link becomes an error, not a hung bench.

use std::fmt;
use std::io;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use causim::ports::{InputRef, ReplierRef};
use causim::prelude::*;
use causim::realtime::session::{LoggingInjector, Replay, SessionLog};
use causim::realtime::{Lateness, SystemClock};
use causim::{RestoreError, SaveError};
use serde::{Deserialize, Serialize};

/// The control loop's period.
pub const CONTROL_PERIOD: Duration = Duration::from_millis(100);
/// The housekeeping telemetry's period.
pub const TELEMETRY_PERIOD: Duration = Duration::from_secs(1);
/// The ticker's period: injected telecommands wait at most this long.
pub const TICK: Duration = Duration::from_millis(1);
/// The longest a socket read waits: how often the uplink and the ground
/// station look at their stop flag.
const READ_TIMEOUT: Duration = Duration::from_millis(5);
/// The longest a socket write waits (a datagram to a full buffer): the
/// radio writes from the simulation's thread, which must not hang.
const WRITE_TIMEOUT: Duration = Duration::from_millis(100);
/// The longest the session waits for the uplink or the ground station to
/// stop once told to.
const JOIN_LIMIT: Duration = Duration::from_secs(5);

/// A telecommand from the ground.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Telecommand {
    /// Regulate the panel at this temperature, °C.
    SetSetpoint(f64),
    /// Switch to safe mode (heater on) or back to nominal.
    SafeMode(bool),
}

impl Telecommand {
    /// The datagram that carries it: `SETPOINT 21.5` or `SAFE on`.
    pub fn encode(&self) -> String {
        match self {
            Telecommand::SetSetpoint(celsius) => format!("SETPOINT {celsius}"),
            Telecommand::SafeMode(on) => format!("SAFE {}", if *on { "on" } else { "off" }),
        }
    }

    /// Reads a datagram; `None` if it is not a telecommand.
    pub fn decode(text: &str) -> Option<Self> {
        match text.split_once(' ')? {
            ("SETPOINT", value) => value.parse().ok().map(Telecommand::SetSetpoint),
            ("SAFE", "on") => Some(Telecommand::SafeMode(true)),
            ("SAFE", "off") => Some(Telecommand::SafeMode(false)),
            _ => None,
        }
    }
}

/// One housekeeping frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Housekeeping {
    /// The path of the model that sent it (`sat/obsw`).
    pub source: String,
    /// Simulation time, s.
    pub time_s: f64,
    /// Panel temperature, °C.
    pub celsius: f64,
    /// Heater state.
    pub heater_on: bool,
    /// Safe mode.
    pub safe: bool,
    /// The setpoint, °C.
    pub setpoint: f64,
}

impl fmt::Display for Housekeeping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TM {} t={:.3} T={:.4} heater={} safe={} setpoint={}",
            self.source, self.time_s, self.celsius, self.heater_on, self.safe, self.setpoint
        )
    }
}

/// A panel losing heat to space, warmed by a 20 W heater:
/// `C dT/dt = P − k (T − T_space)`, advanced exactly between messages.
#[model(save)]
#[derive(Debug)]
pub struct Thermal {
    /// Temperature, °C.
    celsius: f64,
    /// Heater state.
    heater_on: bool,
    /// When `celsius` was last brought up to date.
    updated: SimTime,
}

/// Heat capacity, J/K.
const CAPACITY: f64 = 40.0;
/// Conductance to space, W/K.
const CONDUCTANCE: f64 = 0.5;
/// The radiative sink, °C.
const SPACE: f64 = -20.0;
/// Heater power, W.
const HEATER_W: f64 = 20.0;

#[model(save)]
impl Thermal {
    /// A panel at `celsius`, heater off.
    pub fn new(celsius: f64) -> Self {
        Thermal {
            celsius,
            heater_on: false,
            updated: SimTime::ZERO,
        }
    }

    /// Brings the temperature up to `now`.
    fn advance(&mut self, now: SimTime) {
        let dt = now
            .checked_duration_since(self.updated)
            .unwrap_or_default()
            .as_secs_f64();
        let power = if self.heater_on { HEATER_W } else { 0.0 };
        let equilibrium = SPACE + power / CONDUCTANCE;
        let decay = (-CONDUCTANCE * dt / CAPACITY).exp();
        self.celsius = equilibrium + (self.celsius - equilibrium) * decay;
        self.updated = now;
    }

    /// Switches the heater.
    #[input]
    pub fn heater(&mut self, on: bool, cx: &mut Context<Self>) {
        self.advance(cx.time());
        self.heater_on = on;
    }

    /// The temperature now.
    #[replier]
    pub fn temperature(&mut self, cx: &mut Context<Self>) -> f64 {
        self.advance(cx.time());
        self.celsius
    }
}

/// The on-board software: a 10 Hz thermal control loop and 1 Hz
/// housekeeping.
#[model(save)]
#[derive(Debug)]
pub struct Obsw {
    /// Switches the heater.
    #[required]
    pub heater: Output<bool>,
    /// Reads the panel temperature.
    #[required]
    pub temperature: Requestor<(), f64>,
    /// Housekeeping frames.
    pub telemetry: Output<Housekeeping>,
    /// The regulation target, °C.
    setpoint: f64,
    /// Safe mode.
    safe: bool,
    /// The heater command last sent.
    heater_on: bool,
    /// The last temperature read.
    celsius: f64,
}

#[model(save)]
impl Obsw {
    /// Nominal mode, regulating at `setpoint`.
    pub fn new(setpoint: f64) -> Self {
        Obsw {
            heater: Output::new(),
            temperature: Requestor::new(),
            telemetry: Output::new(),
            setpoint,
            safe: false,
            heater_on: false,
            celsius: f64::NAN,
        }
    }

    /// Starts both periodic tasks.
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        cx.schedule_periodic(CONTROL_PERIOD, CONTROL_PERIOD, Self::ports().control, ())
            .expect("a positive period");
        cx.schedule_periodic(
            TELEMETRY_PERIOD,
            TELEMETRY_PERIOD,
            Self::ports().housekeeping,
            (),
        )
        .expect("a positive period");
    }

    /// One control cycle: read, decide with a 0.5 °C hysteresis, command.
    #[input]
    pub async fn control(&mut self) {
        self.celsius = self.temperature.send(()).await.next().unwrap_or(f64::NAN);
        let on = if self.safe || self.celsius < self.setpoint - 0.5 {
            true
        } else if self.celsius > self.setpoint + 0.5 {
            false
        } else {
            self.heater_on
        };
        if on != self.heater_on {
            self.heater_on = on;
            self.heater.send(on).await;
        }
    }

    /// Sends a housekeeping frame.
    #[input]
    pub async fn housekeeping(&mut self, cx: &mut Context<Self>) {
        let frame = Housekeeping {
            source: cx.name().to_string(),
            time_s: cx.time().as_secs_f64(),
            celsius: self.celsius,
            heater_on: self.heater_on,
            safe: self.safe,
            setpoint: self.setpoint,
        };
        self.telemetry.send(frame).await;
    }

    /// A telecommand from the ground.
    #[input]
    pub fn telecommand(&mut self, tc: Telecommand) {
        match tc {
            Telecommand::SetSetpoint(celsius) => self.setpoint = celsius,
            Telecommand::SafeMode(on) => self.safe = on,
        }
    }

    /// The current setpoint (a ground query).
    #[replier]
    pub fn setpoint(&mut self) -> f64 {
        self.setpoint
    }
}

/// Sends each housekeeping frame to the ground over UDP (or nowhere, in
/// a replay).
#[model(save)]
#[derive(Debug)]
pub struct Radio {
    /// The socket and the ground station's address: not saved (a socket
    /// is not state), the rebuilt bench gives the radio its own.
    #[transient]
    downlink: Option<(UdpSocket, std::net::SocketAddr)>,
    /// Frames sent.
    sent: u64,
}

#[model(save)]
impl Radio {
    /// A radio sending to `downlink`, if any.
    pub fn new(downlink: Option<(UdpSocket, std::net::SocketAddr)>) -> Self {
        Radio { downlink, sent: 0 }
    }

    /// Sends one frame.
    #[input]
    pub fn frame(&mut self, frame: Housekeeping) {
        if let Some((socket, ground)) = &self.downlink {
            // A lost datagram is lost, as on a real link.
            let _ = socket.send_to(frame.to_string().as_bytes(), ground);
        }
        self.sent += 1;
    }
}

/// The spacecraft and its on-board software, built as a composite.
#[derive(Debug)]
pub struct Spacecraft {
    obsw: Obsw,
    obsw_mailbox: Mailbox<Obsw>,
    thermal: Thermal,
    thermal_mailbox: Mailbox<Thermal>,
    radio: Radio,
    radio_mailbox: Mailbox<Radio>,
}

impl Spacecraft {
    /// The satellite, its radio sending to `downlink` if any.
    pub fn new(downlink: Option<(UdpSocket, std::net::SocketAddr)>) -> Self {
        let (obsw_mailbox, thermal_mailbox, radio_mailbox) =
            (Mailbox::new(), Mailbox::new(), Mailbox::new());
        let mut obsw = Obsw::new(15.0);
        obsw.heater
            .connect(Thermal::ports().heater, &thermal_mailbox);
        obsw.temperature
            .connect(Thermal::ports().temperature, &thermal_mailbox);
        obsw.telemetry.connect(Radio::ports().frame, &radio_mailbox);
        Spacecraft {
            obsw,
            obsw_mailbox,
            thermal: Thermal::new(12.0),
            thermal_mailbox,
            radio: Radio::new(downlink),
            radio_mailbox,
        }
    }

    /// Exposed: the telecommand input.
    pub fn telecommand(&self) -> InputRef<Obsw, Telecommand> {
        InputRef::new(Obsw::ports().telecommand, &self.obsw_mailbox)
    }

    /// Exposed: the setpoint query.
    pub fn setpoint(&self) -> ReplierRef<Obsw, (), f64> {
        ReplierRef::new(Obsw::ports().setpoint, &self.obsw_mailbox)
    }

    /// Exposed: the housekeeping frames.
    pub fn telemetry(&mut self) -> &mut Output<Housekeeping> {
        &mut self.obsw.telemetry
    }
}

impl Composite for Spacecraft {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.obsw, self.obsw_mailbox, "obsw")
            .add_model(self.thermal, self.thermal_mailbox, "thermal")
            .add_model(self.radio, self.radio_mailbox, "radio");
    }
}

/// How to run a session.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HilConfig {
    /// Simulated seconds per wall second.
    pub speed: f64,
    /// Simulated duration, s.
    pub duration_s: u64,
}

impl Default for HilConfig {
    fn default() -> Self {
        HilConfig {
            speed: 1.0,
            duration_s: 10,
        }
    }
}

/// What a session and its replay produced.
#[derive(Debug, Clone)]
pub struct HilRun {
    /// Telemetry recorded by the live session.
    pub telemetry: Vec<Housekeeping>,
    /// Telemetry recorded by the replay.
    pub replayed: Vec<Housekeeping>,
    /// Telecommands the ground sent.
    pub sent: usize,
    /// Telemetry datagrams the ground received.
    pub received: usize,
    /// Inputs the session log holds.
    pub logged: usize,
    /// The session log, as written to a file.
    pub log_bytes: Vec<u8>,
    /// Wall time of the live session.
    pub wall: Duration,
}

impl HilRun {
    /// True if the replay reproduced the session exactly.
    pub fn identical(&self) -> bool {
        self.telemetry == self.replayed
    }
}

/// The ground's timetable: (wall seconds after start × speed = simulated
/// seconds, telecommand). Every telecommand falls due by 60 % of the
/// session, so that the last one is applied well before its end even on
/// a loaded machine.
fn timetable(duration_s: u64) -> Vec<(f64, Telecommand)> {
    let d = duration_s as f64;
    vec![
        (0.1 * d, Telecommand::SetSetpoint(20.0)),
        (0.25 * d, Telecommand::SafeMode(true)),
        (0.45 * d, Telecommand::SafeMode(false)),
        (0.6 * d, Telecommand::SetSetpoint(10.5)),
    ]
}

/// `socket`, its reads and writes bounded in time.
fn bounded(socket: UdpSocket) -> io::Result<UdpSocket> {
    socket.set_read_timeout(Some(READ_TIMEOUT))?;
    socket.set_write_timeout(Some(WRITE_TIMEOUT))?;
    Ok(socket)
}

/// Tells the threads of a session to stop when dropped: on every way out
/// of [`run`], early returns included.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// The result of `thread`, waiting at most [`JOIN_LIMIT`] for it to end
/// (it has been told to stop); an error naming `what` if it panicked or
/// does not end in time (it is then left to end on its own).
fn join_within<T>(thread: JoinHandle<T>, what: &str) -> Result<T, String> {
    let deadline = Instant::now() + JOIN_LIMIT;
    while !thread.is_finished() {
        if Instant::now() >= deadline {
            return Err(format!("{what} did not stop within {JOIN_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    thread.join().map_err(|_| format!("{what} panicked"))
}

/// The ground station: sends the timetable's telecommands on its wall
/// clock and counts telemetry datagrams until `stop`, then counts those
/// still in its socket. `socket` must have a read timeout (see
/// [`bounded`]): it is how often the station looks at `stop`.
fn ground_station(
    socket: UdpSocket,
    uplink: std::net::SocketAddr,
    config: HilConfig,
    stop: Arc<AtomicBool>,
) -> JoinHandle<(usize, usize)> {
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut plan = timetable(config.duration_s).into_iter().peekable();
        let (mut sent, mut received) = (0, 0);
        let mut buffer = [0u8; 256];
        while !stop.load(Ordering::Acquire) {
            let sim_s = started.elapsed().as_secs_f64() * config.speed;
            while let Some((_, tc)) = plan.next_if(|(at, _)| *at <= sim_s) {
                if socket.send_to(tc.encode().as_bytes(), uplink).is_ok() {
                    sent += 1;
                }
            }
            if socket.recv_from(&mut buffer).is_ok() {
                received += 1;
            }
        }
        // The frames that came in while it was sending or stopping; the
        // session is over, so this ends at the first read that times out.
        while socket.recv_from(&mut buffer).is_ok() {
            received += 1;
        }
        (sent, received)
    })
}

/// The uplink: receives telecommand datagrams and injects them, until
/// `stop`. `socket` must have a read timeout (see [`bounded`]).
fn uplink(
    socket: UdpSocket,
    injector: LoggingInjector,
    telecommand: InputRef<Obsw, Telecommand>,
    stop: Arc<AtomicBool>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buffer = [0u8; 256];
        while !stop.load(Ordering::Acquire) {
            let Ok((n, _)) = socket.recv_from(&mut buffer) else {
                continue;
            };
            let text = String::from_utf8_lossy(&buffer[..n]);
            if let Some(tc) = Telecommand::decode(&text) {
                // Fails only once the simulation is gone.
                let _ = injector.send(&telecommand, tc);
            }
        }
    })
}

/// Runs a live session on the loopback interface, then replays its log.
pub fn run(config: HilConfig) -> Result<HilRun, Box<dyn std::error::Error + Send + Sync>> {
    let end = SimTime::from_secs(config.duration_s);
    // Sockets: the simulation's uplink and downlink, the ground's.
    let ground = bounded(UdpSocket::bind("127.0.0.1:0")?)?;
    let sim_uplink = bounded(UdpSocket::bind("127.0.0.1:0")?)?;
    let downlink = bounded(sim_uplink.try_clone()?)?;
    let ground_address = ground.local_addr()?;
    let uplink_address = sim_uplink.local_addr()?;

    // The live bench.
    let log = SessionLog::new();
    let mut sat = Spacecraft::new(Some((downlink, ground_address)));
    let telemetry = EventQueue::new();
    sat.telemetry().connect_sink(&telemetry);
    let telecommand = sat.telecommand();
    let mut simu = SimInit::new()
        .with_threads(1)
        .with_clock(SystemClock::with_speed(config.speed)?)
        .with_lateness(Lateness::CatchUp)
        .with_tick(TICK)
        .with_input_log(log.recorder())
        .add_composite(sat, "sat")
        .init(SimTime::ZERO)?;
    let injector = LoggingInjector::new(simu.injector());

    let stop = Arc::new(AtomicBool::new(false));
    let stopper = StopOnDrop(stop.clone());
    let uplink = uplink(sim_uplink, injector, telecommand, stop.clone());
    let ground = ground_station(ground, uplink_address, config, stop);
    let started = Instant::now();
    let outcome = simu.step_until(end);
    let wall = started.elapsed();
    drop(stopper);
    let (sent, received) = join_within(ground, "the ground station")?;
    join_within(uplink, "the uplink")?;
    outcome?;
    drop(simu);

    let mut log_bytes = Vec::new();
    log.write_to(&mut log_bytes)?;
    let replayed = replay(&log_bytes, end)?;
    Ok(HilRun {
        telemetry: telemetry.take_all(),
        replayed,
        sent,
        received,
        logged: log.entries().len(),
        log_bytes,
        wall,
    })
}

/// Replays a session log into a fresh bench, as fast as possible, on one
/// thread, without sockets; returns its telemetry.
pub fn replay(
    log_bytes: &[u8],
    end: SimTime,
) -> Result<Vec<Housekeeping>, Box<dyn std::error::Error + Send + Sync>> {
    let mut bench = OfflineBench::replay(log_bytes, 1)?;
    bench.run_until(end)?;
    Ok(bench.take_telemetry())
}

/// Any error of a replay.
pub type ReplayError = Box<dyn std::error::Error + Send + Sync>;

/// The spacecraft's ports a replay applies the log through.
#[derive(Debug, Clone)]
struct ReplayPorts {
    /// The telecommand input.
    telecommand: InputRef<Obsw, Telecommand>,
    /// The setpoint query.
    setpoint: ReplierRef<Obsw, (), f64>,
}

impl ReplayPorts {
    /// Queues the inputs of session log `log_bytes` into `simu`.
    /// Queues the rest of the log into a simulation restored from a
    /// snapshot taken during a replay.
    fn resume(&self, log_bytes: &[u8], simu: &mut Simulation) -> Result<(), ReplayError> {
        let log = SessionLog::read_from(log_bytes)?;
        Replay::new(&log)
            .input(&self.telecommand)
            .replier(&self.setpoint)
            .resume(simu)?;
        Ok(())
    }

    /// Queues the whole log into a simulation that starts the replay.
    fn replay(&self, log_bytes: &[u8], simu: &mut Simulation) -> Result<(), ReplayError> {
        let log = SessionLog::read_from(log_bytes)?;
        Replay::new(&log)
            .input(&self.telecommand)
            .replier(&self.setpoint)
            .schedule(simu)?;
        Ok(())
    }
}

/// The spacecraft without a clock or a radio link, commanded by the
/// ground's timetable as events the bench schedules: the HIL bench as a
/// plain simulation, run as fast as possible, which can be saved between
/// two steps and restored ([`OfflineBench::save`],
/// [`OfflineBench::restore`]). The radio's socket is `#[transient]`: a
/// restored radio keeps the one its rebuilt bench gave it (none here).
#[derive(Debug)]
pub struct OfflineBench {
    /// The simulation.
    simu: Simulation,
    /// The housekeeping frames.
    telemetry: EventQueue<Housekeeping>,
}

impl OfflineBench {
    /// The bench at time zero, with the telecommands of a session of
    /// `duration_s` seconds scheduled at their simulated times.
    pub fn new(duration_s: u64, threads: usize) -> Result<Self, SimulationError> {
        let (init, ports, bench) = Self::assemble(threads);
        let bench = bench(init.init(SimTime::ZERO)?);
        let scheduler = bench.simu.scheduler();
        let telecommand = ports.telecommand;
        for (at, tc) in timetable(duration_s) {
            let time = SimTime::ZERO + Duration::from_secs_f64(at);
            scheduler.schedule(time, telecommand.port(), tc, telecommand.address())?;
        }
        Ok(bench)
    }

    /// The bench built again, continuing from `snapshot` (written by
    /// [`OfflineBench::save`]); the telecommands still due are in it.
    pub fn restore(threads: usize, snapshot: impl std::io::Read) -> Result<Self, RestoreError> {
        let (init, _, bench) = Self::assemble(threads);
        Ok(bench(init.restore(snapshot)?))
    }

    /// The bench at time zero, replaying session log `log_bytes` (as
    /// [`replay`] does).
    pub fn replay(log_bytes: &[u8], threads: usize) -> Result<Self, ReplayError> {
        let (init, ports, bench) = Self::assemble(threads);
        let mut bench = bench(init.init(SimTime::ZERO)?);
        ports.replay(log_bytes, &mut bench.simu)?;
        Ok(bench)
    }

    /// A replaying bench built again from its `snapshot`, the log's
    /// inputs still to come replayed into it: a snapshot holds no injected
    /// input that was not applied yet, and the guide says to give it
    /// again with the rebuilt bench.
    pub fn restore_replay(
        log_bytes: &[u8],
        threads: usize,
        snapshot: impl std::io::Read,
    ) -> Result<Self, ReplayError> {
        let (init, ports, bench) = Self::assemble(threads);
        let mut bench = bench(init.restore(snapshot)?);
        ports.resume(log_bytes, &mut bench.simu)?;
        Ok(bench)
    }

    /// Writes the bench's state to `out`.
    pub fn save(&mut self, out: &mut impl std::io::Write) -> Result<(), SaveError> {
        self.simu.save(out)
    }

    /// Runs until `time`, the events due then included.
    pub fn run_until(&mut self, time: SimTime) -> Result<(), SimulationError> {
        self.simu.step_until(time)
    }

    /// The frames sent since the last call (or the start).
    pub fn take_telemetry(&mut self) -> Vec<Housekeeping> {
        self.telemetry.take_all()
    }

    /// The bench, identically each time: its builder, the ports a replay
    /// uses, and what makes the bench around the started simulation.
    fn assemble(threads: usize) -> (SimInit, ReplayPorts, impl FnOnce(Simulation) -> Self) {
        let mut sat = Spacecraft::new(None);
        let telemetry = EventQueue::new();
        sat.telemetry().connect_sink(&telemetry);
        let ports = ReplayPorts {
            telecommand: sat.telecommand(),
            setpoint: sat.setpoint(),
        };
        let init = SimInit::new()
            .with_threads(threads)
            .add_composite(sat, "sat");
        let bench = move |simu| OfflineBench { simu, telemetry };
        (init, ports, bench)
    }
}
