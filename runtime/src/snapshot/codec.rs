//! The payload codecs that `#[model(save)]` uses for pending events.
//!
//! A saveable model's inputs need not all take serialisable payloads: an
//! event for an input whose payload is not `Serialize + DeserializeOwned`
//! can be pending in a saved bench only at the cost of an error from
//! `save` naming it, which is better than refusing the model at compile
//! time. The generated code picks the codec by method resolution
//! (`(&Codec::<T>::new()).encode(..)`): [`SerdeCodec`]'s method takes the
//! codec itself and applies when `T` is serialisable; [`NoSerdeCodec`]'s
//! takes a reference more and applies otherwise. [`CloneEvent`] and
//! [`OnceEvent`] do the same, on the same codec, for `Clone`, which a
//! periodic event needs.
//!
//! Compiled without the feature `save` too (only the serialising impl is
//! left out), so that the generated code of `#[model(save)]` with the
//! feature off fails on its feature check alone.

use std::any::{type_name, Any};
use std::marker::PhantomData;
use std::time::Duration;

use super::hooks::PayloadError;
use crate::mailbox::IntoAddress;
use crate::ports::event::Event;
use crate::ports::InputFor;

/// The codec of payload type `T`, and the maker of its restored events.
#[derive(Debug)]
pub struct Codec<T>(PhantomData<fn() -> T>);

impl<T> Codec<T> {
    /// The codec of `T`.
    pub const fn new() -> Self {
        Codec(PhantomData)
    }
}

impl<T> Default for Codec<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The codec of a serialisable payload.
pub trait SerdeCodec<T> {
    /// Appends `payload` (a `T`) to `out`.
    fn encode(&self, payload: &dyn Any, out: &mut Vec<u8>) -> Result<(), PayloadError>;
    /// Reads a `T` from all of `bytes`.
    fn decode(&self, bytes: &[u8]) -> Result<T, PayloadError>;
}

#[cfg(feature = "save")]
impl<T: serde::Serialize + serde::de::DeserializeOwned + 'static> SerdeCodec<T> for Codec<T> {
    fn encode(&self, payload: &dyn Any, out: &mut Vec<u8>) -> Result<(), PayloadError> {
        let payload = payload.downcast_ref::<T>().ok_or_else(|| {
            codec_error::<T>("the pending event's payload is not of the input's type")
        })?;
        super::append::append(payload, out).map_err(codec_error::<T>)
    }

    fn decode(&self, bytes: &[u8]) -> Result<T, PayloadError> {
        match postcard::take_from_bytes(bytes) {
            Ok((value, [])) => Ok(value),
            Ok((_, rest)) => Err(codec_error::<T>(format_args!(
                "{} bytes left after the payload",
                rest.len()
            ))),
            Err(error) => Err(codec_error::<T>(error)),
        }
    }
}

/// The codec of a payload that cannot be saved: every call fails.
pub trait NoSerdeCodec<T> {
    /// Fails: `T` cannot be saved.
    fn encode(&self, payload: &dyn Any, out: &mut Vec<u8>) -> Result<(), PayloadError>;
    /// Fails: `T` cannot be restored.
    fn decode(&self, bytes: &[u8]) -> Result<T, PayloadError>;
}

impl<T> NoSerdeCodec<T> for &Codec<T> {
    fn encode(&self, _: &dyn Any, _: &mut Vec<u8>) -> Result<(), PayloadError> {
        Err(PayloadError::NotSerializable {
            payload: type_name::<T>(),
        })
    }

    fn decode(&self, _: &[u8]) -> Result<T, PayloadError> {
        Err(PayloadError::NotSerializable {
            payload: type_name::<T>(),
        })
    }
}

/// A codec error for payload type `T`.
#[cfg(feature = "save")]
fn codec_error<T>(message: impl std::fmt::Display) -> PayloadError {
    PayloadError::Codec {
        payload: type_name::<T>(),
        message: message.to_string(),
    }
}

/// Makes one-shot and periodic events, for a `Clone` payload.
pub trait CloneEvent<T> {
    /// The event delivering `payload` to `port` at `address`, every
    /// `period` if given.
    fn make<P: InputFor<T>>(
        &self,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
        period: Option<Duration>,
    ) -> Result<Event, PayloadError>;
}

impl<T: Clone + Send + 'static> CloneEvent<T> for Codec<T> {
    fn make<P: InputFor<T>>(
        &self,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
        period: Option<Duration>,
    ) -> Result<Event, PayloadError> {
        Ok(match period {
            Some(period) => Event::periodic(port, payload, address, period),
            None => Event::new(port, payload, address),
        })
    }
}

/// Makes one-shot events only, for a payload that is not `Clone`.
pub trait OnceEvent<T> {
    /// The event delivering `payload` to `port` at `address`; fails if
    /// `period` is given.
    fn make<P: InputFor<T>>(
        &self,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
        period: Option<Duration>,
    ) -> Result<Event, PayloadError>;
}

impl<T: Send + 'static> OnceEvent<T> for &Codec<T> {
    fn make<P: InputFor<T>>(
        &self,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
        period: Option<Duration>,
    ) -> Result<Event, PayloadError> {
        match period {
            Some(_) => Err(PayloadError::NotClone {
                payload: type_name::<T>(),
            }),
            None => Ok(Event::new(port, payload, address)),
        }
    }
}
