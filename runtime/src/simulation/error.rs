//! Everything that can go wrong while building or running a bench.

use std::fmt;
use std::time::Duration;

use crate::model::PortKind;
use crate::scheduler::SchedulingError;
use crate::time::SimTime;

/// An error from building or running a simulation.
///
/// Fatal errors ([`Deadlock`](SimulationError::Deadlock),
/// [`ModelPanic`](SimulationError::ModelPanic),
/// [`EventPanic`](SimulationError::EventPanic),
/// [`Timeout`](SimulationError::Timeout)) leave the bench in a state that
/// cannot go on: every later call returns the same error again, at once.
/// The others change nothing, or (for [`Halted`](SimulationError::Halted),
/// [`NoRecipient`](SimulationError::NoRecipient) and
/// [`ForeignAddress`](SimulationError::ForeignAddress)) complete the
/// current time step first, and the simulation can be used further.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SimulationError {
    /// Models wait for something that can never happen: a reply, or room in
    /// a full mailbox, from models that are themselves blocked.
    Deadlock {
        /// When it was detected.
        time: SimTime,
        /// Every blocked model.
        models: Vec<BlockedModel>,
    },
    /// A model panicked while handling a message.
    ModelPanic {
        /// When it happened.
        time: SimTime,
        /// The model instance.
        model: String,
        /// The model type.
        model_type: &'static str,
        /// The panic message.
        message: String,
    },
    /// The bench's own code panicked while the simulation delivered an
    /// event: a mapping closure of an `EventSource` connection
    /// (`map_connect`, `filter_map_connect`) or the payload's `Clone`.
    /// Fatal: the connections before the one that panicked got the value,
    /// the others did not, so the step cannot be completed faithfully.
    EventPanic {
        /// The time of the step being delivered.
        time: SimTime,
        /// The event and the connection it was being delivered to, e.g.
        /// ``an event of `EventSource<u32>`, connection 0 (input `input`
        /// of model `r` (Recorder))``.
        event: String,
        /// The panic message.
        message: String,
    },
    /// A call took longer, in wall-clock time, than the configured timeout.
    Timeout {
        /// The simulation time when it was interrupted.
        time: SimTime,
        /// The limit that was exceeded.
        limit: Duration,
        /// The models that were not done when it was interrupted, in
        /// task order, then those that only had sends held for the next
        /// round: each was in one of its methods (a runaway loop, or
        /// waiting) or not started yet, had messages waiting, or (in the
        /// deterministic message order) had sent messages held for the
        /// next round. Often empty when the call ran out of time between
        /// two steps.
        busy: Vec<BusyModel>,
    },
    /// Zero-delay events kept coming at one time: the time step ran its
    /// limit of rounds (`SimInit::with_zero_delay_rounds`, 10 000 by
    /// default) and more were due, most likely a loop of models that keep
    /// scheduling each other with `ZeroDelay`. Not fatal: the events still
    /// due stay queued, at the same time, and the next call carries on
    /// with them (with a fresh count of rounds). Two exceptions: from
    /// `SimInit::init` (rounds caused by `#[init]` hooks) it is the error
    /// of `init`, which leaves no simulation to resume; and a
    /// `process_query` whose query completed returns its reply and leaves
    /// the events queued without reporting it (the next call does).
    ZeroDelayLimit {
        /// The time of the step.
        time: SimTime,
        /// The rounds run at that time.
        rounds: usize,
        /// The events still due, in their delivery order, e.g. ``an event
        /// of `()` for input `tick` of model `osc` (Osc)``.
        pending: Vec<String>,
    },
    /// A model or the bench asked the simulation to halt; the time step in
    /// which it asked is complete and the simulation can be resumed.
    Halted {
        /// The time of the last completed step.
        time: SimTime,
    },
    /// A time was given that is not valid here, e.g. `step_until` a time
    /// in the past.
    InvalidTime {
        /// The current time.
        now: SimTime,
        /// The time given.
        requested: SimTime,
    },
    /// An event could not be scheduled.
    Scheduling(SchedulingError),
    /// A message was sent to a mailbox that was never added to the bench;
    /// it was dropped.
    ///
    /// A request dropped so has no reply: a `Requestor` returns the other
    /// replies; a `UniRequestor`, which has none to return, abandons the
    /// model method that awaits it (the model goes on with its next
    /// message). Reported once the step is complete (before anything runs
    /// for a bench call: `process_event`, `process_query`, a schedule).
    NoRecipient {
        /// The sending model instance (`None` for the bench).
        sender: Option<String>,
        /// The type of model the mailbox is for.
        model_type: &'static str,
        /// The port the message was for.
        port: &'static str,
        /// Whether that port is an input or a replier.
        kind: PortKind,
    },
    /// A message was sent to a model of another bench: an address, or a
    /// connection made to it, was used in a bench other than the one its
    /// mailbox was added to. The message was dropped, as for
    /// [`NoRecipient`](SimulationError::NoRecipient) (a bench call is
    /// refused whole, before anything runs).
    ForeignAddress {
        /// The sending model instance in this bench (`None` for the bench).
        sender: Option<String>,
        /// The recipient model instance, in the other bench.
        model: String,
        /// The recipient's model type.
        model_type: &'static str,
        /// The port the message was for.
        port: &'static str,
        /// Whether that port is an input or a replier.
        kind: PortKind,
    },
    /// A bench query got no reply: the replier dropped its reply sender
    /// without answering (or its model no longer exists).
    NoReply {
        /// The replier's model instance.
        model: String,
        /// The replier's model type.
        model_type: &'static str,
        /// The replier port.
        port: &'static str,
    },
    /// A paced simulation reached a time step later, on its wall clock,
    /// than its [`Lateness`](crate::realtime::Lateness) policy accepts.
    /// Not fatal: the step has not run, and the next call paces afresh
    /// from its own start.
    OutOfSync {
        /// The time of the step that was late.
        time: SimTime,
        /// How late it was, in wall time.
        lag: Duration,
    },
    /// `SimInit::with_tick` was given a zero period.
    InvalidTick,
    /// The clock given to `SimInit::with_clock` has a speed that is not a
    /// positive, finite number.
    InvalidSpeed(crate::realtime::InvalidSpeed),
    /// Required ports were left unconnected.
    MissingConnections(Vec<MissingConnection>),
    /// Two parts of one level of the bench (two models, two composites,
    /// or one of each) were added under the same name.
    DuplicateName {
        /// The path of the composite they were added to; `None` for the
        /// bench's top level.
        parent: Option<String>,
        /// The name used twice.
        name: String,
    },
    /// A model or composite was added under a name that cannot be part of
    /// a path: empty, or holding the separator `/`.
    InvalidName {
        /// The path of the composite it was added to; `None` for the
        /// bench's top level.
        parent: Option<String>,
        /// The name given.
        name: String,
        /// Why it is refused.
        reason: &'static str,
    },
}

