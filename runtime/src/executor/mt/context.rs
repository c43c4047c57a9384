//! Which worker the current thread is, if any.
//!
//! A waker runs on whatever thread wakes the task. When that thread is a
//! worker of the task's executor (which it is for every wake-up that a model
//! causes), the task goes to that worker's own queue: no lock, no other
//! thread involved, and it runs next on a warm cache. Any other thread
//! injects it into the shared queue. The thread that calls into the
//! simulation is worker 0 while it does: it enters before delivering events
//! and before running the models.

use std::cell::RefCell;

use super::shared::Shared;
use super::task::Task;
use crate::sync::work_queue::Worker;
use crate::sync::Arc;

/// A worker's identity and own run queue.
pub(crate) struct WorkerContext {
    /// The executor it works for.
    pub(crate) shared: Arc<Shared>,
    /// Its index in the executor's slots (0: the calling thread).
    pub(crate) index: usize,
    /// Its own run queue.
    pub(crate) local: Worker<Arc<Task>>,
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

/// Makes this thread worker `index` of `shared`, with the run queue taken
/// from `home`, until the guard is dropped; the queue then goes back to
/// `home` (also when unwinding).
pub(crate) fn install<'a>(
    shared: &Arc<Shared>,
    index: usize,
    home: &'a mut Option<Worker<Arc<Task>>>,
) -> Installed<'a> {
    let context = home.take().map(|local| WorkerContext {
        shared: shared.clone(),
        index,
        local,
    });
    let previous = CONTEXT.with(|c| std::mem::replace(&mut *c.borrow_mut(), context));
    Installed { previous, home }
}

/// Undoes [`install`] when dropped.
pub(crate) struct Installed<'a> {
    /// What was installed before (another executor's worker, usually
    /// nothing).
    previous: Option<WorkerContext>,
    /// Where the run queue goes back.
    home: &'a mut Option<Worker<Arc<Task>>>,
}

impl Drop for Installed<'_> {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let context = CONTEXT
            .try_with(|c| std::mem::replace(&mut *c.borrow_mut(), previous))
            .ok()
            .flatten();
        *self.home = context.map(|c| c.local);
    }
}
