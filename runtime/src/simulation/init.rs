//! Building a bench: adding models, then initialising the simulation.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::error::{MissingConnection, SimulationError};
use super::live::Live;
use super::ordered::{MessageOrder, Rounds};
use super::Simulation;
use crate::bench::BenchId;
use crate::composite::{BuildContext, Composite};
use crate::context::Context;
use crate::executor::{FirstPoll, ModelMailbox, TaskFuture, TaskProbe};
use crate::mailbox::Mailbox;
#[cfg(feature = "save")]
use crate::model::SharedModel;
use crate::model::{run_model, Model};
use crate::name::Name;
use crate::realtime::{checked_speed, AppliedInput, Clock, Lateness, Pacer};
use crate::scheduler::SchedulerCore;
use crate::staging::Keyed;
use crate::time::SimTime;
use crate::time_view::TimeView;
use crate::topology::Recorder;

/// A model added to the bench, waiting for `init`.
struct PendingModel {
    /// The model's task: init hook, then the message loop.
    future: TaskFuture,
    /// Who it is: its mailbox's channel, which also holds its name.
    probe: Arc<dyn TaskProbe>,
}

/// The builder of a simulation bench.
///
/// ```
/// # use causim::prelude::*;
/// # use std::time::Duration;
/// let simu = SimInit::new()
///     .with_timeout(Duration::from_secs(10))
///     .init(SimTime::ZERO)
///     .unwrap();
/// assert_eq!(simu.time(), SimTime::ZERO);
/// ```
pub struct SimInit {
    /// The schedule and clock, shared with the models' contexts.
    core: Arc<SchedulerCore>,
    /// Models in the order they were added.
    models: Vec<PendingModel>,
    /// Paths already used, by models and composites (inline when short:
    /// no allocation per model).
    paths: HashSet<Name>,
    /// The first name that was empty, held a `/` or was used twice at one
    /// level, reported by `init`.
    naming_error: Option<SimulationError>,
    /// Required ports left unconnected, over all models.
    missing: Vec<MissingConnection>,
    /// Wall-clock limit of each simulation call.
    timeout: Option<Duration>,
    /// Threads that poll the models; 1 is the deterministic executor.
    threads: usize,
    /// On several threads, more tasks than this waiting wake a helper.
    wake_threshold: usize,
    /// Zero-delay rounds allowed in one time step.
    zero_delay_rounds: usize,
    /// The order of same-time messages from different senders.
    order: MessageOrder,
    /// The clock a paced simulation follows.
    clock: Option<Box<dyn Clock>>,
    /// What a paced simulation does with late steps.
    lateness: Lateness,
    /// The ticker's period.
    tick: Option<Duration>,
    /// Receives every injected input a step applies.
    input_log: Option<Box<dyn FnMut(AppliedInput) + Send>>,
    /// What the bench is made of, for its topology (`crate::topology`).
    pub(crate) topology: Recorder,
    /// The models, for a snapshot (see `crate::snapshot`).
    #[cfg(feature = "save")]
    pub(crate) saveable: crate::snapshot::Registry,
    /// Whether a restore may use a second thread: `None` leaves it to the
    /// snapshot's size and the machine (see `snapshot/restore.rs`).
    #[cfg(feature = "save")]
    pub(crate) parallel_restore: Option<bool>,
}

impl SimInit {
    /// An empty bench.
    pub fn new() -> Self {
        SimInit {
            core: Arc::new(SchedulerCore::new(SimTime::ZERO)),
            models: Vec::new(),
            paths: HashSet::new(),
            naming_error: None,
            missing: Vec::new(),
            timeout: None,
            threads: default_threads(),
            wake_threshold: crate::executor::DEFAULT_WAKE_THRESHOLD,
            zero_delay_rounds: DEFAULT_ZERO_DELAY_ROUNDS,
            order: MessageOrder::default(),
            clock: None,
            lateness: Lateness::default(),
            tick: None,
            input_log: None,
            topology: Recorder::default(),
            #[cfg(feature = "save")]
            saveable: crate::snapshot::Registry::default(),
            #[cfg(feature = "save")]
            parallel_restore: None,
        }
    }

