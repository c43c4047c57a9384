//! Session logs: every injected input of a live run, replayed offline.
//!
//! A [`LoggingInjector`] injects like an [`Injector`] and also serialises
//! each payload; the simulation hands each applied input, with the time
//! and order at which its step applied it, to the log that
//! `SimInit::with_input_log(log.recorder())` installed. Written to a file
//! and read back, the log drives a [`Replay`]: the same bench, rebuilt and
//! run as fast as possible, receives every input at the same time and in
//! the same place among that step's deliveries, and so goes through the
//! same states (see the module docs of [`realtime`](crate::realtime) for
//! why a (time, order) pair places an input exactly).
//!
//! # Format
//!
//! A file is a header, `CAUSIM-SESSION` and a format version (two bytes,
//! little-endian), then the entries in postcard, a compact, stable serde
//! format with a written specification: a log of a long session at a
//! kilohertz of telecommands stays small, and payloads round-trip exactly
//! (floating-point values bit for bit, which a text format does not
//! guarantee). Ports are named by model path and port name, never by
//! position, so a log still applies to a bench rebuilt in another order.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::injector::{AppliedInput, InjectError, Injector, InputRecord, PendingReply};
use crate::model::{Model, PortKind};
use crate::ports::event::{Action, Event};
use crate::ports::{InputRef, ReplierRef};
use crate::simulation::Simulation;
use crate::sync::lock;
use crate::time::SimTime;

/// The first bytes of a session log file.
const MAGIC: &[u8; 14] = b"CAUSIM-SESSION";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;

/// The inputs applied during a live run, in application order.
#[derive(Clone, Default)]
pub struct SessionLog {
    /// The entries, shared with the recorder installed in the bench.
    entries: Arc<Mutex<Vec<AppliedInput>>>,
}

// A log is read on the driving thread while its recorder fills it from
// the simulation, and a logging injector is for any thread, as the
// injector it wraps: both are checked here, so that a field that breaks
// it fails this crate's build, not a user's.
const _: () = {
    const fn for_any_thread<T: Clone + Send + Sync>() {}
    for_any_thread::<SessionLog>();
    for_any_thread::<LoggingInjector>();
};

impl SessionLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// What to give `SimInit::with_input_log`, to fill this log.
    pub fn recorder(&self) -> impl FnMut(AppliedInput) + Send + 'static {
        let entries = self.entries.clone();
        move |input| lock(&entries).push(input)
    }

    /// The entries so far.
    pub fn entries(&self) -> Vec<AppliedInput> {
        lock(&self.entries).clone()
    }

    /// Writes the log: header, then entries.
    pub fn write_to(&self, mut out: impl Write) -> io::Result<()> {
        let entries: Vec<Entry> = lock(&self.entries).iter().map(Entry::from).collect();
        let body = postcard::to_stdvec(&entries).map_err(io::Error::other)?;
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        out.write_all(&body)
    }

    /// Reads a log written by [`write_to`](SessionLog::write_to).
    pub fn read_from(mut input: impl Read) -> Result<Self, SessionError> {
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| SessionError::Io(e.to_string()))?;
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(SessionError::NotASessionLog)?;
        let (version, body) = body.split_first_chunk::<2>().ok_or(SessionError::Corrupt(
            "the file ends inside its header".into(),
        ))?;
        let version = u16::from_le_bytes(*version);
        if version != FORMAT_VERSION {
            return Err(SessionError::UnsupportedVersion { found: version });
        }
        let entries: Vec<Entry> = decode_whole(body)
            .map_err(|e| SessionError::Corrupt(format!("its entries do not decode: {e}")))?;
        let entries: Vec<AppliedInput> = entries
            .into_iter()
            .map(Entry::into_applied)
            .collect::<Result<_, _>>()?;
        check_order(&entries)?;
        Ok(SessionLog {
            entries: Arc::new(Mutex::new(entries)),
        })
    }
}

/// `bytes` decoded as one `T`, with nothing left over (postcard itself
/// ignores trailing bytes, which in a log mean damage).
fn decode_whole<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (value, rest) = postcard::take_from_bytes(bytes).map_err(|e| e.to_string())?;
    if rest.is_empty() {
        Ok(value)
    } else {
        Err(format!("{} bytes follow the value", rest.len()))
    }
}

