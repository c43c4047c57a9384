//! A restore's model states, read back into the models' cells in chunks
//! that either thread of a restore takes (see `events.rs` for the same
//! sharing of the pending events).

use std::cell::Cell;
use std::sync::Arc;

use super::split::{Chunks, Failed, Rank, Staged, Step};
use super::{not_saveable, PREFETCH_AHEAD};
use crate::prefetch::prefetch;
use crate::snapshot::error::RestoreError;
use crate::snapshot::format::ModelRecord;
use crate::snapshot::handle::ModelHandle;
use crate::snapshot::keys::{self, RestoreKeys};
use crate::snapshot::{Registered, Registry};

/// How many models a thread takes at a time.
const CHUNK: usize = 1024;

/// The models' saved states being read back, a chunk at a time, by one or
/// two threads.
pub(super) struct StateList<'a> {
    /// The bench's models, matched with the saved ones place by place.
    registry: &'a Registry,
    /// The saved models.
    saved: &'a [ModelRecord<'a>],
    /// The keys the states may hold.
    keys: Arc<RestoreKeys>,
    /// The chunks taken so far.
    chunks: Chunks,
}

impl<'a> StateList<'a> {
    /// The states of `saved`, for `registry`'s models, with `keys`.
    pub(super) fn new(
        registry: &'a Registry,
        saved: &'a [ModelRecord<'a>],
        keys: Arc<RestoreKeys>,
    ) -> Self {
        StateList {
            registry,
            saved,
            keys,
            chunks: Chunks::new(),
        }
    }

    /// Has the models of the chunks not taken yet read their states and
    /// sequence numbers back, in the cells their tasks run them from (see
    /// `model/shared.rs`). Stops once `failed` says that an error of an
    /// earlier rank was met.
    pub(super) fn take(&self, failed: &Failed) -> Staged<()> {
        let models = &self.registry.models;
        keys::restoring(&self.keys, || loop {
            let start = self.chunks.take().saturating_mul(CHUNK);
            if start >= models.len() {
                return Ok(());
            }
            failed.stop_before(Rank::at(Step::States, start))?;
            let end = models.len().min(start + CHUNK);
            // The model being read, for a panic of its state's code.
            let reading = Cell::new(start);
            failed.catching(
                || Rank::at(Step::States, reading.get()),
                || {
                    let saved = self.saved.get(start..end).unwrap_or_default();
                    let chunk = models[start..end].iter().zip(saved);
                    for (i, (model, saved)) in (start..).zip(chunk) {
                        reading.set(i);
                        self.prefetch_ahead(i);
                        let rank = Rank::at(Step::States, i);
                        failed.noting(rank, || restore_state(model, saved))?;
                    }
                    Ok(())
                },
            )?;
        })
    }

    /// Starts loading what reading the states of the models ahead of model
    /// `i` will touch: the models' cells lie in add order only as far as
    /// the allocator kept them together (among their outputs' connections,
    /// the hardware prefetcher lost them).
    fn prefetch_ahead(&self, i: usize) {
        let ahead = |n: usize| self.registry.models.get(i + n)?.handle.as_deref();
        if let Some(handle) = ahead(PREFETCH_AHEAD) {
            prefetch(handle as *const dyn ModelHandle);
        }
        if let Some(handle) = ahead(PREFETCH_AHEAD / 2) {
            handle.prefetch_cell();
        }
    }
}

/// Has `model` read its state back from `saved`.
fn restore_state(model: &Registered, saved: &ModelRecord<'_>) -> Result<(), RestoreError> {
    let handle = model.handle.as_deref().ok_or_else(|| not_saveable(model))?;
    handle
        .restore(saved.seq, saved.state.0)
        .map_err(|error| RestoreError::State {
            model: model.path.to_string(),
            error,
        })
}
