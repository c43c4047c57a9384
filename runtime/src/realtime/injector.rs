//! Input from other threads while the simulation runs.
//!
//! An [`Injector`] is a handle that any thread may hold (a socket reader, a
//! GUI, a test harness). What it injects waits in a queue shared with the
//! simulation, which takes it at the start of its next time step: after
//! the step's scheduled events, in the order it was injected, before any
//! model runs at that time (see the guide, "Real time and injected
//! input"). A query's reply comes back through a [`PendingReply`].
//!
//! The queue also holds timed input, due at one exact time: that is how a
//! replayed session puts its inputs back where they were applied.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::bench::BenchId;
use crate::mailbox::Address;
use crate::model::{Model, PortKind};
use crate::poll_report::Misaddressed;
use crate::ports::event::{Action, Event};
use crate::ports::reply::{ReplySender, ReplySlot};
use crate::ports::target::{check_address, describe_input, push_from_bench, Check};
use crate::ports::{InputRef, ReplierPort, ReplierRef};
use crate::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use crate::sync::{lock, Mutex};
use crate::time::SimTime;

/// Injects events and queries into a running simulation from any thread.
///
/// Made by [`Simulation::injector`](crate::Simulation::injector); clones
/// share the queue. It is `Clone + Send + Sync`: threads may each hold a
/// clone, or share one by reference (`std::thread::scope`). Every method
/// checks the recipient first: a model that is not in this simulation, or
/// a simulation that is gone, is an [`InjectError`] for the injecting
/// side.
#[derive(Clone)]
pub struct Injector {
    /// The queue shared with the simulation.
    queue: Arc<InjectQueue>,
}

// An injector is for any thread: clones go to socket readers and GUIs,
// and scoped threads may share one by reference; a pending reply may be
// waited for on another thread than the one that asked. Checked here, so
// that a field that breaks it fails this crate's build, not a user's.
const _: () = {
    const fn for_any_thread<T: Clone + Send + Sync>() {}
    const fn movable<T: Send>() {}
    for_any_thread::<Injector>();
    movable::<PendingReply<u32>>();
};

impl Injector {
    /// A handle on `queue`.
    pub(crate) fn new(queue: Arc<InjectQueue>) -> Self {
        Injector { queue }
    }

    /// Injects `payload` for an input, given as an [`InputRef`] (a model's
    /// port and address: `InputRef::new(Heater::ports().switch,
    /// &heater_mailbox)`, or what a composite exposes).
    pub fn send<M: Model, T: Send + 'static>(
        &self,
        input: &InputRef<M, T>,
        payload: T,
    ) -> Result<(), InjectError> {
        self.send_recorded(input, payload, None)
    }

    /// [`send`](Injector::send), with the record a session log keeps of it.
    pub(crate) fn send_recorded<M: Model, T: Send + 'static>(
        &self,
        input: &InputRef<M, T>,
        payload: T,
        record: Option<InputRecord>,
    ) -> Result<(), InjectError> {
        let port = input.port();
        self.check(input.address(), port.name(), PortKind::Input)?;
        let event = Event::new(port, payload, input.address());
        self.queue.push(None, event.action, record)
    }

    /// Injects `request` for a replier, given as a [`ReplierRef`]; the
    /// reply comes back through the returned [`PendingReply`].
    pub fn query<M, T, R>(
        &self,
        replier: &ReplierRef<M, T, R>,
        request: T,
    ) -> Result<PendingReply<R>, InjectError>
    where
        M: Model,
        T: Send + 'static,
        R: Send + 'static,
    {
        self.query_recorded(replier, request, None)
    }

    /// [`query`](Injector::query), with the record a session log keeps.
    pub(crate) fn query_recorded<M, T, R>(
        &self,
        replier: &ReplierRef<M, T, R>,
        request: T,
        record: Option<InputRecord>,
    ) -> Result<PendingReply<R>, InjectError>
    where
        M: Model,
        T: Send + 'static,
        R: Send + 'static,
    {
        self.check(replier.address(), replier.port().name(), PortKind::Replier)?;
        let slot = ReplySlot::new();
        let action = QueryAction {
            address: replier.address().clone(),
            port: replier.port(),
            request: Some((request, slot.arm())),
        };
        self.queue.push(None, Box::new(action), record)?;
        Ok(PendingReply { slot, taken: false })
    }

    /// Queues `action` for the step at exactly `time` (replay).
    #[cfg_attr(not(feature = "session"), allow(dead_code))]
    pub(crate) fn push_at(
        &self,
        time: SimTime,
        action: Box<dyn Action>,
        record: Option<InputRecord>,
    ) -> Result<(), InjectError> {
        self.queue.push(Some(time), action, record)
    }

    /// Fails unless the simulation still exists and the mailbox at
    /// `address` is in it.
    pub(crate) fn check<M: Model>(
        &self,
        address: &Address<M>,
        port: &'static str,
        kind: PortKind,
    ) -> Result<(), InjectError> {
        self.queue.refusal()?;
        match check_address(address, port, kind, self.queue.bench) {
            Check::Bound => Ok(()),
            Check::Unbound => Err(InjectError::NoRecipient {
                model_type: address.model_type(),
                port,
                kind,
            }),
            Check::Foreign(Misaddressed { foreign, .. }) => Err(InjectError::ForeignAddress {
                model: foreign.map(|name| name.to_string()).unwrap_or_default(),
                model_type: address.model_type(),
                port,
                kind,
            }),
        }
    }
}

