//! A coffee machine: a state machine driven by buttons and timeouts.
//!
//! ```text
//!          power            boiler ready            brew          8 s
//!   Off ─────────▶ Heating ─────────────▶ Ready ──────────▶ Grinding ──▶ Brewing
//!    ▲               │ 4 min                ▲  │ 15 min idle      │ stop    │ 25 s
//!    │               ▼                      │  ▼                  ▼         │
//!    └── power ─── Fault          Off ◀─────┘  └──────── Ready ◀───────────┘
//! ```
//!
//! Every timed step is a **keyed event** the machine schedules on itself
//! (`Context::schedule_keyed`), and every way out of a state
//! **cancels** the timeouts that no longer apply: the heating timeout when
//! the boiler is ready, the idle auto-off when someone brews, the pump when
//! someone presses stop. A cancelled timeout must never fire; the machine
//! reports every timeout that does fire, and whether it was still armed,
//! so the tests can check exactly that.
//!
//! The **boiler** heats water towards 93 °C with a heat loss to the room,
//! and computes when it will get there from the exact solution of its
//! heating curve, as one keyed event that a switch-off cancels. The bench
//! plays a morning: coffees, an impatient double press, a stop, a press
//! the customer cancels before it happens (a keyed event cancelled from
//! the bench), an idle auto-off, then a failed heating element that the
//! heating timeout turns into a fault.

use std::fmt;
use std::io::{Read, Write};
use std::time::Duration;

use causim::prelude::*;
use causim::{RestoreError, SaveError, SchedulingError};
use causim_record::{Kind, Recordable, Recording, Series, Value};
use serde::{Deserialize, Serialize};

/// The machine's states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum State {
    /// Switched off.
    Off,
    /// Waiting for the boiler.
    Heating,
    /// Hot, waiting for a brew button.
    Ready,
    /// Grinding the beans.
    Grinding,
    /// Pumping water through the coffee.
    Brewing,
    /// The boiler did not heat in time; power off to reset.
    Fault,
}

/// The machine's timeouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timer {
    /// Heating took too long.
    HeatTimeout,
    /// Ready and idle for too long.
    AutoOff,
    /// Grinding is done.
    GrindDone,
    /// Brewing is done.
    BrewDone,
}

impl Timer {
    /// Every timer, in slot order.
    const ALL: [Timer; 4] = [
        Timer::HeatTimeout,
        Timer::AutoOff,
        Timer::GrindDone,
        Timer::BrewDone,
    ];

    /// The timer's slot in the machine's key table.
    fn slot(self) -> usize {
        self as usize
    }
}

/// Why the machine changed state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The power button.
    PowerButton,
    /// The brew button.
    BrewButton,
    /// The stop button.
    StopButton,
    /// The boiler reached brewing temperature.
    BoilerReady,
    /// A timeout fired.
    Timer(Timer),
}

/// One state change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    /// When.
    pub time: SimTime,
    /// From which state.
    pub from: State,
    /// To which state.
    pub to: State,
    /// Why.
    pub cause: Cause,
}

/// One timeout that fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Firing {
    /// When.
    pub time: SimTime,
    /// Which.
    pub timer: Timer,
    /// False if the machine had cancelled it: a cancelled event fired.
    pub armed: bool,
}

/// The machine's timings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MachineSpec {
    /// Longest heating before a fault.
    pub heat_timeout: Duration,
    /// Idle time in `Ready` before switching off.
    pub auto_off: Duration,
    /// Grinding time.
    pub grind: Duration,
    /// Brewing time.
    pub brew: Duration,
}

impl Default for MachineSpec {
    fn default() -> Self {
        MachineSpec {
            heat_timeout: Duration::from_secs(4 * 60),
            auto_off: Duration::from_secs(15 * 60),
            grind: Duration::from_secs(8),
            brew: Duration::from_secs(25),
        }
    }
}

/// What the machine counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineStats {
    /// Cups brewed to the end.
    pub cups: u32,
    /// Brews stopped early.
    pub aborted: u32,
    /// Button presses that meant nothing in the current state.
    pub ignored_presses: u32,
    /// Timeouts armed.
    pub armed: u32,
    /// Timeouts cancelled before they fired.
    pub cancelled: u32,
    /// Timeouts that fired while armed.
    pub fired: u32,
    /// Timeouts that fired after being cancelled (must stay 0).
    pub stale: u32,
}