    /// Limits the rounds of [`ZeroDelay`](crate::ZeroDelay) events in one
    /// time step to `rounds` (10 000 by default): one more is
    /// [`SimulationError::ZeroDelayLimit`], which names what the events
    /// still due would reach and leaves them queued, instead of an endless
    /// loop. `0` refuses every zero-delay round.
    pub fn with_zero_delay_rounds(mut self, rounds: usize) -> Self {
        self.zero_delay_rounds = rounds;
        self
    }

    /// Sets the order in which messages caused at one time reach a
    /// mailbox or a sink ([`MessageOrder::Causal`] by default).
    ///
    /// [`MessageOrder::Deterministic`] delivers the models' messages in
    /// rounds sorted by sender, so that every observable output is
    /// identical on any number of threads:
    ///
    /// ```
    /// # use causim::prelude::*;
    /// let simu = SimInit::new()
    ///     .with_threads(4)
    ///     .with_message_order(MessageOrder::Deterministic)
    ///     .init(SimTime::ZERO)?;
    /// # drop(simu);
    /// # Ok::<(), SimulationError>(())
    /// ```
    pub fn with_message_order(mut self, order: MessageOrder) -> Self {
        self.order = order;
        self
    }

    /// The order of same-time messages the simulation will use.
    pub fn message_order(&self) -> MessageOrder {
        self.order
    }

    /// Paces the simulation on `clock`: before each time step, it waits
    /// until the wall time of that step, the simulated time since the
    /// first paced step divided by the clock's speed. A step reached late
    /// is handled by the [`Lateness`] policy
    /// ([`with_lateness`](Self::with_lateness)). Without a clock (the
    /// default) the simulation runs as fast as it can.
    ///
    /// ```
    /// # use causim::prelude::*;
    /// use causim::realtime::SystemClock;
    /// let simu = SimInit::new()
    ///     .with_clock(SystemClock::with_speed(10.0).expect("a valid speed"))
    ///     .init(SimTime::ZERO)?;
    /// # drop(simu);
    /// # Ok::<(), SimulationError>(())
    /// ```
    pub fn with_clock(mut self, clock: impl Clock) -> Self {
        self.clock = Some(Box::new(clock));
        self
    }

    /// What a paced simulation does with a step it reaches after its wall
    /// deadline: [`Lateness::Error`] with a 20 ms tolerance by default.
    pub fn with_lateness(mut self, lateness: Lateness) -> Self {
        self.lateness = lateness;
        self
    }

    /// Adds a ticker: a time step every `period` of simulated time (on
    /// the multiples of `period`), even when nothing is scheduled, so that
    /// injected input is applied promptly. A ticking simulation's `run`
    /// goes on until halted. Meant for paced simulations; without a clock
    /// the ticks come as fast as the machine goes. A zero period is
    /// refused by `init` ([`SimulationError::InvalidTick`]).
    pub fn with_tick(mut self, period: Duration) -> Self {
        self.tick = Some(period);
        self
    }

    /// Hands every injected input to `log` as a step applies it, with the
    /// step's time and the input's place in it, if the input was injected
    /// with a record (the `session` feature's logging injector makes one).
    pub fn with_input_log(mut self, log: impl FnMut(AppliedInput) + Send + 'static) -> Self {
        self.input_log = Some(Box::new(log));
        self
    }

