//! Save, restore and fork a running bench.
//!
//! A verification campaign runs a bench to an interesting state once, and
//! starts many cases from there. [`Simulation::save`](crate::Simulation::save)
//! writes the bench between two steps; the same bench, built again by the
//! user's code, continues from the snapshot with
//! [`SimInit::restore`](crate::SimInit::restore), exactly where the saved
//! run was: the same outputs at the same times, in the same order, on any
//! number of threads. One snapshot restored into several benches (threads,
//! processes) forks what-if cases from a common state.
//!
//! # What a snapshot holds
//!
//! - the simulation time;
//! - each model's state: the fields of a model marked `#[model(save)]`,
//!   with serde, except its ports and the fields marked `#[transient]`
//!   (which keep the value the rebuilt bench gave them);
//! - every pending event that is not cancelled: its recipient by path, its
//!   input by name, its payload, its period and key, and its place in the
//!   same-time order (origin and sequence number);
//! - the keys of those events that models keep in their state: a restored
//!   key still cancels its restored event (see `keys.rs`);
//! - each origin's sequence counter, so that events scheduled after the
//!   restore are ordered as they would have been.
//!
//! Connections are not saved: the user's code builds the bench again, and
//! `restore` checks that it matches (the same models, at the same paths,
//! of the same types, added in the same order, with the same outgoing
//! connections, by a checksum per model). What the bench holds outside its
//! models — sinks' contents, event sources, scheduler handles, the
//! injected input of a live run not applied yet — is the bench's code's to
//! recreate.
//!
//! # How a model is reached
//!
//! A saveable model's task runs it from a cell that the snapshot code
//! holds too (`model/shared.rs`): a save reads every model's state there,
//! on the driving thread, between two steps, when no task runs; a restore
//! writes it before the bench starts. No model gets a message for it —
//! a message per model was most of the cost of saving a large bench, and
//! made every idle mailbox allocate its ring — and a model that is not
//! saveable pays nothing: it runs inline in its task, as before.
//!
//! # Errors
//!
//! A bench with a model that cannot be saved is refused by `save`, naming
//! it ([`SaveError::NotSaveable`]); so is a pending event that cannot be
//! (an event source's, or one whose payload is not serialisable). Every
//! mismatch between a snapshot and the bench, and every malformed,
//! truncated or corrupted snapshot, is a [`RestoreError`] naming the model
//! and port; `restore` then returns no simulation, so nothing is left
//! half-restored. The format is in `format.rs`.

pub(crate) mod hooks;

#[cfg(feature = "save")]
mod append;
pub(crate) mod codec;
#[cfg(feature = "save")]
mod error;
#[cfg(feature = "save")]
mod fingerprint;
#[cfg(feature = "save")]
mod format;
#[cfg(feature = "save")]
mod handle;
#[cfg(feature = "save")]
mod keys;
#[cfg(feature = "save")]
mod pending;
#[cfg(feature = "save")]
mod queue_order;
#[cfg(feature = "save")]
mod restore;
#[cfg(feature = "save")]
mod save;

pub use hooks::{DecodeInput, PayloadError, SaveHooks, StateError, StateReader, StateWriter};

#[cfg(feature = "save")]
pub use error::{RestoreError, SaveError};

#[cfg(feature = "save")]
use crate::{mailbox::Address, model::Model, model::SharedModel, name::Name};

/// The bench's models as the snapshot code needs them, in add order.
#[cfg(feature = "save")]
#[derive(Default)]
pub(crate) struct Registry {
    /// One per model.
    models: Vec<Registered>,
    /// The checksum of each model's outgoing connections, in add order,
    /// once a save has computed them (see `fingerprint.rs`).
    connections: Option<Vec<u32>>,
}

/// A model of the bench.
#[cfg(feature = "save")]
struct Registered {
    /// Its path.
    path: Name,
    /// Its type name.
    type_name: &'static str,
    /// How to reach it, if its type can be saved.
    handle: Option<Box<dyn handle::ModelHandle>>,
}

/// What the registry keeps of a saveable model: its type's hooks, the cell
/// it runs from, its mailbox.
#[cfg(feature = "save")]
pub(crate) type Saveable<M> = (SaveHooks<M>, SharedModel<M>, Address<M>);

#[cfg(feature = "save")]
impl Registry {
    /// Registers the model of type `M` at `path`, with what reaches it if
    /// it is saveable.
    pub(crate) fn add<M: Model>(&mut self, path: Name, saveable: Option<Saveable<M>>) {
        let handle = saveable.map(|(hooks, shared, address)| {
            Box::new(handle::Handle::new(hooks, shared, address)) as Box<dyn handle::ModelHandle>
        });
        self.models.push(Registered {
            path,
            type_name: M::metadata().type_name,
            handle,
        });
    }
}

#[cfg(feature = "save")]
impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("models", &self.models.len())
            .finish()
    }
}