impl fmt::Debug for Injector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Injector")
            .field("open", &(self.queue.closed.load(Ordering::Relaxed) == OPEN))
            .finish_non_exhaustive()
    }
}

/// Why an input could not be injected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InjectError {
    /// The simulation was dropped: nothing will take the input.
    SimulationGone,
    /// The simulation stopped at a fatal error (a deadlock, a model
    /// panic, a timeout): it will never take input again.
    SimulationFailed,
    /// A logging injector could not serialise the payload for the
    /// session log; the input was not injected (a log missing it would
    /// replay something else).
    Unloggable {
        /// The port the input was for.
        port: &'static str,
        /// What the serialiser said.
        message: String,
    },
    /// The recipient's mailbox was never added to a bench.
    NoRecipient {
        /// The type of model the mailbox is for.
        model_type: &'static str,
        /// The port the input was for.
        port: &'static str,
        /// Input or replier.
        kind: PortKind,
    },
    /// The recipient is a model of another bench.
    ForeignAddress {
        /// The recipient's path in its bench.
        model: String,
        /// Its type.
        model_type: &'static str,
        /// The port the input was for.
        port: &'static str,
        /// Input or replier.
        kind: PortKind,
    },
}

impl fmt::Display for InjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InjectError::SimulationGone => {
                f.write_str("the simulation was dropped: nothing can be injected into it any more")
            }
            InjectError::SimulationFailed => f.write_str(
                "the simulation stopped at a fatal error: nothing can be injected into it any more",
            ),
            InjectError::Unloggable { port, message } => write!(
                f,
                "the input for port `{port}` was not injected: its payload cannot be written to \
                 the session log ({message})"
            ),
            InjectError::NoRecipient {
                model_type,
                port,
                kind,
            } => write!(
                f,
                "cannot inject into {kind} `{port}` of a `{model_type}` whose mailbox was never \
                 added to the bench"
            ),
            InjectError::ForeignAddress {
                model,
                model_type,
                port,
                kind,
            } => write!(
                f,
                "cannot inject into {kind} `{port}` of model `{model}` ({model_type}): it belongs \
                 to another bench"
            ),
        }
    }
}

impl std::error::Error for InjectError {}

/// The reply to an injected query, once the simulation has processed it.
///
/// One reply, taken once: [`wait`](PendingReply::wait) consumes the
/// handle; after [`try_take`](PendingReply::try_take) or
/// [`wait_timeout`](PendingReply::wait_timeout) has returned it, they
/// return [`ReplyError::AlreadyTaken`].
pub struct PendingReply<R> {
    /// Where the replier's answer lands.
    slot: ReplySlot<R>,
    /// True once the reply (or the news that none will come) was returned.
    taken: bool,
}

/// No reply will come to an injected query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyError {
    /// The replier dropped the request without answering, or the
    /// simulation was dropped (or failed) before processing it.
    NoReply,
    /// The wait ran out of time; the reply may still come.
    Timeout,
    /// The reply was already returned by an earlier call.
    AlreadyTaken,
}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplyError::NoReply => f.write_str(
                "no reply will come: the replier dropped the request, or the simulation ended \
                 before processing it",
            ),
            ReplyError::Timeout => f.write_str("no reply yet: the wait ran out of time"),
            ReplyError::AlreadyTaken => f.write_str("the reply was already taken"),
        }
    }
}

impl std::error::Error for ReplyError {}

impl<R> PendingReply<R> {
    /// Waits for the reply.
    pub fn wait(mut self) -> Result<R, ReplyError> {
        self.wait_until(None)
    }

    /// Waits for the reply at most `limit` of wall time (without limit if
    /// it is too far to be a point in time, like `Duration::MAX`).
    pub fn wait_timeout(&mut self, limit: Duration) -> Result<R, ReplyError> {
        self.wait_until(Instant::now().checked_add(limit))
    }

