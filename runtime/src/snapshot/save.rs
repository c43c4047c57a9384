//! `Simulation::save`: the bench between two steps, as bytes.

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::error::SaveError;
use super::fingerprint::fingerprints;
use super::format::{self, Bytes, EventRecord, ModelRecord, SavedBody, Seq, TypeRecord};
use super::handle::ModelHandle;
use super::keys::{self, SaveKeys};
use super::queue_order::sort_in_queue_order;
use super::recipients;
use super::Registry;
use crate::executor::panic_message;
use crate::prefetch::prefetch;
use crate::scheduler::heap::Entry;
use crate::simulation::Simulation;

/// Bytes of state per model to reserve room for: most states of a few
/// fields fit, and the buffer grows for the rest.
const STATE_ESTIMATE: usize = 32;

/// Bytes of payload per pending event to reserve room for.
const PAYLOAD_ESTIMATE: usize = 8;

/// How many events ahead the saving loop prefetches an event's action.
const PREFETCH_AHEAD: usize = 8;

impl Simulation {
    /// Writes the bench's state to `out`: the time, every model's state,
    /// every pending event (see [`crate::snapshot`] for what a snapshot
    /// holds). Call it between steps; the simulation goes on unchanged.
    ///
    /// Fails, writing nothing, if a model of the bench or a pending event
    /// cannot be saved ([`SaveError`] names it), if injected input waits
    /// for the next step, or if the simulation failed earlier. A replay's
    /// input still to come is not saved: give it to the restored bench
    /// with [`Replay::resume`](crate::realtime::Replay::resume).
    ///
    /// ```
    /// # use causim::prelude::*;
    /// #[model(save)]
    /// pub struct Counter {
    ///     count: u64,
    /// }
    ///
    /// #[model(save)]
    /// impl Counter {
    ///     #[input]
    ///     pub fn add(&mut self, n: u64) {
    ///         self.count += n;
    ///     }
    ///
    ///     #[replier]
    ///     pub fn read(&mut self) -> u64 {
    ///         self.count
    ///     }
    /// }
    ///
    /// // The bench, built the same way for the run and for its restore.
    /// fn bench() -> (SimInit, Address<Counter>) {
    ///     let mailbox = Mailbox::new();
    ///     let address = mailbox.address();
    ///     let init = SimInit::new().add_model(Counter { count: 0 }, mailbox, "counter");
    ///     (init, address)
    /// }
    ///
    /// let (init, counter) = bench();
    /// let mut simu = init.init(SimTime::ZERO)?;
    /// simu.process_event(Counter::ports().add, 5, &counter)?;
    /// simu.scheduler().schedule(SimTime::from_secs(2), Counter::ports().add, 10, &counter)?;
    /// let mut snapshot = Vec::new();
    /// simu.save(&mut snapshot)?;
    ///
    /// // Later, elsewhere: the same bench, continuing from the snapshot.
    /// let (init, counter) = bench();
    /// let mut restored = init.restore(snapshot.as_slice())?;
    /// assert_eq!(restored.process_query(Counter::ports().read, (), &counter)?, 5);
    /// restored.step()?; // the pending event, at 2 s
    /// assert_eq!(restored.time(), SimTime::from_secs(2));
    /// assert_eq!(restored.process_query(Counter::ports().read, (), &counter)?, 15);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&mut self, out: &mut impl Write) -> Result<(), SaveError> {
        let bytes = self.snapshot()?;
        out.write_all(&bytes)
            .and_then(|()| out.flush())
            .map_err(|error| SaveError::Io(error.to_string()))
    }

    /// The snapshot's bytes.
    fn snapshot(&mut self) -> Result<Vec<u8>, SaveError> {
        let mut registry = std::mem::take(&mut self.saveable);
        let result = self.snapshot_with(&mut registry);
        self.saveable = registry;
        result
    }

    /// The snapshot's bytes, the models being those of `registry`.
    fn snapshot_with(&mut self, registry: &mut Registry) -> Result<Vec<u8>, SaveError> {
        if let Some(error) = self.fatal_error() {
            return Err(SaveError::Simulation(error));
        }
        let inputs = self.injected_waiting();
        if inputs > 0 {
            return Err(SaveError::PendingInput { inputs });
        }
        // The connections do not change once the bench is built: their
        // checksums are computed at the first save.
        if registry.connections.is_none() {
            let (models, wiring) = self.wiring();
            registry.connections = Some(fingerprints(models, &wiring));
        }
        let registry = &*registry;
        let handles = saveable_handles(registry)?;
        let events = pending_events(self, &handles)?;
        let mut state_bytes = Vec::with_capacity(handles.len() * STATE_ESTIMATE);
        let states = model_states(registry, &handles, &events.keys, &mut state_bytes)?;
        // What a thread outside the simulation sent since the last call,
        // and what the models it woke sent in turn, waits for a call that
        // runs the models: a snapshot would lose it. (Looked at once the
        // states are read, so that a model that staged while they were
        // read is seen; not run here, as the models would run while that
        // thread may still be sending.)
        let messages = self.staged_messages();
        if messages > 0 {
            return Err(SaveError::Staged { messages });
        }
        let (types, type_of) = type_table(registry, &handles);
        let connections = registry.connections.as_deref().unwrap_or_default();
        let models = registry
            .models
            .iter()
            .zip(&states)
            .zip(&type_of)
            .enumerate()
            .map(|(index, ((model, (seq, state)), type_index))| ModelRecord {
                path: model.path.as_str(),
                type_index: *type_index,
                seq: *seq,
                connections: connections.get(index).copied().unwrap_or(0),
                state: Bytes(&state_bytes[state.clone()]),
            });
        let estimate = models_estimate(registry, &state_bytes) + events.estimate();
        let body = SavedBody {
            time: self.time().as_nanos(),
            bench_seq: self.core().bench_seq(),
            types: &types,
            models: Seq(models),
            events: Seq(events.records()),
        };
        format::encode(&body, estimate).map_err(|error| SaveError::Io(error.to_string()))
    }
}

