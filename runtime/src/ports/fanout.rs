//! The connection list shared by outputs and event sources, and the
//! allocation-free fan-out send over it.

use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::input::InputFor;
use super::sink::Sink;
use super::target::{identity_some, InputTarget, Target};
use crate::mailbox::IntoAddress;

/// The connections of one output or event source, in connection order.
pub(crate) struct Fanout<T> {
    /// Where each sent value goes; shared with in-flight source events.
    targets: Targets<T>,
}

/// A list of targets that keeps a single one inline.
///
/// Most outputs have exactly one connection. Holding it in the output
/// itself, rather than in a vector's heap buffer, saves a dependent load
/// (often a cache miss in a large bench) on every send.
enum Targets<T> {
    /// No connection.
    None,
    /// One connection, inline.
    One([Arc<dyn Target<T>>; 1]),
    /// Two or more.
    Many(Vec<Arc<dyn Target<T>>>),
}

impl<T> Targets<T> {
    /// Appends `target`.
    fn push(&mut self, target: Arc<dyn Target<T>>) {
        *self = match std::mem::replace(self, Targets::None) {
            Targets::None => Targets::One([target]),
            Targets::One([first]) => Targets::Many(vec![first, target]),
            Targets::Many(mut all) => {
                all.push(target);
                Targets::Many(all)
            }
        };
    }

    /// The targets, in connection order.
    #[inline]
    fn as_slice(&self) -> &[Arc<dyn Target<T>>] {
        match self {
            Targets::None => &[],
            Targets::One(one) => one,
            Targets::Many(all) => all,
        }
    }
}

impl<T: Clone + Send + 'static> Fanout<T> {
    /// No connections.
    pub(crate) fn new() -> Self {
        Fanout {
            targets: Targets::None,
        }
    }

    /// Connects to an input taking `T`.
    pub(crate) fn connect<P: InputFor<T>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.add(InputTarget {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: identity_some::<T>,
        });
    }

    /// Connects to an input taking `U`, converting each value with `map`.
    pub(crate) fn map_connect<U, P>(
        &mut self,
        map: impl Fn(T) -> U + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.add(InputTarget {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: move |v| Some(map(v)),
        });
    }

    /// Connects to an input taking `U`; values mapped to `None` are not sent.
    pub(crate) fn filter_map_connect<U, P>(
        &mut self,
        filter_map: impl Fn(T) -> Option<U> + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.add(InputTarget {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: filter_map,
        });
    }

    /// Connects to a sink read from the bench.
    pub(crate) fn connect_sink(&mut self, sink: &impl Sink<T>) {
        self.targets.push(sink.target());
    }

    fn add(&mut self, target: impl Target<T> + 'static) {
        self.targets.push(Arc::new(target));
    }

    /// The connections, in order.
    pub(crate) fn targets(&self) -> &[Arc<dyn Target<T>>] {
        self.targets.as_slice()
    }

    /// Number of connections.
    pub(crate) fn len(&self) -> usize {
        self.targets.as_slice().len()
    }
}

impl<T> fmt::Debug for Fanout<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fanout")
            .field("connections", &self.targets.as_slice().len())
            .finish()
    }
}

/// Progress of one value through the connections of a fan-out.
///
/// Each connection but the last gets a clone; the last gets the original.
/// A value that met a full mailbox is kept here until it can be delivered,
/// so a send never clones twice for one connection.
#[derive(Debug)]
pub(crate) struct FanoutSend<T> {
    /// Index of the next connection to serve.
    next: usize,
    /// The original value, until the last connection takes it.
    value: Option<T>,
    /// The copy for connection `next`, when its mailbox was full.
    pending: Option<T>,
}

impl<T: Clone> FanoutSend<T> {
    /// Starts sending `value`.
    pub(crate) fn new(value: T) -> Self {
        FanoutSend {
            next: 0,
            value: Some(value),
            pending: None,
        }
    }

    /// Delivers to each connection in order; `Pending` while one is full.
    pub(crate) fn poll(
        &mut self,
        targets: &[Arc<dyn Target<T>>],
        cx: &mut Context<'_>,
    ) -> Poll<()> {
        while let Some(target) = targets.get(self.next) {
            let is_last = self.next + 1 == targets.len();
            let value = match self.pending.take() {
                Some(value) => Some(value),
                None if is_last => self.value.take(),
                None => self.value.clone(),
            };
            // Only an already-completed send has no value left.
            let Some(value) = value else {
                return Poll::Ready(());
            };
            match target.try_send(value, cx) {
                Ok(()) => self.next += 1,
                Err(value) => {
                    self.pending = Some(value);
                    return Poll::Pending;
                }
            }
        }
        Poll::Ready(())
    }
}
