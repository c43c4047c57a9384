//! Sink buffers: what a model sends to a remote sink, as JSON, until a
//! client takes it.
//!
//! The models fill a buffer from their step (on any executor thread); the
//! server's request tasks drain it, read its latest value, or subscribe to
//! it. One lock guards the queue and the latest value: a push is a short
//! critical section (the value is serialised before it is taken).
//! Subscribers get each value through a broadcast channel; one that falls
//! more than a channel's length behind is told how many values it lost.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use causim::SimTime;
use serde::Serialize;
use tokio::sync::broadcast;

/// How many values a subscriber may fall behind before it loses some.
const SUBSCRIBER_LAG: usize = 65_536;

/// One value of a sink: when it was sent, and the value as JSON.
#[derive(Debug, Clone)]
pub(crate) struct SinkValue {
    /// Simulation time of the send.
    pub(crate) time: SimTime,
    /// The value, as JSON text.
    pub(crate) json: Arc<str>,
}

/// The most value text one drain returns: a reply stays under the 4 MiB
/// that gRPC clients accept by default (a single larger value is still
/// returned alone, and the server and the Python client accept 64 MiB).
const DRAIN_BYTES: usize = 3 * 1024 * 1024;

/// What a value adds to a reply besides its text: its time and framing.
const VALUE_OVERHEAD: usize = 16;

/// What a sink holds between two drains.
#[derive(Debug, Default)]
struct Held {
    /// Values not yet drained, oldest first.
    values: VecDeque<SinkValue>,
    /// Values dropped since the last drain because the queue was full.
    dropped: u64,
    /// The latest value, drained or not.
    latest: Option<SinkValue>,
}

/// The buffer behind a remote sink.
#[derive(Debug)]
pub(crate) struct SinkBuffer {
    /// The queue and the latest value.
    held: Mutex<Held>,
    /// Most values kept until drained.
    capacity: usize,
    /// Each value, to the subscribers.
    subscribers: broadcast::Sender<SinkValue>,
}

impl SinkBuffer {
    /// An empty buffer keeping at most `capacity` values.
    pub(crate) fn new(capacity: usize) -> Self {
        SinkBuffer {
            held: Mutex::new(Held::default()),
            capacity,
            subscribers: broadcast::channel(SUBSCRIBER_LAG).0,
        }
    }

    /// Keeps `value`, sent at `time`, and hands it to the subscribers.
    pub(crate) fn push<U: Serialize>(&self, time: SimTime, value: &U) {
        let json: Arc<str> = match serde_json::to_string(value) {
            Ok(json) => json.into(),
            // A map with non-string keys, say: the client still sees that
            // a value came, and why it cannot read it.
            Err(error) => serde_json::json!({ "unserializable": error.to_string() })
                .to_string()
                .into(),
        };
        let value = SinkValue { time, json };
        let mut held = self.lock();
        if self.capacity == 0 {
            held.dropped += 1;
        } else {
            if held.values.len() == self.capacity {
                held.values.pop_front();
                held.dropped += 1;
            }
            held.values.push_back(value.clone());
        }
        held.latest = Some(value.clone());
        drop(held);
        // No subscriber is not an error.
        let _ = self.subscribers.send(value);
    }

    /// Takes every value held, oldest first, and the count of those
    /// dropped since the last drain.
    pub(crate) fn drain(&self) -> (Vec<SinkValue>, u64, bool) {
        let mut held = self.lock();
        let dropped = std::mem::take(&mut held.dropped);
        // Oldest first, up to a reply that any gRPC client receives with
        // its default limit (4 MiB); the rest stays for the next drain.
        let mut bytes = 0;
        let count = held
            .values
            .iter()
            .take_while(|value| {
                bytes += value.json.len() + VALUE_OVERHEAD;
                bytes <= DRAIN_BYTES
            })
            .count()
            .max(1)
            .min(held.values.len());
        let values = held.values.drain(..count).collect();
        (values, dropped, !held.values.is_empty())
    }

    /// The latest value, if any came.
    pub(crate) fn latest(&self) -> Option<SinkValue> {
        self.lock().latest.clone()
    }

    /// A receiver of every value from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<SinkValue> {
        self.subscribers.subscribe()
    }

    /// The held values; a panic elsewhere while holding them leaves them
    /// consistent (each change is one push or pop), so poisoning is ignored.
    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
