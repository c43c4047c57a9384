//! `Simulation::save`: the bench between two steps, as bytes.

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::sync::Arc;

use super::error::SaveError;
use super::fingerprint::fingerprints;
use super::format::{self, Bytes, ModelRecord, SavedBody, TypeRecord};
use super::handle::ModelHandle;
use super::keys::{self, SaveKeys};
use super::pending::{pending_events, TakenEvents};
use super::{Models, Registry};
use crate::simulation::Simulation;
use crate::topology::Recorder;

/// Bytes of state per model to reserve room for: most states of a few
/// fields fit, and the buffer grows for the rest.
const STATE_ESTIMATE: usize = 32;

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
        let topology = std::mem::take(&mut self.topology);
        let result = self.snapshot_with(&mut registry, &topology);
        self.saveable = registry;
        self.topology = topology;
        result
    }

    /// The snapshot's bytes, the models being those of `registry` and
    /// `topology`.
    fn snapshot_with(
        &mut self,
        registry: &mut Registry,
        topology: &Recorder,
    ) -> Result<Vec<u8>, SaveError> {
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
            let models = topology.model_count();
            let bench = self.bench();
            registry.connections = Some(fingerprints(models, |each| {
                topology.for_each_connection(bench, each)
            }));
        }
        let registry = &*registry;
        let models = Models::new(registry, topology);
        let handles = saveable_handles(models)?;
        let taken = TakenEvents::take(self);
        let events = pending_events(&taken, handles.len())?;
        let mut state_bytes = Vec::with_capacity(handles.len() * STATE_ESTIMATE);
        let states = model_states(models, &handles, &events.keys, &mut state_bytes)?;
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
        let (types, type_of) = type_table(models, &handles);
        let connections = registry.connections.as_deref().unwrap_or_default();
        let estimate = models_estimate(models, &state_bytes) + events.estimate();
        let records =
            (states.iter().zip(&type_of).enumerate()).map(|(index, ((seq, state), type_index))| {
                ModelRecord {
                    path: models.path(index).as_bytes(),
                    type_index: *type_index,
                    seq: *seq,
                    connections: connections.get(index).copied().unwrap_or(0),
                    state: Bytes(&state_bytes[state.clone()]),
                }
            });
        let body = SavedBody {
            time: self.time().as_nanos(),
            bench_seq: self.core().bench_seq(),
            types: &types,
            models: records,
            events: events.records(),
        };
        format::encode(body, estimate).map_err(|error| SaveError::Io(error.to_string()))
    }
}

/// About how many bytes the models' records take in a snapshot, their
/// states being `states`.
fn models_estimate(models: Models<'_>, states: &[u8]) -> usize {
    let records = (0..models.len()).map(|index| models.path(index).len() + 16);
    records.sum::<usize>() + states.len()
}

/// Every model's handle, or the error naming the first that cannot be
/// saved.
fn saveable_handles(models: Models<'_>) -> Result<Vec<&dyn ModelHandle>, SaveError> {
    (0..models.len())
        .map(|index| {
            models.handle(index).ok_or_else(|| SaveError::NotSaveable {
                model: models.path(index).to_string(),
                model_type: models.type_name(index),
            })
        })
        .collect()
}

/// Every model's next sequence number and state (a range of `out`), read
/// in the cell its task runs it from (see `model/shared.rs`), in add
/// order, with `keys` numbering the keys the states hold.
fn model_states(
    models: Models<'_>,
    handles: &[&dyn ModelHandle],
    keys: &Arc<SaveKeys>,
    out: &mut Vec<u8>,
) -> Result<Vec<(u64, Range<usize>)>, SaveError> {
    keys::saving(keys, || {
        let mut states = Vec::with_capacity(handles.len());
        for (index, handle) in handles.iter().enumerate() {
            let start = out.len();
            let seq = handle.save(out).map_err(|error| SaveError::State {
                model: models.path(index).to_string(),
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
fn type_table(
    models: Models<'_>,
    handles: &[&dyn ModelHandle],
) -> (Vec<TypeRecord<'static>>, Vec<u32>) {
    let mut types: Vec<TypeRecord<'static>> = Vec::new();
    let mut by_name: HashMap<&str, u32> = HashMap::new();
    let mut last: Option<(&'static str, u32)> = None;
    let mut type_of = Vec::with_capacity(handles.len());
    for (index, handle) in handles.iter().enumerate() {
        let name = models.type_name(index);
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
