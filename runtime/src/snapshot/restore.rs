//! `SimInit::restore`: a bench built again, continuing from a snapshot.
//!
//! Everything that can be checked is checked before anything runs: the
//! bytes (format, length, checksum), the models against the bench, every
//! pending event against its recipient's inputs. Then the models read
//! their states back, in the cells their tasks will run them from (no
//! task has run yet), and only then does the bench start — at the saved
//! time, without its `init` hooks, which ran before it was saved. A
//! failure at any point returns an error and no simulation.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use super::error::RestoreError;
use super::fingerprint::fingerprints;
use super::format::{self, Body, EventRecord, ModelRecord, TypeRecord};
use super::handle::ModelHandle;
use super::keys::{self, RestoreKeys};
use super::{Registered, Registry};
use crate::prefetch::prefetch;
use crate::scheduler::heap::{Entry, RadixQueue};
use crate::scheduler::{entry, EventKey};
use crate::simulation::{SimInit, Simulation};
use crate::time::SimTime;

impl SimInit {
    /// Builds the simulation of this bench from a snapshot written by
    /// [`Simulation::save`] of the same bench: the clock at the saved time,
    /// each model's saved state, the saved pending events; the models'
    /// `init` hooks are not run (they ran before the bench was saved).
    ///
    /// Build the bench exactly as the saved one: the same models at the
    /// same paths, of the same types, added in the same order, with the
    /// same connections. Anything else, and a snapshot that is malformed,
    /// truncated, corrupted or from a newer format, is a [`RestoreError`]
    /// naming the model and port, and no simulation is built.
    ///
    /// One snapshot can be restored into many benches, in threads or
    /// processes: forks of a common state. See [`Simulation::save`] for an
    /// example, and [`SimInit::restore_bytes`] for a snapshot already in
    /// memory.
    pub fn restore(self, mut snapshot: impl Read) -> Result<Simulation, RestoreError> {
        let mut bytes = Vec::new();
        snapshot
            .read_to_end(&mut bytes)
            .map_err(|error| RestoreError::Io(error.to_string()))?;
        self.restore_bytes(&bytes)
    }

    /// [`SimInit::restore`] from a snapshot's bytes in memory, read where
    /// they are. `restore` copies what its reader gives, even a byte slice
    /// (`Read` lends no bytes): a fork that reads one snapshot once and
    /// restores it into many benches skips that copy for each.
    ///
    /// ```
    /// # use causim::prelude::*;
    /// # #[model(save)]
    /// # pub struct Counter { count: u64 }
    /// # #[model(save)]
    /// # impl Counter {
    /// #     #[input]
    /// #     pub fn add(&mut self, n: u64) { self.count += n; }
    /// # }
    /// let bench = || SimInit::new().add_model(Counter { count: 0 }, Mailbox::new(), "counter");
    /// let mut snapshot = Vec::new();
    /// bench().init(SimTime::ZERO)?.save(&mut snapshot)?;
    /// // Forks of one state, from the same bytes.
    /// let forks: Vec<Simulation> = (0..3)
    ///     .map(|_| bench().restore_bytes(&snapshot))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(forks.len(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn restore_bytes(mut self, snapshot: &[u8]) -> Result<Simulation, RestoreError> {
        let body = format::decode(snapshot)?;
        self.check().map_err(RestoreError::Simulation)?;
        let mut registry = std::mem::take(&mut self.saveable);
        match_models(&registry, &body)?;
        let connections = checked_connections(&self, &registry, &body)?;
        let (events, keys) = restored_events(&registry, &body)?;
        // The states, read back into the models' cells before any task
        // runs.
        restore_states(&registry, &body.models, &keys)?;

        // Start the bench at the saved time, without the `init` hooks:
        // its models' tasks are first polled on their first messages.
        let core = self.core().clone();
        core.skip_init();
        let mut simulation = self
            .start(SimTime::from_nanos(body.time))
            .map_err(RestoreError::Simulation)?;
        core.restore_pending(events);
        core.set_bench_seq(body.bench_seq);
        // Checked equal to the saved ones: the next save reuses them.
        registry.connections = Some(connections);
        simulation.saveable = registry;
        Ok(simulation)
    }
}

