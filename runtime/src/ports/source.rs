//! Bench endpoints that inject events and queries from outside.

use std::fmt;
use std::sync::Arc;

use super::event::Event;
use super::exposed::{InputRef, ReplierRef};
use super::fanout::Fanout;
use super::input::{InputFor, ReplierFor};
use super::link::{ConnectionList, SendingPort};
use super::requestor::Requestor;
use super::target::Target;
use crate::mailbox::IntoAddress;
use crate::model::Model;

/// Injects events into the bench from outside: connected like an output,
/// fired with [`Simulation::process`](crate::Simulation::process) or
/// [`Scheduler::schedule_event`](crate::Scheduler::schedule_event).
///
/// ```
/// # use causim::prelude::*;
/// let mut source = EventSource::<f64>::new();
/// assert!(!source.is_connected());
/// let event = source.event(21.5); // deliver with `simulation.process(event)`
/// # drop(event);
/// ```
pub struct EventSource<T: Clone + Send + 'static> {
    /// The connections.
    fanout: Fanout<T>,
}

impl<T: Clone + Send + 'static> EventSource<T> {
    /// An unconnected source.
    pub fn new() -> Self {
        EventSource {
            fanout: Fanout::new(),
        }
    }

    /// Connects to an input that takes `T`.
    pub fn connect<P: InputFor<T>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.fanout.connect(port, address);
    }

    /// Connects to an input that takes `U`, converting with `map`.
    pub fn map_connect<U, P>(
        &mut self,
        map: impl Fn(T) -> U + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.fanout.map_connect(map, port, address);
    }

    /// Connects to an input that takes `U`; values mapped to `None` are not
    /// sent on this connection.
    pub fn filter_map_connect<U, P>(
        &mut self,
        filter_map: impl Fn(T) -> Option<U> + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.fanout.filter_map_connect(filter_map, port, address);
    }

    /// Connects to an input exposed as an [`InputRef`] (by a composite).
    pub fn connect_to<M: Model>(&mut self, input: &InputRef<M, T>) {
        self.fanout.connect(input.port(), input.address());
    }

    /// [`map_connect`](Self::map_connect) to an input exposed as an
    /// [`InputRef`].
    pub fn map_connect_to<U, M>(
        &mut self,
        map: impl Fn(T) -> U + Send + Sync + 'static,
        input: &InputRef<M, U>,
    ) where
        U: Send + 'static,
        M: Model,
    {
        self.fanout.map_connect(map, input.port(), input.address());
    }

    /// [`filter_map_connect`](Self::filter_map_connect) to an input
    /// exposed as an [`InputRef`].
    pub fn filter_map_connect_to<U, M>(
        &mut self,
        filter_map: impl Fn(T) -> Option<U> + Send + Sync + 'static,
        input: &InputRef<M, U>,
    ) where
        U: Send + 'static,
        M: Model,
    {
        self.fanout
            .filter_map_connect(filter_map, input.port(), input.address());
    }

    /// True if at least one connection was made.
    pub fn is_connected(&self) -> bool {
        self.fanout.len() > 0
    }

    /// An event that sends `value` to every connection.
    pub fn event(&self, value: T) -> Event {
        Event::from_source(self, value)
    }

    /// The connections.
    pub(crate) fn targets(&self) -> &[Arc<dyn Target<T>>] {
        self.fanout.targets()
    }

    /// Lists the connections, for the topology export (cold).
    pub(crate) fn list_links(&self, list: &mut ConnectionList) {
        self.fanout.list_links("", list);
    }
}

impl<T: Clone + Send + 'static> Default for EventSource<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone + Send + 'static> fmt::Debug for EventSource<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSource")
            .field("payload", &std::any::type_name::<T>())
            .field("connections", &self.fanout.len())
            .finish()
    }
}

/// Sends queries into the bench from outside and collects every reply, with
/// [`Simulation::process_query_from`](crate::Simulation::process_query_from).
pub struct QuerySource<T: Clone + Send + 'static, R: Send + 'static> {
    /// The connections, used by one query at a time.
    pub(crate) requestor: Requestor<T, R>,
}

impl<T: Clone + Send + 'static, R: Send + 'static> QuerySource<T, R> {
    /// An unconnected source.
    pub fn new() -> Self {
        QuerySource {
            requestor: Requestor::new(),
        }
    }

    /// Connects to a replier taking `T` and replying `R`.
    pub fn connect<P: ReplierFor<T, R>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.requestor.connect(port, address);
    }

    /// Connects to a replier of another signature through conversions.
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
        self.requestor
            .map_connect(map_request, port, map_reply, address);
    }

    /// Connects to a replier exposed as a [`ReplierRef`] (by a composite).
    pub fn connect_to<M: Model>(&mut self, replier: &ReplierRef<M, T, R>) {
        self.requestor.connect_to(replier);
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
        self.requestor
            .map_connect_to(map_request, replier, map_reply);
    }

    /// True if at least one connection was made.
    pub fn is_connected(&self) -> bool {
        self.requestor.is_connected()
    }

    /// Lists the connections, for the topology export (cold).
    pub(crate) fn list_links(&self, list: &mut ConnectionList) {
        self.requestor.list_links("", list);
    }
}

impl<T: Clone + Send + 'static, R: Send + 'static> Default for QuerySource<T, R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone + Send + 'static, R: Send + 'static> fmt::Debug for QuerySource<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuerySource")
            .field("requestor", &self.requestor)
            .finish()
    }
}
