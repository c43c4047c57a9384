//! Events: a value bound for an input port, or for every connection of an
//! event source, and what delivering it does.
//!
//! An event is port-shaped: it knows its recipients and how to push to
//! them, like an output does. The scheduler only orders events in time and
//! fires them when they are due; it never looks inside one.
//!
//! Events are type-erased (`Box<dyn Action>`): the scheduler's queue holds
//! events for every model type. A new event allocates its box; an event a
//! model schedules from its context reuses the box of one of its events
//! that has fired (see `scheduler::spare`), so a model's steady stream of
//! events allocates nothing.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use super::fanout::FanoutSend;
use super::target::{describe_input, Target};
use super::{EventSource, InputFor, InputPort};
use crate::mailbox::channel::Pushed;
use crate::mailbox::{Address, IntoAddress};
use crate::model::Model;
use crate::poll_report::Unbound;

/// A deliverable event.
///
/// `Any` is a supertrait so that a `dyn Action` upcasts to `dyn Any` (one
/// load from its table) to be downcast for reuse (`scheduler::spare`),
/// rather than through a method of its own (one dynamic call more per
/// reused box).
pub(crate) trait Action: Any + Send {
    /// Delivers the event; `Pending` while the recipient's mailbox is full.
    /// A periodic action can fire again after completing.
    fn poll_fire(&mut self, cx: &mut Context<'_>) -> Poll<()>;

    /// The recipient, if it is a mailbox that was never added to a bench.
    fn unbound_recipient(&self) -> Option<Unbound>;

    /// The period of a periodic event; `None` for a one-shot event.
    fn period(&self) -> Option<Duration> {
        None
    }

    /// What the event delivers, and to whom, for an error report (cold).
    fn describe(&self) -> String {
        "an event".to_string()
    }
}

/// A one-shot event for an input port: one message to one mailbox.
pub(crate) struct OnceAction<M: Model, T> {
    /// The recipient.
    address: Address<M>,
    /// The input.
    port: InputPort<M, T>,
    /// The payload, until delivered.
    payload: Option<T>,
}

/// A periodic event for an input port: a clone of the payload each time.
struct PeriodicAction<M: Model, T> {
    /// The recipient.
    address: Address<M>,
    /// The input.
    port: InputPort<M, T>,
    /// The payload cloned for each occurrence.
    payload: T,
    /// This occurrence's copy, while the recipient's mailbox is full.
    pending: Option<T>,
    /// The time between two occurrences.
    period: Duration,
}

/// Pushes one payload, handing it back when the mailbox is full.
fn push_payload<M: Model, T>(
    address: &Address<M>,
    port: InputPort<M, T>,
    payload: T,
    cx: &mut Context<'_>,
) -> Result<(), T> {
    match address
        .channel()
        // The bench polls events with a no-op waker and tries again after
        // running the models: no place in line (see `Channel::try_push_with`).
        .try_push_with(payload, |p| Some(port.message(p)), cx, None)
    {
        Ok(Pushed::Unbound) => {
            crate::poll_report::note_unbound(address.model_type(), port.name());
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(payload) => Err(payload),
    }
}

/// The recipient, if its mailbox was never added to a bench.
fn unbound<M: Model, T>(address: &Address<M>, port: InputPort<M, T>) -> Option<Unbound> {
    address.channel().name().is_none().then(|| Unbound {
        model_type: address.model_type(),
        port: port.name(),
    })
}

impl<M: Model, T: Send + 'static> Action for OnceAction<M, T> {
    fn poll_fire(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(payload) = self.payload.take() else {
            return Poll::Ready(());
        };
        match push_payload(&self.address, self.port, payload, cx) {
            Ok(()) => Poll::Ready(()),
            Err(payload) => {
                self.payload = Some(payload);
                Poll::Pending
            }
        }
    }

    fn unbound_recipient(&self) -> Option<Unbound> {
        unbound(&self.address, self.port)
    }

    fn describe(&self) -> String {
        let payload = std::any::type_name::<T>();
        let input = describe_input(&self.address, self.port.name());
        format!("an event of `{payload}` for {input}")
    }
}

impl<M: Model, T: Send + 'static> OnceAction<M, T> {
    /// Makes this (fired) action deliver `payload` to `port` of the model
    /// at `address`, keeping its address if it is the same mailbox.
    pub(crate) fn refill(&mut self, port: InputPort<M, T>, payload: T, address: &Address<M>) {
        if !Arc::ptr_eq(self.address.channel(), address.channel()) {
            self.address = address.clone();
        }
        self.port = port;
        self.payload = Some(payload);
    }
}