/// The controller: states, buttons and timeouts.
#[model(save)]
#[derive(Debug)]
pub struct CoffeeMachine {
    /// Switches the boiler.
    #[required]
    pub boiler: Output<bool>,
    /// Every state change.
    pub transitions: Output<Transition>,
    /// Every timeout that fired.
    pub firings: Output<Firing>,
    /// Timings.
    spec: MachineSpec,
    /// The current state.
    state: State,
    /// The key of each armed timer, by [`Timer::slot`].
    keys: [Option<EventKey>; 4],
    /// Counters.
    stats: MachineStats,
}

#[model(save)]
impl CoffeeMachine {
    /// A machine with `spec` timings, switched off.
    pub fn new(spec: MachineSpec) -> Self {
        CoffeeMachine {
            boiler: Output::new(),
            transitions: Output::new(),
            firings: Output::new(),
            spec,
            state: State::Off,
            keys: [None, None, None, None],
            stats: MachineStats::default(),
        }
    }

    /// The power button: on from `Off`, off (and reset) from anywhere else.
    #[input]
    pub async fn power(&mut self, cx: &mut Context<Self>) {
        if self.state == State::Off {
            self.boiler.send(true).await;
            self.arm(Timer::HeatTimeout, cx);
            self.go(State::Heating, Cause::PowerButton, cx).await;
        } else {
            self.switch_off(Cause::PowerButton, cx).await;
        }
    }

    /// The brew button: only means something in `Ready`.
    #[input]
    pub async fn brew(&mut self, cx: &mut Context<Self>) {
        if self.state != State::Ready {
            self.stats.ignored_presses += 1;
            return;
        }
        self.disarm(Timer::AutoOff);
        self.arm(Timer::GrindDone, cx);
        self.go(State::Grinding, Cause::BrewButton, cx).await;
    }

    /// The stop button: abandons a brew in progress.
    #[input]
    pub async fn stop(&mut self, cx: &mut Context<Self>) {
        if !matches!(self.state, State::Grinding | State::Brewing) {
            self.stats.ignored_presses += 1;
            return;
        }
        self.disarm(Timer::GrindDone);
        self.disarm(Timer::BrewDone);
        self.stats.aborted += 1;
        self.arm(Timer::AutoOff, cx);
        self.go(State::Ready, Cause::StopButton, cx).await;
    }

    /// The boiler reached brewing temperature.
    #[input]
    pub async fn boiler_ready(&mut self, cx: &mut Context<Self>) {
        if self.state != State::Heating {
            return;
        }
        self.disarm(Timer::HeatTimeout);
        self.arm(Timer::AutoOff, cx);
        self.go(State::Ready, Cause::BoilerReady, cx).await;
    }

    /// Heating took too long: the element or its sensor is broken.
    #[input]
    pub async fn heat_timeout(&mut self, cx: &mut Context<Self>) {
        if self.fired(Timer::HeatTimeout, cx).await && self.state == State::Heating {
            self.boiler.send(false).await;
            self.go(State::Fault, Cause::Timer(Timer::HeatTimeout), cx)
                .await;
        }
    }

    /// Nobody wanted coffee for a while.
    #[input]
    pub async fn auto_off(&mut self, cx: &mut Context<Self>) {
        if self.fired(Timer::AutoOff, cx).await && self.state == State::Ready {
            self.switch_off(Cause::Timer(Timer::AutoOff), cx).await;
        }
    }

    /// The grinder is done: start the pump.
    #[input]
    pub async fn grind_done(&mut self, cx: &mut Context<Self>) {
        if self.fired(Timer::GrindDone, cx).await && self.state == State::Grinding {
            self.arm(Timer::BrewDone, cx);
            self.go(State::Brewing, Cause::Timer(Timer::GrindDone), cx)
                .await;
        }
    }

    /// The cup is full.
    #[input]
    pub async fn brew_done(&mut self, cx: &mut Context<Self>) {
        if self.fired(Timer::BrewDone, cx).await && self.state == State::Brewing {
            self.stats.cups += 1;
            self.arm(Timer::AutoOff, cx);
            self.go(State::Ready, Cause::Timer(Timer::BrewDone), cx)
                .await;
        }
    }

    /// The counters so far.
    #[replier]
    pub fn stats(&mut self) -> MachineStats {
        self.stats
    }

