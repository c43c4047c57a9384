//! `Simulation::save`: the bench between two steps, as bytes.

use std::collections::HashMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::error::SaveError;
use super::fingerprint::fingerprints;
use super::format::{self, Body, EventRecord, ModelRecord, TypeRecord};
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
    /// cannot be saved ([`SaveError`] names it), or if the simulation
    /// failed earlier.
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
        let registry = std::mem::take(&mut self.saveable);
        let result = self.snapshot_with(&registry);
        self.saveable = registry;
        result
    }

    /// The snapshot's bytes, the models being those of `registry`.
    fn snapshot_with(&mut self, registry: &Registry) -> Result<Vec<u8>, SaveError> {
        if let Some(error) = self.fatal_error() {
            return Err(SaveError::Simulation(error));
        }
        let handles = saveable_handles(registry)?;
        let (events, keys) = pending_events(self, &handles)?;
        let states = model_states(self, registry, &handles, keys)?;
        let topology = self.topology();
        let connections = fingerprints(&topology);
        let (types, type_of) = type_table(registry);
        let models = registry
            .models
            .iter()
            .zip(states)
            .map(|(model, (seq, state))| ModelRecord {
                path: model.path.to_string(),
                type_index: type_of[model.type_name],
                seq,
                connections: connections.get(model.path.as_str()).copied().unwrap_or(0),
                state,
            })
            .collect();
        let body = Body {
            time: self.time().as_nanos(),
            bench_seq: self.core().bench_seq(),
            types,
            models,
            events,
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

/// The pending events, in queue order, and the numbers of their keys.
///
/// The events are taken out of the schedule and put back after (their
/// payloads' `Serialize` impls are user code, not run under the schedule's
/// lock); staged events of the single-threaded executor are reached on
/// the driving thread only, hence `drive`.
fn pending_events(
    simulation: &Simulation,
    handles: &[&dyn ModelHandle],
) -> Result<(Vec<EventRecord>, Arc<SaveKeys>), SaveError> {
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
) -> Result<(Vec<EventRecord>, Arc<SaveKeys>), SaveError> {
    let recipients: HashMap<usize, u32> = handles
        .iter()
        .enumerate()
        .map(|(index, handle)| (handle.recipient(), index as u32))
        .collect();
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
    let records = live
        .iter()
        .zip(numbers)
        .map(|(entry, key)| {
            let mut record = keys::saving(&keys, || event_record(entry, &recipients))?;
            record.key = key;
            Ok(record)
        })
        .collect::<Result<_, SaveError>>()?;
    Ok((records, keys))
}

/// The record of one pending event, its key not numbered yet.
fn event_record(entry: &Entry, recipients: &HashMap<usize, u32>) -> Result<EventRecord, SaveError> {
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
    Ok(EventRecord {
        time: entry.order.time.as_nanos(),
        origin: entry.order.origin,
        seq: entry.order.seq,
        model,
        port: saved.port.to_string(),
        period: entry
            .action
            .period()
            .map(|p| u64::try_from(p.as_nanos()).unwrap_or(u64::MAX)),
        key: 0,
        payload,
    })
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

/// Each model type once, in order of first appearance, and its index.
fn type_table(registry: &Registry) -> (Vec<TypeRecord>, HashMap<&'static str, u32>) {
    let mut types = Vec::new();
    let mut index = HashMap::new();
    for model in &registry.models {
        let Some(handle) = &model.handle else {
            continue;
        };
        index.entry(model.type_name).or_insert_with(|| {
            types.push(TypeRecord {
                name: model.type_name.to_string(),
                version: handle.version(),
                fields: handle.fields().iter().map(|f| f.to_string()).collect(),
            });
            (types.len() - 1) as u32
        });
    }
    (types, index)
}