/// A model that could not make progress when a deadlock was detected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedModel {
    /// The model instance (`"bench"` for a bench query).
    pub model: String,
    /// The model type.
    pub model_type: &'static str,
    /// Messages waiting in its mailbox.
    pub pending_messages: usize,
    /// What it waits for.
    pub waiting_for: WaitingFor,
}

/// A model that was not done when a call timed out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusyModel {
    /// The model instance, by its path.
    pub model: String,
    /// The model type.
    pub model_type: &'static str,
    /// Messages waiting in its mailbox.
    pub pending_messages: usize,
    /// Messages it sent that the deterministic message order held for
    /// the next round (always 0 in the causal order).
    pub staged_messages: usize,
}

/// What a blocked model waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitingFor {
    /// A reply from the named model.
    Reply {
        /// The replier's instance name (or type, if never added).
        from: String,
    },
    /// Room in the named model's full mailbox.
    MailboxSpace {
        /// The recipient's instance name.
        of: String,
    },
    /// A future that was not created by this framework.
    Other,
}

/// A required port left unconnected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingConnection {
    /// The model instance.
    pub model: String,
    /// The model type.
    pub model_type: &'static str,
    /// The port, with its type, e.g. `heater: Output<bool>`.
    pub port: String,
}

impl SimulationError {
    /// True for errors after which the simulation cannot continue.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            SimulationError::Deadlock { .. }
                | SimulationError::ModelPanic { .. }
                | SimulationError::EventPanic { .. }
                | SimulationError::Timeout { .. }
        )
    }
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimulationError::Deadlock { time, models } => {
                write!(f, "deadlock at {time}: ")?;
                for (i, m) in models.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{m}")?;
                }
                Ok(())
            }
            SimulationError::ModelPanic {
                time,
                model,
                model_type,
                message,
            } => write!(f, "model `{model}` ({model_type}) panicked at {time}: {message}"),
            SimulationError::EventPanic {
                time,
                event,
                message,
            } => write!(f, "the bench's code panicked at {time} while delivering {event}: {message}"),
            SimulationError::Timeout { time, limit, busy } => {
                write!(
                    f,
                    "simulation call timed out after {limit:?} of wall-clock time, at simulation time {time}"
                )?;
                for (i, m) in busy.iter().take(BUSY_SHOWN).enumerate() {
                    f.write_str(if i == 0 { "; still busy: " } else { ", " })?;
                    write!(f, "{m}")?;
                }
                match busy.len().checked_sub(BUSY_SHOWN) {
                    Some(more) if more > 0 => write!(f, ", and {more} more"),
                    _ => Ok(()),
                }
            }
            SimulationError::ZeroDelayLimit {
                time,
                rounds,
                pending,
            } => write!(
                f,
                "{rounds} rounds of zero-delay events at {time} and more still due, for {}: \
                 a loop of zero-delay events? (the limit is set by `SimInit::with_zero_delay_rounds`; \
                 the events stay queued and the next call resumes them)",
                pending.join(", ")
            ),
            SimulationError::Halted { time } => write!(f, "simulation halted at {time}"),
            SimulationError::InvalidTime { now, requested } => write!(
                f,
                "invalid time {requested}: it is before the current time {now}"
            ),
            SimulationError::Scheduling(e) => e.fmt(f),
            SimulationError::NoRecipient {
                sender,
                model_type,
                port,
                kind,
            } => {
                let sender = describe_sender(sender.as_deref());
                let message = message_of(*kind);
                write!(
                    f,
                    "{sender} sent {message} to {kind} `{port}` of a `{model_type}` whose mailbox was never added to the bench; the {message_word} was dropped",
                    message_word = word_of(*kind),
                )
            }
            SimulationError::ForeignAddress {
                sender,
                model,
                model_type,
                port,
                kind,
            } => {
                let sender = describe_sender(sender.as_deref());
                let message = message_of(*kind);
                write!(
                    f,
                    "{sender} sent {message} to {kind} `{port}` of model `{model}` ({model_type}), which was added to another bench; a mailbox belongs to the bench it was added to, so the {message_word} was dropped",
                    message_word = word_of(*kind),
                )
            }
            SimulationError::NoReply {
                model,
                model_type,
                port,
            } => write!(
                f,
                "replier `{port}` of model `{model}` ({model_type}) did not reply to the bench query"
            ),
            SimulationError::OutOfSync { time, lag } => write!(
                f,
                "the simulation is out of sync with its clock: the step at {time} started \
                 {lag:?} after its wall deadline, more than the lateness policy accepts"
            ),
            SimulationError::InvalidTick => f.write_str(
                "a ticker needs a period longer than zero (`SimInit::with_tick`)",
            ),
            SimulationError::InvalidSpeed(invalid) => write!(f, "{invalid}"),
            SimulationError::MissingConnections(missing) => {
                f.write_str("required ports left unconnected: ")?;
                for (i, m) in missing.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{}.{}` ({})", m.model, m.port, m.model_type)?;
                }
                Ok(())
            }
            SimulationError::DuplicateName { parent, name } => write!(
                f,
                "two parts of {} were added under the name `{name}`; names must be unique at each level",
                describe_level(parent.as_deref())
            ),
            SimulationError::InvalidName {
                parent,
                name,
                reason,
            } => write!(
                f,
                "a part of {} was added under the name `{name}`, which cannot name a model or composite: {reason}",
                describe_level(parent.as_deref())
            ),
        }
    }
}

/// How an error names the sender of a message: a model of the bench, or
/// the bench's own call.
fn describe_sender(sender: Option<&str>) -> String {
    match sender {
        Some(model) => format!("model `{model}`"),
        None => "the bench".to_string(),
    }
}

/// How an error names a level of the bench: a composite by its path, or
/// the top level.
fn describe_level(parent: Option<&str>) -> String {
    match parent {
        Some(path) => format!("composite `{path}`"),
        None => "the bench's top level".to_string(),
    }
}

/// "a message" or "a request", for a port of `kind`.
fn message_of(kind: PortKind) -> &'static str {
    match kind {
        PortKind::Replier => "a request",
        _ => "a message",
    }
}

/// "message" or "request", for a port of `kind`.
fn word_of(kind: PortKind) -> &'static str {
    match kind {
        PortKind::Replier => "request",
        _ => "message",
    }
}

impl fmt::Display for BlockedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({}) ", self.model, self.model_type)?;
        match &self.waiting_for {
            WaitingFor::Reply { from } => write!(f, "waits for a reply from `{from}`")?,
            WaitingFor::MailboxSpace { of } => {
                write!(f, "waits for room in the full mailbox of `{of}`")?
            }
            WaitingFor::Other => f.write_str("waits on a future outside the simulation")?,
        }
        write!(f, " with {} message(s) pending", self.pending_messages)
    }
}

/// How many busy models a timeout's message names (the error holds all).
const BUSY_SHOWN: usize = 10;

impl fmt::Display for BusyModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({})", self.model, self.model_type)?;
        match (self.pending_messages, self.staged_messages) {
            (0, 0) => f.write_str(" in one of its methods, or not started yet"),
            (pending, 0) => write!(f, " with {pending} message(s) waiting"),
            (0, staged) => write!(f, " with {staged} message(s) sent for the next round"),
            (pending, staged) => write!(
                f,
                " with {pending} message(s) waiting and {staged} sent for the next round"
            ),
        }
    }
}

impl std::error::Error for SimulationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SimulationError::Scheduling(e) => Some(e),
            _ => None,
        }
    }
}

impl From<SchedulingError> for SimulationError {
    fn from(e: SchedulingError) -> Self {
        SimulationError::Scheduling(e)
    }
}
