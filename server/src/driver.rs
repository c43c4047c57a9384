//! Who may use the simulation when, and on which thread.
//!
//! A [`Simulation`] is `Send` but not `Sync`, and its calls take `&mut
//! self`: it sits behind a lock, and one call at a time holds it. A call
//! that arrives while another holds the simulation is refused at once
//! (`FAILED_PRECONDITION`, naming the call in progress) rather than queued:
//! a `step` behind a `run` that ends only when halted would wait for ever,
//! and a client that scripts one call after another never meets the
//! refusal.
//!
//! Short calls (`Step`, `ProcessEvent`, `ProcessQuery`) run on the request
//! task's own thread: handing them to a thread of their own cost two
//! thread wake-ups per call, most of a loopback round trip (see
//! `docs/benchmarks.md`). Calls that may take long (`Init`, `StepUntil`,
//! `Run`) run on the runtime's blocking threads, so that the server keeps
//! answering meanwhile.
//!
//! What needs no simulation is answered by the request tasks without the
//! lock, during a run too: the time (a [`TimeView`](causim::TimeView)), the
//! sinks, scheduling (a [`Scheduler`] handle is `Sync`), and `Halt`.
//!
//! A halt requested just as a run ends would stay pending in the kernel
//! and stop the next call at once. The call's end therefore consumes a
//! halt requested during it, under the same lock as `Halt` takes, with a
//! query to no one (which reports and clears it).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use causim::{Scheduler, Simulation};
use tonic::Status;

use crate::bench::Factory;
use crate::endpoints::{QueryEndpoints, SharedEndpoints};
use crate::status;

/// How long a call may hold the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Length {
    /// Runs on the request task's thread.
    Short,
    /// Runs on a blocking thread of the runtime.
    Long,
}

/// The handle request tasks use to reach the simulation.
pub(crate) struct Driver {
    /// The simulation, held by one call at a time.
    local: Arc<Mutex<Local>>,
    /// What the calls and the request tasks share.
    state: Arc<State>,
}

/// What the calls and the request tasks share.
#[derive(Default)]
struct State {
    /// The call holding the simulation, if any.
    busy: Mutex<Busy>,
    /// The current bench's shared parts; `None` before the first `Init`.
    published: RwLock<Option<Arc<Published>>>,
}

/// The call holding the simulation.
#[derive(Default)]
struct Busy {
    /// Its name; `None` when the simulation is free.
    call: Option<&'static str>,
    /// Whether `Halt` was called during it.
    halt_requested: bool,
}

/// The current bench's parts that request tasks use without the simulation.
pub(crate) struct Published {
    /// Event endpoints, sinks, the clock and the listing.
    pub(crate) endpoints: SharedEndpoints,
    /// Schedules events and requests halts.
    pub(crate) scheduler: Scheduler,
}

/// The simulation and what only a call holding it uses.
pub(crate) struct Local {
    /// Builds a bench from a configuration.
    factory: Factory,
    /// The current bench; `None` before the first `Init`.
    bench: Option<LiveBench>,
    /// The configuration of the current bench (JSON text), which
    /// `Restore` builds again by default.
    config: String,
    /// Shared with the request tasks.
    state: Arc<State>,
}

/// A built bench.
pub(crate) struct LiveBench {
    /// The simulation.
    pub(crate) simulation: Simulation,
    /// Query endpoints by name.
    pub(crate) queries: QueryEndpoints,
}

impl Driver {
    /// A driver with no bench until `Init`.
    pub(crate) fn new(factory: Factory) -> Self {
        let state = Arc::new(State::default());
        let local = Local {
            factory,
            bench: None,
            config: String::new(),
            state: state.clone(),
        };
        Driver {
            local: Arc::new(Mutex::new(local)),
            state,
        }
    }

    /// The current bench's shared parts, or the error of no bench.
    pub(crate) fn published(&self) -> Result<Arc<Published>, Status> {
        let published = self
            .state
            .published
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        published.clone().ok_or_else(status::no_bench)
    }

    /// Whether a bench is built.
    pub(crate) fn initialized(&self) -> bool {
        self.published().is_ok()
    }

