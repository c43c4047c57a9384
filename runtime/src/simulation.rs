//! Running a bench in simulated time.
//!
//! A [`Simulation`] advances from one scheduled time to the next. At each
//! time it delivers the due events in their deterministic order, then runs
//! the models until every one of them waits on an empty mailbox: all
//! messages caused at one time are processed before time moves on. If some
//! model is still not idle when nothing can run, the models are deadlocked
//! and the call reports which ones and what they wait for.
//!
//! Every call returns a `Result`. A model panic, a panic of the bench's own
//! code while an event is delivered, a deadlock or a timeout is fatal: the call returns the error and every later call returns it again
//! without doing anything, so nothing hangs and no half-processed step is
//! mistaken for a complete one. A halt request, a message to a mailbox that
//! was never added or that belongs to another bench, or an invalid time is
//! reported without losing state.

mod error;
mod init;
mod live;
mod ordered;
mod progress;

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use error::{BlockedModel, BusyModel, MissingConnection, SimulationError, WaitingFor};
pub use init::SimInit;
pub use ordered::MessageOrder;
pub use progress::Progress;

use crate::bench::{BenchGuard, BenchId};
use crate::executor::{panic_message, Executor, RunError, Stuck, TaskMeta};
use crate::mailbox::IntoAddress;
use crate::model::PortKind;
use crate::poll_report::{self, Blocker, Misaddressed};
use crate::ports::event::{Action, Event};
use crate::ports::target::{check_address, Check};
use crate::ports::{QuerySource, ReplierFor, Requestor};
use crate::scheduler::heap::{Entry, BENCH_ORIGIN};
use crate::scheduler::local::Driving;
use crate::scheduler::spare::ReturningBox;
use crate::scheduler::{Owner, Scheduler, SchedulerCore};
use crate::staging::CurrentGuard;
use crate::time::SimTime;

/// A running bench.
///
/// A `Simulation` is `Send` — it can be built on one thread and driven from
/// another — but not `Sync`: its calls take `&mut self` anyway, and on one
/// thread the models' scheduled events are staged for the calling thread
/// without a lock (see `docs/architecture.md`, "Where scheduled events
/// wait").
pub struct Simulation {
    /// Polls the model tasks.
    pub(crate) executor: Executor,
    /// The schedule and clock.
    core: Arc<SchedulerCore>,
    /// Wall-clock limit of each call.
    timeout: Option<Duration>,
    /// The fatal error that ended the simulation, if any.
    fatal: Option<SimulationError>,
    /// The time of a halt asked during a bench query that returned its
    /// replies: the next call returns it before it runs anything (see
    /// [`run_query`](Simulation::run_query)).
    deferred_halt: Option<SimTime>,
    /// Buffer of the events due at the current step, reused.
    due: Vec<Entry>,
    /// Empty buffer swapped with the events the models staged (see
    /// `scheduler::local`), reused.
    incoming: Vec<Entry>,
    /// Buffer of periodic events to put back after a step, reused.
    periodic: Vec<Entry>,
    /// The box of the last fired one-shot model event, handed back to the
    /// schedule for reuse at the next step (see `scheduler::spare`).
    returning: ReturningBox,
    /// A bench event sent to a mailbox never added, not yet reported (with
    /// no sender: the bench).
    pending_unbound: Option<(Option<Arc<str>>, Misaddressed)>,
    /// Zero-delay rounds allowed in one time step.
    pub(crate) zero_delay_rounds: usize,
    /// The ordered mode's rounds (see `ordered.rs`); `None` in the
    /// causal mode.
    pub(crate) rounds: Option<Box<ordered::Rounds>>,
    /// Pacing, ticker and injected input, for a live simulation (see
    /// `live.rs`); `None` keeps the plain loops.
    pub(crate) live: Option<Box<live::Live>>,
    /// What the bench is made of, for its topology (`crate::topology`).
    pub(crate) topology: crate::topology::Recorder,
    /// The progress callback of long calls, if set (see `progress.rs`).
    progress: Option<Box<progress::ProgressHook>>,
    /// The models, for a snapshot (see `crate::snapshot`).
    #[cfg(feature = "save")]
    pub(crate) saveable: crate::snapshot::Registry,
    /// Not `Sync`: the schedule's staged events rely on the methods of a
    /// simulation running on one thread at a time (see `scheduler::local`).
    not_sync: PhantomData<Cell<()>>,
    /// Closes the schedule when the simulation is dropped: its `Scheduler`
    /// handles then refuse events.
    _owner: Owner,
}

