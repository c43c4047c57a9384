//! What the server serves: a bench built from a client's configuration.

use std::fmt;

use causim::Simulation;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tonic::Status;

use crate::endpoints::{schema_of, Endpoints};

/// A built bench: the simulation, initialised, and its named endpoints.
#[derive(Debug)]
pub struct Bench {
    /// The simulation, after `SimInit::init`.
    pub simulation: Simulation,
    /// What a client may use, by name.
    pub endpoints: Endpoints,
}

/// Builds a bench from the JSON text of a configuration.
type BuildFn = Box<dyn FnMut(&str) -> Result<Bench, Status> + Send>;

/// The bench's builder, with its configuration type erased.
pub(crate) struct Factory {
    /// Parses a configuration and builds the bench.
    pub(crate) build: BuildFn,
    /// The JSON Schema of the configuration.
    pub(crate) config_schema: String,
}

impl Factory {
    /// The factory of `build`, which takes a `C`; an empty configuration
    /// is `C::default()`.
    pub(crate) fn new<C, E>(mut build: impl FnMut(C) -> Result<Bench, E> + Send + 'static) -> Self
    where
        C: DeserializeOwned + JsonSchema + Default,
        E: fmt::Display,
    {
        let config_type = std::any::type_name::<C>();
        let build = move |text: &str| {
            let config = if text.trim().is_empty() {
                C::default()
            } else {
                serde_json::from_str(text).map_err(|error| {
                    Status::invalid_argument(format!(
                        "the configuration is not a JSON `{config_type}`: {error}"
                    ))
                })?
            };
            build(config).map_err(|error| {
                Status::invalid_argument(format!("the bench could not be built: {error}"))
            })
        };
        Factory {
            build: Box::new(build),
            config_schema: schema_of::<C>(),
        }
    }
}