    /// The reply if it has come, without waiting.
    pub fn try_take(&mut self) -> Option<Result<R, ReplyError>> {
        match self.poll(Waker::noop()) {
            Poll::Ready(outcome) => Some(outcome),
            Poll::Pending => None,
        }
    }

    /// Parks this thread until the reply comes or `deadline` passes.
    fn wait_until(&mut self, deadline: Option<Instant>) -> Result<R, ReplyError> {
        let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
        loop {
            if let Poll::Ready(outcome) = self.poll(&waker) {
                return outcome;
            }
            match deadline {
                None => std::thread::park(),
                Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                    Some(left) => std::thread::park_timeout(left),
                    None => return Err(ReplyError::Timeout),
                },
            }
        }
    }

    /// The reply, or `Pending` with `waker` registered.
    fn poll(&mut self, waker: &Waker) -> Poll<Result<R, ReplyError>> {
        if self.taken {
            return Poll::Ready(Err(ReplyError::AlreadyTaken));
        }
        let outcome = self
            .slot
            .poll_take(&mut Context::from_waker(waker))
            .map(|reply| reply.ok_or(ReplyError::NoReply));
        self.taken = outcome.is_ready();
        outcome
    }
}

impl<R> fmt::Debug for PendingReply<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingReply")
            .field("reply", &std::any::type_name::<R>())
            .finish()
    }
}

/// Wakes a thread parked in [`PendingReply::wait`].
struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// An action delivering `request` to `replier`, whose reply is dropped (a
/// replayed query).
#[cfg_attr(not(feature = "session"), allow(dead_code))]
pub(crate) fn query_action<M, T, R>(replier: &ReplierRef<M, T, R>, request: T) -> Box<dyn Action>
where
    M: Model,
    T: Send + 'static,
    R: Send + 'static,
{
    let slot = ReplySlot::new();
    Box::new(QueryAction {
        address: replier.address().clone(),
        port: replier.port(),
        request: Some((request, slot.arm())),
    })
}

/// An injected query: the request and the sender of its reply.
struct QueryAction<M: Model, T, R> {
    /// The recipient.
    address: Address<M>,
    /// The replier.
    port: ReplierPort<M, T, R>,
    /// The request and its reply sender, until delivered.
    request: Option<(T, ReplySender<R>)>,
}

impl<M: Model, T: Send + 'static, R: Send + 'static> Action for QueryAction<M, T, R> {
    fn fire(&mut self) {
        if let Some(request) = self.request.take() {
            let port = self.port;
            push_from_bench(&self.address, port.name(), request, |(request, reply)| {
                Some(port.message(request, reply))
            });
        }
    }

    fn misaddressed(&self, bench: BenchId) -> Option<Misaddressed> {
        match check_address(&self.address, self.port.name(), PortKind::Replier, bench) {
            Check::Bound => None,
            Check::Unbound => Some(Misaddressed {
                model_type: self.address.model_type(),
                port: self.port.name(),
                kind: PortKind::Replier,
                foreign: None,
            }),
            Check::Foreign(report) => Some(report),
        }
    }

    fn describe(&self) -> String {
        let request = std::any::type_name::<T>();
        let replier = describe_input(&self.address, self.port.name());
        format!("an injected query of `{request}` for {replier}")
    }
}

/// What a session log keeps of one injected input: which port, and the
/// payload as bytes the log's format wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRecord {
    /// The path of the recipient model.
    pub model: String,
    /// The port's name.
    pub port: String,
    /// Input (an event) or replier (a query).
    pub kind: PortKind,
    /// The payload or request, serialised.
    pub payload: Vec<u8>,
}

/// An input applied by a time step, as a session log receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedInput {
    /// The simulation time of the step that applied it.
    pub time: SimTime,
    /// Its place among the inputs that step applied, from 0.
    pub order: u32,
    /// What was applied; `None` for an input injected without a record
    /// (through a plain [`Injector`]), which a replay cannot reproduce
    /// and so refuses.
    pub record: Option<InputRecord>,
}

/// One queued input.
pub(crate) struct Injected {
    /// What delivering it does.
    pub(crate) action: Box<dyn Action>,
    /// Its record for a session log, if it is logged.
    pub(crate) record: Option<InputRecord>,
}

/// The queue takes input.
const OPEN: u8 = 0;
/// The simulation was dropped.
const GONE: u8 = 1;
/// The simulation failed (a fatal error): it will never step again.
const FAILED: u8 = 2;