    /// Runs `job` with the simulation, on this thread if `Short`, on a
    /// blocking thread if `Long`, and returns its outcome; refused if
    /// another call holds the simulation.
    pub(crate) async fn call<T: Send + 'static>(
        &self,
        name: &'static str,
        length: Length,
        job: impl FnOnce(&mut Local) -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        self.begin(name)?;
        let local = self.local.clone();
        let run = move || {
            let mut local = lock(&local);
            let result = catch_unwind(AssertUnwindSafe(|| job(&mut local)))
                .unwrap_or_else(|panic| Err(panicked(name, &*panic)));
            local.end_call();
            result
        };
        match length {
            Length::Short => run(),
            Length::Long => {
                // A client that gives up (its deadline passes, it cancels)
                // drops this future, not the job: halt the job then, so
                // that the simulation stops at its next time step instead
                // of running on for a caller that is gone.
                let abandoned = HaltIfAbandoned(Some(self.state.clone()));
                let outcome = tokio::task::spawn_blocking(run).await;
                abandoned.disarm();
                outcome.map_err(|error| {
                    Status::internal(format!("`{name}` did not complete: {error}"))
                })?
            }
        }
    }

    /// Whether a call that replaces the bench (`init`, `restore`) holds
    /// the simulation.
    pub(crate) fn replacing_bench(&self) -> bool {
        matches!(lock(&self.state.busy).call, Some("init" | "restore"))
    }

    /// Marks `name` as holding the simulation, unless another call does.
    fn begin(&self, name: &'static str) -> Result<(), Status> {
        let mut busy = lock(&self.state.busy);
        if let Some(running) = busy.call {
            return Err(status::busy(name, running));
        }
        busy.call = Some(name);
        Ok(())
    }

    /// Asks the call in progress (other than `Init`, `Restore`) to stop
    /// after its current time step; returns whether there was one.
    pub(crate) fn halt(&self) -> bool {
        self.state.halt()
    }
}

/// Halts the call in progress when dropped, unless disarmed: the guard of
/// a long call's future.
struct HaltIfAbandoned(Option<Arc<State>>);

impl HaltIfAbandoned {
    /// The call ended normally.
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for HaltIfAbandoned {
    fn drop(&mut self) {
        if let Some(state) = self.0.take() {
            state.halt();
        }
    }
}

impl State {
    /// [`Driver::halt`]: under the lock that the end of a call takes.
    fn halt(&self) -> bool {
        let mut busy = lock(&self.busy);
        // Not a call that replaces the bench: its halt would reach the
        // old one.
        let running = matches!(busy.call, Some(call) if call != "init" && call != "restore");
        if running {
            let published = self
                .published
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(published) = published.as_ref() {
                published.scheduler.halt();
                busy.halt_requested = true;
            }
        }
        running
    }
}

impl Local {
    /// The current bench, or the error of no bench.
    pub(crate) fn bench(&mut self) -> Result<&mut LiveBench, Status> {
        self.bench.as_mut().ok_or_else(status::no_bench)
    }

    /// Builds the bench of `config` (JSON text), replaces the current one
    /// with it and publishes its shared parts; on failure the current bench
    /// stays.
    pub(crate) fn init(&mut self, config: &str) -> Result<&mut LiveBench, Status> {
        let bench = (self.factory.build)(config)?;
        let (simulation, endpoints) = bench.initialise().map_err(|error| {
            Status::invalid_argument(format!("the bench could not be initialised: {error}"))
        })?;
        self.install(config, simulation, endpoints)
    }

    /// Builds the bench of `config` (JSON text; empty: the current bench's
    /// configuration) and restores `snapshot` into it; on failure the
    /// current bench stays.
    #[cfg(feature = "save")]
    pub(crate) fn restore(
        &mut self,
        config: &str,
        snapshot: &[u8],
    ) -> Result<&mut LiveBench, Status> {
        let config = if config.trim().is_empty() {
            self.config.clone()
        } else {
            config.to_string()
        };
        let bench = (self.factory.build)(&config)?;
        let (simulation, endpoints) = bench.restore(snapshot).map_err(|error| {
            Status::invalid_argument(format!("the snapshot could not be restored: {error}"))
        })?;
        self.install(&config, simulation, endpoints)
    }

    /// Makes `simulation` the current bench, built from `config`, and
    /// publishes its endpoints; the old bench is dropped.
    fn install(
        &mut self,
        config: &str,
        simulation: Simulation,
        endpoints: crate::Endpoints,
    ) -> Result<&mut LiveBench, Status> {
        let (endpoints, queries) = endpoints.split().map_err(Status::invalid_argument)?;
        let published = Published {
            endpoints,
            scheduler: simulation.scheduler(),
        };
        // The old bench goes first: its sinks' subscribers see their end.
        self.bench = None;
        *self
            .state
            .published
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(published));
        self.config = config.to_string();
        Ok(self.bench.insert(LiveBench {
            simulation,
            queries,
        }))
    }

    /// Frees the simulation after a call, consuming a halt requested
    /// during it that the call did not see (see the module docs).
    fn end_call(&mut self) {
        let state = self.state.clone();
        let mut busy = lock(&state.busy);
        if std::mem::take(&mut busy.halt_requested) {
            if let Some(bench) = &mut self.bench {
                bench.simulation.clear_halt();
            }
        }
        busy.call = None;
    }
}

/// The error of a call whose code panicked (the bench's factory, say).
fn panicked(name: &str, panic: &(dyn Any + Send)) -> Status {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    Status::internal(format!("`{name}` panicked: {message}"))
}

/// `mutex`'s guard; the data is one flag and a name, valid whatever a
/// panicking holder did.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