    /// Cancels every timer, switches the boiler off, goes to `Off`.
    async fn switch_off(&mut self, cause: Cause, cx: &mut Context<Self>) {
        for timer in Timer::ALL {
            self.disarm(timer);
        }
        self.boiler.send(false).await;
        self.go(State::Off, cause, cx).await;
    }

    /// Changes state and reports it.
    async fn go(&mut self, to: State, cause: Cause, cx: &mut Context<Self>) {
        let transition = Transition {
            time: cx.time(),
            from: self.state,
            to,
            cause,
        };
        self.state = to;
        self.transitions.send(transition).await;
    }

    /// Schedules `timer` on this machine's own input, keeping its key.
    fn arm(&mut self, timer: Timer, cx: &mut Context<Self>) {
        let ports = Self::ports();
        let (delay, port) = match timer {
            Timer::HeatTimeout => (self.spec.heat_timeout, ports.heat_timeout),
            Timer::AutoOff => (self.spec.auto_off, ports.auto_off),
            Timer::GrindDone => (self.spec.grind, ports.grind_done),
            Timer::BrewDone => (self.spec.brew, ports.brew_done),
        };
        let key = cx
            .schedule_keyed(delay, port, ())
            .expect("timer delays are positive");
        self.disarm(timer);
        self.keys[timer.slot()] = Some(key);
        self.stats.armed += 1;
    }

    /// Cancels `timer` if it is armed.
    fn disarm(&mut self, timer: Timer) {
        if let Some(key) = self.keys[timer.slot()].take() {
            key.cancel();
            self.stats.cancelled += 1;
        }
    }

    /// Records a firing of `timer`; true if it was armed (not cancelled).
    async fn fired(&mut self, timer: Timer, cx: &mut Context<Self>) -> bool {
        let armed = self.keys[timer.slot()].take().is_some();
        if armed {
            self.stats.fired += 1;
        } else {
            self.stats.stale += 1;
        }
        let firing = Firing {
            time: cx.time(),
            timer,
            armed,
        };
        self.firings.send(firing).await;
        armed
    }
}

/// The boiler's thermal design.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BoilerSpec {
    /// Heat capacity of the water and the block, J/K.
    pub capacity_j_per_k: f64,
    /// Thermal resistance to the room, K/W.
    pub resistance_k_per_w: f64,
    /// Room temperature, °C.
    pub ambient_c: f64,
    /// Brewing temperature, °C.
    pub target_c: f64,
    /// Heating element power, W.
    pub element_w: f64,
}

impl Default for BoilerSpec {
    /// Half a litre of water in a brass block, a 1.2 kW element.
    fn default() -> Self {
        BoilerSpec {
            capacity_j_per_k: 2500.0,
            resistance_k_per_w: 0.73,
            ambient_c: 20.0,
            target_c: 93.0,
            element_w: 1200.0,
        }
    }
}

/// A boiler that heats towards its target, then holds it.
#[model(save)]
#[derive(Debug)]
pub struct Boiler {
    /// Sent when the target temperature is reached.
    #[required]
    pub ready: Output<()>,
    /// Design values.
    spec: BoilerSpec,
    /// What the element gives now (0 once broken), W.
    element_w: f64,
    /// The water temperature at `updated`, °C.
    temperature_c: f64,
    /// When the temperature was last brought up to date.
    updated: SimTime,
    /// Whether the machine asks for heat.
    heating: bool,
    /// Whether the thermostat holds the target (reached and heating).
    holding: bool,
    /// The pending "target reached" event.
    reached: Option<EventKey>,
}

#[model(save)]
impl Boiler {
    /// A cold boiler.
    pub fn new(spec: BoilerSpec) -> Self {
        Boiler {
            ready: Output::new(),
            spec,
            element_w: spec.element_w,
            temperature_c: spec.ambient_c,
            updated: SimTime::ZERO,
            heating: false,
            holding: false,
            reached: None,
        }
    }

    /// The machine switches the heating on or off.
    #[input]
    pub async fn heat(&mut self, on: bool, cx: &mut Context<Self>) {
        self.advance(cx.time());
        self.heating = on;
        self.holding = false;
        self.replan(cx).await;
    }

    /// The element burns out (fault injection from the bench).
    #[input]
    pub async fn break_element(&mut self, cx: &mut Context<Self>) {
        self.advance(cx.time());
        self.element_w = 0.0;
        self.holding = false;
        self.replan(cx).await;
    }

