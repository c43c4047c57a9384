//! Running a bench in simulated time.
//!
//! A [`Simulation`] advances from one scheduled time to the next. At each
//! time it delivers the due events in their deterministic order, then runs
//! the models until every one of them waits on an empty mailbox: all
//! messages caused at one time are processed before time moves on. If some
//! model is still not idle when nothing can run, the models are deadlocked
//! and the call reports which ones and what they wait for.
//!
//! Every call returns a `Result`. A model panic, a deadlock or a timeout is
//! fatal: the call returns the error and every later call returns it again
//! without doing anything, so nothing hangs and no half-processed step is
//! mistaken for a complete one. A halt request, a message to a mailbox that
//! was never added, or an invalid time is reported without losing state.

mod error;
mod init;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Waker};
use std::time::{Duration, Instant};

pub use error::{BlockedModel, MissingConnection, SimulationError, WaitingFor};
pub use init::SimInit;

use crate::executor::current::{self, Waiting};
use crate::executor::{Executor, RunError, Stuck, TaskMeta};
use crate::mailbox::IntoAddress;
use crate::ports::{QuerySource, ReplierFor, Requestor};
use crate::scheduler::action::Action;
use crate::scheduler::queue::{Entry, Fired, BENCH_ORIGIN};
use crate::scheduler::{Event, Scheduler, SchedulerCore};
use crate::time::SimTime;

/// A running bench.
pub struct Simulation {
    /// Polls the model tasks.
    pub(crate) executor: Executor,
    /// The schedule and clock.
    core: Arc<SchedulerCore>,
    /// Wall-clock limit of each call.
    timeout: Option<Duration>,
    /// The fatal error that ended the simulation, if any.
    fatal: Option<SimulationError>,
    /// Buffer of the events due at the current step, reused.
    due: Vec<Entry>,
    /// Buffer of periodic events to put back after a step, reused.
    periodic: Vec<Entry>,
    /// The last fired model event, handed back to the queue for reuse at
    /// the next step (under the lock that step takes anyway).
    fired: Fired,
    /// A bench event sent to a mailbox never added, not yet reported.
    pending_unbound: Option<(Option<Arc<str>>, current::Unbound)>,
}

impl Simulation {
    pub(crate) fn new(core: Arc<SchedulerCore>, timeout: Option<Duration>, threads: usize) -> Self {
        Simulation {
            executor: Executor::new(threads),
            core,
            timeout,
            fatal: None,
            due: Vec::new(),
            periodic: Vec::new(),
            fired: None,
            pending_unbound: None,
        }
    }

    /// The current simulation time.
    pub fn time(&self) -> SimTime {
        self.core.time()
    }

    /// A handle for scheduling events from the bench.
    pub fn scheduler(&self) -> Scheduler {
        Scheduler::new(self.core.clone())
    }

    /// Changes the wall-clock limit of each call (`None`: no limit).
    pub fn set_timeout(&mut self, limit: Option<Duration>) {
        self.timeout = limit;
    }

