//! A restore's pending events: listed once to make their keys, then each
//! checked against its recipient's inputs and put in an event list.
//!
//! The second reading is the longest step of a restore with many events,
//! and it can be shared: the events are taken in chunks of [`CHUNK`], from
//! places the first reading marked, by whichever thread is free (the
//! helper once it has checked the wiring, the calling thread once it has
//! spawned the tasks and read the states back), each into an event list
//! of its own, and the lists are joined. An event list orders its events
//! by time, origin and sequence number, not by arrival, so the result is
//! the same however the chunks fell. Of two events that fail, the one of
//! lower index is reported, as a restore on one thread would.

use std::cell::Cell;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::split::{Chunks, Failed, Rank, Staged};
use super::{malformed, PREFETCH_AHEAD};
use crate::prefetch::prefetch;
use crate::scheduler::heap::{Entry, RadixQueue};
use crate::scheduler::{entry, EventKey};
use crate::snapshot::error::RestoreError;
use crate::snapshot::format::{Body, EventRecord, EventsMark};
use crate::snapshot::handle::ModelHandle;
use crate::snapshot::keys::{self, RestoreKeys};
use crate::snapshot::Models;
use crate::time::SimTime;

/// How many events a thread takes at a time.
const CHUNK: usize = 1024;

/// The saved pending events, read once to make their keys (all of them
/// before any payload is read: a payload may hold a key): what an
/// [`EventList`] needs to restore them.
pub(super) struct ListedEvents {
    /// The keys made, by number.
    pub(super) keys: Arc<RestoreKeys>,
    /// Each event's key, if it has one, cloned into the event restored.
    event_keys: Vec<Option<EventKey>>,
    /// Each event's recipient, by the model's place.
    recipients: Vec<u32>,
    /// Where each chunk of [`CHUNK`] events starts.
    chunks: Vec<EventsMark>,
}

/// Reads the saved pending events a first time: their times, origins and
/// keys checked, their keys made, their chunks marked.
pub(super) fn listed_events(
    models: Models<'_>,
    body: &Body<'_>,
) -> Result<ListedEvents, RestoreError> {
    let origins = models.len() as u64;
    let mut keys = RestoreKeys::default();
    let mut event_keys = Vec::with_capacity(body.events.len());
    let mut recipients = Vec::with_capacity(body.events.len());
    let mut chunks = Vec::with_capacity(body.events.len().div_ceil(CHUNK));
    // Read to the end, past the last event: this is the reading that finds
    // bytes left after the body (see `EventRecords::iter`), before
    // anything is applied. (`len` is bounded by the body's size.)
    let mut records = body.events.iter();
    loop {
        if recipients.len() % CHUNK == 0 && recipients.len() < body.events.len() {
            chunks.push(records.mark());
        }
        let Some(record) = records.next() else { break };
        let record = record.map_err(malformed)?;
        if record.time < body.time || u64::from(record.origin) > origins {
            return Err(malformed(format!(
                "a pending event at {} ns from origin {} (the snapshot is at {} ns, with {origins} models)",
                record.time, record.origin, body.time
            )));
        }
        let key = match record.key {
            0 => None,
            number => Some(keys.key(number).ok_or_else(|| {
                malformed(format!("key number {number} out of its events' order"))
            })?),
        };
        event_keys.push(key);
        recipients.push(record.model);
    }
    Ok(ListedEvents {
        keys: Arc::new(keys),
        event_keys,
        recipients,
        chunks,
    })
}

/// The saved pending events being restored, a chunk at a time, by one or
/// two threads.
pub(super) struct EventList<'a> {
    /// The bench's models.
    models: Models<'a>,
    /// The snapshot.
    body: &'a Body<'a>,
    /// What the first reading found.
    listed: ListedEvents,
    /// The models' handles by place, listed by the first thread that
    /// needs them (see [`recipient_handles`]).
    handles: OnceLock<Vec<&'a dyn ModelHandle>>,
    /// The chunks taken so far.
    chunks: Chunks,
}

impl<'a> EventList<'a> {
    /// The events `listed` of `body`, for the bench's `models`.
    pub(super) fn new(models: Models<'a>, body: &'a Body<'a>, listed: ListedEvents) -> Self {
        EventList {
            models,
            body,
            listed,
            handles: OnceLock::new(),
            chunks: Chunks::new(),
        }
    }

    /// Restores chunks of events until none is left, each event checked
    /// against its recipient's inputs, into an event list of their own
    /// (handed whole to the schedule once the bench starts, rather than
    /// listed and then moved into the schedule's one by one). Stops once
    /// `failed` says that an error of an earlier rank was met.
    pub(super) fn take(&self, failed: &Failed) -> Staged<RadixQueue> {
        let mut events = RadixQueue::default();
        let starts = &self.listed.chunks;
        if starts.is_empty() {
            return Ok(events);
        }
        let handles = self.handles.get_or_init(|| recipient_handles(self.models));
        keys::restoring(&self.listed.keys, || {
            while let Some(&start) = starts.get(self.chunks.take()) {
                failed.stop_before(Rank::event(start.next))?;
                self.restore_range(start, CHUNK, handles, failed, &mut events)?;
            }
            Ok(events)
        })
    }

