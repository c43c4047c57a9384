//! Event endpoints: a JSON payload in, an event for the bench out.

use causim::ports::InputRef;
use causim::{Event, EventSource, Model};
use serde::de::DeserializeOwned;

use crate::status;

/// An event endpoint with its payload type erased.
pub(crate) trait EventEndpoint: Send + Sync {
    /// The event that delivers `payload` (JSON text) to the endpoint's
    /// connections; a payload that is not JSON of the endpoint's type is
    /// refused with a message naming `name` and the type.
    fn event(&self, name: &str, payload: &str) -> Result<Event, tonic::Status>;
}

/// An event source behind a name.
pub(crate) struct SourceEndpoint<T: Clone + Send + 'static> {
    /// Where a payload goes.
    source: EventSource<T>,
}

impl<T: Clone + Send + 'static> SourceEndpoint<T> {
    /// The endpoint of `source`.
    pub(crate) fn new(source: EventSource<T>) -> Self {
        SourceEndpoint { source }
    }
}

impl<T> EventEndpoint for SourceEndpoint<T>
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    fn event(&self, name: &str, payload: &str) -> Result<Event, tonic::Status> {
        let value = parse::<T>(name, payload)?;
        Ok(self.source.event(value))
    }
}

/// One model input behind a name. Its events name their recipient, so a
/// snapshot can hold them when they are scheduled (an event source's
/// cannot be saved).
pub(crate) struct InputEndpoint<M: Model, T> {
    /// Where a payload goes.
    input: InputRef<M, T>,
}

impl<M: Model, T> InputEndpoint<M, T> {
    /// The endpoint of `input`.
    pub(crate) fn new(input: InputRef<M, T>) -> Self {
        InputEndpoint { input }
    }
}

impl<M, T> EventEndpoint for InputEndpoint<M, T>
where
    M: Model,
    T: DeserializeOwned + Send + 'static,
    InputRef<M, T>: Send + Sync,
{
    fn event(&self, name: &str, payload: &str) -> Result<Event, tonic::Status> {
        let value = parse::<T>(name, payload)?;
        Ok(self.input.event(value))
    }
}

/// `text` as a `T`, or the error a client reads.
pub(crate) fn parse<T: DeserializeOwned>(endpoint: &str, text: &str) -> Result<T, tonic::Status> {
    serde_json::from_str(text)
        .map_err(|error| status::bad_payload(endpoint, std::any::type_name::<T>(), text, &error))
}
