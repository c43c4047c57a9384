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
use crate::snapshot::Models;

/// How many models a thread takes at a time.
const CHUNK: usize = 1024;

/// The models' saved states being read back, a chunk at a time, by one or
/// two threads.
pub(super) struct StateList<'a> {
    /// The bench's models, matched with the saved ones place by place.
    models: Models<'a>,
    /// The saved models.
    saved: &'a [ModelRecord<'a>],
    /// The keys the states may hold.
    keys: Arc<RestoreKeys>,
    /// The chunks taken so far.
    chunks: Chunks,
}

impl<'a> StateList<'a> {
    /// The states of `saved`, for the bench's `models`, with `keys`.
    pub(super) fn new(
        models: Models<'a>,
        saved: &'a [ModelRecord<'a>],
        keys: Arc<RestoreKeys>,
    ) -> Self {
        StateList {
            models,
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
        let count = self.models.len();
        keys::restoring(&self.keys, || loop {
            let start = self.chunks.take().saturating_mul(CHUNK);
            if start >= count {
                return Ok(());
            }
            failed.stop_before(Rank::at(Step::States, start))?;
            let end = count.min(start + CHUNK);
            // The model being read, for a panic of its state's code.
            let reading = Cell::new(start);
            failed.catching(
                || Rank::at(Step::States, reading.get()),
                || {
                    let saved = self.saved.get(start..end).unwrap_or_default();
                    for (i, saved) in (start..end).zip(saved) {
                        reading.set(i);
                        self.prefetch_ahead(i);
                        let rank = Rank::at(Step::States, i);
                        failed.noting(rank, || restore_state(self.models, i, saved))?;
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
        let ahead = |n: usize| self.models.handle(i + n);
        if let Some(handle) = ahead(PREFETCH_AHEAD) {
            prefetch(handle as *const dyn ModelHandle);
        }
        if let Some(handle) = ahead(PREFETCH_AHEAD / 2) {
            handle.prefetch_cell();
        }
    }
}

/// Has model `index` of `models` read its state back from `saved`.
fn restore_state(
    models: Models<'_>,
    index: usize,
    saved: &ModelRecord<'_>,
) -> Result<(), RestoreError> {
    let handle = models
        .handle(index)
        .ok_or_else(|| not_saveable(models, index))?;
    handle
        .restore(saved.seq, saved.state.0)
        .map_err(|error| RestoreError::State {
            model: models.path(index).to_string(),
            error,
        })
}
