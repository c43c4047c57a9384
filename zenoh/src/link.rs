//! Links: the connections that cross partitions.
//!
//! A link carries one payload type from the outputs connected to it in its
//! sending partition to the inputs connected to it in its receiving
//! partition, each message arriving its lookahead after it was sent. Both
//! ends live in the kernel's own terms:
//!
//! - the sending end is a model, the link's **capture**: the outputs are
//!   connected to its one input, which encodes each value (postcard) and
//!   notes the time it was sent. A model, not a sink or a tap, because a
//!   model receives its messages in the kernel's deterministic order: the
//!   order in which the capture sees same-time values is the same on any
//!   number of threads, and it numbers them in that order;
//! - the receiving end is the bench's scheduler: at each window's end the
//!   runner schedules every message due to this process's inputs, as a
//!   bench event at its arrival time.

use std::any::type_name;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use causim::ports::{InputFor, InputRef};
use causim::prelude::*;
use causim::IntoAddress;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A typed handle on a declared link, given by
/// [`PartitionedBench::link`](crate::PartitionedBench::link) and used by the
/// partitions' builders to connect its ends.
pub struct Link<T> {
    /// The bench that declared it.
    pub(crate) bench: u64,
    /// Its index among the bench's links.
    pub(crate) index: usize,
    /// Its payload type.
    payload: PhantomData<fn(T) -> T>,
}

impl<T> Link<T> {
    /// Link `index` of bench `bench`.
    pub(crate) fn new(bench: u64, index: usize) -> Self {
        Link {
            bench,
            index,
            payload: PhantomData,
        }
    }
}

impl<T> Clone for Link<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Link<T> {}

impl<T> std::fmt::Debug for Link<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("index", &self.index)
            .field("payload", &type_name::<T>())
            .finish()
    }
}

/// A value sent on a link, encoded, or the encoder's error.
pub(crate) type Encoded = Result<Vec<u8>, String>;

/// The values a capture received since the runner last took them: the
/// time each was sent and its bytes.
pub(crate) type Captured = Arc<Mutex<Vec<(SimTime, Encoded)>>>;

/// Takes what a capture received, leaving it empty.
pub(crate) fn take(captured: &Captured) -> Vec<(SimTime, Encoded)> {
    std::mem::take(&mut *captured.lock().unwrap_or_else(PoisonError::into_inner))
}

/// The sending end of a link in its partition: a model whose input the
/// link's outputs are connected to.
///
/// It keeps no state of its own between windows (the runner takes what it
/// received at each window's end, and numbers it), so its snapshot is
/// empty: the rebuilt bench's buffer is kept.
#[model(save)]
#[derive(Debug)]
pub struct LinkCapture {
    /// Where the values wait for the window's end.
    #[transient]
    received: Captured,
}

#[model(save)]
impl LinkCapture {
    /// A value sent on the link, already encoded, at the current time.
    #[input]
    pub fn capture(&mut self, value: Encoded, cx: &mut Context<Self>) {
        let now = cx.time();
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((now, value));
    }
}

impl LinkCapture {
    /// A capture and the handle the runner reads it through.
    pub(crate) fn new() -> (Self, Captured) {
        let received = Captured::default();
        (
            LinkCapture {
                received: received.clone(),
            },
            received,
        )
    }
}

/// A receiving end whose deliveries a model's output passes on: the
/// bench's code connects that output as it would any (with maps, filters,
/// to a composite's exposed inputs).
///
/// A delivered message reaches the relay as a bench event at its arrival
/// time, and the relay's targets as a message caused then.
#[model(save)]
pub(crate) struct LinkRelay<T: Clone + Send + 'static> {
    /// The link's messages, passed on.
    pub(crate) out: Output<T>,
}

#[model(save)]
impl<T: Clone + Send + Serialize + DeserializeOwned + 'static> LinkRelay<T> {
    /// A message delivered by the link.
    #[input]
    pub(crate) async fn relay(&mut self, value: T) {
        self.out.send(value).await;
    }
}

/// The path of a link's relay model in its receiving partition.
pub(crate) fn relay_path(link: &str) -> String {
    format!("link:{link}:delivery")
}

/// Encodes a link's value with postcard.
pub(crate) fn encode<T: Serialize>(value: T) -> Encoded {
    postcard::to_allocvec(&value).map_err(|error| error.to_string())
}

/// Why a message could not be delivered.
pub(crate) enum DeliveryFailure {
    /// Its payload does not decode as the link's type.
    Decode(String),
    /// The kernel refused the event (the input's model not in this bench,
    /// the time already past).
    Schedule(String),
}

/// Delivers a message's bytes to one input of this process at its arrival
/// time: decodes the payload and schedules it as a bench event.
pub(crate) type Deliver =
    Box<dyn Fn(&Scheduler, SimTime, &[u8]) -> Result<(), DeliveryFailure> + Send>;

/// The delivery of a link's messages to the input `port` at `address`.
pub(crate) fn deliver_to<T, P>(port: P, address: impl IntoAddress<P::Model>) -> Deliver
where
    T: DeserializeOwned + Send + 'static,
    P: InputFor<T>,
{
    let input = InputRef::new(port, address);
    Box::new(move |scheduler, at, bytes| {
        let value: T = postcard::from_bytes(bytes).map_err(|error| {
            DeliveryFailure::Decode(format!(
                "cannot read a `{}` from its bytes: {error}",
                type_name::<T>()
            ))
        })?;
        scheduler
            .schedule_event(at, input.event(value))
            .map_err(|error| DeliveryFailure::Schedule(error.to_string()))
    })
}

/// Checks a link name: the capture's path is built from it.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('/') && !name.contains(char::is_whitespace)
}

/// The path of a link's capture model in its sending partition.
pub(crate) fn capture_path(link: &str) -> String {
    format!("link:{link}")
}
