//! Executors: what polls the model tasks.
//!
//! Each model runs as one task: a concrete future that takes a message from
//! the model's mailbox, dispatches it, and loops. The executor polls tasks
//! that were woken until none is left; the simulation then knows the time
//! step is complete (or, if some model is still not idle, deadlocked).
//!
//! The single-threaded executor ([`st`]) is FIFO and deterministic: the same
//! bench gives the same order of polls on every run and machine. The
//! multi-threaded one ([`mt`]) polls on several threads with work stealing;
//! it keeps every per-mailbox ordering guarantee but not the global order.
//! [`Executor`] is whichever the bench asked for, with one interface.

pub(crate) mod current;
pub(crate) mod mt;
pub(crate) mod st;

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

pub(crate) use st::{RunError, Stuck, TaskFuture};

/// The executor a simulation runs on.
pub(crate) enum Executor {
    /// One thread, deterministic.
    St(st::Executor),
    /// Several threads.
    Mt(mt::Executor),
}

impl Executor {
    /// The deterministic executor for `threads <= 1`, else the
    /// multi-threaded one with `threads` threads in all.
    pub(crate) fn new(threads: usize) -> Self {
        if threads <= 1 {
            Executor::St(st::Executor::new())
        } else {
            Executor::Mt(mt::Executor::new(threads))
        }
    }

    /// Adds a task and queues it for its first poll.
    pub(crate) fn spawn(&mut self, future: TaskFuture, meta: TaskMeta) {
        match self {
            Executor::St(e) => e.spawn(future, meta),
            Executor::Mt(e) => e.spawn(future, meta),
        }
    }

    /// Runs `f` (which may wake tasks) as part of the executor, so that the
    /// tasks it wakes are queued where they run soonest.
    pub(crate) fn enter<R>(&mut self, f: impl FnOnce() -> R) -> R {
        match self {
            Executor::St(e) => e.enter(f),
            Executor::Mt(e) => e.enter(f),
        }
    }

    /// Polls woken tasks until none is left, a task panics, or `deadline`
    /// passes.
    pub(crate) fn run(&mut self, deadline: Option<Instant>) -> Result<(), RunError> {
        match self {
            Executor::St(e) => e.run(deadline),
            Executor::Mt(e) => e.run(deadline),
        }
    }

    /// Tasks that are neither finished nor waiting on an empty mailbox.
    pub(crate) fn stuck(&self) -> Vec<Stuck> {
        match self {
            Executor::St(e) => e.stuck(),
            Executor::Mt(e) => e.stuck(),
        }
    }

    /// Takes the reports of messages sent to mailboxes never added.
    pub(crate) fn take_unbound(&mut self) -> Vec<(Arc<str>, current::Unbound)> {
        match self {
            Executor::St(e) => e.take_unbound(),
            Executor::Mt(e) => e.take_unbound(),
        }
    }

    /// False if no message to a mailbox never added was reported since the
    /// last [`take_unbound`](Executor::take_unbound) (a cheap look; the
    /// multi-threaded executor always says true).
    pub(crate) fn has_unbound(&self) -> bool {
        match self {
            Executor::St(e) => e.has_unbound(),
            Executor::Mt(_) => true,
        }
    }

    /// Number of live tasks.
    pub(crate) fn task_count(&self) -> usize {
        match self {
            Executor::St(e) => e.task_count(),
            Executor::Mt(e) => e.task_count(),
        }
    }
}

/// What the simulation can ask a model's mailbox without knowing its type.
pub(crate) trait MailboxProbe: Send + Sync {
    /// True if the model waits on an empty mailbox.
    fn is_idle(&self) -> bool;
    /// Number of messages waiting.
    fn pending(&self) -> usize;
    /// From now on, wakes the model's task directly through `waker` of the
    /// single-threaded executor (see `Channel::try_push_with`).
    fn serve_on_local_executor(&self, waker: Arc<st::TaskWaker>);
}

impl<T: Send> MailboxProbe for crate::mailbox::channel::Channel<T> {
    fn is_idle(&self) -> bool {
        crate::mailbox::channel::Channel::is_idle(self)
    }

    fn pending(&self) -> usize {
        self.len()
    }

    fn serve_on_local_executor(&self, waker: Arc<st::TaskWaker>) {
        self.set_local_consumer(waker);
    }
}

/// Who a task is, for diagnostics.
#[derive(Clone)]
pub(crate) struct TaskMeta {
    /// Model instance name, or `"bench"`.
    pub(crate) name: Arc<str>,
    /// Model type name.
    pub(crate) model_type: &'static str,
    /// The model's mailbox; `None` for a bench task.
    pub(crate) mailbox: Option<Arc<dyn MailboxProbe>>,
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}