    /// The target is reached: hold it.
    #[input]
    pub async fn target_reached(&mut self, cx: &mut Context<Self>) {
        self.advance(cx.time());
        self.reached = None;
        self.temperature_c = self.spec.target_c;
        self.holding = true;
        self.ready.send(()).await;
    }

    /// The water temperature now, °C.
    #[replier]
    pub fn temperature(&mut self, cx: &mut Context<Self>) -> f64 {
        self.advance(cx.time());
        self.temperature_c
    }

    /// The temperature the water tends to with the current heating, °C.
    fn settling_c(&self) -> f64 {
        let power = if self.heating { self.element_w } else { 0.0 };
        self.spec.ambient_c + power * self.spec.resistance_k_per_w
    }

    /// Brings the temperature up to `now`, exactly.
    fn advance(&mut self, now: SimTime) {
        let dt = (now - self.updated).as_secs_f64();
        self.updated = now;
        if self.holding {
            return;
        }
        let tau = self.spec.capacity_j_per_k * self.spec.resistance_k_per_w;
        let t_inf = self.settling_c();
        self.temperature_c = t_inf + (self.temperature_c - t_inf) * (-dt / tau).exp();
    }

    /// Cancels the pending "reached" event and plans a new one if the
    /// target can be reached with the current heating.
    async fn replan(&mut self, cx: &mut Context<Self>) {
        if let Some(key) = self.reached.take() {
            key.cancel();
        }
        if !self.heating {
            return;
        }
        let target = self.spec.target_c;
        if self.temperature_c >= target {
            // Already hot: ready at once, no event needed.
            self.holding = true;
            self.ready.send(()).await;
            return;
        }
        let t_inf = self.settling_c();
        if t_inf <= target {
            return; // never: the machine's heating timeout will notice.
        }
        let tau = self.spec.capacity_j_per_k * self.spec.resistance_k_per_w;
        let seconds = tau * ((t_inf - self.temperature_c) / (t_inf - target)).ln();
        let delay = Duration::from_secs_f64(seconds).max(Duration::from_nanos(1));
        let key = cx
            .schedule_keyed(delay, Self::ports().target_reached, ())
            .expect("the heating time is positive and finite");
        self.reached = Some(key);
    }
}

/// A customer's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Presses the power button.
    Power,
    /// Presses the brew button.
    Brew,
    /// Presses the stop button.
    Stop,
    /// The boiler's element burns out.
    BreakElement,
}

/// One scheduled action, `at` seconds after the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Seconds after the start.
    pub at: u64,
    /// What happens.
    pub action: Action,
}

/// The morning the example plays (see the module docs).
pub const MORNING: [Step; 9] = [
    Step {
        at: 10,
        action: Action::Power,
    },
    Step {
        at: 300,
        action: Action::Brew,
    },
    Step {
        at: 320,
        action: Action::Brew,
    }, // busy: ignored
    Step {
        at: 420,
        action: Action::Brew,
    },
    Step {
        at: 440,
        action: Action::Stop,
    }, // while brewing
    Step {
        at: 540,
        action: Action::Brew,
    },
    Step {
        at: 2400,
        action: Action::BreakElement,
    },
    Step {
        at: 2460,
        action: Action::Power,
    }, // heating fails
    Step {
        at: 3000,
        action: Action::Power,
    }, // reset the fault
];

/// A brew press planned at 12:00 and cancelled at 10:00 by the bench.
pub const CANCELLED_PRESS_AT: u64 = 720;
/// When the bench cancels it.
pub const CANCEL_AT: u64 = 600;
/// The length of the run, s.
pub const RUN_LENGTH: u64 = 3600;

/// A finished run.
#[derive(Debug, Clone)]
pub struct CoffeeRun {
    /// Every state change.
    pub transitions: Vec<Transition>,
    /// Every timeout that fired.
    pub firings: Vec<Firing>,
    /// The machine's counters.
    pub stats: MachineStats,
    /// Time spent in each state, s, in the order of [`STATES`].
    pub time_in_state: [f64; 6],
    /// The machine's state and the boiler's command, recorded: the
    /// example writes them as a waveform.
    pub series: Vec<Series>,
}

