//! The model contract.
//!
//! A model is a plain struct that owns its state and is only ever touched by
//! the messages of its own mailbox, one at a time. The [`Model`] trait is what
//! the runtime needs to run it: the model's message type (an enum with one
//! variant per input or replier), an async `dispatch` that routes a message to
//! the right method, an optional `init` hook and static metadata.
//!
//! `#[model]` implements this trait; writing it by hand is the escape hatch
//! for unusual models and produces exactly the same machine code. By hand,
//! write `dispatch` and `init` as `async fn` (as below): the trait spells
//! them `fn … -> impl Future<Output = ()> + Send + 'a` so that it can
//! require the future to be `Send`, and an `async fn` in the impl satisfies
//! that signature (the compiler checks the `Send` bound), without the
//! `clippy::manual_async_fn` warning that the spelled-out form triggers. Because
//! `dispatch` is a `match` over a concrete enum, the whole message loop of a
//! model is one concrete future built by the compiler: no per-message
//! allocation and no dynamic dispatch on the receiving side.
//!
//! # A complete hand-written model
//!
//! ```
//! use causim::prelude::*;
//! use causim::ports::ReplySender;
//! use causim::model::{ConnectionList, ModelMetadata, PortKind, PortMetadata};
//!
//! /// Counts what it receives and says how much it has seen.
//! pub struct Counter {
//!     /// Emits the running total after each addition.
//!     pub total: Output<u64>,
//!     count: u64,
//! }
//!
//! /// One variant per input or replier; repliers carry their reply slot.
//! pub enum CounterMessage {
//!     Add(u64),
//!     Read((), ReplySender<u64>),
//! }
//!
//! /// The typed port descriptors, so connections are checked at compile time.
//! pub struct CounterPorts {
//!     pub add: InputPort<Counter, u64>,
//!     pub read: ReplierPort<Counter, (), u64>,
//! }
//!
//! impl Counter {
//!     pub fn new() -> Self {
//!         Counter { total: Output::new(), count: 0 }
//!     }
//!
//!     pub fn ports() -> CounterPorts {
//!         CounterPorts {
//!             add: InputPort::new("add", CounterMessage::Add),
//!             read: ReplierPort::new("read", CounterMessage::Read),
//!         }
//!     }
//!
//!     async fn add(&mut self, n: u64) {
//!         self.count += n;
//!         self.total.send(self.count).await;
//!     }
//!
//!     fn read(&mut self, _: ()) -> u64 {
//!         self.count
//!     }
//! }
//!
//! impl Model for Counter {
//!     type Message = CounterMessage;
//!
//!     // `async fn` implements the trait's `-> impl Future + Send` method;
//!     // the compiler checks that the future is `Send`.
//!     async fn dispatch(&mut self, message: CounterMessage, _cx: &mut Context<Self>) {
//!         match message {
//!             CounterMessage::Add(n) => self.add(n).await,
//!             CounterMessage::Read(arg, reply) => reply.send(self.read(arg)),
//!         }
//!     }
//!
//!     // Lists the sending ports' connections for the bench's topology.
//!     fn list_connections(&self, list: &mut ConnectionList) {
//!         list.port("total", &self.total);
//!     }
//!
//!     fn metadata() -> ModelMetadata {
//!         ModelMetadata {
//!             type_name: "Counter",
//!             inputs: &[
//!                 PortMetadata { name: "add", kind: PortKind::Input, payload: "u64", reply: None, required: false },
//!                 PortMetadata { name: "read", kind: PortKind::Replier, payload: "()", reply: Some("u64"), required: false },
//!             ],
//!             outputs: &[
//!                 PortMetadata { name: "total", kind: PortKind::Output, payload: "u64", reply: None, required: false },
//!             ],
//!         }
//!     }
//! }
//!
//! // A bench: a source drives the counter, a sink reads its output.
//! let mut counter = Counter::new();
//! let totals = EventQueue::new();
//! counter.total.connect_sink(&totals);
//! let mailbox = Mailbox::new();
//! let address = mailbox.address();
//! let mut source = EventSource::new();
//! source.connect(Counter::ports().add, &address);
//!
//! let mut simu = SimInit::new()
//!     .add_model(counter, mailbox, "counter")
//!     .add_event_source(&source, "adds")
//!     .add_sink(&totals, "totals")
//!     .init(SimTime::ZERO)?;
//! assert_eq!(simu.topology().connections().len(), 2); // adds → add, total → totals
//! simu.process(source.event(2))?;
//! simu.process_event(Counter::ports().add, 3, &address)?;
//! assert_eq!(totals.take_all(), vec![2, 5]);
//! assert_eq!(simu.process_query(Counter::ports().read, (), &address)?, 5);
//! # Ok::<(), causim::SimulationError>(())
//! ```

mod run;
#[cfg(feature = "save")]
mod shared;
#[cfg(feature = "tracing")]
mod trace;

use std::future::Future;

use crate::context::Context;
pub use crate::ports::ConnectionList;
pub use crate::snapshot::hooks::{PayloadError, SaveHooks, StateError, StateReader, StateWriter};

pub(crate) use run::run_model;
#[cfg(feature = "save")]
pub(crate) use shared::SharedModel;

