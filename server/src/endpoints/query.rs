//! Query endpoints: a JSON request in, the replies as a JSON array out.

use causim::{QuerySource, Simulation};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::event::parse;
use crate::status;

/// A query endpoint with its types erased; used on the simulation's
/// thread, since a query borrows its source mutably.
pub(crate) trait QueryEndpoint: Send {
    /// Sends `request` (JSON text) through the source now and returns the
    /// replies as a JSON array, in connection order.
    fn process(
        &mut self,
        simulation: &mut Simulation,
        request: &str,
    ) -> Result<String, tonic::Status>;
}

/// A query source behind a name.
pub(crate) struct SourceEndpoint<T: Clone + Send + 'static, R: Send + 'static> {
    /// The endpoint's name, for error messages.
    name: String,
    /// Where a request goes.
    source: QuerySource<T, R>,
}

impl<T: Clone + Send + 'static, R: Send + 'static> SourceEndpoint<T, R> {
    /// The endpoint `name` of `source`.
    pub(crate) fn new(name: String, source: QuerySource<T, R>) -> Self {
        SourceEndpoint { name, source }
    }
}

impl<T, R> QueryEndpoint for SourceEndpoint<T, R>
where
    T: DeserializeOwned + JsonSchema + Clone + Send + 'static,
    R: Serialize + JsonSchema + Send + 'static,
{
    fn process(
        &mut self,
        simulation: &mut Simulation,
        request: &str,
    ) -> Result<String, tonic::Status> {
        let request = parse::<T>(&self.name, request)?;
        let replies = simulation
            .process_query_from(&mut self.source, request)
            .map_err(status::simulation)?;
        serde_json::to_string(&replies)
            .map_err(|error| status::unserializable(&self.name, std::any::type_name::<R>(), &error))
    }
}