/// A state is recorded as its name (a VCD `string` variable).
impl Recordable for State {
    const KIND: Kind = Kind::Label;
    fn value(&self) -> Value {
        Value::Label(match self {
            State::Off => "off",
            State::Heating => "heating",
            State::Ready => "ready",
            State::Grinding => "grinding",
            State::Brewing => "brewing",
            State::Fault => "fault",
        })
    }
}

/// Every state, in the order of [`CoffeeRun::time_in_state`].
pub const STATES: [State; 6] = [
    State::Off,
    State::Heating,
    State::Ready,
    State::Grinding,
    State::Brewing,
    State::Fault,
];

/// What a bench recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct CoffeeOutputs {
    /// The state changes not taken yet.
    pub transitions: Vec<Transition>,
    /// The timeouts that fired, not taken yet.
    pub firings: Vec<Firing>,
    /// Every recorded series so far.
    pub series: Vec<Series>,
}

/// The machine, its boiler and a morning of customers.
///
/// It can be saved between two calls and restored into a bench built
/// again ([`CoffeeBench::save`], [`CoffeeBench::restore`]).
#[derive(Debug)]
pub struct CoffeeBench {
    /// The simulation.
    simu: Simulation,
    /// The machine, for its counters.
    machine: Address<CoffeeMachine>,
    /// The boiler, for the element's failure.
    boiler: Address<Boiler>,
    /// Every state change.
    transitions: EventQueue<Transition>,
    /// Every timeout that fired.
    firings: EventQueue<Firing>,
    /// The machine's state and the boiler's command.
    recording: Recording,
    /// The press the customer plans and cancels at [`CANCEL_AT`], while
    /// it is pending: the bench holds its key.
    planned: Option<EventKey>,
}

impl CoffeeBench {
    /// A machine switched off at time zero, with `steps` scheduled and
    /// the press at [`CANCELLED_PRESS_AT`] planned (and cancelled at
    /// [`CANCEL_AT`] by [`CoffeeBench::run_until`]).
    pub fn new(steps: &[Step], threads: usize) -> Result<Self, SimulationError> {
        let (init, bench) = Self::assemble(threads);
        let mut bench = bench(init.init(SimTime::ZERO)?);
        let scheduler = bench.simu.scheduler();
        for step in steps {
            schedule_step(&scheduler, step, &bench.machine, &bench.boiler)?;
        }
        // A customer plans a press, then changes their mind.
        let planned = scheduler.schedule_keyed(
            SimTime::from_secs(CANCELLED_PRESS_AT),
            CoffeeMachine::ports().brew,
            (),
            &bench.machine,
        )?;
        bench.planned = Some(planned);
        Ok(bench)
    }

    /// The bench built again, continuing from `snapshot`, written by
    /// [`CoffeeBench::save`]: the machine's state and its armed timeouts
    /// (their keys too), the boiler's, and the customers' pending steps.
    pub fn restore(threads: usize, snapshot: impl Read) -> Result<Self, RestoreError> {
        let (init, bench) = Self::assemble(threads);
        Ok(bench(init.restore(snapshot)?))
    }

    /// Writes the bench's state to `out` (see [`CoffeeBench::restore`]).
    ///
    /// Save after [`CANCEL_AT`]. Before it, the planned press is pending
    /// and saved, but its key is the bench's, not a model's: a snapshot
    /// holds the keys models keep in their state, and the restored bench
    /// would have no key to cancel the press with (it would brew a third
    /// cup).
    pub fn save(&mut self, out: &mut impl Write) -> Result<(), SaveError> {
        self.simu.save(out)
    }

    /// Runs until `time`, the events due then included; cancels the
    /// planned press at [`CANCEL_AT`] on the way.
    pub fn run_until(&mut self, time: SimTime) -> Result<(), SimulationError> {
        let cancel_at = SimTime::from_secs(CANCEL_AT);
        if self.planned.is_some() && time >= cancel_at {
            self.simu.step_until(cancel_at)?;
            if let Some(planned) = self.planned.take() {
                planned.cancel();
            }
        }
        self.simu.step_until(time)
    }

    /// The machine's counters.
    pub fn stats(&mut self) -> Result<MachineStats, SimulationError> {
        self.simu
            .process_query(CoffeeMachine::ports().stats, (), &self.machine)
    }

