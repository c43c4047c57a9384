//! `SimInit::restore`: a bench built again, continuing from a snapshot.
//!
//! Everything that can be checked is checked before anything runs: the
//! bytes (format, length, checksum), the models against the bench, every
//! pending event against its recipient's inputs. Only then does the bench
//! start — at the saved time, without its `init` hooks, which ran before
//! it was saved — and its models read their states back, each in its own
//! task. A failure at any point returns an error and no simulation.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use super::error::RestoreError;
use super::fingerprint::fingerprints;
use super::format::{self, Body, EventRecord, ModelRecord};
use super::handle::{ModelHandle, Reports};
use super::hooks::StateError;
use super::keys::{self, RestoreKeys};
use super::{Registered, Registry};
use crate::scheduler::heap::Entry;
use crate::scheduler::{entry, EventKey};
use crate::simulation::{SimInit, Simulation};
use crate::sync::{lock, Mutex};
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
    /// example.
    pub fn restore(mut self, mut snapshot: impl Read) -> Result<Simulation, RestoreError> {
        let mut bytes = Vec::new();
        snapshot
            .read_to_end(&mut bytes)
            .map_err(|error| RestoreError::Io(error.to_string()))?;
        let body = format::decode(&bytes)?;
        drop(bytes);
        self.check().map_err(RestoreError::Simulation)?;
        let registry = std::mem::take(&mut self.saveable);
        let handles = matched_handles(&registry, &body)?;
        check_connections(&self, &body)?;
        let (entries, keys) = restored_events(&registry, &handles, &body)?;
        let time = SimTime::from_nanos(body.time);

        // Start the bench at the saved time, without the `init` hooks.
        let core = self.core().clone();
        core.set_skip_init(true);
        let started = self.start(time);
        core.set_skip_init(false);
        let mut simulation = started.map_err(RestoreError::Simulation)?;
        core.restore_entries(entries);
        core.set_bench_seq(body.bench_seq);
        restore_states(&mut simulation, &registry, &handles, body.models, keys)?;
        simulation.saveable = registry;
        Ok(simulation)
    }
}

/// Each model's handle, once the bench's models are checked against the
/// snapshot's: the same paths in the same order, the same types, versions
/// and fields.
fn matched_handles<'r>(
    registry: &'r Registry,
    body: &Body,
) -> Result<Vec<&'r dyn ModelHandle>, RestoreError> {
    let saved: HashMap<&str, usize> = body
        .models
        .iter()
        .enumerate()
        .map(|(index, model)| (model.path.as_str(), index))
        .collect();
    let mut handles = Vec::with_capacity(registry.models.len());
    for (index, model) in registry.models.iter().enumerate() {
        let Some(&at) = saved.get(model.path.as_str()) else {
            return Err(RestoreError::MissingModel {
                model: model.path.to_string(),
                model_type: model.type_name,
            });
        };
        if at != index {
            return Err(RestoreError::ModelOrder {
                model: model.path.to_string(),
                saved: at,
                bench: index,
            });
        }
        handles.push(matched_handle(model, &body.models[at], body)?);
    }
    if let Some(extra) = body.models.get(registry.models.len()) {
        let model_type = body
            .types
            .get(extra.type_index as usize)
            .map_or_else(String::new, |t| t.name.clone());
        return Err(RestoreError::UnknownModel {
            model: extra.path.clone(),
            model_type,
        });
    }
    Ok(handles)
}

/// The handle of the bench's `model`, checked against its saved record.
fn matched_handle<'r>(
    model: &'r Registered,
    saved: &ModelRecord,
    body: &Body,
) -> Result<&'r dyn ModelHandle, RestoreError> {
    let path = || model.path.to_string();
    let saved_type = body
        .types
        .get(saved.type_index as usize)
        .ok_or_else(|| malformed(format!("model `{}` has no type", saved.path)))?;
    if saved_type.name != model.type_name {
        return Err(RestoreError::TypeMismatch {
            model: path(),
            saved: saved_type.name.clone(),
            bench: model.type_name,
        });
    }
    let handle = model
        .handle
        .as_deref()
        .ok_or_else(|| RestoreError::NotSaveable {
            model: path(),
            model_type: model.type_name,
        })?;
    if saved_type.version != handle.version() {
        return Err(RestoreError::VersionMismatch {
            model: path(),
            model_type: model.type_name,
            saved: saved_type.version,
            bench: handle.version(),
        });
    }
    if !saved_type.fields.iter().eq(handle.fields().iter()) {
        return Err(RestoreError::FieldMismatch {
            model: path(),
            model_type: model.type_name,
            saved: saved_type.fields.clone(),
            bench: handle.fields().to_vec(),
        });
    }
    Ok(handle)
}

