//! Ports: how models talk to each other and to the bench.
//!
//! - [`InputPort`] and [`ReplierPort`] describe a model's receiving methods;
//!   `#[model]` generates them.
//! - [`Output`] sends events to inputs; [`Requestor`] and [`UniRequestor`]
//!   send requests to repliers and collect the replies.
//! - [`EventSource`] and [`QuerySource`] do the same from the bench;
//!   [`EventSlot`] and [`EventQueue`] read outputs from the bench;
//!   [`CallbackSink`] hands each value to a function; a [`Tap`] sees
//!   every value an output sends without being a connection (recorders
//!   use both).
//! - [`InputRef`] and [`ReplierRef`] are a port of one model instance,
//!   which a [composite](crate::composite) exposes; senders connect to them
//!   with `connect_to`.
//!
//! Connections are made on the sending side, one line per connection, and
//! checked at compile time: the payload, request and reply types and the
//! model of the mailbox must all agree with the port.

mod adapt;
pub(crate) mod event;
mod exposed;
pub(crate) mod fanout;
mod input;
pub(crate) mod link;
mod output;
pub(crate) mod reply;
mod requestor;
mod sink;
mod source;
mod staged;
mod tap;
pub(crate) mod target;

pub use exposed::{InputRef, ReplierRef};
pub use input::{InputFor, InputPort, OwnInput, ReplierFor, ReplierPort};
pub use link::{ConnectionList, Mapping, SendingPort};
pub use output::{Output, OutputSend};
pub use reply::ReplySender;
pub use requestor::{Requestor, UniRequestor};
pub(crate) use sink::sink_key;
pub use sink::{CallbackSink, EventQueue, EventSlot, Sink};
pub use source::{EventSource, QuerySource};
pub use tap::Tap;