/// Checks the bench's models against the snapshot's: the same paths in
/// the same order (pair by pair; the saved paths are searched only to name
/// a model out of place), the same types, each with a handle, and each
/// type's version and fields (once per type).
fn match_models(registry: &Registry, body: &Body<'_>) -> Result<(), RestoreError> {
    let mut checked_types = vec![false; body.types.len()];
    for (index, model) in registry.models.iter().enumerate() {
        let Some(saved) = body
            .models
            .get(index)
            .filter(|s| s.path == model.path.as_str().as_bytes())
        else {
            return Err(misplaced(registry, body, index));
        };
        let type_index = saved.type_index as usize;
        let saved_type = body
            .types
            .get(type_index)
            .ok_or_else(|| malformed(format!("model `{}` has no type", model.path)))?;
        let handle = matched_type(model, saved_type)?;
        if !checked_types[type_index] {
            check_fields(model, handle, saved_type)?;
            checked_types[type_index] = true;
        }
    }
    if let Some(extra) = body.models.get(registry.models.len()) {
        return Err(unknown_model(body, extra));
    }
    Ok(())
}

/// The error for the bench's model at `index`, which the snapshot does not
/// have at that place: missing from it, or elsewhere in it.
#[cold]
fn misplaced(registry: &Registry, body: &Body<'_>, index: usize) -> RestoreError {
    let model = &registry.models[index];
    let saved = body
        .models
        .iter()
        .position(|s| s.path == model.path.as_str().as_bytes());
    match saved {
        Some(at) => RestoreError::ModelOrder {
            model: model.path.to_string(),
            saved: at,
            bench: index,
        },
        None => {
            // A model of the snapshot that the bench lacks, at that place,
            // is the better report when the bench has one model less.
            let in_bench =
                |path: &[u8]| (registry.models.iter()).any(|m| m.path.as_str().as_bytes() == path);
            match body.models.get(index).filter(|s| !in_bench(s.path)) {
                Some(extra) if registry.models.len() < body.models.len() => {
                    unknown_model(body, extra)
                }
                _ => RestoreError::MissingModel {
                    model: model.path.to_string(),
                    model_type: model.type_name,
                },
            }
        }
    }
}

/// The error for a saved model the bench does not have.
#[cold]
fn unknown_model(body: &Body<'_>, extra: &ModelRecord<'_>) -> RestoreError {
    let model_type = body.types.get(extra.type_index as usize);
    RestoreError::UnknownModel {
        model: String::from_utf8_lossy(extra.path).into_owned(),
        model_type: model_type.map_or_else(String::new, |t| t.name.to_string()),
    }
}

/// The handle of the bench's `model`, whose saved type is `saved_type`.
fn matched_type<'r>(
    model: &'r Registered,
    saved_type: &TypeRecord<'_>,
) -> Result<&'r dyn ModelHandle, RestoreError> {
    if saved_type.name != model.type_name {
        return Err(RestoreError::TypeMismatch {
            model: model.path.to_string(),
            saved: saved_type.name.to_string(),
            bench: model.type_name,
        });
    }
    model.handle.as_deref().ok_or_else(|| not_saveable(model))
}

/// The error for `model`, whose type cannot be saved.
#[cold]
fn not_saveable(model: &Registered) -> RestoreError {
    RestoreError::NotSaveable {
        model: model.path.to_string(),
        model_type: model.type_name,
    }
}

/// Checks the version and fields of `model`'s type against the saved ones.
fn check_fields(
    model: &Registered,
    handle: &dyn ModelHandle,
    saved_type: &TypeRecord<'_>,
) -> Result<(), RestoreError> {
    if saved_type.version != handle.version() {
        return Err(RestoreError::VersionMismatch {
            model: model.path.to_string(),
            model_type: model.type_name,
            saved: saved_type.version,
            bench: handle.version(),
        });
    }
    if saved_type.fields != handle.fields() {
        return Err(RestoreError::FieldMismatch {
            model: model.path.to_string(),
            model_type: model.type_name,
            saved: saved_type.fields.iter().map(|f| f.to_string()).collect(),
            bench: handle.fields().to_vec(),
        });
    }
    Ok(())
}

/// The checksums of each model's outgoing connections, checked against
/// the saved ones (the models are already matched place by place).
fn checked_connections(
    init: &SimInit,
    registry: &Registry,
    body: &Body<'_>,
) -> Result<Vec<u32>, RestoreError> {
    let models = registry.models.len();
    let connections = fingerprints(models, |each| init.for_each_connection(each));
    for (index, model) in body.models.iter().enumerate() {
        if connections.get(index) != Some(&model.connections) {
            return Err(RestoreError::ConnectionMismatch {
                model: registry.models[index].path.to_string(),
            });
        }
    }
    Ok(connections)
}

