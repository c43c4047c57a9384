//! A read-only view of a bench's simulation time, for code outside the
//! models: recorders, loggers and progress displays.
//!
//! Why a handle of its own rather than a [`Scheduler`](crate::Scheduler):
//! a scheduler counts as a live handle that may queue events (the step
//! takes a slower path while one exists, see `SchedulerCore::claim`), and
//! only a running [`Simulation`](crate::Simulation) gives one out. A
//! recorder is wired before `init`, and must not slow the steps down: it
//! only reads the clock, one atomic load.
//!
//! Within a time step the clock does not move, so the time read by an
//! output's connection while a model sends is the time at which the value
//! was sent, on any number of threads.

use std::fmt;
use std::sync::Arc;

use crate::scheduler::SchedulerCore;
use crate::time::SimTime;

/// Reads the simulation time of one bench; cheap to clone, `Send + Sync`.
///
/// Get one from [`SimInit::time_view`](crate::SimInit::time_view) (before
/// the bench is built, to wire recorders) or
/// [`Simulation::time_view`](crate::Simulation::time_view).
#[derive(Clone)]
pub struct TimeView {
    /// The bench's schedule, which holds its clock.
    core: Arc<SchedulerCore>,
}

impl TimeView {
    /// A view of the clock of `core`.
    pub(crate) fn new(core: Arc<SchedulerCore>) -> Self {
        TimeView { core }
    }

    /// The bench's current simulation time (its start time before `init`
    /// sets it: [`SimTime::ZERO`]).
    #[inline]
    pub fn now(&self) -> SimTime {
        self.core.time()
    }
}

impl fmt::Debug for TimeView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimeView")
            .field("now", &self.now())
            .finish()
    }
}
