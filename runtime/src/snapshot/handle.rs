//! A saveable model as the snapshot code sees it: type-erased, reached
//! in the cell its task runs it from (see `model/shared.rs`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

use super::hooks::{PayloadError, SaveHooks, StateError, StateReader, StateWriter};
use crate::mailbox::Address;
use crate::model::{Model, SharedModel};
use crate::ports::event::Event;
use crate::prefetch::prefetch;

/// A saveable model of the bench.
pub(crate) trait ModelHandle: Send + Sync {
    /// The version of its state's format.
    fn version(&self) -> u32;
    /// The names of its saved fields.
    fn fields(&self) -> &'static [&'static str];
    /// Appends its state to `out` and returns its next event sequence
    /// number. The keys its state holds are numbered by the table set for
    /// the thread (see `keys.rs`). Fails, appending nothing, if the model
    /// is in the middle of a method or its `Serialize` code fails.
    fn save(&self, out: &mut Vec<u8>) -> Result<u64, StateError>;
    /// Reads its state back from `state` and sets its next event sequence
    /// number to `seq`.
    fn restore(&self, seq: u64, state: &[u8]) -> Result<(), StateError>;
    /// Starts loading the start of its mailbox's channel, beside which the
    /// channel's reference counts lie (a restored event's address takes
    /// one; usually on the same cache line, see `prefetch.rs`).
    fn prefetch_mailbox(&self);
    /// Starts loading the cell its task runs it from, which `save` and
    /// `restore` reach first.
    fn prefetch_cell(&self);
    /// The event for its input `port` with a saved payload.
    fn decode_event(
        &self,
        port: &str,
        payload: &[u8],
        period: Option<Duration>,
    ) -> Result<Event, PayloadError>;
}

/// The handle of a model of type `M`.
pub(crate) struct Handle<M: Model> {
    /// Its type's hooks.
    hooks: SaveHooks<M>,
    /// The cell its task runs it from.
    shared: SharedModel<M>,
    /// Its mailbox, to which its restored events go.
    address: Address<M>,
}

impl<M: Model> Handle<M> {
    /// The handle of the model in `shared`, which receives at `address`.
    pub(crate) fn new(hooks: SaveHooks<M>, shared: SharedModel<M>, address: Address<M>) -> Self {
        Handle {
            hooks,
            shared,
            address,
        }
    }
}

impl<M: Model> ModelHandle for Handle<M> {
    fn version(&self) -> u32 {
        self.hooks.version
    }

    fn fields(&self) -> &'static [&'static str] {
        self.hooks.fields
    }

    fn save(&self, out: &mut Vec<u8>) -> Result<u64, StateError> {
        let save = self.hooks.save;
        let start = out.len();
        let mut writer = StateWriter {
            bytes: std::mem::take(out),
        };
        let saved = |model: &mut M, cx: &mut crate::Context<M>| {
            // Messages waiting in its mailbox (sent from outside the
            // simulation since the last call) are not in a snapshot.
            let waiting = cx.address().channel().len();
            if waiting > 0 {
                return Err(StateError::waiting(waiting));
            }
            // Saving only reads the model: a panicking `Serialize` impl
            // fails the save, not the simulation.
            catch_unwind(AssertUnwindSafe(|| save(model, &mut writer)))
                .unwrap_or_else(|payload| Err(StateError::panicked(&*payload)))
                .map(|()| cx.seq())
        };
        let result = (self.shared.with_idle(saved)).unwrap_or_else(|| Err(StateError::busy()));
        *out = writer.bytes;
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    fn restore(&self, seq: u64, state: &[u8]) -> Result<(), StateError> {
        let restore = self.hooks.restore;
        let restored = |model: &mut M, cx: &mut crate::Context<M>| {
            let mut reader = StateReader::new(state);
            // A panicking `Deserialize` impl fails the restore, which then
            // returns no simulation.
            catch_unwind(AssertUnwindSafe(|| restore(model, &mut reader)))
                .unwrap_or_else(|payload| Err(StateError::panicked(&*payload)))
                .and_then(|()| reader.finish())?;
            cx.set_seq(seq);
            Ok(())
        };
        (self.shared.with_idle(restored)).unwrap_or_else(|| Err(StateError::busy()))
    }

    fn prefetch_mailbox(&self) {
        prefetch(Arc::as_ptr(self.address.channel()));
    }

    fn prefetch_cell(&self) {
        self.shared.prefetch();
    }

    fn decode_event(
        &self,
        port: &str,
        payload: &[u8],
        period: Option<Duration>,
    ) -> Result<Event, PayloadError> {
        (self.hooks.decode_input)(port, payload, &self.address, period)
    }
}
