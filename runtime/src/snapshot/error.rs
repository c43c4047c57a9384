//! What can go wrong saving or restoring a bench, by name.

use std::fmt;

use super::hooks::{PayloadError, StateError};
use crate::simulation::SimulationError;

/// Why [`Simulation::save`](crate::Simulation::save) wrote nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SaveError {
    /// A model of the bench cannot be saved: its type is not marked
    /// `#[model(save)]`.
    NotSaveable {
        /// Its path.
        model: String,
        /// Its type.
        model_type: &'static str,
    },
    /// A pending event cannot be saved.
    Event {
        /// What the event delivers, and to whom.
        event: String,
        /// Why it cannot be saved.
        reason: String,
    },
    /// A model's state could not be written.
    State {
        /// Its path.
        model: String,
        /// What went wrong.
        error: StateError,
    },
    /// Input injected from another thread waits for the next step: a
    /// snapshot would lose it. Step first (any step applies it).
    PendingInput {
        /// How many inputs wait.
        inputs: usize,
    },
    /// Messages that models sent since the last call wait in the
    /// deterministic order's stage for the bench to settle (they were
    /// caused by messages a thread outside the simulation sent): a
    /// snapshot would lose them. Any call that runs the models delivers
    /// them.
    Staged {
        /// How many messages wait, at least (a model still running on
        /// another worker counts as one, however many it sent so far).
        messages: usize,
    },
    /// The simulation failed earlier: its state is not one to continue
    /// from.
    Simulation(SimulationError),
    /// Writing the snapshot failed.
    Io(String),
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveError::NotSaveable { model, model_type } => write!(
                f,
                "cannot save the bench: model `{model}` ({model_type}) cannot be saved; mark its struct and impl block `#[model(save)]`"
            ),
            SaveError::Event { event, reason } => {
                write!(f, "cannot save the bench: pending {event} cannot be saved: {reason}")
            }
            SaveError::State { model, error } => {
                write!(f, "cannot save the state of model `{model}`: {error}")
            }
            SaveError::PendingInput { inputs } => write!(
                f,
                "cannot save the bench: {inputs} injected input(s) wait for the next step, and a snapshot would lose them; step first"
            ),
            SaveError::Staged { messages } => write!(
                f,
                "cannot save the bench: {messages} message(s) sent since the last call wait to be delivered in the deterministic order, and a snapshot would lose them; step first"
            ),
            SaveError::Simulation(error) => write!(f, "cannot save the bench: {error}"),
            SaveError::Io(error) => write!(f, "cannot write the snapshot: {error}"),
        }
    }
}

impl std::error::Error for SaveError {}