    /// Limits the wall-clock time of each simulation call (`step`,
    /// `run`, `process_event`, …); a call that exceeds it returns
    /// [`SimulationError::Timeout`], which is fatal. No limit by default;
    /// a limit too far to be a point in time (`Duration::MAX`) is none.
    ///
    /// When the limit fires depends on the executor:
    ///
    /// - **Several threads** (`with_threads(n)`, `n > 1`): the calling
    ///   thread only watches the clock and never runs a model while a
    ///   limit is set; the models run on `n` worker threads (one more is
    ///   spawned by the first call with a limit, to stand in for the
    ///   caller). The call returns `Timeout` when the limit passes, within
    ///   the OS's wake-up latency, *whatever the models do*, even if one
    ///   is stuck forever in a method. The price: every step hands its
    ///   work to a worker and waits for it (two thread wake-ups), where
    ///   without a limit the caller runs a sparse step itself, which makes
    ///   a step of one event many times slower (figures in
    ///   `docs/benchmarks.md`, "Measurements behind code decisions"). Benches
    ///   made of many tiny steps that need no runaway protection run
    ///   faster without a limit, or on one thread.
    /// - **One thread** (`with_threads(1)`): the models run on the calling
    ///   thread, so the clock is read between polls only — before every
    ///   64th poll and at the end of each step. Models that keep yielding
    ///   (a zero-delay ping-pong, a call of many short steps) are stopped
    ///   within about the limit; a model method that never returns (a
    ///   busy loop, an `async` loop over futures that are always ready)
    ///   cannot be interrupted, and a method that returns late makes the
    ///   call return `Timeout` once it has returned. The deterministic
    ///   order is unchanged by a limit.
    ///
    /// A call that runs past its limit returns `Timeout` even if its last
    /// step completed meanwhile. A paced simulation
    /// ([`with_clock`](Self::with_clock)) applies the limit to each step,
    /// from the end of its wait for the wall clock: waiting is not the
    /// models' time.
    ///
    /// Dropping a simulation whose call failed (timeout, model panic) on
    /// several threads waits at most 200 ms for the worker threads; if a
    /// model method is still running then, its thread is left to finish
    /// on its own and the bench's models are leaked rather than dropped
    /// (their `Drop` does not run, their queued messages are never freed),
    /// since that thread still uses its task. See "Failure behaviour" in
    /// `docs/architecture.md`.
    pub fn with_timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Runs the models on `threads` threads (at least 1).
    ///
    /// - `1`: the **deterministic** single-threaded executor. Models are
    ///   polled in one fixed order, so identical inputs give bit-identical
    ///   runs on any machine. Choose it for reproducible results, debugging
    ///   and tests that compare traces.
    /// - `n > 1`: the multi-threaded executor: the calling thread and
    ///   `n - 1` worker threads, with work stealing. Models run in parallel
    ///   within a time step. Every ordering guarantee between two models
    ///   holds (messages from one sender arrive in send order; both causal
    ///   messaging rules; same-time events in `(time, origin, seq)` order),
    ///   but the interleaving of different models varies from run to run.
    ///
    /// **Default**: the machine's available parallelism
    /// ([`std::thread::available_parallelism`]), which is *not*
    /// deterministic unless the machine has a single core. Call
    /// `with_threads(1)` whenever runs must be repeatable.
    ///
    /// Dropping the [`Simulation`] joins the worker threads.
    ///
    /// ```
    /// # use causim::prelude::*;
    /// let deterministic = SimInit::new().with_threads(1).init(SimTime::ZERO).unwrap();
    /// let parallel = SimInit::new().with_threads(4).init(SimTime::ZERO).unwrap();
    /// # drop((deterministic, parallel));
    /// ```
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// On several threads, how many models may be ready to run at once
    /// before the thread that found them wakes another worker: more than
    /// `tasks` wake one (at least 1; default 32).
    ///
    /// The thread driving a step polls the step's models itself, and a
    /// sleeping worker is woken only when the models waiting in a queue
    /// are worth a wake-up, which costs several microseconds (a system
    /// call, and the tasks' memory moving to the other core): when more
    /// than `tasks` are ready, or fewer whose polls, at the average the
    /// driving thread measured for its recent polls, would take longer
    /// than about 20 µs. Steps with a few light models then pay no
    /// wake-up, and models whose every poll is long still run in parallel
    /// two at a time, from the first step that measured them on (a step
    /// is measured when it starts with models ready, or from the first
    /// model that wakes others). Nor do many models ready wake a worker
    /// when their measured polls are short (under about 250 ns) and none
    /// wakes another model: moving such a model to another core costs
    /// more than its poll. A poll that wakes another model shares the
    /// step by number again at once. Under a timeout
    /// ([`with_timeout`](SimInit::with_timeout)) the calling thread only
    /// watches and measures nothing: the threshold alone decides.
    ///
    /// `1` wakes a worker whenever two models are ready: the most
    /// parallel schedule, for benches whose models are all slow from their
    /// first poll on, and for tests that want the threads to interleave as
    /// much as they can. The threshold changes which thread polls a model,
    /// never what the bench computes (see [`MessageOrder`]); it has no
    /// effect on one thread. A model that blocks its thread until another
    /// model runs, through something other than the bench's messages (an
    /// atomic flag, a channel of its own), may wait for it longer with the
    /// default: that model may be queued behind it on the same thread, as
    /// it always is on one thread. Such models want a threshold of 1, or
    /// better, to exchange messages.
    ///
    /// ```
    /// # use causim::prelude::*;
    /// let eager = SimInit::new().with_threads(4).with_wake_threshold(1);
    /// # drop(eager);
    /// ```
    pub fn with_wake_threshold(mut self, tasks: usize) -> Self {
        self.wake_threshold = tasks.max(1);
        self
    }

