//! Output ports: fields that send events to connected inputs.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::exposed::InputRef;
use super::fanout::{Fanout, FanoutSend};
use super::input::InputFor;
use super::link::{ConnectionList, SendingPort};
use super::sink::Sink;
use super::tap::Tap;
use crate::mailbox::{IntoAddress, WaitTicket};
use crate::model::Model;

/// An output port: sends each value to every connected input, in connection
/// order.
///
/// Fan-out clones the value for every connection but the last, which gets
/// the original. An unconnected output sends nothing.
pub struct Output<T: Clone + Send + 'static> {
    /// The connections.
    fanout: Fanout<T>,
}

impl<T: Clone + Send + 'static> Output<T> {
    /// An unconnected output.
    pub fn new() -> Self {
        Output {
            fanout: Fanout::new(),
        }
    }

    /// Connects this output to an input that takes `T`.
    pub fn connect<P: InputFor<T>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.fanout.connect(port, address);
    }

    /// Connects this output to an input that takes `U`, converting each
    /// value with `map`.
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

    /// Connects this output to an input that takes `U`; values for which
    /// `filter_map` returns `None` are not sent on this connection.
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

    /// Connects this output to an input exposed as an [`InputRef`] (by a
    /// composite): the same connection as `connect(input.port(),
    /// input.address())`.
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

    /// Connects this output to a sink that the bench reads.
    pub fn connect_sink(&mut self, sink: &impl Sink<T>) {
        self.fanout.connect_sink(sink);
    }

    /// Shows every value this output sends to `tap`, by reference, when
    /// [`send`](Self::send) is called (after the taps added before it).
    ///
    /// A tap is not a connection: it does not count in
    /// [`connection_count`](Self::connection_count), is not in the
    /// topology, and the connections get each value as they would without
    /// it (an output of one connection still sends without a clone). The
    /// tapped send is one out-of-line call longer. Recorders of
    /// `causim-record` are taps (`output.tap(recorder.tap())`), which
    /// record without a lock.
    pub fn tap(&mut self, tap: impl Tap<T>) {
        self.fanout.tap(tap);
    }

    /// True if at least one connection was made.
    pub fn is_connected(&self) -> bool {
        self.fanout.len() > 0
    }

    /// Number of connections.
    pub fn connection_count(&self) -> usize {
        self.fanout.len()
    }

    /// Sends `value` to every connection; waits while a recipient's mailbox
    /// is full.
    #[inline]
    pub fn send(&mut self, value: T) -> OutputSend<'_, T> {
        self.fanout.prepare_send(&value);
        OutputSend {
            fanout: &self.fanout,
            progress: FanoutSend::new(value),
            ticket: WaitTicket::new(),
        }
    }
}

impl<T: Clone + Send + 'static> SendingPort for Output<T> {
    fn list_links(&self, name: &'static str, list: &mut ConnectionList) {
        self.fanout.list_links(name, list);
    }
}

impl<T: Clone + Send + 'static> Default for Output<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone + Send + 'static> fmt::Debug for Output<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Output")
            .field("payload", &std::any::type_name::<T>())
            .field("connections", &self.fanout.len())
            .finish()
    }
}

/// The future returned by [`Output::send`].
#[must_use = "an output sends nothing unless the future is awaited"]
#[derive(Debug)]
pub struct OutputSend<'a, T: Clone + Send + 'static> {
    /// The output's connections (checked by `send`, before the future
    /// borrows them).
    fanout: &'a Fanout<T>,
    /// How far the value got.
    progress: FanoutSend<T>,
    /// Its place in line while a recipient's mailbox is full; dropping the
    /// future gives the place up (and a wake-up it held, to the next one).
    ticket: WaitTicket<'a>,
}

impl<T: Clone + Send + 'static> Future for OutputSend<'_, T> {
    type Output = ();

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        this.fanout
            .poll_send(&mut this.progress, cx, Some(&mut this.ticket))
    }
}

impl<T: Clone + Send + 'static> Unpin for OutputSend<'_, T> {}