/// The saved pending events, each checked against its recipient's inputs,
/// in an event list of their own (handed whole to the schedule once the
/// bench starts, rather than listed and then moved into the schedule's
/// one by one), and the keys made for them (all of them before any payload
/// is read: a payload may hold a key).
fn restored_events(
    registry: &Registry,
    body: &Body<'_>,
) -> Result<(RadixQueue, Arc<RestoreKeys>), RestoreError> {
    let origins = registry.models.len() as u64;
    let mut keys = RestoreKeys::default();
    let mut event_keys = Vec::with_capacity(body.events.len());
    let mut recipients = Vec::with_capacity(body.events.len());
    // Read to the end, past the last event: this is the reading that finds
    // bytes left after the body (see `EventRecords::iter`), before
    // anything is applied. (`len` is bounded by the body's size.)
    for record in body.events.iter() {
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
    let handles = recipient_handles(registry, &recipients);
    let keys = Arc::new(keys);
    let events = keys::restoring(&keys, || {
        let mut events = RadixQueue::default();
        // The events again, checked above: the zip stops at the last one.
        for (i, (record, key)) in body.events.iter().zip(event_keys).enumerate() {
            prefetch_recipients(&handles, &recipients, i);
            let record = record.map_err(malformed)?;
            events.push(restored_event(registry, &handles, &record, key)?);
        }
        Ok(events)
    })?;
    Ok((events, keys))
}

/// The models' handles by place (every model has one once
/// [`match_models`] has passed), listed for the lookups of `recipients`,
/// at random places: 16 bytes a model where the registry takes 56, so that
/// more of the list stays in the last-level cache. Without events nothing
/// is listed, as nothing would read it (docs/benchmarks.md, "Measurements
/// behind code decisions", for both).
fn recipient_handles<'r>(
    registry: &'r Registry,
    recipients: &[u32],
) -> Vec<Option<&'r dyn ModelHandle>> {
    if recipients.is_empty() {
        return Vec::new();
    }
    let handles = registry.models.iter();
    handles.map(|model| model.handle.as_deref()).collect()
}

/// One saved pending event, with its key, checked against its recipient's
/// inputs.
fn restored_event(
    registry: &Registry,
    handles: &[Option<&dyn ModelHandle>],
    record: &EventRecord<'_>,
    key: Option<EventKey>,
) -> Result<Entry, RestoreError> {
    let index = record.model as usize;
    let handle = (handles.get(index).copied().flatten())
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
            model: registry.models[index].path.to_string(),
            port: record.port.to_string(),
            error,
        })?;
    let time = SimTime::from_nanos(record.time);
    Ok(entry(time, record.origin, record.seq, event, key))
}

/// How many events ahead of the one being restored the handle of its
/// recipient is loaded, and half as many its recipient's mailbox; and
/// how many models ahead of the one whose state is read back its handle
/// is loaded, and half as many its cell.
const PREFETCH_AHEAD: usize = 16;

/// Starts loading what restoring the events ahead of event `i` will read:
/// their recipients' handles, then, once a handle is loaded, its mailbox,
/// whose reference count each restored event takes. The recipients are
/// wherever the bench's models are; with many models and events for
/// random ones, these loads were most of a restore's time per event.
fn prefetch_recipients(handles: &[Option<&dyn ModelHandle>], recipients: &[u32], i: usize) {
    let recipient = |ahead: usize| {
        let model = recipients.get(i + ahead)?;
        *handles.get(*model as usize)?
    };
    if let Some(handle) = recipient(PREFETCH_AHEAD) {
        prefetch(handle as *const dyn ModelHandle);
    }
    if let Some(handle) = recipient(PREFETCH_AHEAD / 2) {
        handle.prefetch_mailbox();
    }
}

/// Has every model read its state and sequence number back, in the cell
/// its task runs it from (see `model/shared.rs`), with `keys` giving the
/// restored keys the states hold.
fn restore_states(
    registry: &Registry,
    models: &[ModelRecord<'_>],
    keys: &Arc<RestoreKeys>,
) -> Result<(), RestoreError> {
    keys::restoring(keys, || {
        for (i, (model, record)) in registry.models.iter().zip(models).enumerate() {
            // Ahead, as for the events: the models' cells lie in add order
            // only as far as the allocator kept them together (among their
            // outputs' connections, the hardware prefetcher lost them).
            let ahead = |n: usize| registry.models.get(i + n)?.handle.as_deref();
            if let Some(handle) = ahead(PREFETCH_AHEAD) {
                prefetch(handle as *const dyn ModelHandle);
            }
            if let Some(handle) = ahead(PREFETCH_AHEAD / 2) {
                handle.prefetch_cell();
            }
            let handle = model.handle.as_deref().ok_or_else(|| not_saveable(model))?;
            handle
                .restore(record.seq, record.state.0)
                .map_err(|error| RestoreError::State {
                    model: model.path.to_string(),
                    error,
                })?;
        }
        Ok(())
    })
}

/// A snapshot that contradicts itself.
fn malformed(why: String) -> RestoreError {
    RestoreError::Malformed(why)
}