impl Simulation {
    pub(crate) fn new(
        core: Arc<SchedulerCore>,
        timeout: Option<Duration>,
        threads: usize,
        wake_threshold: usize,
    ) -> Self {
        Simulation {
            executor: Executor::new(threads, core.bench, wake_threshold),
            core: core.clone(),
            timeout,
            fatal: None,
            deferred_halt: None,
            due: Vec::new(),
            incoming: Vec::new(),
            periodic: Vec::new(),
            returning: ReturningBox::default(),
            pending_unbound: None,
            zero_delay_rounds: usize::MAX,
            rounds: None,
            live: None,
            topology: Default::default(),
            progress: None,
            #[cfg(feature = "save")]
            saveable: crate::snapshot::Registry::default(),
            not_sync: PhantomData,
            _owner: Owner::new(core),
        }
    }

    /// The current simulation time.
    pub fn time(&self) -> SimTime {
        self.core.time()
    }

    /// A view of the simulation time for observers (see
    /// [`TimeView`](crate::TimeView)).
    pub fn time_view(&self) -> crate::TimeView {
        crate::time_view::TimeView::new(self.core.clone())
    }

    /// A handle for scheduling events from the bench.
    pub fn scheduler(&self) -> Scheduler {
        Scheduler::new(self.core.clone())
    }

    /// Changes the wall-clock limit of each call (`None`: no limit); see
    /// [`SimInit::with_timeout`] for when it fires.
    pub fn set_timeout(&mut self, limit: Option<Duration>) {
        self.timeout = limit;
    }

    /// Forgets a halt that was asked (with `cx.halt()` or
    /// [`Scheduler::halt`](crate::Scheduler::halt)) but not reported yet,
    /// so that the next call does not return
    /// [`SimulationError::Halted`]; true if there was one. For a driver
    /// that stops its runs by other means, and clears a halt that came in
    /// as a call was ending.
    pub fn clear_halt(&mut self) -> bool {
        let deferred = self.deferred_halt.take().is_some();
        self.core.take_halt() || deferred
    }

