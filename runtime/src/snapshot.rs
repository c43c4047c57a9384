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

/// What reaches the bench's saveable models, in add order.
///
/// A save or a restore refuses a bench as soon as one of its models cannot
/// be saved, naming the first: nothing is kept from that model on (the
/// saveable models after it run as the others do), and a bench of models
/// that cannot be saved costs nothing here. The paths and types of those
/// models, for the errors, are the topology's record of them ([`Models`]).
/// A saveable model's path and type name are kept here too, beside its
/// handle, although its mailbox's channel and its type's metadata give
/// them: a save and a restore read every path and type in add order, and
/// reading the paths from the channels, one more cache line per model,
/// made a save of 10⁶ models a quarter to two fifths slower
/// (docs/benchmarks.md, "Bytes per idle model: the snapshot registry keeps
/// saveable models only"); a generic model's metadata is made under a
/// lock.
#[cfg(feature = "save")]
#[derive(Default)]
pub(crate) struct Registry {
    /// Models `0..registered.len()`, every one saveable.
    registered: Vec<Registered>,
    /// How many models the bench has: more than `registered.len()` if
    /// model number `registered.len()` cannot be saved.
    models: usize,
    /// The checksum of each model's outgoing connections, in add order,
    /// once a save has computed them (see `fingerprint.rs`).
    connections: Option<Vec<u32>>,
}

/// A saveable model of the bench.
#[cfg(feature = "save")]
struct Registered {
    /// Its path.
    path: Name,
    /// Its type name.
    type_name: &'static str,
    /// What reaches it.
    handle: Box<dyn handle::ModelHandle>,
}

/// What the registry keeps of a saveable model: its type's hooks, the cell
/// it runs from, its mailbox.
#[cfg(feature = "save")]
pub(crate) type Saveable<M> = (SaveHooks<M>, SharedModel<M>, Address<M>);

#[cfg(feature = "save")]
impl Registry {
    /// True while every model registered can be saved: the next one is
    /// kept if it can be too.
    pub(crate) fn keeps_next(&self) -> bool {
        self.registered.len() == self.models
    }

    /// Registers the next model, of type `M`, at `path`, with what reaches
    /// it if it is saveable (and kept, see
    /// [`keeps_next`](Registry::keeps_next)).
    pub(crate) fn add<M: Model>(&mut self, path: Name, saveable: Option<Saveable<M>>) {
        let kept = self.keeps_next();
        self.models += 1;
        if let (true, Some((hooks, shared, address))) = (kept, saveable) {
            self.registered.push(Registered {
                path,
                type_name: M::metadata().type_name,
                handle: Box::new(handle::Handle::new(hooks, shared, address)),
            });
        }
    }
}

/// A bench's models as a save or a restore reads them, by their place in
/// the add order: the registry's, and the topology's record of those it
/// does not keep.
#[cfg(feature = "save")]
#[derive(Clone, Copy)]
pub(crate) struct Models<'a> {
    /// The saveable models.
    registry: &'a Registry,
    /// Every model's record.
    topology: &'a crate::topology::Recorder,
}

#[cfg(feature = "save")]
impl<'a> Models<'a> {
    /// The models of a bench whose registry and topology these are.
    pub(crate) fn new(registry: &'a Registry, topology: &'a crate::topology::Recorder) -> Self {
        debug_assert_eq!(registry.models, topology.model_count());
        Models { registry, topology }
    }

    /// How many there are.
    pub(crate) fn len(self) -> usize {
        self.registry.models
    }

    /// The path of model `index`.
    #[inline]
    pub(crate) fn path(self, index: usize) -> &'a str {
        match self.registry.registered.get(index) {
            Some(model) => model.path.as_str(),
            None => self.topology.model_path(index),
        }
    }

    /// The type name of model `index`.
    #[inline]
    pub(crate) fn type_name(self, index: usize) -> &'static str {
        match self.registry.registered.get(index) {
            Some(model) => model.type_name,
            None => self.topology.model_type(index),
        }
    }

    /// The handle of model `index`; `None` if it cannot be saved, or comes
    /// after one that cannot.
    #[inline]
    pub(crate) fn handle(self, index: usize) -> Option<&'a dyn handle::ModelHandle> {
        let model = self.registry.registered.get(index)?;
        Some(&*model.handle)
    }
}

#[cfg(feature = "save")]
impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("models", &self.models)
            .field("saveable", &self.registered.len())
            .finish()
    }
}

#[cfg(all(test, feature = "save", not(causim_loom)))]
// The test models' generated ports are unused here.
#[allow(dead_code)]
mod tests {
    use super::SaveError;
    use crate::prelude::*;

    /// A model that can be saved.
    #[model(save)]
    struct Kept {
        n: u64,
    }

    #[model(save)]
    impl Kept {
        #[input]
        fn poke(&mut self) {
            self.n += 1;
        }
    }

    /// A model that cannot.
    #[model]
    struct Plain;

    #[model]
    impl Plain {
        #[input]
        fn poke(&mut self) {}
    }

    /// The registry of a bench whose models are `saveable` or not, in
    /// order; and its save's error.
    fn registered(saveable: &[bool]) -> (usize, usize, Option<SaveError>) {
        let mut init = SimInit::new().with_threads(1);
        for (i, &kept) in saveable.iter().enumerate() {
            init = if kept {
                init.add_model(Kept { n: 0 }, Mailbox::new(), format!("m{i}"))
            } else {
                init.add_model(Plain, Mailbox::new(), format!("m{i}"))
            };
        }
        let mut simu = init.init(SimTime::ZERO).unwrap();
        let error = simu.save(&mut Vec::new()).err();
        (simu.saveable.models, simu.saveable.registered.len(), error)
    }

    #[test]
    fn the_registry_keeps_handles_only_up_to_the_first_model_that_cannot_be_saved() {
        let (models, handles, error) = registered(&[true, true, true]);
        assert_eq!((models, handles, error), (3, 3, None));
        // Nothing is kept for a bench whose first model cannot be saved.
        let (models, handles, error) = registered(&[false, true, true]);
        assert_eq!((models, handles), (3, 0));
        let not_saveable = |model: &str, model_type| SaveError::NotSaveable {
            model: model.to_string(),
            model_type,
        };
        assert_eq!(error, Some(not_saveable("m0", "Plain")));
        // The first one that cannot is named, by the topology's path.
        let (models, handles, error) = registered(&[true, false, true, false]);
        assert_eq!((models, handles), (4, 1));
        assert_eq!(error, Some(not_saveable("m1", "Plain")));
    }
}
