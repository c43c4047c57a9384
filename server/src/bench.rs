//! What the server serves: a bench built from a client's configuration.

use std::fmt;

use causim::{SimInit, SimTime, Simulation, SimulationError};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tonic::Status;

use crate::endpoints::{schema_of, Endpoints};

/// What runs once after a fresh `init`.
type AfterInit = Box<dyn FnOnce(&mut Simulation) -> Result<(), SimulationError> + Send>;

/// A built bench, not initialised yet, and its named endpoints.
///
/// The server initialises it (`SimInit::init` at [`start`](Self::starting_at)),
/// then runs the [`after_init`](Self::after_init) step, if any. It is
/// handed over before `init` so that the server decides how the bench
/// starts: a client's `Restore` (feature `save`) restores a snapshot into
/// the same bench instead, and skips the after-init step, whose events the
/// snapshot already holds.
pub struct Bench {
    /// The bench, models added, not initialised.
    init: SimInit,
    /// What a client may use, by name.
    endpoints: Endpoints,
    /// The simulation time to start at.
    start: SimTime,
    /// Runs once after a fresh `init`: the bench's own schedule, say.
    after_init: Option<AfterInit>,
}

impl Bench {
    /// The bench `init`, starting at time zero, with `endpoints`.
    pub fn new(init: SimInit, endpoints: Endpoints) -> Self {
        Bench {
            init,
            endpoints,
            start: SimTime::ZERO,
            after_init: None,
        }
    }

    /// Starts the simulation at `start` instead of time zero.
    pub fn starting_at(mut self, start: SimTime) -> Self {
        self.start = start;
        self
    }

    /// Runs `step` once the simulation is initialised (to schedule the
    /// bench's own events through `simulation.scheduler()`, say); its error
    /// fails the build.
    pub fn after_init(
        mut self,
        step: impl FnOnce(&mut Simulation) -> Result<(), SimulationError> + Send + 'static,
    ) -> Self {
        self.after_init = Some(Box::new(step));
        self
    }

    /// Restores `snapshot` into the bench instead of initialising it; the
    /// after-init step is skipped (what it scheduled is in the snapshot).
    #[cfg(feature = "save")]
    pub(crate) fn restore(
        self,
        snapshot: &[u8],
    ) -> Result<(Simulation, Endpoints), causim::RestoreError> {
        let simulation = self.init.restore(snapshot)?;
        Ok((simulation, self.endpoints))
    }

    /// Initialises the bench: the simulation and its endpoints.
    pub(crate) fn initialise(self) -> Result<(Simulation, Endpoints), SimulationError> {
        let mut simulation = self.init.init(self.start)?;
        if let Some(step) = self.after_init {
            step(&mut simulation)?;
        }
        Ok((simulation, self.endpoints))
    }
}

impl fmt::Debug for Bench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bench")
            .field("init", &self.init)
            .field("endpoints", &self.endpoints)
            .field("start", &self.start)
            .field("after_init", &self.after_init.is_some())
            .finish()
    }
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
