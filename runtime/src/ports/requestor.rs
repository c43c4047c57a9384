//! Requestor ports: fields that send requests and collect replies.

use std::fmt;
use std::future::poll_fn;
use std::task::Poll;

use super::adapt::{Direct, Mapped};
use super::exposed::ReplierRef;
use super::input::ReplierFor;
use super::link::{ConnectionList, SendingPort};
use super::staged::StagedReplier;
use super::target::{Check, ForeignReplier, ReplierConnection, ReplierTarget};
use crate::mailbox::{IntoAddress, WaitTicket};
use crate::model::{Model, PortKind};
use crate::poll_report::{self, Blocker, Misaddressed};

/// A requestor port: sends a request to every connected replier and returns
/// their replies, in connection order (zero or more).
///
/// All requests are sent before any reply is awaited, so the repliers work
/// concurrently. Each connection owns a reusable reply slot and the replies
/// are collected in a buffer owned by the requestor: a request allocates
/// nothing once the buffer has grown to the number of connections.
pub struct Requestor<T: Clone + Send + 'static, R: Send + 'static> {
    /// The connections, in connection order.
    connections: Vec<Box<dyn ReplierTarget<T, R>>>,
    /// Replies of the last request, drained by the caller.
    replies: Vec<R>,
    /// True once every connection was checked against the sending bench
    /// (see [`check_connections`]).
    checked: bool,
}

impl<T: Clone + Send + 'static, R: Send + 'static> Requestor<T, R> {
    /// An unconnected requestor.
    pub fn new() -> Self {
        Requestor {
            connections: Vec::new(),
            replies: Vec::new(),
            checked: false,
        }
    }

    /// Connects to a replier taking `T` and replying `R`.
    pub fn connect<P: ReplierFor<T, R>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.connections.push(Box::new(ReplierConnection::new(
            address.into_address(),
            port.into_replier_port(),
            Direct,
            Direct,
        )));
        self.checked = false;
    }

    /// Connects to a replier of another signature, converting the request
    /// with `map_request` and the reply with `map_reply`.
    pub fn map_connect<U, Q, P>(
        &mut self,
        map_request: impl Fn(T) -> U + Send + Sync + 'static,
        port: P,
        map_reply: impl Fn(Q) -> R + Send + Sync + 'static,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        Q: Send + 'static,
        P: ReplierFor<U, Q>,
    {
        self.connections.push(Box::new(ReplierConnection::new(
            address.into_address(),
            port.into_replier_port(),
            Mapped(map_request),
            Mapped(map_reply),
        )));
        self.checked = false;
    }

    /// Connects to a replier exposed as a [`ReplierRef`] (by a composite):
    /// the same connection as `connect(replier.port(), replier.address())`.
    pub fn connect_to<M: Model>(&mut self, replier: &ReplierRef<M, T, R>) {
        self.connect(replier.port(), replier.address());
    }

    /// [`map_connect`](Self::map_connect) to a replier exposed as a
    /// [`ReplierRef`].
    pub fn map_connect_to<U, Q, M>(
        &mut self,
        map_request: impl Fn(T) -> U + Send + Sync + 'static,
        replier: &ReplierRef<M, U, Q>,
        map_reply: impl Fn(Q) -> R + Send + Sync + 'static,
    ) where
        U: Send + 'static,
        Q: Send + 'static,
        M: Model,
    {
        self.map_connect(map_request, replier.port(), map_reply, replier.address());
    }

    /// True if at least one connection was made.
    pub fn is_connected(&self) -> bool {
        !self.connections.is_empty()
    }

    /// The first connection to a mailbox added to a bench other than
    /// `bench` (cold: for a bench query about to be sent).
    pub(crate) fn misaddressed(&self, bench: crate::bench::BenchId) -> Option<Misaddressed> {
        self.connections
            .iter()
            .find_map(|connection| match connection.check(bench) {
                Check::Foreign(report) => Some(report),
                Check::Bound | Check::Unbound => None,
            })
    }

    /// Number of connections.
    pub fn connection_count(&self) -> usize {
        self.connections.len()
    }

    /// Sends `request` to every connected replier and returns their replies
    /// in connection order.
    ///
    /// A replier whose model no longer exists gives no reply. A replier
    /// whose mailbox was never added to the bench, or was added to another
    /// bench, gets no request and gives no reply: the call reports it
    /// ([`NoRecipient`](crate::SimulationError::NoRecipient),
    /// [`ForeignAddress`](crate::SimulationError::ForeignAddress)).
    pub async fn send(&mut self, request: T) -> std::vec::Drain<'_, R> {
        if !self.checked {
            self.checked = check_connections(&mut self.connections);
        }
        self.replies.clear();
        // Send to all connections first, so the repliers run concurrently.
        if let Some((last, rest)) = self.connections.split_last() {
            for connection in rest {
                deliver(&**connection, request.clone()).await;
            }
            deliver(&**last, request).await;
        }
        // Then collect the replies in connection order.
        for connection in &self.connections {
            if let Some(reply) = poll_fn(|cx| connection.poll_reply(cx)).await {
                self.replies.push(reply);
            }
        }
        self.replies.drain(..)
    }
}

