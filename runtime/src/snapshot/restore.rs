//! `SimInit::restore`: a bench built again, continuing from a snapshot.
//!
//! The bytes (format, length, checksum) and the models against the bench
//! are checked first. Then four steps run, shared between the calling
//! thread and a helper for a large bench (see [`split`]): the wiring's
//! check; the pending events, each checked against its recipient's
//! inputs; the models' states, read back into the cells their tasks will
//! run them from; and the bench's tasks spawned at the saved time, none
//! polled before every state is back. The bench then starts, without its
//! `init` hooks, which ran before it was saved. A failure at any point
//! returns an error and no simulation (a bench spawned meanwhile is
//! dropped), the error a restore on one thread meets first.

use std::io::Read;

use super::error::RestoreError;
use super::fingerprint::fingerprints;
use super::format::{self, Body, ModelRecord, TypeRecord};
use super::handle::ModelHandle;
use super::Models;
use crate::bench::BenchId;
use crate::simulation::{SimInit, Simulation};
use crate::time::SimTime;
use crate::topology::Recorder;
use events::{listed_events, EventList};
use split::{Failed, Rank, Step};
use states::StateList;

mod events;
mod split;
mod states;

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
    /// naming the model and port, and no simulation is returned.
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
        let topology = std::mem::take(&mut self.topology);
        let models = Models::new(&registry, &topology);
        match_models(models, &body)?;
        // The wiring, checked from the bench's record of it (not from the
        // models, whose cells the states are read back into meanwhile).
        let bench = self.bench();
        let check_wiring = || checked_connections(&topology, bench, models, &body);
        let listed = match listed_events(models, &body) {
            Ok(listed) => listed,
            // The wiring's error first, as it is checked first.
            Err(error) => return Err(check_wiring().err().unwrap_or(error)),
        };
        let core = self.core().clone();
        let time = SimTime::from_nanos(body.time);
        let helped = self.helped_restore(body.models.len());
        let states = StateList::new(models, &body.models, listed.keys.clone());
        let events = EventList::new(models, &body, listed);
        // The steps left (see `split`), each error ranked.
        let failed = Failed::new();
        let wiring = || failed.noting(Rank::of(Step::Wiring), check_wiring);
        // The bench starts at the saved time, without the `init` hooks:
        // its models' tasks are first polled on their first messages.
        let started = core.clone();
        let spawn = move || {
            started.skip_init();
            self.spawned(time)
        };
        // Spawned by the calling thread, and kept until both threads are
        // done, even if the restore fails (not dropped while the other
        // thread still reads states into the models' cells).
        let mut spawned = None;
        let (connections, queue) = if helped {
            let helper = || {
                let connections = wiring()?;
                let queue = events.take(&failed)?;
                states.take(&failed)?;
                Ok((connections, queue))
            };
            let main = || {
                spawned = Some(spawn());
                states.take(&failed)?;
                events.take(&failed)
            };
            let both = split::both(helper, main);
            let ((connections, mut queue), taken_here) = failed.finish(both)?;
            queue.append(taken_here);
            (connections, queue)
        } else {
            // The event list's own memory (the handles' list) let go of
            // before the states and the spawn, which can reuse it.
            let staged = || {
                Ok((
                    wiring()?,
                    events.into_queue(&failed)?,
                    states.take(&failed)?,
                ))
            };
            let (connections, queue, ()) = failed.finish(staged())?;
            spawned = Some(spawn());
            (connections, queue)
        };
        let Some(simulation) = spawned else {
            unreachable!("both parts succeeded: the tasks were spawned");
        };
        let mut simulation = simulation.settled().map_err(RestoreError::Simulation)?;
        simulation.topology = topology;
        core.restore_pending(queue);
        core.set_bench_seq(body.bench_seq);
        // Checked equal to the saved ones: the next save reuses them.
        registry.connections = Some(connections);
        simulation.saveable = registry;
        Ok(simulation)
    }

    /// Whether a restore may share its work with a second thread: `true`
    /// always, `false` never. The two threads share the reading of the
    /// snapshot's pending events and of the models' states, in chunks,
    /// while one of them also checks the wiring and the other makes the
    /// bench's tasks. By default a restore does when the bench has more
    /// than a few thousand models and the machine more than one core. The
    /// simulation restored is the same either way, and so are the errors,
    /// met in the same order. Forks restored in parallel threads, one per
    /// core, may say `false`.
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
    /// let fork = bench().with_parallel_restore(false).restore_bytes(&snapshot)?;
    /// # drop(fork);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_parallel_restore(mut self, parallel: bool) -> Self {
        self.parallel_restore = Some(parallel);
        self
    }

    /// Whether restoring a bench of `models` models uses a helper thread.
    fn helped_restore(&self, models: usize) -> bool {
        self.parallel_restore.unwrap_or_else(|| {
            models >= HELPED_FROM
                && std::thread::available_parallelism().is_ok_and(|cores| cores.get() > 1)
        })
    }
}