/// Fails unless the entries are in strictly increasing (time, order), as
/// a session applies them.
fn check_order(entries: &[AppliedInput]) -> Result<(), SessionError> {
    for pair in entries.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if (a.time, a.order) >= (b.time, b.order) {
            return Err(SessionError::Corrupt(format!(
                "its entries are out of order: ({}, {}) before ({}, {})",
                a.time, a.order, b.time, b.order
            )));
        }
    }
    Ok(())
}

impl fmt::Debug for SessionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionLog")
            .field("entries", &lock(&self.entries).len())
            .finish()
    }
}

/// One entry as written.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The step's time, nanoseconds.
    time: u64,
    /// The place in the step.
    order: u32,
    /// The model's path (empty if unrecorded).
    model: String,
    /// The port's name (empty if unrecorded).
    port: String,
    /// 0: an input's event; 1: a replier's query; 2: an input injected
    /// without a record.
    kind: u8,
    /// The payload, in postcard.
    payload: Vec<u8>,
}

/// The kind of an entry for an input injected without a record.
const UNRECORDED: u8 = 2;

impl From<&AppliedInput> for Entry {
    fn from(applied: &AppliedInput) -> Self {
        let (time, order) = (applied.time.as_nanos(), applied.order);
        match &applied.record {
            Some(record) => Entry {
                time,
                order,
                model: record.model.clone(),
                port: record.port.clone(),
                kind: u8::from(record.kind == PortKind::Replier),
                payload: record.payload.clone(),
            },
            None => Entry {
                time,
                order,
                model: String::new(),
                port: String::new(),
                kind: UNRECORDED,
                payload: Vec::new(),
            },
        }
    }
}

impl Entry {
    /// The applied input this entry records.
    fn into_applied(self) -> Result<AppliedInput, SessionError> {
        let (time, order) = (SimTime::from_nanos(self.time), self.order);
        let kind = match self.kind {
            0 => PortKind::Input,
            1 => PortKind::Replier,
            UNRECORDED => {
                return Ok(AppliedInput {
                    time,
                    order,
                    record: None,
                })
            }
            other => {
                return Err(SessionError::Corrupt(format!(
                    "an entry for port `{}` of `{}` has kind {other}, neither an input (0) nor a \
                     replier (1)",
                    self.port, self.model
                )))
            }
        };
        Ok(AppliedInput {
            time,
            order,
            record: Some(InputRecord {
                model: self.model,
                port: self.port,
                kind,
                payload: self.payload,
            }),
        })
    }
}

