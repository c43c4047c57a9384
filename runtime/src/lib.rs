//! # causim
//!
//! Discrete-event simulation of cyber-physical systems.
//!
//! Models are plain Rust structs; their methods become typed ports
//! (`#[model]`, `#[input]`, `#[replier]`), so connecting an output to an
//! input of the wrong type, or a port to the wrong model's mailbox, is a
//! compile error at the `connect` line. Each model's message loop is one
//! concrete future with a static `match` over its message enum: the message
//! path allocates nothing and dispatches nothing dynamically on the
//! receiving side. The bench runs in simulated time, deterministically.
//!
//! The main pieces:
//!
//! - [`Model`]: the contract `#[model]` implements (or you, by hand);
//! - [`Mailbox`] / [`Address`]: each model's bounded message queue;
//! - [`ports`]: [`Output`], [`Requestor`], [`InputPort`], [`ReplierPort`],
//!   and bench endpoints ([`EventSource`], [`QuerySource`], sinks);
//! - [`Context`]: time and self-scheduling inside a model;
//! - [`SimInit`] → [`Simulation`]: build the bench, then run it;
//! - [`Composite`]: a subsystem of models, added as one under a path;
//! - [`Scheduler`]: schedule events from the bench;
//! - [`SimulationError`]: everything that can go wrong, by name;
//! - [`topology`]: the bench's graph, as JSON, Graphviz DOT, Mermaid or
//!   SVG.
//!
//! See the [`model`](mod@model) module for a complete hand-written model,
//! and the [`model`](macro@model) attribute for the macros that write it.

#[cfg(feature = "save")]
mod address_hash;
mod bench;
pub mod composite;
pub mod context;
pub(crate) mod executor;
pub mod mailbox;
pub mod model;
mod name;
mod poll_report;
pub mod ports;
mod prefetch;
pub mod realtime;
pub mod scheduler;
pub mod simulation;
pub mod snapshot;
mod staging;
pub(crate) mod sync;
mod thread_mark;
pub mod time;
mod time_view;
pub mod topology;
mod wake;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// Lets the macros' generated paths (`::causim::…`) resolve inside this
/// crate's own unit tests.
extern crate self as causim;

pub use causim_macros::{init, input, model, replier};

/// The README's code blocks, compiled and run as doctests so that the first
/// model a newcomer reads is known to work.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The guide's code blocks (`docs/guide.md`), compiled and run as doctests
/// so that the guide cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../docs/guide.md")]
pub struct GuideDoctests;

pub use composite::{BuildContext, Composite};
pub use context::Context;
pub use mailbox::{Address, IntoAddress, Mailbox};
pub use model::Model;
pub use ports::{
    CallbackSink, EventQueue, EventSlot, EventSource, InputPort, Output, QuerySource, ReplierPort,
    Requestor, Tap, UniRequestor,
};
pub use scheduler::{Deadline, Event, EventKey, Scheduler, SchedulingError, ZeroDelay};
pub use simulation::{
    BlockedModel, BusyModel, MessageOrder, MissingConnection, Progress, SimInit, Simulation,
    SimulationError, WaitingFor,
};
#[cfg(feature = "save")]
pub use snapshot::{RestoreError, SaveError};
pub use time::{SimTime, SimTimeError};
pub use time_view::TimeView;

/// The names most benches need: `use causim::prelude::*;`.
pub mod prelude {
    pub use crate::composite::{BuildContext, Composite};
    pub use crate::context::Context;
    pub use crate::mailbox::{Address, Mailbox};
    pub use crate::model::Model;
    pub use crate::ports::{
        EventQueue, EventSlot, EventSource, InputPort, Output, QuerySource, ReplierPort, Requestor,
        UniRequestor,
    };
    pub use crate::scheduler::{Event, EventKey, Scheduler, SchedulingError, ZeroDelay};
    pub use crate::simulation::{MessageOrder, SimInit, Simulation, SimulationError};
    pub use crate::time::{SimTime, SimTimeError};
    pub use causim_macros::{init, input, model, replier};
    pub use std::time::Duration;
}