    /// Every event restored by this thread alone, in one pass without the
    /// chunks' sharing, and the list let go of (its memory can serve the
    /// steps after).
    pub(super) fn into_queue(self, failed: &Failed) -> Staged<RadixQueue> {
        let mut events = RadixQueue::default();
        let Some(&start) = self.listed.chunks.first() else {
            return Ok(events);
        };
        let handles = recipient_handles(self.models);
        keys::restoring(&self.listed.keys, || {
            self.restore_range(start, usize::MAX, &handles, failed, &mut events)?;
            Ok(events)
        })
    }

    /// Restores up to `count` events from `start` into `events`.
    fn restore_range(
        &self,
        start: EventsMark,
        count: usize,
        handles: &[&dyn ModelHandle],
        failed: &Failed,
        events: &mut RadixQueue,
    ) -> Staged<()> {
        let ListedEvents {
            event_keys,
            recipients,
            ..
        } = &self.listed;
        let mut records = self.body.events.iter_from(start);
        let end = event_keys.len().min(start.next.saturating_add(count));
        // The event being read, for a panic of its payload's code.
        let reading = Cell::new(start.next);
        failed.catching(
            || Rank::event(reading.get()),
            || {
                // The events again, checked by the first reading.
                for (i, key) in (start.next..end).zip(&event_keys[start.next..end]) {
                    reading.set(i);
                    let fail = |error| failed.failure(Rank::event(i), error);
                    let record = records.next().unwrap_or_else(|| Err(ended_early(i)));
                    let record = record.map_err(|why| fail(malformed(why)))?;
                    prefetch_recipients(handles, recipients, i);
                    let entry = restored_event(self.models, handles, &record, key.clone());
                    events.push(entry.map_err(fail)?);
                }
                Ok(())
            },
        )
    }
}

/// The error for event `index`, missing from the bytes that the first
/// reading found it in (that reading found every event: never met).
#[cold]
fn ended_early(index: usize) -> String {
    format!("pending event {index} missing on a second reading")
}

/// The models' handles by place (every model has one once the models are
/// matched), listed for the lookups of the events' recipients, at random
/// places: 16 bytes a model where the registry takes 40, so that more of
/// the list stays in the last-level cache. Without events nothing is
/// listed, as nothing would read it (docs/benchmarks.md, "Measurements
/// behind code decisions", for both).
fn recipient_handles(models: Models<'_>) -> Vec<&dyn ModelHandle> {
    (0..models.len())
        .map_while(|index| models.handle(index))
        .collect()
}

/// One saved pending event, with its key, checked against its recipient's
/// inputs.
#[inline(always)]
fn restored_event(
    models: Models<'_>,
    handles: &[&dyn ModelHandle],
    record: &EventRecord<'_>,
    key: Option<EventKey>,
) -> Result<Entry, RestoreError> {
    let index = record.model as usize;
    let handle = (handles.get(index).copied())
        .ok_or_else(|| malformed(format!("a pending event for model number {index}")))?;
    let period = record.period.map(Duration::from_nanos);
    if period == Some(Duration::ZERO) {
        return Err(malformed("a periodic event with a zero period".to_string()));
    }
    if period.is_some() && key.is_none() {
        return Err(malformed("a periodic event without a key".to_string()));
    }
    let event = handle
        .decode_event(record.port, record.payload.0, period)
        .map_err(|error| RestoreError::Event {
            model: models.path(index).to_string(),
            port: record.port.to_string(),
            error,
        })?;
    let time = SimTime::from_nanos(record.time);
    Ok(entry(time, record.origin, record.seq, event, key))
}

/// Starts loading what restoring the events ahead of event `i` will read:
/// their recipients' handles, then, once a handle is loaded, its mailbox,
/// whose reference count each restored event takes. The recipients are
/// wherever the bench's models are; with many models and events for
/// random ones, these loads were most of a restore's time per event.
fn prefetch_recipients(handles: &[&dyn ModelHandle], recipients: &[u32], i: usize) {
    let recipient = |ahead: usize| {
        let model = recipients.get(i + ahead)?;
        handles.get(*model as usize).copied()
    };
    if let Some(handle) = recipient(PREFETCH_AHEAD) {
        prefetch(handle as *const dyn ModelHandle);
    }
    if let Some(handle) = recipient(PREFETCH_AHEAD / 2) {
        handle.prefetch_mailbox();
    }
}