/// The contract between a model and the runtime.
///
/// Implemented by `#[model]`, or by hand (see the [module docs](self)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model",
    label = "`{Self}` does not implement `causim::Model`",
    note = "add `#[model]` to both the struct and its inherent impl block, or implement `causim::Model` by hand"
)]
pub trait Model: Sized + Send + 'static {
    /// The messages this model accepts: one variant per input or replier.
    type Message: Send + 'static;

    /// Routes one message to the method it is for.
    ///
    /// The runtime calls this once per message, in mailbox order, and waits
    /// for the returned future before taking the next message.
    fn dispatch<'a>(
        &'a mut self,
        message: Self::Message,
        cx: &'a mut Context<Self>,
    ) -> impl Future<Output = ()> + Send + 'a;

    /// The name of the port `message` is for, as in [`metadata`](Self::metadata)
    /// (tracing spans carry it). `#[model]` generates it; the default,
    /// for a hand-written model, is `"message"`.
    fn port_name(message: &Self::Message) -> &'static str {
        let _ = message;
        "message"
    }

    /// Runs once when the bench is initialised, before any message.
    ///
    /// It may send on outputs and schedule events. The default does nothing.
    fn init<'a>(&'a mut self, cx: &'a mut Context<Self>) -> impl Future<Output = ()> + Send + 'a {
        let _ = cx;
        async {}
    }

    /// Static description of the model: its type name and its ports.
    fn metadata() -> ModelMetadata;

    /// Appends the required output or requestor ports left unconnected.
    ///
    /// `SimInit::init` calls this on every model and refuses to build a bench
    /// with a missing required connection. The default reports none.
    fn unconnected_required_ports(&self, missing: &mut Vec<&'static PortMetadata>) {
        let _ = missing;
    }

    /// Lists the connections of the sending ports (`Output`, `Requestor`
    /// and `UniRequestor` fields), one [`ConnectionList::port`] call per
    /// port, for the bench's [topology](crate::topology).
    ///
    /// `SimInit::add_model` calls this once, on the cold path; nothing is
    /// recorded on the message path. `#[model]` writes it; the default
    /// lists nothing, so a hand-written model that does not implement it
    /// shows its ports in the topology but no connection leaving them.
    fn list_connections(&self, list: &mut ConnectionList) {
        let _ = list;
    }

    /// How to save and restore this model's state and its pending events
    /// (see [`crate::snapshot`]); `None`, the default, for a model that
    /// cannot be saved: `Simulation::save` then refuses the bench, naming
    /// it. `#[model(save)]` writes it.
    fn save_hooks() -> Option<SaveHooks<Self>> {
        None
    }
}

/// Static description of a model type, for diagnostics, tracing and
/// topology export.
///
/// Receiving ports (methods) and sending ports (fields) are kept in two
/// lists because they are declared in two places: `#[model]` on the impl
/// block sees the methods, `#[model]` on the struct sees the fields.
#[derive(Debug, Clone, Copy)]
pub struct ModelMetadata {
    /// The model's type name as written in its source, e.g. `Thermostat`;
    /// for a generic model, the concrete instance without module paths,
    /// e.g. `MovingAverage<f64>`.
    pub type_name: &'static str,
    /// Inputs and repliers, in declaration order.
    pub inputs: &'static [PortMetadata],
    /// Outputs and requestors, in declaration order.
    pub outputs: &'static [PortMetadata],
}

impl ModelMetadata {
    /// Every port: receiving ports first, then sending ports.
    pub fn ports(&self) -> impl Iterator<Item = &'static PortMetadata> {
        self.inputs.iter().chain(self.outputs.iter())
    }

    /// The port called `name`, if any.
    pub fn port(&self, name: &str) -> Option<&'static PortMetadata> {
        self.ports().find(|port| port.name == name)
    }
}

/// Static description of one port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortMetadata {
    /// The port's name: the method or field name.
    pub name: &'static str,
    /// What kind of port it is.
    pub kind: PortKind,
    /// The payload (input, output) or request (replier, requestor) type,
    /// as written (`Vec<u8>`); one that names a type parameter of a generic
    /// model is named for the concrete instance (`f64`, not `T`).
    pub payload: &'static str,
    /// The reply type, for repliers and requestors.
    pub reply: Option<&'static str>,
    /// Whether the bench refuses to start while this port is unconnected.
    pub required: bool,
}

/// The kinds of port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PortKind {
    /// A method that receives events.
    Input,
    /// A method that answers requests.
    Replier,
    /// A field that sends events.
    Output,
    /// A field that sends requests and collects replies.
    Requestor,
}

impl std::fmt::Display for PortKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PortKind::Input => "input",
            PortKind::Replier => "replier",
            PortKind::Output => "output",
            PortKind::Requestor => "requestor",
        })
    }
}

impl std::fmt::Display for PortMetadata {
    /// `name: Output<T>` style, e.g. `heater: Output<bool>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.kind, self.reply) {
            (PortKind::Output, _) => write!(f, "{}: Output<{}>", self.name, self.payload),
            (PortKind::Requestor, Some(r)) => {
                write!(f, "{}: Requestor<{}, {}>", self.name, self.payload, r)
            }
            (PortKind::Input, _) => write!(f, "{}: InputPort<{}>", self.name, self.payload),
            (_, reply) => write!(
                f,
                "{}: ReplierPort<{}, {}>",
                self.name,
                self.payload,
                reply.unwrap_or("()")
            ),
        }
    }
}
