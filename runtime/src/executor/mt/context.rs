//! Which worker the current thread is, if any.
//!
//! A waker runs on whatever thread wakes the task. When that thread is a
//! worker of the task's executor (which it is for every wake-up that a model
//! causes), the task goes to that worker's own queue: no lock, no other
//! thread involved, and it runs next on a warm cache. Any other thread
//! injects it into the shared queue. The thread that calls into the
//! simulation is worker 0 while it does: it enters before delivering events
//! and before running the models.

use std::cell::{Cell, RefCell};

use super::shared::Shared;
use super::task::TaskRef;
use crate::sync::work_queue::Worker;
use crate::sync::Arc;

/// A worker's identity and own run queue.
pub(crate) struct WorkerContext {
    /// The executor it works for.
    pub(crate) shared: Arc<Shared>,
    /// Its index in the executor's slots (0: the calling thread).
    pub(crate) index: usize,
    /// Its own run queue.
    pub(crate) local: Worker<TaskRef>,
    /// True while the worker holds its *lease*: one unit of the executor's
    /// activity count that covers every task in its own queue and the one
    /// it polls (see [`shared`](super::shared)).
    pub(crate) busy: Cell<bool>,
}

/// A worker's queue and lease while no thread works as that worker (for
/// worker 0: between calls into the simulation).
pub(crate) struct Home {
    /// The run queue.
    pub(crate) local: Worker<TaskRef>,
    /// True if the lease is held (tasks are queued in `local`).
    pub(crate) busy: bool,
}

impl Home {
    /// A home for `local`, with no lease.
    pub(crate) fn new(local: Worker<TaskRef>) -> Self {
        Home { local, busy: false }
    }

    /// Queues `task` from outside the worker (spawning), taking the lease
    /// first if needed; a full queue sends it to the injector.
    pub(crate) fn push(&mut self, shared: &Shared, task: TaskRef) {
        if !self.busy {
            shared.count_active();
            self.busy = true;
        }
        if let Err(task) = self.local.push(task) {
            shared.count_active();
            shared.inject(task);
        }
    }
}

impl WorkerContext {
    /// Takes the lease if the worker does not hold it: one read-modify-write
    /// of the activity count, before the worker queues or steals a task.
    pub(crate) fn lease(&self) {
        if !self.busy.get() {
            self.shared.count_active();
            self.busy.set(true);
        }
    }

    /// Gives the lease back, if held; the worker's queue must be empty and
    /// it must not be polling.
    pub(crate) fn release(&self) {
        if self.busy.replace(false) {
            self.shared.uncount_active(self.index);
        }
    }
}

#[cfg(not(causim_loom))]
std::thread_local! {
    /// The context of the worker running on this thread.
    static CONTEXT: RefCell<Option<WorkerContext>> = const { RefCell::new(None) };
}

#[cfg(causim_loom)]
loom::thread_local! {
    /// The context of the worker running on this thread.
    static CONTEXT: RefCell<Option<WorkerContext>> = RefCell::new(None);
}

/// Runs `f` with this thread's worker context, if any.
///
/// Nested calls are fine (a poll inside `f` wakes tasks): they only share
/// the context.
pub(crate) fn with<R>(f: impl FnOnce(Option<&WorkerContext>) -> R) -> R {
    CONTEXT.with(|c| f(c.borrow().as_ref()))
}

/// Makes this thread worker `index` of `shared`, with the run queue and
/// lease taken from `home`, until the guard is dropped; they then go back
/// to `home` (also when unwinding).
pub(crate) fn install<'a>(
    shared: &Arc<Shared>,
    index: usize,
    home: &'a mut Option<Home>,
) -> Installed<'a> {
    let context = home.take().map(|home| WorkerContext {
        shared: shared.clone(),
        index,
        local: home.local,
        busy: Cell::new(home.busy),
    });
    let previous = CONTEXT.with(|c| std::mem::replace(&mut *c.borrow_mut(), context));
    Installed { previous, home }
}

/// Undoes [`install`] when dropped.
pub(crate) struct Installed<'a> {
    /// What was installed before (another executor's worker, usually
    /// nothing).
    previous: Option<WorkerContext>,
    /// Where the run queue and lease go back.
    home: &'a mut Option<Home>,
}

impl Drop for Installed<'_> {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let context = CONTEXT
            .try_with(|c| std::mem::replace(&mut *c.borrow_mut(), previous))
            .ok()
            .flatten();
        *self.home = context.map(|c| Home {
            local: c.local,
            busy: c.busy.get(),
        });
    }
}