/// Why a session log could not be read or replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionError {
    /// Reading the file failed.
    Io(String),
    /// The bytes do not start with a session log's header.
    NotASessionLog,
    /// The log was written by a newer (or unknown) format version.
    UnsupportedVersion {
        /// The version in the file.
        found: u16,
    },
    /// The bytes after the header are truncated or damaged.
    Corrupt(String),
    /// The log has input for a port the replay was not given.
    UnknownPort {
        /// The model's path.
        model: String,
        /// The port's name.
        port: String,
    },
    /// A payload does not decode as the port's type.
    Payload {
        /// The model's path.
        model: String,
        /// The port's name.
        port: String,
        /// The port's payload type.
        payload_type: &'static str,
        /// What the decoder said.
        message: String,
    },
    /// An input is due at or before the replaying simulation's time.
    InThePast {
        /// When it was applied in the session.
        time: SimTime,
        /// The replaying simulation's time.
        now: SimTime,
    },
    /// A port given to the replay belongs to no model of a bench.
    Unbound {
        /// The port's name.
        port: &'static str,
    },
    /// The log has an input that was injected without a record (through
    /// a plain `Injector` rather than a `LoggingInjector`): a replay
    /// cannot reproduce the session.
    Unrecorded {
        /// When it was applied in the session.
        time: SimTime,
        /// Its place in that step.
        order: u32,
    },
    /// The simulation refused the input.
    Inject(InjectError),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Io(e) => write!(f, "cannot read the session log: {e}"),
            SessionError::NotASessionLog => f.write_str("not a causim session log (no header)"),
            SessionError::UnsupportedVersion { found } => write!(
                f,
                "the session log has format version {found}; this build reads version \
                 {FORMAT_VERSION}"
            ),
            SessionError::Corrupt(what) => write!(f, "the session log is damaged: {what}"),
            SessionError::UnknownPort { model, port } => write!(
                f,
                "the session log has input for port `{port}` of model `{model}`, which the replay \
                 was not given"
            ),
            SessionError::Payload {
                model,
                port,
                payload_type,
                message,
            } => write!(
                f,
                "an input for port `{port}` of model `{model}` does not decode as \
                 `{payload_type}`: {message}"
            ),
            SessionError::InThePast { time, now } => write!(
                f,
                "the session log has input applied at {time}, not after the replaying \
                 simulation's time {now}: replay from the session's start"
            ),
            SessionError::Unbound { port } => write!(
                f,
                "port `{port}` was given to the replay with the address of a model that is in no \
                 bench"
            ),
            SessionError::Unrecorded { time, order } => write!(
                f,
                "the session log has an input applied at {time} (number {order} of its step) that \
                 was injected without a record, through a plain `Injector`: its payload is \
                 unknown, so the session cannot be replayed (inject through a `LoggingInjector`)"
            ),
            SessionError::Inject(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SessionError {}

/// The record of an input for the log: the recipient's path, the port,
/// the payload in postcard; an error if the payload cannot be written
/// (the input is then not injected: a log without it would replay
/// something else).
fn record<T: Serialize>(
    model: Option<&str>,
    port: &'static str,
    kind: PortKind,
    payload: &T,
) -> Result<Option<InputRecord>, InjectError> {
    // A model in no bench: the injection fails anyway, with its own error.
    let Some(model) = model else {
        return Ok(None);
    };
    let payload = postcard::to_stdvec(payload).map_err(|e| InjectError::Unloggable {
        port,
        message: e.to_string(),
    })?;
    Ok(Some(InputRecord {
        model: model.to_string(),
        port: port.to_string(),
        kind,
        payload,
    }))
}

/// An [`Injector`] that also records each input for a session log.
#[derive(Debug, Clone)]
pub struct LoggingInjector {
    /// The injector it goes through.
    injector: Injector,
}

impl LoggingInjector {
    /// Logs what goes through `injector`.
    pub fn new(injector: Injector) -> Self {
        LoggingInjector { injector }
    }

    /// [`Injector::send`], logged.
    pub fn send<M, T>(&self, input: &InputRef<M, T>, payload: T) -> Result<(), InjectError>
    where
        M: Model,
        T: Serialize + Send + 'static,
    {
        let record = record(
            input.address().name(),
            input.port().name(),
            PortKind::Input,
            &payload,
        )?;
        self.injector.send_recorded(input, payload, record)
    }

    /// [`Injector::query`], logged.
    pub fn query<M, T, R>(
        &self,
        replier: &ReplierRef<M, T, R>,
        request: T,
    ) -> Result<PendingReply<R>, InjectError>
    where
        M: Model,
        T: Serialize + Send + 'static,
        R: Send + 'static,
    {
        let record = record(
            replier.address().name(),
            replier.port().name(),
            PortKind::Replier,
            &request,
        )?;
        self.injector.query_recorded(replier, request, record)
    }
}

/// Makes the action that re-applies one logged payload.
type Decoder = Box<dyn Fn(&[u8]) -> Result<Box<dyn Action>, String>>;

/// Replays a session log into a rebuilt bench.
///
/// Give it every port the session injected into ([`input`](Replay::input),
/// [`replier`](Replay::replier)), then [`schedule`](Replay::schedule) it
/// into the simulation before running it: each input is then applied at
/// the time, and in the place among that step's deliveries, where the
/// session applied it. A replayed query's reply is dropped.
pub struct Replay {
    /// The log's entries.
    entries: Vec<AppliedInput>,
    /// The decoders, by model path and port name.
    ports: HashMap<(String, String), (Decoder, &'static str)>,
    /// A port given with the address of a model in no bench.
    unbound: Option<&'static str>,
}

impl Replay {
    /// A replay of `log`.
    pub fn new(log: &SessionLog) -> Self {
        Replay {
            entries: log.entries(),
            ports: HashMap::new(),
            unbound: None,
        }
    }

    /// Lets the replay apply the log's events for `input`.
    pub fn input<M, T>(mut self, input: &InputRef<M, T>) -> Self
    where
        M: Model,
        T: DeserializeOwned + Send + 'static,
    {
        let port = input.port();
        let address = input.address().clone();
        let decode: Decoder = Box::new(move |bytes| {
            let payload: T = decode_whole(bytes)?;
            Ok(Event::new(port, payload, &address).action)
        });
        self.register(
            input.address().name(),
            port.name(),
            decode,
            std::any::type_name::<T>(),
        );
        self
    }

    /// Lets the replay apply the log's queries for `replier` (their replies
    /// are dropped).
    pub fn replier<M, T, R>(mut self, replier: &ReplierRef<M, T, R>) -> Self
    where
        M: Model,
        T: DeserializeOwned + Send + 'static,
        R: Send + 'static,
    {
        let replier_ref = replier.clone();
        let decode: Decoder = Box::new(move |bytes| {
            let request: T = decode_whole(bytes)?;
            Ok(super::injector::query_action(&replier_ref, request))
        });
        self.register(
            replier.address().name(),
            replier.port().name(),
            decode,
            std::any::type_name::<T>(),
        );
        self
    }

    /// Files `decode` for `port` of the model at `path`.
    fn register(
        &mut self,
        path: Option<&str>,
        port: &'static str,
        decode: Decoder,
        payload_type: &'static str,
    ) {
        match path {
            Some(path) => {
                self.ports
                    .insert((path.to_string(), port.to_string()), (decode, payload_type));
            }
            None => {
                self.unbound.get_or_insert(port);
            }
        }
    }

    /// Queues every input of the log into `simulation`, at its time.
    /// Nothing is queued if any entry is refused: every entry is decoded
    /// and checked first.
    pub fn schedule(self, simulation: &mut Simulation) -> Result<(), SessionError> {
        self.queue(simulation, false)
    }

    /// Queues the inputs of the log that are still to come — those after
    /// `simulation`'s time — into a simulation restored from a snapshot
    /// taken during the replay (the earlier ones were applied before the
    /// save; a snapshot does not hold the input still to come). Otherwise
    /// like [`schedule`](Replay::schedule).
    pub fn resume(self, simulation: &mut Simulation) -> Result<(), SessionError> {
        self.queue(simulation, true)
    }

    /// Queues the log's inputs; those at or before the simulation's time
    /// are skipped if `resuming`, refused otherwise.
    fn queue(self, simulation: &mut Simulation, resuming: bool) -> Result<(), SessionError> {
        if let Some(port) = self.unbound {
            return Err(SessionError::Unbound { port });
        }
        let now = simulation.time();
        let mut actions = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            if entry.time <= now && resuming {
                continue;
            }
            if entry.time <= now {
                return Err(SessionError::InThePast {
                    time: entry.time,
                    now,
                });
            }
            let Some(record) = &entry.record else {
                return Err(SessionError::Unrecorded {
                    time: entry.time,
                    order: entry.order,
                });
            };
            actions.push((entry.time, self.decode(record)?));
        }
        let injector = simulation.injector();
        for (time, action) in actions {
            injector
                .push_at(time, action, None)
                .map_err(SessionError::Inject)?;
        }
        Ok(())
    }

    /// The action that applies `record` again.
    fn decode(&self, record: &InputRecord) -> Result<Box<dyn Action>, SessionError> {
        let key = (record.model.clone(), record.port.clone());
        let (decode, payload_type) =
            self.ports
                .get(&key)
                .ok_or_else(|| SessionError::UnknownPort {
                    model: record.model.clone(),
                    port: record.port.clone(),
                })?;
        decode(&record.payload).map_err(|message| SessionError::Payload {
            model: record.model.clone(),
            port: record.port.clone(),
            payload_type,
            message,
        })
    }
}

impl fmt::Debug for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Replay")
            .field("entries", &self.entries.len())
            .field("ports", &self.ports.len())
            .finish()
    }
}