/// About how many bytes the models' records take in a snapshot, their
/// states being `states`.
fn models_estimate(registry: &Registry, states: &[u8]) -> usize {
    let paths = registry.models.iter().map(|m| m.path.byte_len() + 16);
    paths.sum::<usize>() + states.len()
}

/// Every model's handle, or the error naming the first that cannot be
/// saved.
fn saveable_handles(registry: &Registry) -> Result<Vec<&dyn ModelHandle>, SaveError> {
    registry
        .models
        .iter()
        .map(|model| {
            model
                .handle
                .as_deref()
                .ok_or_else(|| SaveError::NotSaveable {
                    model: model.path.to_string(),
                    model_type: model.type_name,
                })
        })
        .collect()
}

/// The pending events, their payloads, and the numbers of their keys.
struct PendingEvents {
    /// One per live event, in queue order, its payload not filled in yet.
    records: Vec<EventRecord<'static>>,
    /// The payloads, one after the other.
    payloads: Vec<u8>,
    /// Where each record's payload is in `payloads`.
    ranges: Vec<Range<usize>>,
    /// The numbers of the events' keys.
    keys: Arc<SaveKeys>,
}

impl PendingEvents {
    /// The records, with their payloads.
    fn records(&self) -> impl ExactSizeIterator<Item = EventRecord<'_>> + Clone {
        self.records
            .iter()
            .zip(&self.ranges)
            .map(|(record, range)| EventRecord {
                payload: Bytes(&self.payloads[range.clone()]),
                ..*record
            })
    }

    /// About how many bytes the records take in a snapshot.
    fn estimate(&self) -> usize {
        let ports = self.records.iter().map(|r| r.port.len()).sum::<usize>();
        ports + self.payloads.len() + 24 * self.records.len()
    }
}

/// The pending events, in queue order, and the numbers of their keys.
///
/// The event list is taken out of the schedule whole and put back after
/// (their payloads' `Serialize` impls are user code, not run under the
/// schedule's lock); events staged by the models the calling thread
/// polled are reached on the driving thread only, hence `drive`. Its
/// buckets are sorted where they lie and read in order: the queue order,
/// without emptying and refilling the list.
fn pending_events(
    simulation: &Simulation,
    handles: &[&dyn ModelHandle],
) -> Result<PendingEvents, SaveError> {
    let _driving = simulation.drive();
    let mut queue = simulation.core().take_pending();
    queue.sort_each_bucket(|bucket| sort_in_queue_order(bucket, |entry| entry.order));
    let live: Vec<&Entry> = queue.entries().collect();
    let records = event_records(&live, handles);
    drop(live);
    simulation.core().put_back_pending(queue);
    records
}