    /// The transitions and firings recorded since the last call (or the
    /// start), and every series so far.
    pub fn take_outputs(&mut self) -> CoffeeOutputs {
        CoffeeOutputs {
            transitions: self.transitions.take_all(),
            firings: self.firings.take_all(),
            series: self.recording.series(),
        }
    }

    /// The bench, identically each time (a restore needs the same bench):
    /// its builder, and what makes the bench around the simulation once it
    /// is started.
    fn assemble(threads: usize) -> (SimInit, impl FnOnce(Simulation) -> Self) {
        let machine_mb = Mailbox::new();
        let boiler_mb = Mailbox::new();
        let mut machine = CoffeeMachine::new(MachineSpec::default());
        machine.boiler.connect(Boiler::ports().heat, &boiler_mb);
        let transitions = EventQueue::new();
        let firings = EventQueue::new();
        machine.transitions.connect_sink(&transitions);
        machine.firings.connect_sink(&firings);
        let init = SimInit::new().with_threads(threads);
        let recording = Recording::new(init.time_view());
        let state = recording.record_map("coffee machine/state", |t: &Transition| t.to);
        machine.transitions.connect_sink(state.sink());
        machine
            .boiler
            .connect_sink(recording.record::<bool>("coffee machine/boiler").sink());
        let mut boiler = Boiler::new(BoilerSpec::default());
        boiler
            .ready
            .connect(CoffeeMachine::ports().boiler_ready, &machine_mb);

        let machine_addr = machine_mb.address();
        let boiler_addr = boiler_mb.address();
        let init = init
            .add_model(machine, machine_mb, "coffee machine")
            .add_model(boiler, boiler_mb, "boiler");
        let bench = move |simu| CoffeeBench {
            simu,
            machine: machine_addr,
            boiler: boiler_addr,
            transitions,
            firings,
            recording,
            planned: None,
        };
        (init, bench)
    }
}

/// Plays `steps` on a fresh machine for `RUN_LENGTH` seconds.
pub fn run(steps: &[Step], threads: usize) -> Result<CoffeeRun, SimulationError> {
    let mut bench = CoffeeBench::new(steps, threads)?;
    bench.run_until(SimTime::from_secs(RUN_LENGTH))?;
    let stats = bench.stats()?;
    let outputs = bench.take_outputs();
    let time_in_state = time_in_state(&outputs.transitions, SimTime::from_secs(RUN_LENGTH));
    Ok(CoffeeRun {
        transitions: outputs.transitions,
        firings: outputs.firings,
        stats,
        time_in_state,
        series: outputs.series,
    })
}

/// Schedules one step of the scenario.
fn schedule_step(
    scheduler: &Scheduler,
    step: &Step,
    machine: &Address<CoffeeMachine>,
    boiler: &Address<Boiler>,
) -> Result<(), SchedulingError> {
    let at = SimTime::from_secs(step.at);
    let ports = CoffeeMachine::ports();
    match step.action {
        Action::Power => scheduler.schedule(at, ports.power, (), machine),
        Action::Brew => scheduler.schedule(at, ports.brew, (), machine),
        Action::Stop => scheduler.schedule(at, ports.stop, (), machine),
        Action::BreakElement => scheduler.schedule(at, Boiler::ports().break_element, (), boiler),
    }
}

/// Seconds spent in each state of [`STATES`], from `Off` at time zero.
fn time_in_state(transitions: &[Transition], end: SimTime) -> [f64; 6] {
    let mut totals = [0.0; 6];
    let mut state = State::Off;
    let mut since = SimTime::ZERO;
    for t in transitions.iter().chain([&Transition {
        time: end,
        from: State::Off,
        to: State::Off,
        cause: Cause::PowerButton,
    }]) {
        let i = STATES.iter().position(|&s| s == state).unwrap_or(0);
        totals[i] += (t.time - since).as_secs_f64();
        state = t.to;
        since = t.time;
    }
    totals
}

/// `mm:ss.s` since the start.
pub fn clock(time: SimTime) -> String {
    let s = time.as_secs_f64();
    format!("{:02}:{:04.1}", (s / 60.0).floor() as u64, s % 60.0)
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::PowerButton => f.write_str("power button"),
            Cause::BrewButton => f.write_str("brew button"),
            Cause::StopButton => f.write_str("stop button"),
            Cause::BoilerReady => f.write_str("boiler ready"),
            Cause::Timer(t) => write!(f, "timeout {t:?}"),
        }
    }
}