impl<T: Clone + Send + 'static, R: Send + 'static> SendingPort for Requestor<T, R> {
    fn list_links(&self, name: &'static str, list: &mut ConnectionList) {
        for connection in &self.connections {
            list.push(name, connection.link());
        }
    }
}

/// Checks `connections` against the bench this thread runs, replacing one
/// to a replier of another bench by a [`ForeignReplier`]; true if they are
/// settled (none is in no bench yet, and a bench runs here).
///
/// Cold: a requestor's first request in a bench, and every request while
/// a replier's mailbox was never added (which is reported anyway).
#[cold]
#[inline(never)]
fn check_connections<T, R>(connections: &mut [Box<dyn ReplierTarget<T, R>>]) -> bool
where
    T: Send + 'static,
    R: Send + 'static,
{
    let Some(bench) = crate::bench::current() else {
        return false;
    };
    // A model of a bench in the deterministic order stages its requests.
    let staging = crate::staging::active();
    let mut settled = true;
    for connection in connections {
        match connection.check(bench) {
            // (A replier in no bench is not staged: its requests are
            // dropped and reported by their sender.)
            Check::Bound if staging && !connection.is_staged() && !connection.refuses() => {
                wrap_staged(connection)
            }
            Check::Bound => {}
            Check::Unbound => settled = false,
            Check::Foreign(report) => *connection = Box::new(ForeignReplier::new(report)),
        }
    }
    settled
}

/// Wraps `connection` so that it stages its requests (see `staged.rs`).
fn wrap_staged<T, R>(connection: &mut Box<dyn ReplierTarget<T, R>>)
where
    T: Send + 'static,
    R: Send + 'static,
{
    // Stands in for the moment the connection is moved into its wrapper.
    let placeholder = Box::new(ForeignReplier::new(Misaddressed {
        model_type: "",
        port: "",
        kind: PortKind::Replier,
        foreign: None,
    }));
    let inner = std::mem::replace(connection, placeholder);
    *connection = Box::new(StagedReplier(inner));
}

/// Sends one request, waiting while the recipient's mailbox is full.
///
/// The ticket keeps the send's place in line across polls; dropping the
/// future gives it up.
pub(crate) async fn deliver<T, R>(connection: &dyn ReplierTarget<T, R>, request: T) {
    let mut request = Some(request);
    let mut ticket = WaitTicket::new();
    poll_fn(|cx| match request.take() {
        Some(r) => match connection.try_send(r, cx, &mut ticket) {
            Ok(()) => {
                // Delivered after waiting: leave the mailbox's line.
                ticket.leave_served();
                Poll::Ready(())
            }
            Err(r) => {
                request = Some(r);
                Poll::Pending
            }
        },
        None => Poll::Ready(()),
    })
    .await
}

impl<T: Clone + Send + 'static, R: Send + 'static> Default for Requestor<T, R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone + Send + 'static, R: Send + 'static> fmt::Debug for Requestor<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Requestor")
            .field("request", &std::any::type_name::<T>())
            .field("reply", &std::any::type_name::<R>())
            .field("connections", &self.connections.len())
            .finish()
    }
}

/// A requestor with exactly one replier: a request returns exactly one `R`.
///
/// Built already connected, so it can never be left unconnected.
pub struct UniRequestor<T: Send + 'static, R: Send + 'static> {
    /// The one connection (in an array of one, to share
    /// [`check_connections`] with [`Requestor`]).
    connection: [Box<dyn ReplierTarget<T, R>>; 1],
    /// True once the connection was checked against the sending bench.
    checked: bool,
}