/// How many models a bench has at least for its restore to use a helper
/// thread by default. A bench of a few models and many events would
/// share only its events, into two event lists that are then joined: 10³
/// models with 10⁶ events restored in 101 ms that way against 89 on one
/// thread (docs/benchmarks.md, "Save and restore"); and starting a thread
/// costs tens of microseconds, what restoring a few hundred models takes.
const HELPED_FROM: usize = 8192;

/// Checks the bench's models against the snapshot's: the same paths in
/// the same order (pair by pair; the saved paths are searched only to name
/// a model out of place), the same types, each with a handle, and each
/// type's version and fields (once per type).
fn match_models(models: Models<'_>, body: &Body<'_>) -> Result<(), RestoreError> {
    let mut checked_types = vec![false; body.types.len()];
    for index in 0..models.len() {
        let path = models.path(index);
        let Some(saved) = (body.models.get(index)).filter(|s| s.path == path.as_bytes()) else {
            return Err(misplaced(models, body, index));
        };
        let type_index = saved.type_index as usize;
        let saved_type = body
            .types
            .get(type_index)
            .ok_or_else(|| malformed(format!("model `{path}` has no type")))?;
        let handle = matched_type(models, index, saved_type)?;
        if !checked_types[type_index] {
            check_fields(models, index, handle, saved_type)?;
            checked_types[type_index] = true;
        }
    }
    if let Some(extra) = body.models.get(models.len()) {
        return Err(unknown_model(body, extra));
    }
    Ok(())
}

/// The error for the bench's model at `index`, which the snapshot does not
/// have at that place: missing from it, or elsewhere in it.
#[cold]
fn misplaced(models: Models<'_>, body: &Body<'_>, index: usize) -> RestoreError {
    let path = models.path(index);
    let saved = body.models.iter().position(|s| s.path == path.as_bytes());
    match saved {
        Some(at) => RestoreError::ModelOrder {
            model: path.to_string(),
            saved: at,
            bench: index,
        },
        None => {
            // A model of the snapshot that the bench lacks, at that place,
            // is the better report when the bench has one model less.
            let in_bench =
                |saved: &[u8]| (0..models.len()).any(|i| models.path(i).as_bytes() == saved);
            match body.models.get(index).filter(|s| !in_bench(s.path)) {
                Some(extra) if models.len() < body.models.len() => unknown_model(body, extra),
                _ => RestoreError::MissingModel {
                    model: path.to_string(),
                    model_type: models.type_name(index),
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

/// The handle of the bench's model `index`, whose saved type is
/// `saved_type`.
fn matched_type<'r>(
    models: Models<'r>,
    index: usize,
    saved_type: &TypeRecord<'_>,
) -> Result<&'r dyn ModelHandle, RestoreError> {
    let type_name = models.type_name(index);
    if saved_type.name != type_name {
        return Err(RestoreError::TypeMismatch {
            model: models.path(index).to_string(),
            saved: saved_type.name.to_string(),
            bench: type_name,
        });
    }
    models
        .handle(index)
        .ok_or_else(|| not_saveable(models, index))
}

/// The error for model `index`, whose type cannot be saved.
#[cold]
fn not_saveable(models: Models<'_>, index: usize) -> RestoreError {
    RestoreError::NotSaveable {
        model: models.path(index).to_string(),
        model_type: models.type_name(index),
    }
}

/// Checks the version and fields of model `index`'s type against the saved
/// ones.
fn check_fields(
    models: Models<'_>,
    index: usize,
    handle: &dyn ModelHandle,
    saved_type: &TypeRecord<'_>,
) -> Result<(), RestoreError> {
    if saved_type.version != handle.version() {
        return Err(RestoreError::VersionMismatch {
            model: models.path(index).to_string(),
            model_type: models.type_name(index),
            saved: saved_type.version,
            bench: handle.version(),
        });
    }
    if saved_type.fields != handle.fields() {
        return Err(RestoreError::FieldMismatch {
            model: models.path(index).to_string(),
            model_type: models.type_name(index),
            saved: saved_type.fields.iter().map(|f| f.to_string()).collect(),
            bench: handle.fields().to_vec(),
        });
    }
    Ok(())
}

/// The checksums of each model's outgoing connections, checked against
/// the saved ones (the models are already matched place by place).
fn checked_connections(
    topology: &Recorder,
    bench: BenchId,
    models: Models<'_>,
    body: &Body<'_>,
) -> Result<Vec<u32>, RestoreError> {
    let connections = fingerprints(models.len(), |each| {
        topology.for_each_connection(bench, each)
    });
    for (index, model) in body.models.iter().enumerate() {
        if connections.get(index) != Some(&model.connections) {
            return Err(RestoreError::ConnectionMismatch {
                model: models.path(index).to_string(),
            });
        }
    }
    Ok(connections)
}

/// How many events ahead of the one being restored the handle of its
/// recipient is loaded, and half as many its recipient's mailbox; and
/// how many models ahead of the one whose state is read back its handle
/// is loaded, and half as many its cell.
pub(super) const PREFETCH_AHEAD: usize = 16;

/// A snapshot that contradicts itself.
fn malformed(why: String) -> RestoreError {
    RestoreError::Malformed(why)
}