/// The queue between the injectors and the simulation.
///
/// Its state is behind one lock, taken once per injection and once per
/// step that has input waiting; the `pending` flag is the one look a step
/// without input takes. The flag is set under the lock after an input is
/// queued and cleared under the lock when the queue is emptied, so a step
/// that reads it as false after an injection returned can only be one
/// that began before (see the loom models in `realtime/loom_tests.rs`).
pub(crate) struct InjectQueue {
    /// The inputs waiting.
    state: Mutex<QueueState>,
    /// True while some input waits: the one look a step takes.
    pending: AtomicBool,
    /// Why the queue refuses input: [`OPEN`], [`GONE`] or [`FAILED`].
    closed: AtomicU8,
    /// The simulation's bench, for the injectors' checks.
    bench: BenchId,
}

/// The inputs waiting in an [`InjectQueue`].
#[derive(Default)]
struct QueueState {
    /// For the next step, in injection order.
    live: Vec<Injected>,
    /// For the step at an exact time, in (time, order) order.
    timed: BTreeMap<(SimTime, u64), Injected>,
    /// The order given to the next timed input.
    next_order: u64,
}

impl InjectQueue {
    /// An empty queue for a simulation of `bench`.
    pub(crate) fn new(bench: BenchId) -> Self {
        InjectQueue {
            state: Mutex::new(QueueState::default()),
            pending: AtomicBool::new(false),
            closed: AtomicU8::new(OPEN),
            bench,
        }
    }

    /// Queues `action` for the step at `time`, or for the next one.
    pub(crate) fn push(
        &self,
        time: Option<SimTime>,
        action: Box<dyn Action>,
        record: Option<InputRecord>,
    ) -> Result<(), InjectError> {
        let mut state = lock(&self.state);
        // Checked under the lock: `close` takes it too, so nothing is
        // queued after the simulation has dropped its queue's contents.
        self.refusal()?;
        let injected = Injected { action, record };
        match time {
            None => state.live.push(injected),
            Some(time) => {
                let order = state.next_order;
                state.next_order += 1;
                state.timed.insert((time, order), injected);
            }
        }
        self.pending.store(true, Ordering::Release);
        Ok(())
    }

    /// True if some input waits (one atomic load).
    #[inline]
    pub(crate) fn has_pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// The number of inputs waiting for the next step (timed ones left
    /// out).
    #[cfg(feature = "save")]
    pub(crate) fn waiting_for_next_step(&self) -> usize {
        if !self.has_pending() {
            return 0;
        }
        lock(&self.state).live.len()
    }

    /// The earliest time some timed input is due at.
    pub(crate) fn next_timed(&self) -> Option<SimTime> {
        if !self.has_pending() {
            return None;
        }
        lock(&self.state).timed.keys().next().map(|&(time, _)| time)
    }

    /// Moves into `out` the inputs for a step at `now`: the timed ones due
    /// by then, then every live one, in order.
    pub(crate) fn take_due(&self, now: SimTime, out: &mut Vec<Injected>) {
        let mut state = lock(&self.state);
        while let Some(entry) = state.timed.first_entry() {
            if entry.key().0 > now {
                break;
            }
            out.push(entry.remove());
        }
        out.append(&mut state.live);
        let left = !state.timed.is_empty();
        self.pending.store(left, Ordering::Release);
    }

    /// Why the queue refuses input, if it does.
    fn refusal(&self) -> Result<(), InjectError> {
        match self.closed.load(Ordering::Acquire) {
            OPEN => Ok(()),
            FAILED => Err(InjectError::SimulationFailed),
            _ => Err(InjectError::SimulationGone),
        }
    }

    /// Refuses every later input (the simulation failed) and drops those
    /// waiting (their queries then get [`ReplyError::NoReply`]).
    pub(crate) fn close_failed(&self) {
        self.close_as(FAILED);
    }

    /// Refuses every later input (the simulation is gone) and drops those
    /// waiting (their queries then get [`ReplyError::NoReply`]).
    pub(crate) fn close(&self) {
        self.close_as(GONE);
    }

    /// Closes the queue for `why` ([`GONE`] or [`FAILED`]; a failed
    /// simulation that is then dropped stays failed).
    fn close_as(&self, why: u8) {
        let dropped = {
            let mut state = lock(&self.state);
            if self.closed.load(Ordering::Relaxed) == OPEN {
                self.closed.store(why, Ordering::Release);
            }
            self.pending.store(false, Ordering::Release);
            let live = std::mem::take(&mut state.live);
            let timed = std::mem::take(&mut state.timed);
            (live, timed)
        };
        drop(dropped);
    }
}