impl<T: Send + 'static, R: Send + 'static> UniRequestor<T, R> {
    /// A requestor connected to `port` of the model at `address`.
    pub fn new<P: ReplierFor<T, R>>(port: P, address: impl IntoAddress<P::Model>) -> Self {
        UniRequestor {
            connection: [Box::new(ReplierConnection::new(
                address.into_address(),
                port.into_replier_port(),
                Direct,
                Direct,
            ))],
            checked: false,
        }
    }

    /// A requestor connected through request and reply conversions.
    pub fn with_map<U, Q, P>(
        map_request: impl Fn(T) -> U + Send + Sync + 'static,
        port: P,
        map_reply: impl Fn(Q) -> R + Send + Sync + 'static,
        address: impl IntoAddress<P::Model>,
    ) -> Self
    where
        U: Send + 'static,
        Q: Send + 'static,
        P: ReplierFor<U, Q>,
    {
        UniRequestor {
            connection: [Box::new(ReplierConnection::new(
                address.into_address(),
                port.into_replier_port(),
                Mapped(map_request),
                Mapped(map_reply),
            ))],
            checked: false,
        }
    }

    /// A requestor connected to a replier exposed as a [`ReplierRef`] (by
    /// a composite).
    pub fn to<M: Model>(replier: &ReplierRef<M, T, R>) -> Self {
        Self::new(replier.port(), replier.address())
    }

    /// [`with_map`](Self::with_map) to a replier exposed as a
    /// [`ReplierRef`].
    pub fn with_map_to<U, Q, M>(
        map_request: impl Fn(T) -> U + Send + Sync + 'static,
        replier: &ReplierRef<M, U, Q>,
        map_reply: impl Fn(Q) -> R + Send + Sync + 'static,
    ) -> Self
    where
        U: Send + 'static,
        Q: Send + 'static,
        M: Model,
    {
        Self::with_map(map_request, replier.port(), map_reply, replier.address())
    }

    /// Sends `request` and returns the reply.
    ///
    /// If the replier's model no longer exists, no reply can come: the
    /// calling model stays blocked and the step reports it as deadlocked,
    /// waiting for a reply from that model.
    ///
    /// If the replier's mailbox was never added to the bench, or was added
    /// to another bench, the request is dropped and no reply can come
    /// either, but that is a wiring error, not a deadlock: the model method
    /// awaiting this call is abandoned there (its future is dropped, as if
    /// cancelled), the model goes on with its next message, and the call
    /// that ran the step reports
    /// [`NoRecipient`](crate::SimulationError::NoRecipient) or
    /// [`ForeignAddress`](crate::SimulationError::ForeignAddress) once the
    /// step is complete.
    pub async fn send(&mut self, request: T) -> R {
        if !self.checked {
            self.checked = check_connections(&mut self.connection);
        }
        let [connection] = &self.connection;
        deliver(&**connection, request).await;
        poll_fn(|cx| match connection.poll_reply(cx) {
            Poll::Ready(Some(reply)) => Poll::Ready(reply),
            Poll::Ready(None) => {
                no_reply(&**connection);
                Poll::Pending
            }
            Poll::Pending => Poll::Pending,
        })
        .await
    }
}

impl<T: Send + 'static, R: Send + 'static> UniRequestor<T, R> {
    /// Always true: a `UniRequestor` is built connected (so that a
    /// `#[required]` mark on one, which is redundant, is satisfied).
    pub fn is_connected(&self) -> bool {
        true
    }
}

impl<T: Send + 'static, R: Send + 'static> SendingPort for UniRequestor<T, R> {
    fn list_links(&self, name: &'static str, list: &mut ConnectionList) {
        let [connection] = &self.connection;
        list.push(name, connection.link());
    }
}

/// What a `UniRequestor` does when no reply will come (cold): abandons
/// the awaiting model method if the request was dropped for a wiring error
/// (already reported by the send), else waits for ever, noted so that the
/// deadlock report names the replier.
#[cold]
#[inline(never)]
fn no_reply<T, R>(connection: &dyn ReplierTarget<T, R>) {
    if connection.is_misaddressed() {
        poll_report::abandon_method();
    } else {
        poll_report::set_waiting(Blocker::Reply(connection.recipient()));
    }
}

impl<T: Send + 'static, R: Send + 'static> fmt::Debug for UniRequestor<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UniRequestor")
            .field("request", &std::any::type_name::<T>())
            .field("reply", &std::any::type_name::<R>())
            .finish()
    }
}