/// The records of the `live` entries (in queue order), their keys
/// numbered in that order (so that a bench saves the same bytes whatever
/// its queue's layout), their payloads written with those numbers in use
/// (a payload may hold a key).
fn event_records(
    live: &[&Entry],
    handles: &[&dyn ModelHandle],
) -> Result<PendingEvents, SaveError> {
    let mut keys = SaveKeys::default();
    let mut numbers = Vec::with_capacity(live.len());
    for entry in live {
        let number = match &entry.key {
            None => 0,
            Some(key) => keys.insert(key).ok_or_else(|| SaveError::Event {
                event: entry.action.describe(),
                reason: "more keyed events than a snapshot can number".to_string(),
            })?,
        };
        numbers.push(number);
    }
    let keys = Arc::new(keys);
    let mut records = Vec::with_capacity(live.len());
    let mut payloads = Vec::with_capacity(live.len() * PAYLOAD_ESTIMATE);
    let mut ranges = Vec::with_capacity(live.len());
    let mut wanted = Vec::with_capacity(live.len());
    keys::saving(&keys, || {
        for (i, (entry, key)) in live.iter().zip(numbers).enumerate() {
            // The actions lie wherever they were allocated: start loading
            // one a few events ahead, so that its load overlaps this one's
            // work (a third of a large save waited on them).
            if let Some(ahead) = live.get(i + PREFETCH_AHEAD) {
                prefetch(&*ahead.action);
            }
            let start = payloads.len();
            let (record, recipient) = event_record(entry, &mut payloads)?;
            records.push(EventRecord { key, ..record });
            ranges.push(start..payloads.len());
            wanted.push((recipient, i));
        }
        Ok(())
    })?;
    // Each event's recipient, by its place among the bench's models (a
    // recipient outside the bench was refused when the event was
    // scheduled: the error is a safeguard).
    let models = handles.iter().map(|handle| handle.recipient());
    let places = recipients::places(models, wanted).map_err(|event| SaveError::Event {
        event: live[event].action.describe(),
        reason: "its recipient is not a model of this bench".to_string(),
    })?;
    for (record, model) in records.iter_mut().zip(places) {
        record.model = model;
    }
    Ok(PendingEvents {
        records,
        payloads,
        ranges,
        keys,
    })
}

/// The record of one pending event (its key's number and its recipient's
/// place left for the caller), its payload appended to `payload`, and its
/// recipient's mailbox identity.
fn event_record(
    entry: &Entry,
    payload: &mut Vec<u8>,
) -> Result<(EventRecord<'static>, usize), SaveError> {
    let failed = |reason: String| SaveError::Event {
        event: entry.action.describe(),
        reason,
    };
    // A panicking `Serialize` impl of a payload fails the save only.
    let saved = catch_unwind(AssertUnwindSafe(|| entry.action.save(payload)))
        .unwrap_or_else(|panic| {
            Err(format!(
                "its payload's serialisation panicked: {}",
                panic_message(&*panic)
            ))
        })
        .map_err(failed)?;
    let record = EventRecord {
        time: entry.order.time.as_nanos(),
        origin: entry.order.origin,
        seq: entry.order.seq,
        model: 0,
        port: saved.port,
        period: entry
            .action
            .period()
            .map(|p| u64::try_from(p.as_nanos()).unwrap_or(u64::MAX)),
        key: 0,
        payload: Bytes::default(),
    };
    Ok((record, saved.recipient))
}

/// Every model's next sequence number and state (a range of `out`), read
/// in the cell its task runs it from (see `model/shared.rs`), in add
/// order, with `keys` numbering the keys the states hold.
fn model_states(
    registry: &Registry,
    handles: &[&dyn ModelHandle],
    keys: &Arc<SaveKeys>,
    out: &mut Vec<u8>,
) -> Result<Vec<(u64, Range<usize>)>, SaveError> {
    keys::saving(keys, || {
        let mut states = Vec::with_capacity(handles.len());
        for (model, handle) in registry.models.iter().zip(handles) {
            let start = out.len();
            let seq = handle.save(out).map_err(|error| SaveError::State {
                model: model.path.to_string(),
                error,
            })?;
            states.push((seq, start..out.len()));
        }
        Ok(states)
    })
}

/// Each model type once, in order of first appearance, and each model's
/// type index. A type is recognised by its name's address first (models
/// of one type, added one after the other, share it), by its name if that
/// differs.
fn type_table<'r>(
    registry: &'r Registry,
    handles: &[&dyn ModelHandle],
) -> (Vec<TypeRecord<'r>>, Vec<u32>) {
    let mut types: Vec<TypeRecord<'r>> = Vec::new();
    let mut by_name: HashMap<&str, u32> = HashMap::new();
    let mut last: Option<(&'static str, u32)> = None;
    let mut type_of = Vec::with_capacity(handles.len());
    for (model, handle) in registry.models.iter().zip(handles) {
        let name = model.type_name;
        let index = match last {
            Some((seen, index)) if std::ptr::eq(seen, name) => index,
            _ => *by_name.entry(name).or_insert_with(|| {
                types.push(TypeRecord {
                    name,
                    version: handle.version(),
                    fields: handle.fields().to_vec(),
                });
                (types.len() - 1) as u32
            }),
        };
        last = Some((name, index));
        type_of.push(index);
    }
    (types, type_of)
}
