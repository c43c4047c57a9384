//! A task of the multi-threaded executor and its wake-up state machine.
//!
//! A task is in at most one run queue at a time and is polled by at most
//! one worker at a time. Both follow from one atomic state word that every
//! wake and every poll changes with a read-modify-write:
//!
//! - a wake sets `SCHEDULED`; only the wake that finds the word at zero
//!   (idle) queues the task and counts it as active;
//! - the worker that pops the task swaps the word to `RUNNING`, which also
//!   clears `SCHEDULED` (a wake that comes in now sets it again);
//! - after a `Pending` poll, the worker goes back to idle only if no wake
//!   came in (`RUNNING` → 0), else re-queues the task itself;
//! - a finished task is `DONE` forever; wakes do nothing.
//!
//! Because the wake's `fetch_or` and the poll's `swap` are both
//! read-modify-writes on the same word, a wake that found the task already
//! scheduled happens-before the poll that follows: that poll sees whatever
//! the waker published (e.g. a message), so no wake-up is lost.

use super::shared::Shared;
use crate::executor::current::Waiting;
use crate::executor::st::TaskFuture;
use crate::executor::{TaskMeta, TaskProbe};
use crate::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use crate::sync::{Arc, Mutex};

/// Queued, or woken while running.
const SCHEDULED: u8 = 0b001;
/// Being polled.
const RUNNING: u8 = 0b010;
/// Finished: never polled again.
const DONE: u8 = 0b100;

/// What a finished poll leaves the task as.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AfterPoll {
    /// Nobody woke it: it waits (and no longer counts as active).
    Idle,
    /// It was woken while running: queue it again (still active).
    Requeue,
}

/// The parts of a task that only its poller touches.
pub(crate) struct TaskCell {
    /// The future; `None` once finished or dropped.
    pub(crate) future: Option<TaskFuture>,
    /// What it waited on after its last poll, if not its mailbox.
    pub(crate) waiting: Option<Waiting>,
}

/// A spawned task.
pub(crate) struct Task {
    /// `SCHEDULED | RUNNING | DONE` bits.
    state: AtomicU8,
    /// The future and its last report, locked by the one poller (never
    /// contended: the state machine lets one worker poll at a time).
    pub(crate) cell: Mutex<TaskCell>,
    /// Who it is (for a model, its mailbox's channel).
    pub(crate) probe: std::sync::Arc<dyn TaskProbe>,
    /// The executor it belongs to.
    pub(crate) shared: Arc<Shared>,
    /// True while the task is in the executor's list of deadlock
    /// candidates (polled since the last end-of-step check).
    pub(crate) listed: AtomicBool,
}

impl Task {
    /// A task that is already scheduled: the caller queues it and counts
    /// it active.
    pub(crate) fn new_scheduled(future: TaskFuture, meta: TaskMeta, shared: Arc<Shared>) -> Self {
        Task {
            state: AtomicU8::new(SCHEDULED),
            cell: Mutex::new(TaskCell {
                future: Some(future),
                waiting: None,
            }),
            probe: meta.into_probe(),
            shared,
            listed: AtomicBool::new(false),
        }
    }

    /// Marks a wake-up; true if the caller must queue the task (it was
    /// idle).
    pub(crate) fn mark_woken(&self) -> bool {
        self.state.fetch_or(SCHEDULED, Ordering::AcqRel) == 0
    }

    /// Marks the start of a poll by the worker that popped the task.
    pub(crate) fn start_poll(&self) {
        self.state.swap(RUNNING, Ordering::AcqRel);
    }

    /// Marks the end of a `Pending` poll.
    pub(crate) fn end_poll(&self) -> AfterPoll {
        match self
            .state
            .compare_exchange(RUNNING, 0, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => AfterPoll::Idle,
            Err(_) => {
                // Woken while running: the only other bit is `SCHEDULED`,
                // which later wakes leave as it is.
                self.state.store(SCHEDULED, Ordering::Release);
                AfterPoll::Requeue
            }
        }
    }

    /// Marks the task finished; wakes are ignored from now on.
    pub(crate) fn finish(&self) {
        self.state.store(DONE, Ordering::Release);
    }
}

impl Task {
    /// What every waker of the task does: mark it woken, and queue it if
    /// it was idle.
    pub(crate) fn wake_by_ref(task: &Arc<Self>) {
        if task.mark_woken() {
            Shared::schedule_woken(task.clone());
        }
    }
}
