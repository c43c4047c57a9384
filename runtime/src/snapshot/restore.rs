//! `SimInit::restore`: a bench built again, continuing from a snapshot.
//!
//! The bytes (format, length, checksum) and the models against the bench
//! are checked first. Then two parts run, on two threads for a large bench
//! (see [`alongside`]): the wiring's check and the pending events, each
//! checked against its recipient's inputs, on one; on the other, the
//! models read their states back, in the cells their tasks will run them
//! from (no task has run yet), and the bench starts — at the saved time,
//! without its `init` hooks, which ran before it was saved. A failure at
//! any point returns an error and no simulation (a bench started
//! meanwhile is dropped), the error a restore on one thread meets first.

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::error::RestoreError;
use super::fingerprint::fingerprints;
use super::format::{self, Body, EventRecord, ModelRecord, TypeRecord};
use super::handle::ModelHandle;
use super::keys::{self, RestoreKeys};
use super::{Registered, Registry};
use crate::bench::BenchId;
use crate::prefetch::prefetch;
use crate::scheduler::heap::{Entry, RadixQueue};
use crate::scheduler::{entry, EventKey};
use crate::simulation::{SimInit, Simulation};
use crate::time::SimTime;
use crate::topology::Recorder;

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
        match_models(&registry, &body)?;
        // The wiring, checked from the bench's record of it (not from the
        // models, whose cells the states are read back into meanwhile).
        let bench = self.bench();
        let topology = std::mem::take(&mut self.topology);
        let check_wiring = || checked_connections(&topology, bench, &registry, &body);
        let listed = match listed_events(&registry, &body) {
            Ok(listed) => listed,
            // The wiring's error first, as it is checked first.
            Err(error) => return Err(check_wiring().err().unwrap_or(error)),
        };
        let keys = listed.keys.clone();
        let core = self.core().clone();
        let time = SimTime::from_nanos(body.time);
        let helped = self.helped_restore(body.models.len());
        let ((connections, events), mut simulation) = alongside(
            helped,
            // The checks and the event list, on a helper thread if any.
            || Ok((check_wiring()?, restored_queue(&registry, &body, listed)?)),
            // The states, read back into the models' cells before any task
            // runs; then the bench starts at the saved time, without the
            // `init` hooks: its models' tasks are first polled on their
            // first messages.
            |failed| {
                // Stopped early (`None`) once the other part failed, whose
                // error is the one reported: no bench started for nothing.
                if !restore_states(&registry, &body.models, &keys, failed)?
                    || failed.load(Ordering::Relaxed)
                {
                    return Ok(None);
                }
                core.skip_init();
                self.start(time).map(Some).map_err(RestoreError::Simulation)
            },
        )?;
        simulation.topology = topology;
        core.restore_pending(events);
        core.set_bench_seq(body.bench_seq);
        // Checked equal to the saved ones: the next save reuses them.
        registry.connections = Some(connections);
        simulation.saveable = registry;
        Ok(simulation)
    }

    /// Whether a restore may read a snapshot's pending events on a second
    /// thread while the models read their states back and the bench
    /// starts: `true` always, `false` never. By default it does when the
    /// bench has more than a few thousand models and the machine more than
    /// one core. The simulation restored is the same either way, and so
    /// are the errors, met in the same order. Forks restored in parallel
    /// threads, one per core, may say `false`.
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
/// thread by default. What the calling thread does meanwhile grows with
/// the models (their states, their tasks), so a bench of a few models and
/// many events would only move its events to another thread; and starting
/// a thread costs tens of microseconds, what restoring a few hundred
/// models takes (docs/benchmarks.md, "Save and restore").
const HELPED_FROM: usize = 8192;

/// The helper thread's stack: a program's main thread's usual size, so
/// that a payload's `Deserialize` code (postcard sets no depth limit)
/// recurses as deep there as on the thread that would run it otherwise.
const HELPER_STACK: usize = 8 << 20;

