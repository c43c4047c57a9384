//! `Simulation::save`: the bench between two steps, as bytes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::error::SaveError;
use super::fingerprint::fingerprints;
use super::format::{self, Body, Bytes, EventRecord, ModelRecord, TypeRecord};
use super::handle::{ModelHandle, Reports, SavedState};
use super::hooks::StateError;
use super::keys::{self, SaveKeys};
use super::Registry;
use crate::executor::panic_message;
use crate::scheduler::heap::Entry;
use crate::simulation::Simulation;
use crate::sync::{lock, Mutex};

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
            registry.connections = Some(fingerprints(&self.topology()));
        }
        let registry = &*registry;
        let handles = saveable_handles(registry)?;
        let events = pending_events(self, &handles)?;
        let states = model_states(self, registry, &handles, events.keys.clone())?;
        let (types, type_of) = type_table(registry, &handles);
        let connections = registry.connections.as_deref().unwrap_or_default();
        let models = registry
            .models
            .iter()
            .zip(&states)
            .zip(type_of)
            .enumerate()
            .map(|(index, ((model, (seq, state)), type_index))| ModelRecord {
                path: model.path.as_str(),
                type_index,
                seq: *seq,
                connections: connections.get(index).copied().unwrap_or(0),
                state: Bytes(state),
            })
            .collect();
        let body = Body {
            time: self.time().as_nanos(),
            bench_seq: self.core().bench_seq(),
            types,
            models,
            events: events.records(),
        };
        format::encode(&body).map_err(|error| SaveError::Io(error.to_string()))
    }
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
    /// The payloads, in the same order.
    payloads: Vec<Vec<u8>>,
    /// The numbers of the events' keys.
    keys: Arc<SaveKeys>,
}

impl PendingEvents {
    /// The records, with their payloads.
    fn records(&self) -> Vec<EventRecord<'_>> {
        self.records
            .iter()
            .zip(&self.payloads)
            .map(|(record, payload)| EventRecord {
                payload: Bytes(payload),
                ..*record
            })
            .collect()
    }
}

/// The pending events, in queue order, and the numbers of their keys.
///
/// The events are taken out of the schedule and put back after (their
/// payloads' `Serialize` impls are user code, not run under the schedule's
/// lock); staged events of the single-threaded executor are reached on
/// the driving thread only, hence `drive`.
fn pending_events(
    simulation: &Simulation,
    handles: &[&dyn ModelHandle],
) -> Result<PendingEvents, SaveError> {
    let _driving = simulation.drive();
    let entries = simulation.core().take_pending();
    let records = event_records(&entries, handles);
    simulation.core().put_back_pending(entries);
    records
}

/// The records of the live `entries`, in queue order, their keys numbered
/// in that order (so that a bench saves the same bytes whatever its
/// queue's layout), their payloads written with those numbers in use (a
/// payload may hold a key).
fn event_records(
    entries: &[Entry],
    handles: &[&dyn ModelHandle],
) -> Result<PendingEvents, SaveError> {
    let mut live: Vec<&Entry> = entries.iter().filter(|e| !e.is_cancelled()).collect();
    live.sort_unstable_by_key(|entry| entry.order);
    let mut keys = SaveKeys::default();
    let mut numbers = Vec::with_capacity(live.len());
    for entry in &live {
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
    // The recipients' places, only if anything is pending.
    let recipients: RecipientMap = if live.is_empty() {
        RecipientMap::default()
    } else {
        let places = handles.iter().enumerate();
        places
            .map(|(i, handle)| (handle.recipient(), i as u32))
            .collect()
    };
    let mut records = Vec::with_capacity(live.len());
    let mut payloads = Vec::with_capacity(live.len());
    for (entry, key) in live.iter().zip(numbers) {
        let (record, payload) = keys::saving(&keys, || event_record(entry, &recipients))?;
        records.push(EventRecord { key, ..record });
        payloads.push(payload);
    }
    Ok(PendingEvents {
        records,
        payloads,
        keys,
    })
}

/// Mailbox identities (addresses) to model places.
type RecipientMap = HashMap<usize, u32, BuildHasherDefault<AddressHasher>>;

/// Hashes a mailbox's address: multiplied by an odd constant, so that the
/// aligned low bits do not all land in the same buckets (SipHash resists
/// chosen keys, which addresses are not, at several times the cost).
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(byte));
        }
    }

    fn write_usize(&mut self, address: usize) {
        self.write_u64(address as u64);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(26);
    }
}

/// The record of one pending event (its key not numbered yet) and its
/// payload.
fn event_record(
    entry: &Entry,
    recipients: &RecipientMap,
) -> Result<(EventRecord<'static>, Vec<u8>), SaveError> {
    let mut payload = Vec::new();
    let failed = |reason: String| SaveError::Event {
        event: entry.action.describe(),
        reason,
    };
    // A panicking `Serialize` impl of a payload fails the save only.
    let saved = catch_unwind(AssertUnwindSafe(|| entry.action.save(&mut payload)))
        .unwrap_or_else(|panic| {
            Err(format!(
                "its payload's serialisation panicked: {}",
                panic_message(&*panic)
            ))
        })
        .map_err(failed)?;
    let model = *recipients
        .get(&saved.recipient)
        .ok_or_else(|| failed("its recipient is not a model of this bench".to_string()))?;
    let record = EventRecord {
        time: entry.order.time.as_nanos(),
        origin: entry.order.origin,
        seq: entry.order.seq,
        model,
        port: saved.port,
        period: entry
            .action
            .period()
            .map(|p| u64::try_from(p.as_nanos()).unwrap_or(u64::MAX)),
        key: 0,
        payload: Bytes::default(),
    };
    Ok((record, payload))
}

/// Every model's next sequence number and state, saved by its own task.
fn model_states(
    simulation: &mut Simulation,
    registry: &Registry,
    handles: &[&dyn ModelHandle],
    keys: Arc<SaveKeys>,
) -> Result<Vec<(u64, Vec<u8>)>, SaveError> {
    let reports: Reports<SavedState> = Arc::new(Mutex::new(Vec::with_capacity(handles.len())));
    simulation
        .run_bench_messages(|_| {
            for (index, handle) in handles.iter().enumerate() {
                handle.request_save(index, &keys, &reports);
            }
        })
        .map_err(SaveError::Simulation)?;
    let mut reports = std::mem::take(&mut *lock(&reports));
    reports.sort_unstable_by_key(|(index, _)| *index);
    let mut states = Vec::with_capacity(handles.len());
    for (index, model) in registry.models.iter().enumerate() {
        let failed = |error| SaveError::State {
            model: model.path.to_string(),
            error,
        };
        // Each model's task reported once, in index order after the sort.
        let report = match reports.get_mut(index) {
            Some((at, report)) if *at == index => std::mem::replace(report, Ok((0, Vec::new()))),
            _ => return Err(failed(StateError::unanswered())),
        };
        states.push(report.map_err(failed)?);
    }
    Ok(states)
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
