//! The simulation's thread, and who may use it when.
//!
//! A [`Simulation`] is `Send` but not `Sync`, and its calls take `&mut
//! self`: it lives on one thread of its own, which runs the calls the
//! request tasks hand it, one at a time. A call that arrives while another
//! holds the simulation is refused at once (`FAILED_PRECONDITION`, naming
//! the call in progress) rather than queued: a `step` behind a `run` that
//! ends only when halted would wait for ever, and a client that scripts
//! one call after another never meets the refusal.
//!
//! What needs no simulation is answered by the request tasks themselves,
//! during a run too: the time (a [`TimeView`](causim::TimeView)), the
//! sinks, scheduling (a [`Scheduler`] handle is `Sync`), and `Halt`.
//!
//! A halt requested just as a run ends would stay pending in the kernel
//! and stop the next call at once. The thread therefore consumes a halt
//! requested during a call once the call is over, under the same lock as
//! `Halt` takes, with a query to no one (which reports and clears it).

use std::any::Any;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, PoisonError, RwLock};

use causim::{QuerySource, Scheduler, Simulation};
use tokio::sync::oneshot;
use tonic::Status;

use crate::bench::Factory;
use crate::endpoints::{QueryEndpoint, SharedEndpoints};
use crate::status;

/// A call for the simulation's thread.
type Job = Box<dyn FnOnce(&mut Local) + Send>;

/// The handle request tasks use to reach the simulation.
pub(crate) struct Driver {
    /// To the simulation's thread.
    jobs: mpsc::Sender<Job>,
    /// What the thread and the request tasks share.
    state: Arc<State>,
}

/// What the simulation's thread and the request tasks share.
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

/// What lives on the simulation's thread.
pub(crate) struct Local {
    /// Builds a bench from a configuration.
    factory: Factory,
    /// The current bench; `None` before the first `Init`.
    bench: Option<LiveBench>,
    /// Shared with the request tasks.
    state: Arc<State>,
}

/// A built bench, on the simulation's thread.
pub(crate) struct LiveBench {
    /// The simulation.
    pub(crate) simulation: Simulation,
    /// Query endpoints by name.
    pub(crate) queries: BTreeMap<String, Box<dyn QueryEndpoint>>,
}

impl Driver {
    /// Starts the simulation's thread, with no bench until `Init`.
    pub(crate) fn start(factory: Factory) -> std::io::Result<Self> {
        let state = Arc::new(State::default());
        let (jobs, queue) = mpsc::channel::<Job>();
        let mut local = Local {
            factory,
            bench: None,
            state: state.clone(),
        };
        std::thread::Builder::new()
            .name("causim-simulation".into())
            .spawn(move || {
                // Ends when the driver (the server) is dropped.
                while let Ok(job) = queue.recv() {
                    job(&mut local);
                }
            })?;
        Ok(Driver { jobs, state })
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

    /// Runs `job` on the simulation's thread and returns its outcome;
    /// refused if another call holds the simulation.
    pub(crate) async fn call<T: Send + 'static>(
        &self,
        name: &'static str,
        job: impl FnOnce(&mut Local) -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        self.begin(name)?;
        let (reply, outcome) = oneshot::channel();
        let job: Job = Box::new(move |local: &mut Local| {
            let result = catch_unwind(AssertUnwindSafe(|| job(local)))
                .unwrap_or_else(|panic| Err(panicked(name, &*panic)));
            local.end_call();
            // The client may have gone: nothing to tell.
            let _ = reply.send(result);
        });
        if self.jobs.send(job).is_err() {
            lock(&self.state.busy).call = None;
            return Err(Status::unavailable("the simulation's thread has stopped"));
        }
        outcome
            .await
            .map_err(|_| Status::internal("the simulation's thread dropped the call"))?
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

    /// Asks the call in progress (other than `Init`) to stop after its
    /// current time step; returns whether there was one.
    pub(crate) fn halt(&self) -> bool {
        let mut busy = lock(&self.state.busy);
        let running = matches!(busy.call, Some(call) if call != "init");
        if running {
            if let Ok(published) = self.published() {
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
        let (endpoints, queries) = bench.endpoints.split().map_err(Status::invalid_argument)?;
        let published = Published {
            endpoints,
            scheduler: bench.simulation.scheduler(),
        };
        // The old bench goes first: its sinks' subscribers see their end.
        self.bench = None;
        *self
            .state
            .published
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(published));
        Ok(self.bench.insert(LiveBench {
            simulation: bench.simulation,
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
                // Reports (and so clears) a pending halt; a fatal error
                // the bench already has is reported again, and ignored.
                let _ = bench
                    .simulation
                    .process_query_from(&mut QuerySource::<(), ()>::new(), ());
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
