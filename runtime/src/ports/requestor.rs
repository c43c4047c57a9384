//! Requestor ports: fields that send requests and collect replies.

use std::fmt;
use std::future::poll_fn;
use std::task::Poll;

use super::input::ReplierFor;
use super::target::{identity, ReplierConnection, ReplierTarget};
use crate::mailbox::{IntoAddress, WaitTicket};
use crate::poll_report::{self, Blocker};

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
}

impl<T: Clone + Send + 'static, R: Send + 'static> Requestor<T, R> {
    /// An unconnected requestor.
    pub fn new() -> Self {
        Requestor {
            connections: Vec::new(),
            replies: Vec::new(),
        }
    }

    /// Connects to a replier taking `T` and replying `R`.
    pub fn connect<P: ReplierFor<T, R>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.connections.push(Box::new(ReplierConnection::new(
            address.into_address(),
            port.into_replier_port(),
            identity::<T>,
            identity::<R>,
        )));
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
            map_request,
            map_reply,
        )));
    }

    /// True if at least one connection was made.
    pub fn is_connected(&self) -> bool {
        !self.connections.is_empty()
    }

    /// Number of connections.
    pub fn connection_count(&self) -> usize {
        self.connections.len()
    }

    /// Sends `request` to every connected replier and returns their replies
    /// in connection order.
    ///
    /// A replier whose model no longer exists gives no reply.
    pub async fn send(&mut self, request: T) -> std::vec::Drain<'_, R> {
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
    /// The one connection.
    connection: Box<dyn ReplierTarget<T, R>>,
}

impl<T: Send + 'static, R: Send + 'static> UniRequestor<T, R> {
    /// A requestor connected to `port` of the model at `address`.
    pub fn new<P: ReplierFor<T, R>>(port: P, address: impl IntoAddress<P::Model>) -> Self {
        UniRequestor {
            connection: Box::new(ReplierConnection::new(
                address.into_address(),
                port.into_replier_port(),
                identity::<T>,
                identity::<R>,
            )),
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
            connection: Box::new(ReplierConnection::new(
                address.into_address(),
                port.into_replier_port(),
                map_request,
                map_reply,
            )),
        }
    }

    /// Sends `request` and returns the reply.
    ///
    /// If the replier's model no longer exists, no reply can come: the
    /// calling model stays blocked and the step reports it as deadlocked,
    /// waiting for a reply from that model.
    pub async fn send(&mut self, request: T) -> R {
        deliver(&*self.connection, request).await;
        let connection = &self.connection;
        poll_fn(|cx| match connection.poll_reply(cx) {
            Poll::Ready(Some(reply)) => Poll::Ready(reply),
            Poll::Ready(None) => {
                // Abandoned: note it so the deadlock report names the replier.
                poll_report::set_waiting(Blocker::Reply(connection.recipient()));
                Poll::Pending
            }
            Poll::Pending => Poll::Pending,
        })
        .await
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