/// Runs `helper` and `main`, on two threads if `helped` (and the system
/// gives a thread; else one after the other), and returns both results,
/// or the first error in the order `helper`, `main`: the order a
/// restore on one thread meets them in. `main` is given a flag that says
/// `helper` has failed already, so that it can stop early and return
/// `None` (on one thread it does not run at all once `helper` has
/// failed).
fn alongside<H: Send, M>(
    helped: bool,
    helper: impl FnOnce() -> Result<H, RestoreError> + Send,
    main: impl FnOnce(&AtomicBool) -> Result<Option<M>, RestoreError>,
) -> Result<(H, M), RestoreError> {
    let failed = AtomicBool::new(false);
    let both = |helped: Result<H, RestoreError>, main: Result<Option<M>, RestoreError>| match (
        helped?, main?,
    ) {
        (helped, Some(main)) => Ok((helped, main)),
        (_, None) => unreachable!("`main` stops early only once `helper` has failed"),
    };
    if !helped {
        let helped = helper()?;
        return both(Ok(helped), main(&failed));
    }
    // Taken by whichever thread runs it: the helper, or this thread if
    // no helper could be started.
    let helper = Mutex::new(Some(helper));
    let take = || helper.lock().unwrap_or_else(PoisonError::into_inner).take();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("causim-restore".into())
            .stack_size(HELPER_STACK)
            .spawn_scoped(scope, || {
                let helped = take().map(|helper| helper());
                if matches!(helped, Some(Err(_))) {
                    // Relaxed: a hint to stop early; the join orders the
                    // results.
                    failed.store(true, Ordering::Relaxed);
                }
                helped
            });
        let main = main(&failed);
        let helped = match spawned.map(|thread| thread.join()) {
            Ok(Ok(Some(helped))) => helped,
            // A panic in a payload's `Deserialize` code, as on one thread.
            Ok(Err(payload)) => std::panic::resume_unwind(payload),
            Ok(Ok(None)) => unreachable!(
                "the helper's work is left for this thread only if the helper did not start"
            ),
            // Not started (the system refused the thread): run it here,
            // after `main`, with the errors still in their order.
            Err(_) => match take() {
                Some(helper) => helper(),
                None => unreachable!("a thread that did not start took its work"),
            },
        };
        both(helped, main)
    })
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
    topology: &Recorder,
    bench: BenchId,
    registry: &Registry,
    body: &Body<'_>,
) -> Result<Vec<u32>, RestoreError> {
    let models = registry.models.len();
    let connections = fingerprints(models, |each| topology.for_each_connection(bench, each));
    for (index, model) in body.models.iter().enumerate() {
        if connections.get(index) != Some(&model.connections) {
            return Err(RestoreError::ConnectionMismatch {
                model: registry.models[index].path.to_string(),
            });
        }
    }
    Ok(connections)
}

/// The saved pending events, read once to make their keys (all of them
/// before any payload is read: a payload may hold a key): what
/// [`restored_queue`] needs to restore them.
struct ListedEvents {
    /// The keys made, by number.
    keys: Arc<RestoreKeys>,
    /// Each event's key, if it has one.
    event_keys: Vec<Option<EventKey>>,
    /// Each event's recipient, by the model's place.
    recipients: Vec<u32>,
}

/// Reads the saved pending events a first time: their times, origins and
/// keys checked, their keys made.
fn listed_events(registry: &Registry, body: &Body<'_>) -> Result<ListedEvents, RestoreError> {
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
    Ok(ListedEvents {
        keys: Arc::new(keys),
        event_keys,
        recipients,
    })
}

/// The saved pending events, each checked against its recipient's inputs,
/// in an event list of their own (handed whole to the schedule once the
/// bench starts, rather than listed and then moved into the schedule's
/// one by one).
fn restored_queue(
    registry: &Registry,
    body: &Body<'_>,
    listed: ListedEvents,
) -> Result<RadixQueue, RestoreError> {
    let ListedEvents {
        keys,
        event_keys,
        recipients,
    } = listed;
    let handles = recipient_handles(registry, &recipients);
    keys::restoring(&keys, || {
        let mut events = RadixQueue::default();
        // The events again, checked above: the zip stops at the last one.
        for (i, (record, key)) in body.events.iter().zip(event_keys).enumerate() {
            prefetch_recipients(&handles, &recipients, i);
            let record = record.map_err(malformed)?;
            events.push(restored_event(registry, &handles, &record, key)?);
        }
        Ok(events)
    })
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

/// Every how many models the states' loop looks whether the other part of
/// the restore failed.
const STOP_CHECK: usize = 1024;

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
/// restored keys the states hold. Stops early, returning false, once
/// `failed` says the other part of the restore failed.
fn restore_states(
    registry: &Registry,
    models: &[ModelRecord<'_>],
    keys: &Arc<RestoreKeys>,
    failed: &AtomicBool,
) -> Result<bool, RestoreError> {
    keys::restoring(keys, || {
        for (i, (model, record)) in registry.models.iter().zip(models).enumerate() {
            if i % STOP_CHECK == 0 && failed.load(Ordering::Relaxed) {
                return Ok(false);
            }
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
        Ok(true)
    })
}

/// A snapshot that contradicts itself.
fn malformed(why: String) -> RestoreError {
    RestoreError::Malformed(why)
}
