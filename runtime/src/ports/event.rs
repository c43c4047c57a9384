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
use std::time::Duration;

use super::fanout::FanoutSend;
use super::target::{check_address, describe_input, push_from_bench, Check, Target};
use super::{EventSource, InputFor, InputPort};
use crate::bench::BenchId;
use crate::mailbox::{Address, IntoAddress};
use crate::model::{Model, PortKind};
use crate::poll_report::Misaddressed;

/// A deliverable event.
///
/// `Any` is a supertrait so that a `dyn Action` upcasts to `dyn Any` (one
/// load from its table) to be downcast for reuse (`scheduler::spare`),
/// rather than through a method of its own (one dynamic call more per
/// reused box).
pub(crate) trait Action: Any + Send {
    /// Delivers the event now. The bench's delivery never waits: a full
    /// mailbox takes it in its overflow (the same-time rule, see
    /// `mailbox/overflow.rs`). A periodic action can fire again.
    fn fire(&mut self);

    /// The recipient, if its mailbox is not in `bench`: never added to a
    /// bench, or added to another one (cold: checked by the bench call
    /// that fires or schedules the event).
    fn misaddressed(&self, bench: BenchId) -> Option<Misaddressed>;

    /// The period of a periodic event; `None` for a one-shot event.
    fn period(&self) -> Option<Duration> {
        None
    }

    /// What the event delivers, and to whom, for an error report (cold).
    fn describe(&self) -> String {
        "an event".to_string()
    }

    /// Appends the payload to `out` and tells where the event goes, for a
    /// snapshot; or why it cannot be saved.
    #[cfg(feature = "save")]
    fn save(&self, out: &mut Vec<u8>) -> Result<SavedEvent, String> {
        let _ = out;
        Err("only events for a model's input can be saved".to_string())
    }

    /// Starts loading what [`save`](Action::save) reads of the recipient's
    /// mailbox (see `prefetch.rs`).
    #[cfg(feature = "save")]
    fn prefetch_recipient(&self) {}
}

/// Where a saved event goes.
#[cfg(feature = "save")]
pub(crate) struct SavedEvent {
    /// The recipient's bench and its place there, unless its mailbox was
    /// never added to a bench.
    pub(crate) recipient: Option<(BenchId, u32)>,
    /// The input.
    pub(crate) port: &'static str,
}

/// Saves the payload of an event for `port` of the model at `address`.
#[cfg(feature = "save")]
fn save_payload<M: Model, T: 'static>(
    address: &Address<M>,
    port: InputPort<M, T>,
    payload: &T,
    out: &mut Vec<u8>,
) -> Result<SavedEvent, String> {
    let hooks = M::save_hooks().ok_or_else(|| {
        format!(
            "its model type `{}` cannot be saved (mark it `#[model(save)]`)",
            address.model_type()
        )
    })?;
    (hooks.encode_input)(port.name(), payload, out).map_err(|error| error.to_string())?;
    Ok(SavedEvent {
        recipient: address.channel().placement(),
        port: port.name(),
    })
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
    /// The time between two occurrences.
    period: Duration,
}

/// Delivers one payload from the bench (never waits).
fn deliver_payload<M: Model, T>(address: &Address<M>, port: InputPort<M, T>, payload: T) {
    push_from_bench(address, port.name(), payload, |p| Some(port.message(p)));
}

/// The recipient, if its mailbox is not in `bench`.
fn misaddressed<M: Model, T>(
    address: &Address<M>,
    port: InputPort<M, T>,
    bench: BenchId,
) -> Option<Misaddressed> {
    match check_address(address, port.name(), PortKind::Input, bench) {
        Check::Bound => None,
        Check::Unbound => Some(Misaddressed {
            model_type: address.model_type(),
            port: port.name(),
            kind: PortKind::Input,
            foreign: None,
        }),
        Check::Foreign(report) => Some(report),
    }
}

impl<M: Model, T: Send + 'static> Action for OnceAction<M, T> {
    fn fire(&mut self) {
        if let Some(payload) = self.payload.take() {
            deliver_payload(&self.address, self.port, payload);
        }
    }

    fn misaddressed(&self, bench: BenchId) -> Option<Misaddressed> {
        misaddressed(&self.address, self.port, bench)
    }

    fn describe(&self) -> String {
        let payload = std::any::type_name::<T>();
        let input = describe_input(&self.address, self.port.name());
        format!("an event of `{payload}` for {input}")
    }

    #[cfg(feature = "save")]
    fn save(&self, out: &mut Vec<u8>) -> Result<SavedEvent, String> {
        match &self.payload {
            Some(payload) => save_payload(&self.address, self.port, payload, out),
            None => Err("it was delivered already".to_string()),
        }
    }

    #[cfg(feature = "save")]
    fn prefetch_recipient(&self) {
        self.address.channel().prefetch_binding();
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
    fn fire(&mut self) {
        deliver_payload(&self.address, self.port, self.payload.clone());
    }

    fn misaddressed(&self, bench: BenchId) -> Option<Misaddressed> {
        misaddressed(&self.address, self.port, bench)
    }

    fn period(&self) -> Option<Duration> {
        Some(self.period)
    }

    fn describe(&self) -> String {
        let payload = std::any::type_name::<T>();
        let input = describe_input(&self.address, self.port.name());
        format!("a periodic event of `{payload}` for {input}")
    }

    #[cfg(feature = "save")]
    fn save(&self, out: &mut Vec<u8>) -> Result<SavedEvent, String> {
        save_payload(&self.address, self.port, &self.payload, out)
    }

    #[cfg(feature = "save")]
    fn prefetch_recipient(&self) {
        self.address.channel().prefetch_binding();
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
    fn fire(&mut self) {
        self.progress.deliver_from_bench(&self.targets);
    }

    /// Only a connection to another bench: one to a mailbox never added
    /// is reported as the event is delivered to the others.
    fn misaddressed(&self, bench: BenchId) -> Option<Misaddressed> {
        self.targets
            .iter()
            .find_map(|target| match target.check(bench) {
                Check::Foreign(report) => Some(report),
                Check::Bound | Check::Unbound => None,
            })
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

    #[cfg(feature = "save")]
    fn save(&self, _: &mut Vec<u8>) -> Result<SavedEvent, String> {
        Err("an event source's events cannot be saved: schedule the event on the model's input instead (`Scheduler::schedule`), which names its recipient".to_string())
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
