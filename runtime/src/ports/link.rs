//! What a sending port says about its connections, for the topology
//! export.
//!
//! A connection is a type-erased target (see `target.rs`); asked on the
//! cold path, it names its recipient as a [`Recipient`]: the recipient's
//! mailbox (held weakly) or the identity of its sink (the address of its
//! shared state), the recipient port's name and the recipient model's
//! metadata. The mailbox rather than a name, because a connection is often
//! made before its recipient's mailbox is added to the bench, and so
//! before it has a name: once everything is added, the bench asks the
//! mailbox for its model's place in the bench (see `crate::topology`).
//! Nothing here is read or stored by a send.
//!
//! A model lists its sending ports into a [`ConnectionList`] through
//! [`Model::list_connections`](crate::Model::list_connections), which
//! `#[model]` writes: one [`ConnectionList::port`] call per `Output`,
//! `Requestor` or `UniRequestor` field.

use std::fmt;
use std::sync::{Arc, Weak};

use crate::bench::BenchId;
use crate::mailbox::bound::BoundMailbox;
use crate::mailbox::Address;
use crate::model::{Model, ModelMetadata, PortKind};

/// How a connection adapts what is sent to what the recipient port takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mapping {
    /// Sent as is (`connect`, `connect_sink`, `UniRequestor::new`).
    Direct,
    /// Converted (`map_connect`, `UniRequestor::with_map`).
    Map,
    /// Converted or dropped (`filter_map_connect`).
    FilterMap,
}

impl Mapping {
    /// The name used by every export: `direct`, `map` or `filter_map`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mapping::Direct => "direct",
            Mapping::Map => "map",
            Mapping::FilterMap => "filter_map",
        }
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The recipient's mailbox, held weakly: listing a connection keeps
/// nothing alive. Asked for its place in a bench when a topology or a
/// checksum of the connections is made, which names the recipient model
/// by that place with no map of the bench's mailboxes.
#[derive(Clone)]
pub(crate) struct MailboxRef(Weak<dyn BoundMailbox>);

impl MailboxRef {
    /// The mailbox at `address`.
    pub(crate) fn of<M: Model>(address: &Address<M>) -> Self {
        let channel = Arc::downgrade(address.channel());
        MailboxRef(channel)
    }

    /// The recipient model's place in `bench`'s add order, if its mailbox
    /// still exists and was added to `bench`.
    pub(crate) fn place_in(&self, bench: BenchId) -> Option<usize> {
        self.0.upgrade()?.place_in(bench)
    }
}

impl fmt::Debug for MailboxRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MailboxRef({:p})", self.0.as_ptr().cast::<()>())
    }
}

/// The identity of a sink: the address of the state its handles share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SinkKey(usize);

impl SinkKey {
    /// The identity of the sink whose shared state is `state`.
    pub(crate) fn of<S: ?Sized>(state: &S) -> Self {
        SinkKey(std::ptr::from_ref(state).cast::<()>() as usize)
    }
}

/// Where one connection leads.
#[derive(Clone)]
pub(crate) enum Recipient {
    /// A port of a model: an input for an output or event source, a
    /// replier for a requestor or query source.
    Model {
        /// The recipient's mailbox.
        mailbox: MailboxRef,
        /// The recipient port's name.
        port: &'static str,
        /// Input or replier.
        kind: PortKind,
        /// How what is sent is adapted to the port.
        mapping: Mapping,
        /// The recipient model type's metadata (its type name, if its
        /// mailbox is never added to the bench).
        metadata: fn() -> ModelMetadata,
    },
    /// A sink the bench reads (connected directly: a sink takes what is
    /// sent as is).
    Sink(SinkKey),
    /// A connection already replaced by one that refuses every message (its
    /// recipient is in another bench): not listed.
    Refused,
}

impl fmt::Debug for Recipient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Recipient::Model {
                mailbox,
                port,
                kind,
                mapping,
                ..
            } => f
                .debug_struct("Model")
                .field("mailbox", mailbox)
                .field("port", port)
                .field("kind", kind)
                .field("mapping", mapping)
                .finish(),
            Recipient::Sink(key) => f.debug_tuple("Sink").field(key).finish(),
            Recipient::Refused => f.write_str("Refused"),
        }
    }
}

/// One connection of a sending port, as listed for the topology export
/// (64 bytes: how the value is adapted is kept in the recipient's padding).
#[derive(Debug, Clone)]
pub(crate) struct Link {
    /// The sending port's name (empty for a bench source).
    pub(crate) from_port: &'static str,
    /// Where it leads, and how the value is adapted on the way.
    pub(crate) to: Recipient,
}

impl Link {
    /// How the value is adapted on the way.
    pub(crate) fn mapping(&self) -> Mapping {
        match self.to {
            Recipient::Model { mapping, .. } => mapping,
            Recipient::Sink(_) | Recipient::Refused => Mapping::Direct,
        }
    }
}

/// The connections of a model's sending ports, listed by
/// [`Model::list_connections`](crate::Model::list_connections) for the
/// bench's topology.
///
/// A hand-written model lists each of its `Output`, `Requestor` and
/// `UniRequestor` fields with [`port`](ConnectionList::port):
///
/// ```
/// # use causim::prelude::*;
/// # use causim::ports::ConnectionList;
/// # struct Counter { total: Output<u64> }
/// # impl Counter {
/// fn list_connections(&self, list: &mut ConnectionList) {
///     list.port("total", &self.total);
/// }
/// # }
/// ```
#[derive(Debug, Default)]
pub struct ConnectionList {
    /// The connections listed so far, in listing order.
    links: Vec<Link>,
}

impl ConnectionList {
    /// A list that appends to `links` (the bench lends its own buffer, so
    /// that listing a model's connections allocates nothing of its own).
    pub(crate) fn appending_to(links: Vec<Link>) -> Self {
        ConnectionList { links }
    }

    /// The connections: those the list was made with, then those listed.
    pub(crate) fn into_links(self) -> Vec<Link> {
        self.links
    }

    /// Lists every connection of the sending port `port`, under its name
    /// `name` (the field's name, as in the model's metadata).
    pub fn port(&mut self, name: &'static str, port: &impl SendingPort) {
        port.list_links(name, self);
    }

    /// Number of connections in the list.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// True if the list holds no connection.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Appends one connection of port `from_port`.
    pub(crate) fn push(&mut self, from_port: &'static str, to: Recipient) {
        if !matches!(to, Recipient::Refused) {
            self.links.push(Link { from_port, to });
        }
    }
}

/// A port that sends: [`Output`](crate::Output),
/// [`Requestor`](crate::Requestor) and
/// [`UniRequestor`](crate::UniRequestor).
///
/// Sealed: only this crate's sending ports implement it.
pub trait SendingPort: sealed::Sealed {
    /// Lists this port's connections into `list` under the name `name`.
    #[doc(hidden)]
    fn list_links(&self, name: &'static str, list: &mut ConnectionList);
}

/// The seal of [`SendingPort`].
mod sealed {
    /// Implemented by this crate's sending ports only.
    pub trait Sealed {}
}

impl<T: Clone + Send + 'static> sealed::Sealed for crate::Output<T> {}
impl<T: Clone + Send + 'static, R: Send + 'static> sealed::Sealed for crate::Requestor<T, R> {}
impl<T: Send + 'static, R: Send + 'static> sealed::Sealed for crate::UniRequestor<T, R> {}