/// Checks each model's outgoing connections against the saved checksums.
fn check_connections(init: &SimInit, body: &Body) -> Result<(), RestoreError> {
    let topology = init.topology();
    let connections = fingerprints(&topology);
    for model in &body.models {
        if connections.get(model.path.as_str()) != Some(&model.connections) {
            return Err(RestoreError::ConnectionMismatch {
                model: model.path.clone(),
            });
        }
    }
    Ok(())
}

/// The saved pending events, each checked against its recipient's inputs,
/// and the keys made for them (all of them before any payload is read: a
/// payload may hold a key).
fn restored_events(
    registry: &Registry,
    handles: &[&dyn ModelHandle],
    body: &Body,
) -> Result<(Vec<Entry>, Arc<RestoreKeys>), RestoreError> {
    let origins = registry.models.len() as u64;
    let mut keys = RestoreKeys::default();
    let mut event_keys = Vec::with_capacity(body.events.len());
    for record in &body.events {
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
    }
    let keys = Arc::new(keys);
    let entries = body
        .events
        .iter()
        .zip(event_keys)
        .map(|(record, key)| {
            keys::restoring(&keys, || restored_event(registry, handles, record, key))
        })
        .collect::<Result<_, _>>()?;
    Ok((entries, keys))
}

/// One saved pending event, with its key, checked against its recipient's
/// inputs.
fn restored_event(
    registry: &Registry,
    handles: &[&dyn ModelHandle],
    record: &EventRecord,
    key: Option<EventKey>,
) -> Result<Entry, RestoreError> {
    let index = record.model as usize;
    let handle = handles
        .get(index)
        .ok_or_else(|| malformed(format!("a pending event for model number {index}")))?;
    let period = record.period.map(Duration::from_nanos);
    if period == Some(Duration::ZERO) {
        return Err(malformed("a periodic event with a zero period".to_string()));
    }
    if period.is_some() && key.is_none() {
        return Err(malformed("a periodic event without a key".to_string()));
    }
    let event = handle
        .decode_event(&record.port, &record.payload, period)
        .map_err(|error| RestoreError::Event {
            model: registry.models[index].path.to_string(),
            port: record.port.clone(),
            error,
        })?;
    let time = SimTime::from_nanos(record.time);
    Ok(entry(time, record.origin, record.seq, event, key))
}

/// Has every model's task read its state and sequence number back.
fn restore_states(
    simulation: &mut Simulation,
    registry: &Registry,
    handles: &[&dyn ModelHandle],
    models: Vec<ModelRecord>,
    keys: Arc<RestoreKeys>,
) -> Result<(), RestoreError> {
    let reports: Reports<Result<(), StateError>> =
        Arc::new(Mutex::new(Vec::with_capacity(handles.len())));
    simulation
        .run_bench_messages(|_| {
            for (index, (handle, model)) in handles.iter().zip(models).enumerate() {
                handle.request_restore(index, model.seq, model.state, &keys, &reports);
            }
        })
        .map_err(RestoreError::Simulation)?;
    let mut reports = std::mem::take(&mut *lock(&reports));
    reports.sort_unstable_by_key(|(index, _)| *index);
    if reports.len() != handles.len() {
        let index = reports
            .iter()
            .enumerate()
            .find(|(i, (at, _))| i != at)
            .map_or(reports.len(), |(i, _)| i);
        return Err(RestoreError::State {
            model: registry.models[index].path.to_string(),
            error: StateError::unanswered(),
        });
    }
    for (index, report) in reports {
        report.map_err(|error| RestoreError::State {
            model: registry.models[index].path.to_string(),
            error,
        })?;
    }
    Ok(())
}

/// A snapshot that contradicts itself.
fn malformed(why: String) -> RestoreError {
    RestoreError::Malformed(why)
}
