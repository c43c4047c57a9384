//! What a saveable model gives the snapshot code: the hooks of
//! [`SaveHooks`], which `#[model(save)]` writes.
//!
//! These types exist without the feature `save` (the [`Model`] trait names
//! them), but only with it can a model fill them: the state's fields and
//! the payloads of pending events are written with serde.

use std::any::Any;
use std::fmt;
use std::time::Duration;

use crate::mailbox::Address;
use crate::model::Model;
use crate::ports::event::Event;

/// How a model's state and its pending events are saved and restored:
/// what [`Model::save_hooks`] returns for a saveable model.
///
/// `#[model(save)]` fills it; a hand-written model can too (each function
/// is a plain `fn`). The snapshot holds, per model type, `version` and
/// `fields`: restoring checks both against the bench's model, so a model
/// whose state changed shape is reported, not misread.
pub struct SaveHooks<M: Model> {
    /// The version of the state's format, `1` unless the model says
    /// otherwise: raise it when the state's fields change meaning.
    pub version: u32,
    /// The names of the saved fields, in the order `save` writes them.
    pub fields: &'static [&'static str],
    /// Writes the state's fields.
    pub save: fn(&M, &mut StateWriter) -> Result<(), StateError>,
    /// Reads the state's fields back into the model; on error, the model
    /// is left unchanged (the fields are assigned only once all were
    /// read).
    pub restore: fn(&mut M, &mut StateReader<'_>) -> Result<(), StateError>,
    /// Writes the payload of a pending event for input `port`.
    pub encode_input: fn(&str, &dyn Any, &mut Vec<u8>) -> Result<(), PayloadError>,
    /// Makes the event for input `port` from a saved payload: delivered to
    /// `address`, every `period` if it is periodic.
    pub decode_input: DecodeInput<M>,
}

/// Makes the event for an input from a saved payload: the input's name,
/// the payload's bytes, the recipient, the period of a periodic event.
pub type DecodeInput<M> =
    fn(&str, &[u8], &Address<M>, Option<Duration>) -> Result<Event, PayloadError>;

impl<M: Model> fmt::Debug for SaveHooks<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaveHooks")
            .field("version", &self.version)
            .field("fields", &self.fields)
            .finish_non_exhaustive()
    }
}

/// Writes a model's saved fields, one after the other.
#[derive(Debug, Default)]
pub struct StateWriter {
    /// The bytes written so far.
    #[cfg_attr(not(feature = "save"), allow(dead_code))]
    pub(crate) bytes: Vec<u8>,
}

/// Reads a model's saved fields back, in the order they were written.
#[derive(Debug)]
pub struct StateReader<'a> {
    /// The bytes not read yet.
    pub(crate) rest: &'a [u8],
}

impl<'a> StateReader<'a> {
    /// A reader of `bytes`.
    #[cfg(feature = "save")]
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        StateReader { rest: bytes }
    }

    /// Fails unless every byte was read.
    pub fn finish(&self) -> Result<(), StateError> {
        if self.rest.is_empty() {
            return Ok(());
        }
        Err(StateError {
            field: None,
            message: format!("{} bytes left after the last field", self.rest.len()),
        })
    }
}

#[cfg(feature = "save")]
impl StateWriter {
    /// Writes field `name`.
    pub fn field<T: serde::Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), StateError> {
        super::append::append(value, &mut self.bytes).map_err(|error| StateError::of(name, error))
    }
}

#[cfg(feature = "save")]
impl StateReader<'_> {
    /// Reads field `name`.
    pub fn field<T: serde::de::DeserializeOwned>(
        &mut self,
        name: &'static str,
    ) -> Result<T, StateError> {
        match postcard::take_from_bytes(self.rest) {
            Ok((value, rest)) => {
                self.rest = rest;
                Ok(value)
            }
            Err(error) => Err(StateError::of(name, error)),
        }
    }
}

// Without the feature `save`, the generated code of `#[model(save)]`
// fails on its feature check alone (`__private::require_save_feature`):
// these stand-ins keep its calls well-formed, so that no other error
// follows. They are never called.
#[cfg(not(feature = "save"))]
impl StateWriter {
    /// Stands in for the method of the feature `save`.
    pub fn field<T: ?Sized>(&mut self, name: &'static str, _: &T) -> Result<(), StateError> {
        Err(StateError::of(name, "causim's feature `save` is off"))
    }
}

#[cfg(not(feature = "save"))]
impl StateReader<'_> {
    /// Stands in for the method of the feature `save`.
    pub fn field<T>(&mut self, name: &'static str) -> Result<T, StateError> {
        Err(StateError::of(name, "causim's feature `save` is off"))
    }
}

/// A model's state that could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateError {
    /// The field, if the error is in one.
    pub field: Option<&'static str>,
    /// What went wrong.
    pub message: String,
}

impl StateError {
    /// The error of field `name`.
    pub fn of(name: &'static str, error: impl fmt::Display) -> Self {
        StateError {
            field: Some(name),
            message: error.to_string(),
        }
    }
}

impl StateError {
    /// The error of a model's state whose saving panicked.
    #[cfg(feature = "save")]
    pub(crate) fn panicked(payload: &(dyn Any + Send)) -> Self {
        StateError {
            field: None,
            message: format!(
                "its serialisation panicked: {}",
                crate::executor::panic_message(payload)
            ),
        }
    }

    /// The error of a model with `messages` waiting in its mailbox, which a
    /// snapshot would lose.
    #[cfg(feature = "save")]
    pub(crate) fn waiting(messages: usize) -> Self {
        StateError {
            field: None,
            message: format!(
                "{messages} message(s) sent since the last call wait in its mailbox, and a snapshot would lose them; step first"
            ),
        }
    }

    /// The error of a model that is in the middle of a method (its task
    /// blocked when a step failed), whose state cannot be read or written.
    #[cfg(feature = "save")]
    pub(crate) fn busy() -> Self {
        StateError {
            field: None,
            message: "the model is in the middle of a method (a step ended with it blocked)"
                .to_string(),
        }
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field {
            Some(field) => write!(f, "field `{field}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for StateError {}

/// The payload of a pending event that could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PayloadError {
    /// The model has no input of that name.
    UnknownPort,
    /// The payload's type cannot be saved (it is not
    /// `Serialize + DeserializeOwned`).
    NotSerializable {
        /// The payload's type.
        payload: &'static str,
    },
    /// A periodic event's payload must be `Clone` (it is cloned at every
    /// occurrence).
    NotClone {
        /// The payload's type.
        payload: &'static str,
    },
    /// The payload could not be written or read.
    Codec {
        /// The payload's type.
        payload: &'static str,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadError::UnknownPort => f.write_str("the model has no input of that name"),
            PayloadError::NotSerializable { payload } => write!(
                f,
                "its payload type `{payload}` is not `Serialize + DeserializeOwned`"
            ),
            PayloadError::NotClone { payload } => write!(
                f,
                "its payload type `{payload}` is not `Clone`, which a periodic event needs"
            ),
            PayloadError::Codec { payload, message } => {
                write!(f, "its payload of type `{payload}`: {message}")
            }
        }
    }
}

impl std::error::Error for PayloadError {}