    /// The time of the next scheduled event, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.core.queue().next_time()
    }

    /// Processes the next time step: moves the clock to the earliest
    /// scheduled time and processes everything that happens then. Does
    /// nothing if no event is scheduled.
    pub fn step(&mut self) -> Result<(), SimulationError> {
        self.check_usable()?;
        let deadline = self.deadline();
        if let Some(first) = self.take_next_due(SimTime::MAX) {
            self.process_due(first, deadline)?;
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
        let deadline = self.deadline();
        while let Some(first) = self.take_next_due(time) {
            self.process_due(first, deadline)?;
            self.check_halt()?;
        }
        self.core.set_time(time);
        Ok(())
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
    /// [`step_until`](Simulation::step_until), a halt or a timeout.
    pub fn run(&mut self) -> Result<(), SimulationError> {
        self.check_usable()?;
        let deadline = self.deadline();
        while let Some(first) = self.take_next_due(SimTime::MAX) {
            self.process_due(first, deadline)?;
            self.check_halt()?;
        }
        Ok(())
    }

    /// Delivers `event` now, without moving the clock, and processes
    /// everything it causes.
    pub fn process(&mut self, event: Event) -> Result<(), SimulationError> {
        self.check_usable()?;
        if let Some(unbound) = event.action.unbound_recipient() {
            return Err(SimulationError::NoRecipient {
                sender: None,
                model_type: unbound.model_type,
                port: unbound.port,
            });
        }
        let deadline = self.deadline();
        let mut action = event.action;
        self.deliver(&mut *action, deadline)?;
        self.settle(deadline)?;
        self.check_unbound()?;
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
        if address.channel().name().is_none() {
            return Err(SimulationError::NoRecipient {
                sender: None,
                model_type: address.model_type(),
                port: port.name(),
            });
        }
        let mut requestor = Requestor::new();
        requestor.connect(port, address.clone());
        let (replies, requestor) = self.run_query(requestor, request)?;
        drop(requestor);
        replies
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
    pub fn process_query_from<T, R>(
        &mut self,
        source: &mut QuerySource<T, R>,
        request: T,
    ) -> Result<Vec<R>, SimulationError>
    where
        T: Clone + Send + 'static,
        R: Send + 'static,
    {
        let requestor = std::mem::take(&mut source.requestor);
        let (replies, requestor) = self.run_query(requestor, request)?;
        source.requestor = requestor;
        Ok(replies)
    }

    /// Runs a bench query as a task and returns the replies and the
    /// requestor.
    fn run_query<T, R>(
        &mut self,
        requestor: Requestor<T, R>,
        request: T,
    ) -> Result<(Vec<R>, Requestor<T, R>), SimulationError>
    where
        T: Clone + Send + 'static,
        R: Send + 'static,
    {
        self.check_usable()?;
        let deadline = self.deadline();
        let result = Arc::new(Mutex::new(None));
        let slot = result.clone();
        let task = async move {
            let mut requestor = requestor;
            let replies: Vec<R> = requestor.send(request).await.collect();
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((replies, requestor));
        };
        self.executor.spawn(
            Box::pin(task),
            TaskMeta {
                name: Arc::from("bench"),
                model_type: "bench query",
                mailbox: None,
            },
        );
        self.settle(deadline)?;
        self.check_unbound()?;
        let outcome = result.lock().unwrap_or_else(|e| e.into_inner()).take();
        // `settle` reports a query that cannot complete as a deadlock.
        let Some(outcome) = outcome else {
            return Err(self.fail(SimulationError::Deadlock {
                time: self.time(),
                models: Vec::new(),
            }));
        };
        self.check_halt()?;
        Ok(outcome)
    }

    /// If the earliest event is due no later than `limit`, moves the clock
    /// to its time and returns it, with the other events due then in
    /// [`due`](Simulation::due). Hands the last fired action back to the
    /// queue under the same lock.
    fn take_next_due(&mut self, limit: SimTime) -> Option<Entry> {
        let first = self
            .core
            .take_next_due(limit, &mut self.due, &mut self.fired);
        // One the queue did not keep is dropped here, outside its lock.
        self.fired = None;
        first
    }

    /// Processes the time step of `first` and of the events in
    /// [`due`](Simulation::due).
    fn process_due(
        &mut self,
        first: Entry,
        deadline: Option<Instant>,
    ) -> Result<(), SimulationError> {
        let mut outcome = self.fire(first, deadline);
        if !self.due.is_empty() {
            let mut due = std::mem::take(&mut self.due);
            for entry in due.drain(..) {
                if outcome.is_err() {
                    break;
                }
                outcome = self.fire(entry, deadline);
            }
            self.due = due;
        }
        self.reschedule_periodic();
        outcome?;
        self.settle(deadline)?;
        self.check_unbound()
    }

    /// Delivers one due event, then files it: a periodic one to go back
    /// into the queue, a model's one-shot one to be reused, a bench one
    /// dropped.
    fn fire(&mut self, mut entry: Entry, deadline: Option<Instant>) -> Result<(), SimulationError> {
        let outcome = self.deliver(&mut *entry.action, deadline);
        match entry.action.period() {
            Some(period) => {
                if entry.is_cancelled() {
                    return outcome;
                }
                if let Some(next) = entry.order.time.checked_add(period) {
                    entry.order.time = next;
                    self.periodic.push(entry);
                }
            }
            None if entry.order.origin != BENCH_ORIGIN => {
                self.fired = Some((entry.order.origin, entry.action));
            }
            None => {}
        }
        outcome
    }

    /// Puts the periodic events of the step back for their next
    /// occurrence, under one lock for all of them.
    fn reschedule_periodic(&mut self) {
        if self.periodic.is_empty() {
            return;
        }
        let mut queue = self.core.queue();
        for entry in self.periodic.drain(..) {
            queue.push(entry);
        }
    }

    /// Delivers one event from the bench, running the models while the
    /// recipient's mailbox is full.
    fn deliver(
        &mut self,
        action: &mut dyn Action,
        deadline: Option<Instant>,
    ) -> Result<(), SimulationError> {
        let mut cx = TaskContext::from_waker(Waker::noop());
        loop {
            // As part of the executor, so that the recipient is queued on
            // this thread and runs here first.
            let poll = self.executor.enter(|| action.poll_fire(&mut cx));
            let report = current::take();
            if let Some(unbound) = report.unbound {
                self.pending_unbound.get_or_insert((None, unbound));
            }
            if poll.is_ready() {
                return Ok(());
            }
            // The recipient must take a message first; if it cannot, the
            // models are stuck and `settle` says so.
            self.settle(deadline)?;
        }
    }

    /// Runs the models until none can make progress; a model that is then
    /// not idle means a deadlock.
    fn settle(&mut self, deadline: Option<Instant>) -> Result<(), SimulationError> {
        match self.executor.run(deadline) {
            Ok(()) => {}
            Err(RunError::Timeout) => {
                let limit = self.timeout.unwrap_or_default();
                return Err(self.fail(SimulationError::Timeout {
                    time: self.time(),
                    limit,
                }));
            }
            Err(RunError::Panic { meta, message }) => {
                return Err(self.fail(SimulationError::ModelPanic {
                    time: self.time(),
                    model: meta.name.to_string(),
                    model_type: meta.model_type,
                    message,
                }));
            }
        }
        let stuck = self.executor.stuck();
        if stuck.is_empty() {
            return Ok(());
        }
        let models = stuck.into_iter().map(blocked_model).collect();
        Err(self.fail(SimulationError::Deadlock {
            time: self.time(),
            models,
        }))
    }

    /// Reports the first message sent to a mailbox that was never added.
    fn check_unbound(&mut self) -> Result<(), SimulationError> {
        let from_models = self.executor.take_unbound();
        if from_models.is_empty() && self.pending_unbound.is_none() {
            return Ok(());
        }
        let first = self
            .pending_unbound
            .take()
            .or_else(|| from_models.into_iter().next().map(|(s, u)| (Some(s), u)));
        match first {
            None => Ok(()),
            Some((sender, unbound)) => Err(SimulationError::NoRecipient {
                sender: sender.map(|s| s.to_string()),
                model_type: unbound.model_type,
                port: unbound.port,
            }),
        }
    }

    /// Reports a pending halt request.
    fn check_halt(&mut self) -> Result<(), SimulationError> {
        if self.core.take_halt() {
            return Err(SimulationError::Halted { time: self.time() });
        }
        Ok(())
    }

    /// Fails if an earlier call hit a fatal error.
    fn check_usable(&self) -> Result<(), SimulationError> {
        match &self.fatal {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    /// Records a fatal error and returns it.
    fn fail(&mut self, error: SimulationError) -> SimulationError {
        self.fatal = Some(error.clone());
        error
    }

    /// The wall-clock deadline of a call starting now.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.timeout.map(|limit| Instant::now() + limit)
    }
}

/// The public description of a stuck task.
fn blocked_model(stuck: Stuck) -> BlockedModel {
    BlockedModel {
        model: stuck.meta.name.to_string(),
        model_type: stuck.meta.model_type,
        pending_messages: stuck.meta.mailbox.as_ref().map_or(0, |m| m.pending()),
        waiting_for: match stuck.waiting {
            Some(Waiting::Reply(from)) => WaitingFor::Reply {
                from: from.to_string(),
            },
            Some(Waiting::MailboxSpace(of)) => WaitingFor::MailboxSpace { of: of.to_string() },
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