/// Why [`SimInit::restore`](crate::SimInit::restore) built no simulation.
///
/// A restore either succeeds whole or returns one of these and no
/// simulation: nothing is left half-restored.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreError {
    /// The bytes do not start like a snapshot.
    NotASnapshot,
    /// The snapshot was written in a newer format than this causim reads.
    NewerFormat {
        /// Its format.
        found: u32,
        /// The newest format this causim reads.
        supported: u32,
    },
    /// The snapshot ends early.
    Truncated,
    /// The snapshot's checksum does not match its bytes.
    Corrupted,
    /// The snapshot's bytes do not decode, or contradict each other.
    Malformed(String),
    /// A model of the bench is not in the snapshot.
    MissingModel {
        /// Its path.
        model: String,
        /// Its type.
        model_type: &'static str,
    },
    /// The snapshot holds a model the bench does not have.
    UnknownModel {
        /// Its path in the snapshot (bytes that are not UTF-8 shown as `�`).
        model: String,
        /// Its type in the snapshot.
        model_type: String,
    },
    /// A model was added in another place of the bench's order than in
    /// the saved bench: same-time events would be ordered differently.
    ModelOrder {
        /// Its path.
        model: String,
        /// Its place in the saved bench (from 0).
        saved: usize,
        /// Its place in this bench.
        bench: usize,
    },
    /// A model has another type than in the snapshot.
    TypeMismatch {
        /// Its path.
        model: String,
        /// Its type in the snapshot.
        saved: String,
        /// Its type in the bench.
        bench: &'static str,
    },
    /// A model's type saves another version of its state.
    VersionMismatch {
        /// Its path.
        model: String,
        /// Its type.
        model_type: &'static str,
        /// The version in the snapshot.
        saved: u32,
        /// The version of the bench's type.
        bench: u32,
    },
    /// A model's type saves other fields than in the snapshot.
    FieldMismatch {
        /// Its path.
        model: String,
        /// Its type.
        model_type: &'static str,
        /// The fields in the snapshot.
        saved: Vec<String>,
        /// The fields of the bench's type.
        bench: Vec<&'static str>,
    },
    /// A model's outgoing connections differ from the saved bench's.
    ConnectionMismatch {
        /// Its path.
        model: String,
    },
    /// A model of the bench cannot be restored: its type is not marked
    /// `#[model(save)]`.
    NotSaveable {
        /// Its path.
        model: String,
        /// Its type.
        model_type: &'static str,
    },
    /// A pending event is for an input the model does not have, or its
    /// payload does not decode.
    Event {
        /// The recipient's path.
        model: String,
        /// The input's name.
        port: String,
        /// What went wrong.
        error: PayloadError,
    },
    /// A model's saved state does not decode.
    State {
        /// Its path.
        model: String,
        /// What went wrong.
        error: StateError,
    },
    /// The bench itself is wrong (a name, a missing connection), or failed
    /// while it was restored.
    Simulation(SimulationError),
    /// Reading the snapshot failed.
    Io(String),
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot restore the snapshot: ")?;
        match self {
            RestoreError::NotASnapshot => f.write_str("the bytes are not a causim snapshot"),
            RestoreError::NewerFormat { found, supported } => write!(
                f,
                "it is in format {found}, newer than the newest this causim reads ({supported})"
            ),
            RestoreError::Truncated => f.write_str("it ends early (truncated)"),
            RestoreError::Corrupted => f.write_str("its checksum does not match (corrupted)"),
            RestoreError::Malformed(why) => write!(f, "it is malformed: {why}"),
            RestoreError::MissingModel { model, model_type } => {
                write!(f, "model `{model}` ({model_type}) of the bench is not in it")
            }
            RestoreError::UnknownModel { model, model_type } => {
                write!(f, "it holds model `{model}` ({model_type}), which the bench does not have")
            }
            RestoreError::ModelOrder { model, saved, bench } => write!(
                f,
                "model `{model}` was added in place {saved} of the saved bench but in place {bench} of this one (same-time events would be ordered differently); add the models in the same order"
            ),
            RestoreError::TypeMismatch { model, saved, bench } => write!(
                f,
                "model `{model}` is a `{saved}` in it but a `{bench}` in the bench"
            ),
            RestoreError::VersionMismatch { model, model_type, saved, bench } => write!(
                f,
                "model `{model}` ({model_type}) saved its state in version {saved}, and its type now reads version {bench}"
            ),
            RestoreError::FieldMismatch { model, model_type, saved, bench } => write!(
                f,
                "model `{model}` ({model_type}) saved fields {saved:?}, and its type now saves {bench:?}"
            ),
            RestoreError::ConnectionMismatch { model } => write!(
                f,
                "the outgoing connections of model `{model}` differ from the saved bench's (build the bench as it was)"
            ),
            RestoreError::NotSaveable { model, model_type } => write!(
                f,
                "model `{model}` ({model_type}) cannot be restored; mark its struct and impl block `#[model(save)]`"
            ),
            RestoreError::Event { model, port, error } => write!(
                f,
                "a pending event for input `{port}` of model `{model}`: {error}"
            ),
            RestoreError::State { model, error } => {
                write!(f, "the state of model `{model}`: {error}")
            }
            RestoreError::Simulation(error) => write!(f, "{error}"),
            RestoreError::Io(error) => write!(f, "reading failed: {error}"),
        }
    }
}

impl std::error::Error for RestoreError {}