    /// A view of this bench's simulation time, for recorders and other
    /// observers wired before `init` (see [`TimeView`]).
    pub fn time_view(&self) -> TimeView {
        TimeView::new(self.core.clone())
    }

    /// The number of threads the simulation will run on.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Adds a model under a unique `name`, with the mailbox that its
    /// connections point to.
    ///
    /// Connect the model's outputs and requestors before adding it: the
    /// model is moved into the bench here. The mailbox then belongs to this
    /// bench: a message to it from another bench is refused
    /// ([`SimulationError::ForeignAddress`]).
    ///
    /// The name is the model's path in the bench. It must be unique among
    /// the models and composites added at the top level, not empty, and
    /// without `/` (which separates the levels of a path); `init` reports
    /// the first name that is not ([`SimulationError::InvalidName`],
    /// [`SimulationError::DuplicateName`]).
    pub fn add_model<M: Model>(
        mut self,
        model: M,
        mailbox: Mailbox<M>,
        name: impl AsRef<str>,
    ) -> Self {
        self.insert_model(None, model, mailbox, name.as_ref());
        self
    }

    /// Adds a [`Composite`] (a subsystem) under a unique `name`: its
    /// [`build`](Composite::build) adds its submodels and nested
    /// composites, whose paths start with `name/`. Names follow the rules
    /// of [`add_model`](Self::add_model), at each level.
    ///
    /// Connect the composite's exposed outputs before adding it, as for a
    /// model.
    pub fn add_composite<C: Composite>(mut self, composite: C, name: impl AsRef<str>) -> Self {
        self.insert_composite(None, composite, name.as_ref());
        self
    }

    /// Adds a model named `name` inside the composite at `parent` (at the
    /// top level if `None`).
    pub(crate) fn insert_model<M: Model>(
        &mut self,
        parent: Option<&str>,
        model: M,
        mailbox: Mailbox<M>,
        name: &str,
    ) {
        let path = self.claim_path(parent, name);
        self.record_missing_connections(&model, &path);
        self.topology.record_model(&model, &mailbox);
        #[cfg(feature = "save")]
        let address = mailbox.address();
        // Models are at places 0, 1, … in add order, and schedule with
        // origins 1, 2, … (0 is the bench).
        let place = u32::try_from(self.models.len()).unwrap_or(u32::MAX);
        mailbox.channel().bind(path.clone(), self.core.bench, place);
        let origin = place.saturating_add(1);
        let probe = ModelMailbox::<M>::probe(mailbox.channel().clone());
        let cx = Context::new(mailbox, origin, self.core.clone());
        #[cfg(feature = "save")]
        let future = self.saveable_task(path, model, cx, address);
        #[cfg(not(feature = "save"))]
        let future = Box::pin(run_model(model, cx));
        self.models.push(PendingModel { future, probe });
    }

