//! A saveable model as the snapshot code sees it: type-erased, reached
//! through its mailbox.
//!
//! A model lives inside its task, which the executor owns; between steps
//! the task waits for its next message. Saving or restoring it is a
//! message like any other: a [`Service`] that the model's own task runs on
//! the model and its context, on whatever thread polls it. No model is
//! touched from outside its task, so this needs no `unsafe` and works the
//! same on every executor.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

use super::hooks::{PayloadError, SaveHooks, Service, StateError, StateReader, StateWriter};
use super::keys::{self, RestoreKeys, SaveKeys};
use crate::mailbox::Address;
use crate::model::Model;
use crate::ports::event::{channel_identity, Event};
use crate::ports::target::push_from_bench;
use crate::sync::{lock, Mutex};

/// What a model's saving work produces: its next event sequence number and
/// its state's bytes.
pub(crate) type SavedState = Result<(u64, Vec<u8>), StateError>;

/// Where the models' saving or restoring work reports, by model index.
pub(crate) type Reports<R> = Arc<Mutex<Vec<(usize, R)>>>;

/// A saveable model of the bench.
pub(crate) trait ModelHandle: Send {
    /// The version of its state's format.
    fn version(&self) -> u32;
    /// The names of its saved fields.
    fn fields(&self) -> &'static [&'static str];
    /// Its mailbox's identity (see `channel_identity`).
    fn recipient(&self) -> usize;
    /// Sends the work that saves its state and reports it as `index`.
    fn request_save(&self, index: usize, keys: &Arc<SaveKeys>, reports: &Reports<SavedState>);
    /// Sends the work that restores `state` and sequence number `seq`, and
    /// reports the outcome as `index`.
    fn request_restore(
        &self,
        index: usize,
        seq: u64,
        state: Vec<u8>,
        keys: &Arc<RestoreKeys>,
        reports: &Reports<Result<(), StateError>>,
    );
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
    /// The model's mailbox.
    address: Address<M>,
    /// Its type's hooks.
    hooks: SaveHooks<M>,
}

impl<M: Model> Handle<M> {
    /// The handle of the model at `address`, if its type can be saved.
    pub(crate) fn new(address: Address<M>) -> Option<Self> {
        let hooks = M::save_hooks()?;
        Some(Handle { address, hooks })
    }

    /// Delivers `work` to the model now (its mailbox never refuses the
    /// bench).
    fn send(&self, work: impl FnOnce(&mut M, &mut crate::Context<M>) + Send + 'static) {
        let service = self.hooks.service;
        push_from_bench(&self.address, "(snapshot)", Service::new(work), |work| {
            Some(service(work))
        });
    }
}

impl<M: Model> ModelHandle for Handle<M> {
    fn version(&self) -> u32 {
        self.hooks.version
    }

    fn fields(&self) -> &'static [&'static str] {
        self.hooks.fields
    }

    fn recipient(&self) -> usize {
        channel_identity(&self.address)
    }

    fn request_save(&self, index: usize, keys: &Arc<SaveKeys>, reports: &Reports<SavedState>) {
        let (save, keys, reports) = (self.hooks.save, keys.clone(), reports.clone());
        self.send(move |model, cx| {
            let mut writer = StateWriter::default();
            // Saving only reads the model: a panicking `Serialize` impl
            // fails the save, not the simulation.
            let saved = catch_unwind(AssertUnwindSafe(|| {
                keys::saving(&keys, || save(model, &mut writer))
            }))
            .unwrap_or_else(|payload| Err(StateError::panicked(&*payload)));
            let report = saved.map(|()| (cx.seq(), writer.bytes));
            lock(&reports).push((index, report));
        });
    }

    fn request_restore(
        &self,
        index: usize,
        seq: u64,
        state: Vec<u8>,
        keys: &Arc<RestoreKeys>,
        reports: &Reports<Result<(), StateError>>,
    ) {
        let (restore, keys, reports) = (self.hooks.restore, keys.clone(), reports.clone());
        self.send(move |model, cx| {
            let mut reader = StateReader::new(&state);
            let restored = keys::restoring(&keys, || restore(model, &mut reader));
            let report = restored.and_then(|()| reader.finish());
            if report.is_ok() {
                cx.set_seq(seq);
            }
            lock(&reports).push((index, report));
        });
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