impl<M: Model, T: Clone + Send + 'static> Action for PeriodicAction<M, T> {
    fn poll_fire(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let payload = self.pending.take().unwrap_or_else(|| self.payload.clone());
        match push_payload(&self.address, self.port, payload, cx) {
            Ok(()) => Poll::Ready(()),
            Err(payload) => {
                self.pending = Some(payload);
                Poll::Pending
            }
        }
    }

    fn unbound_recipient(&self) -> Option<Unbound> {
        unbound(&self.address, self.port)
    }

    fn period(&self) -> Option<Duration> {
        Some(self.period)
    }

    fn describe(&self) -> String {
        let payload = std::any::type_name::<T>();
        let input = describe_input(&self.address, self.port.name());
        format!("a periodic event of `{payload}` for {input}")
    }
}

/// An event from an [`EventSource`]: one value to each of its connections.
struct SourceAction<T> {
    /// The source's connections when the event was made.
    targets: Vec<Arc<dyn Target<T>>>,
    /// Delivery progress.
    progress: FanoutSend<T>,
}

impl<T: Clone + Send + 'static> Action for SourceAction<T> {
    fn poll_fire(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        // Polled by the bench, which needs no place in line (see
        // `push_payload`).
        self.progress.poll(&self.targets, cx, None)
    }

    fn unbound_recipient(&self) -> Option<Unbound> {
        None
    }

    fn describe(&self) -> String {
        let payload = std::any::type_name::<T>();
        let index = self.progress.position();
        let recipient = self
            .targets
            .get(index)
            .map_or_else(|| "no connection".to_string(), |t| t.describe());
        format!("an event of `EventSource<{payload}>`, connection {index} ({recipient})")
    }
}

/// An event ready to be processed now or scheduled: a value bound for an
/// input port of a model, or for every connection of an [`EventSource`].
///
/// ```
/// # use causim::prelude::*;
/// let source = EventSource::<u32>::new();
/// let event: Event = source.event(7);
/// # drop(event);
/// ```
pub struct Event {
    /// What delivering it does.
    pub(crate) action: Box<dyn Action>,
}

impl Event {
    /// An event delivering `payload` to `port` of the model at `address`.
    pub fn new<T, P>(port: P, payload: T, address: impl IntoAddress<P::Model>) -> Self
    where
        T: Send + 'static,
        P: InputFor<T>,
    {
        Event {
            action: Box::new(OnceAction {
                address: address.into_address(),
                port: port.into_input_port(),
                payload: Some(payload),
            }),
        }
    }

    /// A periodic action delivering a clone of `payload` every `period`.
    pub(crate) fn periodic<T, P>(
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
        period: Duration,
    ) -> Self
    where
        T: Clone + Send + 'static,
        P: InputFor<T>,
    {
        Event {
            action: Box::new(PeriodicAction {
                address: address.into_address(),
                port: port.into_input_port(),
                payload,
                pending: None,
                period,
            }),
        }
    }

    /// An event delivering `value` to each connection of a source.
    pub(crate) fn from_source<T: Clone + Send + 'static>(
        source: &EventSource<T>,
        value: T,
    ) -> Self {
        Event {
            action: Box::new(SourceAction {
                targets: source.targets().to_vec(),
                progress: FanoutSend::new(value),
            }),
        }
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event").finish_non_exhaustive()
    }
}