    /// The task of `model`, registered for saving: a saveable model runs
    /// from a cell that the snapshot code can reach between steps (see
    /// `model/shared.rs`), any other as usual.
    #[cfg(feature = "save")]
    fn saveable_task<M: Model>(
        &mut self,
        path: Name,
        model: M,
        cx: Context<M>,
        address: crate::mailbox::Address<M>,
    ) -> TaskFuture {
        // Once a model that cannot be saved was added, the bench cannot
        // be: the saveable models after it run as the others do.
        let hooks = M::save_hooks().filter(|_| self.saveable.keeps_next());
        match hooks {
            Some(hooks) => {
                let shared = SharedModel::new(model, cx);
                self.saveable
                    .add(path, Some((hooks, shared.clone(), address)));
                Box::pin(shared.run())
            }
            None => {
                self.saveable.add::<M>(path, None);
                Box::pin(run_model(model, cx))
            }
        }
    }

    /// Adds a composite named `name` inside the composite at `parent` (at
    /// the top level if `None`), then its parts.
    pub(crate) fn insert_composite<C: Composite>(
        &mut self,
        parent: Option<&str>,
        composite: C,
        name: &str,
    ) {
        let path = self.claim_path(parent, name);
        self.topology.record_composite(&path, C::type_name());
        composite.build(&mut BuildContext::new(self, path.to_string()));
    }

    /// The path of part `name` of `parent`, noted as used. The first name
    /// that is empty, holds a `/` or is taken at its level is kept for
    /// `init` to report; the part is still added (under that path), so
    /// that building goes on and the error is the only consequence.
    fn claim_path(&mut self, parent: Option<&str>, name: &str) -> Name {
        let path = Name::from(join_path(parent, name).as_str());
        let problem = if let Some(reason) = invalid_name(name) {
            Some(SimulationError::InvalidName {
                parent: parent.map(str::to_string),
                name: name.to_string(),
                reason,
            })
        } else if !self.paths.insert(path.clone()) {
            Some(SimulationError::DuplicateName {
                parent: parent.map(str::to_string),
                name: name.to_string(),
            })
        } else {
            None
        };
        if self.naming_error.is_none() {
            self.naming_error = problem;
        }
        path
    }

    /// Notes the required ports that `model` left unconnected.
    fn record_missing_connections<M: Model>(&mut self, model: &M, name: &str) {
        let mut ports = Vec::new();
        model.unconnected_required_ports(&mut ports);
        self.missing
            .extend(ports.into_iter().map(|port| MissingConnection {
                model: name.to_string(),
                model_type: M::metadata().type_name,
                port: port.to_string(),
            }));
    }

    /// Checks the bench, sets the clock to `start`, runs every model's
    /// `init` hook and the messages they cause, and returns the simulation.
    ///
    /// Fails if a model's `init` hook panics, deadlocks, or sends to a
    /// mailbox that was never added to the bench
    /// ([`SimulationError::NoRecipient`]) or that was added to another
    /// bench ([`SimulationError::ForeignAddress`]).
    pub fn init(self, start: SimTime) -> Result<Simulation, SimulationError> {
        self.check()?;
        self.start(start)
    }

    /// The identity of the bench being built, to which its models'
    /// mailboxes are bound.
    pub(crate) fn bench(&self) -> BenchId {
        self.core.bench
    }

    /// The schedule and clock, shared with the models' contexts.
    #[cfg(feature = "save")]
    pub(crate) fn core(&self) -> &Arc<SchedulerCore> {
        &self.core
    }

    /// The errors `init` reports before it runs anything: a bad name, a
    /// missing required connection, a bad tick or clock speed.
    pub(crate) fn check(&self) -> Result<(), SimulationError> {
        if let Some(error) = &self.naming_error {
            return Err(error.clone());
        }
        if !self.missing.is_empty() {
            return Err(SimulationError::MissingConnections(self.missing.clone()));
        }
        if self.tick == Some(Duration::ZERO) {
            return Err(SimulationError::InvalidTick);
        }
        if let Some(clock) = &self.clock {
            checked_speed(clock.speed()).map_err(SimulationError::InvalidSpeed)?;
        }
        Ok(())
    }

    /// Builds the simulation of a checked bench at time `start` and runs
    /// the models' tasks until they wait for messages (their `init` hooks
    /// first, unless the bench is being restored).
    pub(crate) fn start(self, start: SimTime) -> Result<Simulation, SimulationError> {
        self.spawned(start).settled()
    }