    /// The time of the next scheduled event, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        let _driving = self.drive();
        self.core.next_time()
    }

    /// The number of scheduled events waiting, including cancelled ones
    /// not reclaimed yet (a diagnostic: the queue drops cancelled events
    /// when they come due, and in bulk whenever it holds twice the live
    /// events it kept the last time, or had at the last
    /// [`save`](Simulation::save)).
    pub fn queued_events(&self) -> usize {
        let _driving = self.drive();
        self.core.queued()
    }

    /// Processes the next time step: moves the clock to the earliest
    /// scheduled time and processes everything that happens then. Does
    /// nothing if no event is scheduled.
    pub fn step(&mut self) -> Result<(), SimulationError> {
        if self.is_live() {
            return self.live_steps(live::Reach::Step);
        }
        self.check_usable()?;
        let _driving = self.drive();
        let _bench = self.enter();
        let deadline = self.deadline();
        if self.take_next_due(SimTime::MAX) {
            self.process_due(deadline)?;
            self.run_zero_delay_rounds(deadline)?;
        }
        self.check_halt()
    }

    /// Processes every time step up to and including `time`, then sets the
    /// clock to `time`.
    pub fn step_until(&mut self, time: SimTime) -> Result<(), SimulationError> {
        self.check_usable()?;
        let now = self.time();
        if time < now {
            return Err(SimulationError::InvalidTime {
                now,
                requested: time,
            });
        }
        if self.is_live() {
            return self.live_steps(live::Reach::Until(time));
        }
        let deadline = self.deadline();
        let _driving = self.drive();
        let _bench = self.enter();
        self.begin_progress(Some(time));
        loop {
            while self.take_next_due(time) {
                self.step_progress();
                self.process_due(deadline)?;
                self.run_zero_delay_rounds(deadline)?;
                self.check_halt()?;
            }
            // Under the lock, unless a handle on another thread queued an
            // event by `time` since the last look.
            if self.core.advance_to(time) {
                self.end_progress();
                return Ok(());
            }
        }
    }

    /// Processes every time step in the next `duration`, then moves the
    /// clock by `duration`.
    pub fn step_by(&mut self, duration: Duration) -> Result<(), SimulationError> {
        let now = self.time();
        let Some(target) = now.checked_add(duration) else {
            return Err(SimulationError::Scheduling(
                crate::scheduler::SchedulingError::TimeOverflow {
                    now,
                    delay: duration,
                },
            ));
        };
        self.step_until(target)
    }

    /// Processes time steps until nothing is scheduled.
    ///
    /// With periodic events this never ends by itself: bound it with
    /// [`step_until`](Simulation::step_until), a halt or a timeout. Nor
    /// does it with a ticker ([`SimInit::with_tick`]): a ticking
    /// simulation runs until halted.
    pub fn run(&mut self) -> Result<(), SimulationError> {
        if self.is_live() {
            return self.live_steps(live::Reach::Run);
        }
        self.check_usable()?;
        let deadline = self.deadline();
        let _driving = self.drive();
        let _bench = self.enter();
        self.begin_progress(None);
        while self.take_next_due(SimTime::MAX) {
            self.step_progress();
            self.process_due(deadline)?;
            self.run_zero_delay_rounds(deadline)?;
            self.check_halt()?;
        }
        self.end_progress();
        Ok(())
    }

    /// Delivers `event` now, without moving the clock, and processes
    /// everything it causes.
    pub fn process(&mut self, event: Event) -> Result<(), SimulationError> {
        self.check_usable()?;
        if let Some(misaddressed) = event.action.misaddressed(self.core.bench) {
            return Err(misaddressed_error(None, misaddressed));
        }
        let deadline = self.deadline();
        let _driving = self.drive();
        let _bench = self.enter();
        let mut action = event.action;
        self.deliver(&mut *action)?;
        self.settle(deadline)?;
        self.check_unbound()?;
        self.run_zero_delay_rounds(deadline)?;
        self.check_halt()
    }

    /// Delivers `payload` to `port` of the model at `address` now and
    /// processes everything it causes.
    pub fn process_event<T, P>(
        &mut self,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<(), SimulationError>
    where
        T: Send + 'static,
        P: crate::ports::InputFor<T>,
    {
        self.process(Event::new(port, payload, address))
    }

    /// Sends `request` to replier `port` of the model at `address` now,
    /// processes everything it causes and returns the reply.
    ///
    /// A model that halts the simulation during the query does not cost
    /// the query its reply: the reply is returned, and the next call
    /// returns [`SimulationError::Halted`] before it runs anything.
    pub fn process_query<T, R, P>(
        &mut self,
        port: P,
        request: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<R, SimulationError>
    where
        T: Clone + Send + 'static,
        R: Send + 'static,
        P: ReplierFor<T, R>,
    {
        let port = port.into_replier_port();
        let address = address.into_address();
        match check_address(&address, port.name(), PortKind::Replier, self.core.bench) {
            Check::Bound => {}
            Check::Unbound => {
                return Err(SimulationError::NoRecipient {
                    sender: None,
                    model_type: address.model_type(),
                    port: port.name(),
                    kind: PortKind::Replier,
                })
            }
            Check::Foreign(report) => return Err(misaddressed_error(None, report)),
        }
        let mut requestor = Requestor::new();
        requestor.connect(port, address.clone());
        let (replies, requestor) = self.run_query(requestor, request);
        drop(requestor);
        replies?
            .into_iter()
            .next()
            .ok_or_else(|| SimulationError::NoReply {
                model: address.name().unwrap_or_default().to_string(),
                model_type: address.model_type(),
                port: port.name(),
            })
    }

    /// Sends `request` through every connection of `source` now, processes
    /// everything it causes and returns the replies in connection order.
    ///
    /// A halt during the query is reported by the next call, as for
    /// [`process_query`](Simulation::process_query). The source keeps its
    /// connections whatever the call returns, but for a fatal error that
    /// stopped the query itself.
    pub fn process_query_from<T, R>(
        &mut self,
        source: &mut QuerySource<T, R>,
        request: T,
    ) -> Result<Vec<R>, SimulationError>
    where
        T: Clone + Send + 'static,
        R: Send + 'static,
    {
        // A replier of another bench gets nothing: the query is refused
        // whole, like an event. One never added is reported after the
        // query, which the others answer (as for an event source).
        if let Some(foreign) = source.requestor.misaddressed(self.core.bench) {
            return Err(misaddressed_error(None, foreign));
        }
        let requestor = std::mem::take(&mut source.requestor);
        let (replies, requestor) = self.run_query(requestor, request);
        // The source keeps its connections unless the query could not
        // complete (which leaves the simulation failed).
        if let Some(requestor) = requestor {
            source.requestor = requestor;
        }
        replies
    }

    /// Runs a bench query as a task: the replies, and the requestor back
    /// unless the query could not complete.
    ///
    /// A query that completed returns its replies even if a model halted
    /// the simulation meanwhile: the halt is not lost, the next call
    /// returns it before it runs anything. Returning it instead of the
    /// replies would lose what the query answered, and asking again would
    /// run the replier's side effects twice. (A message to a mailbox not in
    /// the bench is an error of the bench's wiring, reported at once; a
    /// halt asked during that query is still the next call's.)
    fn run_query<T, R>(&mut self, requestor: Requestor<T, R>, request: T) -> QueryOutcome<T, R>
    where
        T: Clone + Send + 'static,
        R: Send + 'static,
    {
        if let Err(error) = self.check_usable() {
            return (Err(error), Some(requestor));
        }
        let deadline = self.deadline();
        let _driving = self.drive();
        let _bench = self.enter();
        let result = Arc::new(Mutex::new(None));
        let slot = result.clone();
        let task = async move {
            let mut requestor = requestor;
            let replies: Vec<R> = requestor.send(request).await.collect();
            *crate::sync::lock(&slot) = Some((replies, requestor));
        };
        self.executor.spawn(
            Box::pin(task),
            TaskMeta {
                name: Arc::from("bench"),
                model_type: "bench query",
                mailbox: None,
            }
            .into_probe(),
        );
        let settled = self.settle(deadline);
        let outcome = crate::sync::lock(&result).take();
        let Some((replies, requestor)) = outcome else {
            // `settle` reports a query that cannot complete as a deadlock.
            let error = settled.err().unwrap_or_else(|| {
                self.fail(SimulationError::Deadlock {
                    time: self.time(),
                    models: Vec::new(),
                })
            });
            return (Err(error), None);
        };
        let finished = (settled.and_then(|()| self.check_unbound()))
            .and_then(|()| self.rounds_after_query(deadline));
        // Whatever the call returns, the next one reports the halt first.
        self.deferred_halt = self.core.take_halt().then(|| self.time());
        (finished.map(|()| replies), Some(requestor))
    }

    /// If the earliest event is due no later than `limit`, moves the clock
    /// to its time, takes it and the other events due then into
    /// [`due`](Simulation::due) and returns true. Hands the box of the
    /// last fired model event back to the schedule on the way.
    fn take_next_due(&mut self, limit: SimTime) -> bool {
        let taken = self.core.take_next_due(
            limit,
            &mut self.due,
            &mut self.incoming,
            &mut self.returning,
        );
        // One the schedule did not keep is dropped here, outside its lock.
        self.returning.drop_unkept();
        taken
    }

    /// Processes the time step of the events in [`due`](Simulation::due).
    ///
    /// The step's layers (this, `deliver_due`, `file_delivered`, `settle`,
    /// and the executor's `enter` and `run`
    /// dispatch) are forced inline into the loop that calls them: each call
    /// cost register saves and restores on every step, a measurable share
    /// of a step of one event (see `docs/benchmarks.md`, "Measurements
    /// behind code decisions").
    #[inline(always)]
    fn process_due(&mut self, deadline: Option<Instant>) -> Result<(), SimulationError> {
        let outcome = self.deliver_due();
        if outcome.is_ok() {
            self.file_delivered();
        }
        self.due.clear();
        self.reschedule_periodic();
        outcome?;
        self.settle(deadline)?;
        self.check_unbound()
    }

    /// The zero-delay rounds a completed bench query caused. Past the
    /// limit of rounds the reply is still returned: the events still due
    /// stay queued, at the same time, and the next call resumes them (and
    /// reports the limit again if they keep coming).
    fn rounds_after_query(&mut self, deadline: Option<Instant>) -> Result<(), SimulationError> {
        match self.run_zero_delay_rounds(deadline) {
            Err(SimulationError::ZeroDelayLimit { .. }) => Ok(()),
            other => other,
        }
    }

    /// Runs the rounds of zero-delay events the step caused, if any: one
    /// look at the schedule when there are none (the common case).
    #[inline(always)]
    pub(crate) fn run_zero_delay_rounds(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<(), SimulationError> {
        if !self.core.has_zero_delay_due(self.time()) {
            return Ok(());
        }
        self.zero_delay_rounds(deadline)
    }

    /// The body of
    /// [`run_zero_delay_rounds`](Simulation::run_zero_delay_rounds): while
    /// events are due at the current time (zero-delay ones: the step took
    /// all the others), delivers them in key order once the models have
    /// settled, and lets the models settle again; at most
    /// [`zero_delay_rounds`](Simulation::zero_delay_rounds) times.
    #[inline(never)]
    fn zero_delay_rounds(&mut self, deadline: Option<Instant>) -> Result<(), SimulationError> {
        let now = self.time();
        let mut rounds = 0;
        while self.core.has_zero_delay_due(now) {
            if rounds == self.zero_delay_rounds {
                return self.zero_delay_limit(rounds);
            }
            // Nothing but cancelled events: done.
            if !self.take_next_due(now) {
                break;
            }
            rounds += 1;
            self.process_due(deadline)?;
        }
        Ok(())
    }

    /// Reports the zero-delay events still due after `rounds` rounds and
    /// leaves them queued, unchanged (not fatal: the next call resumes
    /// them).
    #[cold]
    fn zero_delay_limit(&mut self, rounds: usize) -> Result<(), SimulationError> {
        if !self.take_next_due(self.time()) {
            return Ok(()); // only cancelled ones were left
        }
        let pending = self.due.iter().map(|e| e.action.describe()).collect();
        self.core.push_all(&mut self.due);
        Err(SimulationError::ZeroDelayLimit {
            time: self.time(),
            rounds,
            pending,
        })
    }

    /// Delivers [`due`](Simulation::due) in key order, all of them before
    /// any model runs (the same-time rule): as part of the executor
    /// (entered once), so that their recipients are queued on this thread
    /// and run here first; an event never waits for room (a full mailbox
    /// takes the rest in its overflow; see `mailbox/overflow.rs`).
    ///
    /// Firing runs the bench's code (an `EventSource`'s mapping closures,
    /// a payload's `Clone`): a panic there is caught, once for the whole
    /// loop, and reported as [`SimulationError::EventPanic`].
    #[inline(always)]
    fn deliver_due(&mut self) -> Result<(), SimulationError> {
        let due = &mut self.due;
        let mut next = 0;
        let fired = self.executor.enter(|| {
            catch_unwind(AssertUnwindSafe(|| {
                while let Some(entry) = due.get_mut(next) {
                    entry.action.fire();
                    next += 1;
                }
            }))
        });
        self.note_unbound_from_bench();
        match fired {
            Ok(()) => Ok(()),
            Err(payload) => {
                let event = self.due[next].action.describe();
                Err(self.event_panicked(event, payload))
            }
        }
    }

    /// Files the delivered events: a periodic one goes back for its next
    /// occurrence unless it was cancelled, a model's one-shot one is kept
    /// for reuse, a bench one is dropped.
    #[inline(always)]
    fn file_delivered(&mut self) {
        // Last first (no draining iterator to drop): which fired box is
        // kept does not matter, and `reschedule_periodic` puts the
        // periodic ones back in key order.
        while let Some(mut entry) = self.due.pop() {
            // Only keyed events can be periodic: unkeyed ones skip the
            // dynamic call.
            let period = entry.key.as_ref().and_then(|_| entry.action.period());
            if let Some(period) = period {
                if entry.is_cancelled() {
                    continue;
                }
                if let Some(next) = entry.order.time.checked_add(period) {
                    entry.order.time = next;
                    self.periodic.push(entry);
                }
            } else if entry.order.origin != BENCH_ORIGIN {
                self.returning.send(entry.order.origin, entry.action);
            }
        }
    }

    /// Puts the periodic events of the step back for their next
    /// occurrence, under one lock for all of them.
    #[inline(always)]
    fn reschedule_periodic(&mut self) {
        if !self.periodic.is_empty() {
            self.push_periodic();
        }
    }

    /// The body of [`reschedule_periodic`](Simulation::reschedule_periodic),
    /// out of line: most steps have no periodic event, and the inline look
    /// saves them a call.
    #[inline(never)]
    fn push_periodic(&mut self) {
        let mut heap = self.core.lock_heap();
        // `file_delivered` filed them last first: pushed back in key order,
        // they are filed in that order (the queue keeps same-time events
        // in key order).
        for entry in self.periodic.drain(..).rev() {
            heap.push(entry);
        }
    }

    /// Delivers one event from the bench, before any model runs: like the
    /// due events of a step, it never waits for room (see
    /// [`deliver_due`](Simulation::deliver_due)).
    fn deliver(&mut self, action: &mut dyn Action) -> Result<(), SimulationError> {
        // As part of the executor, so that the recipient is queued on this
        // thread and runs here first; the bench's code it runs may panic.
        let fired = self
            .executor
            .enter(|| catch_unwind(AssertUnwindSafe(|| action.fire())));
        self.note_unbound_from_bench();
        match fired {
            Ok(()) => Ok(()),
            Err(payload) => Err(self.event_panicked(action.describe(), payload)),
        }
    }

    /// Keeps the first message the bench sent to a mailbox never added
    /// (or of another bench), for
    /// [`check_unbound`](Simulation::check_unbound).
    fn note_unbound_from_bench(&mut self) {
        if let Some(unbound) = poll_report::take().unbound {
            self.pending_unbound.get_or_insert((None, unbound));
        }
    }

    /// Runs the models until none can make progress (in the ordered mode,
    /// round after round until nothing is staged); a model that is then
    /// not idle means a deadlock.
    #[inline(always)]
    fn settle(&mut self, deadline: Option<Instant>) -> Result<(), SimulationError> {
        // The ordered mode delivers what the models staged, in rounds.
        if self.rounds.is_some() {
            self.settle_in_rounds(deadline)?;
        } else if let Err(error) = self.executor.run(deadline) {
            return Err(self.run_failed(error));
        }
        let stuck = self.executor.stuck();
        if stuck.is_empty() {
            return Ok(());
        }
        Err(self.deadlocked(stuck))
    }

    /// Records the fatal error of an executor run that stopped early.
    #[cold]
    #[inline(never)]
    fn run_failed(&mut self, error: RunError) -> SimulationError {
        let busy = self.busy_models(&error, self.rounds.as_deref());
        self.run_failed_with(error, busy)
    }

    /// The models a timeout (`error`) left busy: the executor's, once the
    /// polls under way have ended, then (in the deterministic order) the
    /// senders of what `rounds` holds for the next round, which those
    /// polls may have added to. None for a panic.
    #[cold]
    pub(super) fn busy_models(
        &self,
        error: &RunError,
        rounds: Option<&ordered::Rounds>,
    ) -> Vec<BusyModel> {
        if let RunError::Panic { .. } = error {
            return Vec::new();
        }
        let busy = self.executor.busy();
        let staged = rounds.map(ordered::staged_senders).unwrap_or_default();
        with_staged(busy, staged)
    }

    /// [`run_failed`](Simulation::run_failed), a timeout's report being
    /// `busy`.
    #[cold]
    pub(super) fn run_failed_with(
        &mut self,
        error: RunError,
        busy: Vec<BusyModel>,
    ) -> SimulationError {
        let error = match error {
            RunError::Timeout => SimulationError::Timeout {
                time: self.time(),
                limit: self.timeout.unwrap_or_default(),
                busy,
            },
            RunError::Panic { meta, message } => SimulationError::ModelPanic {
                time: self.time(),
                model: meta.name.to_string(),
                model_type: meta.model_type,
                message,
            },
        };
        self.fail(error)
    }

    /// Records the fatal error of a panic in the bench's code while `event`
    /// was delivered.
    #[cold]
    #[inline(never)]
    fn event_panicked(&mut self, event: String, payload: Box<dyn Any + Send>) -> SimulationError {
        let message = panic_message(&*payload);
        // The payload's own destructor may panic too.
        let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
        // Workers that took what was delivered before stop with the step.
        self.executor.stop();
        self.fail(SimulationError::EventPanic {
            time: self.time(),
            event,
            message,
        })
    }

    /// Records the deadlock of the `stuck` models.
    #[cold]
    #[inline(never)]
    fn deadlocked(&mut self, stuck: Vec<Stuck>) -> SimulationError {
        let models = stuck.into_iter().map(blocked_model).collect();
        self.fail(SimulationError::Deadlock {
            time: self.time(),
            models,
        })
    }

    /// Reports the first message dropped because its mailbox is not in the
    /// bench: never added, or added to another bench.
    #[inline]
    fn check_unbound(&mut self) -> Result<(), SimulationError> {
        if self.pending_unbound.is_none() && !self.executor.has_unbound() {
            return Ok(());
        }
        self.unbound_error()
    }

    /// The slow path of [`check_unbound`](Simulation::check_unbound).
    #[cold]
    #[inline(never)]
    fn unbound_error(&mut self) -> Result<(), SimulationError> {
        let from_models = self.executor.take_unbound();
        let first = self
            .pending_unbound
            .take()
            .or_else(|| from_models.into_iter().next());
        match first {
            None => Ok(()),
            Some((sender, misaddressed)) => Err(misaddressed_error(
                sender.map(|s| s.to_string()),
                misaddressed,
            )),
        }
    }

    /// Reports a pending halt request.
    fn check_halt(&mut self) -> Result<(), SimulationError> {
        if self.core.take_halt() {
            return Err(SimulationError::Halted { time: self.time() });
        }
        Ok(())
    }

    /// Fails if an earlier call hit a fatal error, or returns the report
    /// an earlier query left for this call (once).
    fn check_usable(&mut self) -> Result<(), SimulationError> {
        match &self.fatal {
            Some(error) => Err(error.clone()),
            None => match self.deferred_halt.take() {
                Some(time) => Err(SimulationError::Halted { time }),
                None => Ok(()),
            },
        }
    }

    /// Records a fatal error and returns it.
    fn fail(&mut self, error: SimulationError) -> SimulationError {
        self.fatal = Some(error.clone());
        // Injected input will never be taken: refuse it from now on, and
        // drop what waits (its queries get no reply).
        if let Some(queue) = self.live.as_ref().and_then(|live| live.queue.as_ref()) {
            queue.0.close_failed();
        }
        error
    }

    /// Marks this thread as running the models until the guard drops, so
    /// that the events scheduled by the models it polls are staged without
    /// a lock (see `scheduler::local`). That is every model on the
    /// single-threaded executor; on the multi-threaded one, the models
    /// polled by this thread (worker 0), while the other workers' models
    /// use the locked queue.
    pub(crate) fn drive(&self) -> Driving {
        self.core.drive()
    }

    /// The fatal error that ended the simulation, if any.
    #[cfg(feature = "save")]
    pub(crate) fn fatal_error(&self) -> Option<SimulationError> {
        self.fatal.clone()
    }

    /// The number of messages the ordered mode staged since the last call
    /// (sent by models that a thread outside the simulation woke).
    #[cfg(feature = "save")]
    pub(crate) fn staged_messages(&self) -> usize {
        self.rounds
            .as_ref()
            .map_or(0, |rounds| rounds.stage.staged_count())
    }

    /// The number of injected inputs waiting for the next step.
    #[cfg(feature = "save")]
    pub(crate) fn injected_waiting(&self) -> usize {
        let queue = self.live.as_ref().and_then(|live| live.queue.as_ref());
        queue.map_or(0, |queue| queue.0.waiting_for_next_step())
    }

    /// The identity of the bench, to which its models' mailboxes are
    /// bound.
    pub(crate) fn bench(&self) -> BenchId {
        self.core.bench
    }

    /// The schedule and clock.
    #[cfg(feature = "save")]
    pub(crate) fn core(&self) -> &Arc<SchedulerCore> {
        &self.core
    }

    /// Marks this thread as running this bench's models until the guards
    /// drop, for the ports' check of their connections (see
    /// `crate::bench`), with no sending model of another bench's ordered
    /// mode current (a bench run from inside a model's method, see
    /// `crate::staging`).
    pub(crate) fn enter(&self) -> (BenchGuard, CurrentGuard) {
        (BenchGuard::enter(self.core.bench), CurrentGuard::unkeyed())
    }

    /// The wall-clock deadline of a call starting now; none for a limit
    /// too far to be a point in time (`Duration::MAX` says "no limit").
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.timeout
            .and_then(|limit| Instant::now().checked_add(limit))
    }
}

/// What a bench query gives: its replies or the error of the call, and its
/// requestor back unless the query could not complete.
type QueryOutcome<T, R> = (Result<Vec<R>, SimulationError>, Option<Requestor<T, R>>);

/// The error of a message dropped because its mailbox is not in the
/// bench, from `sender` (`None`: the bench).
#[cold]
fn misaddressed_error(sender: Option<String>, misaddressed: Misaddressed) -> SimulationError {
    let Misaddressed {
        model_type,
        port,
        kind,
        foreign,
    } = misaddressed;
    match foreign {
        None => SimulationError::NoRecipient {
            sender,
            model_type,
            port,
            kind,
        },
        Some(model) => SimulationError::ForeignAddress {
            sender,
            model: model.to_string(),
            model_type,
            port,
            kind,
        },
    }
}

/// How a timeout's report shows a model that was not done.
fn busy_model(meta: TaskMeta) -> BusyModel {
    BusyModel {
        model: meta.name.to_string(),
        model_type: meta.model_type,
        pending_messages: meta.mailbox.as_ref().map_or(0, |m| m.pending()),
        staged_messages: 0,
    }
}

/// The executor's busy models, with the models that staged messages for
/// the next round (`staged`) counted in, or added after them.
fn with_staged(busy: Vec<TaskMeta>, staged: Vec<BusyModel>) -> Vec<BusyModel> {
    let mut busy: Vec<BusyModel> = busy.into_iter().map(busy_model).collect();
    let mut place: std::collections::HashMap<String, usize> = busy
        .iter()
        .enumerate()
        .map(|(i, model)| (model.model.clone(), i))
        .collect();
    for sender in staged {
        match place.get(&sender.model) {
            Some(&i) => busy[i].staged_messages = sender.staged_messages,
            None => {
                place.insert(sender.model.clone(), busy.len());
                busy.push(sender);
            }
        }
    }
    busy
}

/// The public description of a stuck task.
fn blocked_model(stuck: Stuck) -> BlockedModel {
    BlockedModel {
        model: stuck.meta.name.to_string(),
        model_type: stuck.meta.model_type,
        pending_messages: stuck.meta.mailbox.as_ref().map_or(0, |m| m.pending()),
        waiting_for: match stuck.waiting {
            Some(Blocker::Reply(from)) => WaitingFor::Reply {
                from: from.to_string(),
            },
            Some(Blocker::MailboxSpace(of)) => WaitingFor::MailboxSpace { of: of.to_string() },
            None => WaitingFor::Other,
        },
    }
}

impl fmt::Debug for Simulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("time", &self.time())
            .field("models", &self.executor.task_count())
            .field("fatal", &self.fatal)
            .finish()
    }
}

#[cfg(test)]
mod thread_safety {
    /// A bench can be moved to another thread and driven from there.
    #[test]
    fn a_simulation_can_move_to_another_thread() {
        fn sendable<T: Send>() {}
        sendable::<super::Simulation>();
        let mut simu = crate::SimInit::new()
            .with_threads(1)
            .init(crate::SimTime::ZERO)
            .expect("empty bench");
        let handle = std::thread::spawn(move || {
            simu.step_until(crate::SimTime::from_secs(1))
                .map(|()| simu.time())
        });
        let time = handle.join().expect("no panic").expect("no error");
        assert_eq!(time, crate::SimTime::from_secs(1));
    }
}