    /// The simulation of a checked bench at time `start`, its models'
    /// tasks spawned and none polled yet: [`Simulation::settled`] runs
    /// them. (A restore spawns on one thread while another reads the
    /// models' states back, and settles once both are done.)
    pub(crate) fn spawned(self, start: SimTime) -> Simulation {
        self.core.start_at(start);
        let mut simulation =
            Simulation::new(self.core, self.timeout, self.threads, self.wake_threshold);
        simulation.zero_delay_rounds = self.zero_delay_rounds;
        let lateness = self.lateness;
        let pacer = self.clock.map(|clock| Pacer::new(clock, lateness));
        if pacer.is_some() || self.tick.is_some() || self.input_log.is_some() {
            simulation.live = Some(Box::new(Live::new(pacer, self.tick, self.input_log)));
        }
        simulation.topology = self.topology;
        #[cfg(feature = "save")]
        {
            simulation.saveable = self.saveable;
        }
        let mut rounds = (self.order == MessageOrder::Deterministic).then(Rounds::new);
        let tasks = self.models.into_iter().enumerate().map(|(index, model)| {
            let future: TaskFuture = match &mut rounds {
                None => model.future,
                Some(rounds) => {
                    // The same origin as the model's scheduled events.
                    rounds.senders.push(model.probe.clone());
                    let origin = u32::try_from(index + 1).unwrap_or(u32::MAX);
                    Box::pin(Keyed::new(model.future, origin, rounds.stage.clone()))
                }
            };
            (future, model.probe)
        });
        // A restored bench's tasks skip their models' `init` hooks: their
        // first act is to ask for a message.
        let first_poll = if simulation.core.skips_init() {
            FirstPoll::OnFirstMessage
        } else {
            FirstPoll::AtStart
        };
        simulation.executor.spawn_all(tasks, first_poll);
        simulation.rounds = rounds.map(Box::new);
        simulation
    }
}

impl Simulation {
    /// Runs the tasks [`SimInit::spawned`] spawned until they wait for
    /// messages: their models' `init` hooks, unless the bench is being
    /// restored, then the zero-delay events those hooks scheduled.
    pub(crate) fn settled(mut self) -> Result<Simulation, SimulationError> {
        let deadline = self.deadline();
        let bench = self.enter();
        self.settle(deadline)?;
        // Zero-delay events of the init hooks: at the start time, after
        // every hook.
        self.run_zero_delay_rounds(deadline)?;
        drop(bench);
        // Every model was queued and polled once (unless restored): let
        // the queues that held them all shrink back, so that an idle bench
        // holds no per-model memory in them.
        self.executor.trim();
        // A message an init hook sent to a mailbox never added is a wiring
        // error like a missing connection: report it now. Left for a later
        // call, it would be blamed on that call's step, or lost if no call
        // ever processes a step.
        self.check_unbound()?;
        Ok(self)
    }
}

impl Default for SimInit {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for SimInit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimInit")
            .field("models", &self.models.len())
            .field("timeout", &self.timeout)
            .field("threads", &self.threads)
            .field("wake_threshold", &self.wake_threshold)
            .field("zero_delay_rounds", &self.zero_delay_rounds)
            .field("order", &self.order)
            .field("paced", &self.clock.is_some())
            .field("lateness", &self.lateness)
            .field("tick", &self.tick)
            .finish()
    }
}

/// The path of part `name` of the composite at `parent`: `parent/name`, or
/// `name` at the top level.
fn join_path(parent: Option<&str>, name: &str) -> String {
    match parent {
        Some(parent) => format!("{parent}/{name}"),
        None => name.to_string(),
    }
}

/// Why `name` cannot name a model or composite, if it cannot.
fn invalid_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("it is empty")
    } else if name.contains('/') {
        Some("it contains `/`, which separates the levels of a path")
    } else {
        None
    }
}

/// Zero-delay rounds allowed in one time step unless told otherwise.
const DEFAULT_ZERO_DELAY_ROUNDS: usize = 10_000;

/// The default thread count: the machine's available parallelism.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
