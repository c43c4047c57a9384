//! A task of the multi-threaded executor and its wake-up state machine.
//!
//! A task is in at most one run queue at a time and is polled by at most
//! one worker at a time. Both follow from one atomic state word that every
//! wake and every poll changes with a read-modify-write:
//!
//! - a wake sets `SCHEDULED`; only the wake that finds the word at zero
//!   (idle) queues the task and counts it as active;
//! - the worker that pops the task moves the word from `SCHEDULED` to
//!   `RUNNING` (a compare-and-swap, which fails only for a task the
//!   teardown took down meanwhile), clearing `SCHEDULED`: a wake that comes
//!   in now sets it again;
//! - after a `Pending` poll, the worker goes back to idle only if no wake
//!   came in (`RUNNING` → 0), else re-queues the task itself;
//! - a finished task is `DONE` forever; wakes do nothing.
//!
//! Because the wake's `fetch_or` and the poll's compare-and-swap are both
//! read-modify-writes on the same word, a wake that found the task already
//! scheduled happens-before the poll that follows: that poll sees whatever
//! the waker published (e.g. a message), so no wake-up is lost.
//!
//! The same word guards the future, without a lock: only the worker that
//! moved the state from `SCHEDULED` to `RUNNING` touches it until it moves
//! the state on, and the executor's teardown takes it only by moving an
//! idle or queued task to `DONE` (a task it finds `RUNNING`, possible only
//! after a timeout left a worker inside a model, keeps its future). Each
//! hand-over is a release/acquire pair on the word, so a poll sees what the
//! previous poll, on whichever worker, did to the future. (A mutex around
//! the future cost two more read-modify-writes per poll.)

use std::ptr::NonNull;

use super::shared::Shared;
use crate::executor::st::TaskFuture;
use crate::executor::TaskProbe;
use crate::poll_report::Blocker;
use crate::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use crate::sync::cell::UnsafeCell;
use crate::sync::{lock, Arc, Mutex};

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

/// The parts of a task that only its holder touches (see the module docs).
pub(crate) struct HeldParts {
    /// The future; `None` once finished or taken.
    future: Option<TaskFuture>,
    /// True while [`Task::waiting`] holds a report, so that a poll that
    /// waits on nothing but its mailbox (almost every poll) takes no lock.
    reported: bool,
}

/// A spawned task.
pub(crate) struct Task {
    /// `SCHEDULED | RUNNING | DONE` bits.
    state: AtomicU8,
    /// The future, guarded by `state`.
    held: UnsafeCell<HeldParts>,
    /// What it waited on after its last poll, if not its mailbox: written
    /// by the poller when that changes, read by the end-of-step check.
    waiting: Mutex<Option<Blocker>>,
    /// Who it is (for a model, its mailbox's channel); `None` once the
    /// executor let go of a finished task (see [`Task::release_probe`]).
    probe: UnsafeCell<Option<std::sync::Arc<dyn TaskProbe>>>,
    /// The executor it belongs to.
    pub(crate) shared: Arc<Shared>,
    /// True while the task is in the executor's list of deadlock
    /// candidates (polled since the last end-of-step check).
    pub(crate) listed: AtomicBool,
}

// SAFETY: the only field that is not `Sync` by itself is `held`, whose
// contents (a `Send` future and a flag) only the holder of the task's state
// touches (see the module docs): shared references never reach them from
// two threads at once.
unsafe impl Sync for Task {}

impl Task {
    /// A task that is already scheduled: the caller queues it and counts
    /// it active.
    pub(crate) fn new_scheduled(
        future: TaskFuture,
        probe: std::sync::Arc<dyn TaskProbe>,
        shared: Arc<Shared>,
    ) -> Self {
        Task::new(future, probe, shared, SCHEDULED)
    }

    /// A task that is idle, not queued: a wake-up queues it (see
    /// [`Executor::spawn_all`](super::Executor::spawn_all)).
    pub(crate) fn new_idle(
        future: TaskFuture,
        probe: std::sync::Arc<dyn TaskProbe>,
        shared: Arc<Shared>,
    ) -> Self {
        Task::new(future, probe, shared, 0)
    }

    /// A task in `state`.
    fn new(
        future: TaskFuture,
        probe: std::sync::Arc<dyn TaskProbe>,
        shared: Arc<Shared>,
        state: u8,
    ) -> Self {
        Task {
            state: AtomicU8::new(state),
            held: UnsafeCell::new(HeldParts {
                future: Some(future),
                reported: false,
            }),
            waiting: Mutex::new(None),
            probe: UnsafeCell::new(Some(probe)),
            shared,
            listed: AtomicBool::new(false),
        }
    }

    /// Marks a wake-up; true if the caller must queue the task (it was
    /// idle).
    pub(crate) fn mark_woken(&self) -> bool {
        self.state.fetch_or(SCHEDULED, Ordering::AcqRel) == 0
    }

    /// Marks the start of a poll by the worker that popped the task; false
    /// if the task was taken down meanwhile (it must not be polled).
    ///
    /// A queued task is `SCHEDULED` exactly (wakes while it waits change
    /// nothing), unless the teardown made it `DONE`.
    pub(crate) fn start_poll(&self) -> bool {
        // Acquire: see what the previous holder did to the future.
        self.state
            .compare_exchange(SCHEDULED, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
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

    /// True while a worker polls it, or while it is queued to be polled
    /// (cold: a timeout's report reads it while workers may run).
    pub(crate) fn is_running_or_queued(&self) -> bool {
        self.state.load(Ordering::Acquire) & (RUNNING | SCHEDULED) != 0
    }

    /// True while a worker polls it (cold, as above).
    pub(crate) fn is_running(&self) -> bool {
        self.state.load(Ordering::Acquire) & RUNNING != 0
    }

    /// True once the task finished (or was taken down); later wakes may
    /// have set `SCHEDULED` beside `DONE`, which they ignore.
    pub(crate) fn is_done(&self) -> bool {
        self.state.load(Ordering::Acquire) & DONE != 0
    }

    /// Runs `f` on the future, for the worker whose
    /// [`start_poll`](Task::start_poll) succeeded.
    ///
    /// # Safety
    ///
    /// The caller holds the task: its `start_poll` returned true and it has
    /// not called `end_poll` or `finish` since.
    pub(crate) unsafe fn with_future<R>(&self, f: impl FnOnce(&mut Option<TaskFuture>) -> R) -> R {
        // SAFETY: per the contract, the state word gives this thread
        // exclusive use of `held` (see the module docs).
        self.held.with_mut(|held| f(unsafe { &mut (*held).future }))
    }

    /// Files what the task waits on after a poll (`None`: nothing but its
    /// mailbox), taking the lock only if that or the previous report is
    /// something.
    ///
    /// # Safety
    ///
    /// As for [`with_future`](Task::with_future).
    #[inline]
    pub(crate) unsafe fn file_waiting(&self, waiting: Option<Blocker>) {
        self.held.with_mut(|held| {
            // SAFETY: as for `with_future`: the caller holds the task.
            let held = unsafe { &mut *held };
            if waiting.is_some() || held.reported {
                held.reported = waiting.is_some();
                *lock(&self.waiting) = waiting;
            }
        });
    }

    /// What the task waited on after its last poll, if not its mailbox.
    pub(crate) fn waiting(&self) -> Option<Blocker> {
        lock(&self.waiting).clone()
    }

    /// Takes the future of a task no worker holds, for the teardown, and
    /// leaves the task `DONE`; `None` if it finished already or a worker is
    /// polling it (then it keeps its future).
    pub(crate) fn take_down(&self) -> Option<TaskFuture> {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            if state & (RUNNING | DONE) != 0 {
                return None;
            }
            // Acquire: see what the last poll did to the future.
            match self
                .state
                .compare_exchange(state, DONE, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(current) => state = current,
            }
        }
        // SAFETY: moving the state from idle or queued to `DONE` gave this
        // thread the future: no worker polls a `DONE` task (`start_poll`
        // fails) and none was polling it.
        self.held.with_mut(|held| unsafe { (*held).future.take() })
    }

    /// Runs `f` on the task's probe; `None` if the executor released it
    /// (the task is finished).
    ///
    /// # Safety
    ///
    /// The caller is the worker that holds the task, or the executor's
    /// owner while no [`release_probe`](Task::release_probe) runs (the
    /// owner is the only one that releases probes, and only of finished
    /// tasks, which no worker holds).
    pub(crate) unsafe fn with_probe<R>(
        &self,
        f: impl FnOnce(&std::sync::Arc<dyn TaskProbe>) -> R,
    ) -> Option<R> {
        // SAFETY: the probe is written only by `release_probe`, whose
        // caller has the executor to itself and a `DONE` task: no worker
        // holds that task (its last poll, and every read there, happened
        // before the `DONE` it saw), and the owner does not read while it
        // writes.
        self.probe.with(|probe| unsafe { (*probe).as_ref() }.map(f))
    }

    /// Drops the probe of a finished task, if it is finished.
    ///
    /// This breaks the cycle between a model's task and its mailbox: the
    /// probe is the mailbox's channel, and the channel keeps the waker it
    /// registered for as long as the channel lives (`consumer_waker.rs`),
    /// which holds the task. Once the probe is gone, the channel is freed
    /// with its last address, and the waker, then the task, with it.
    ///
    /// # Safety
    ///
    /// The caller is the executor's owner with exclusive access to it
    /// (`&mut Executor`), so that no other [`with_probe`](Task::with_probe)
    /// runs on its side; workers read only tasks they hold, never `DONE`.
    pub(crate) unsafe fn release_probe(&self) {
        // Acquire: the worker's last reads of the probe happened before.
        if !self.is_done() {
            return;
        }
        // SAFETY: per the contract and the `DONE` state, nothing else
        // touches the probe (see `with_probe`).
        let probe = self.probe.with_mut(|probe| unsafe { (*probe).take() });
        drop(probe);
    }
}

impl Task {
    /// What every waker of the task does: mark it woken, and queue it if
    /// it was idle. Takes the `Arc`, whose pointer may reach the reference
    /// counts (see [`TaskRef::new`]).
    pub(crate) fn wake_by_ref(task: &Arc<Task>) {
        if task.mark_woken() {
            Shared::schedule_woken(task);
        }
    }
}

/// A task in a run queue, or being polled by the worker that took it from
/// one: a pointer that holds no reference count.
///
/// Queuing a task used to clone its `Arc` and polling it to drop that
/// clone: two read-modify-writes of the task's count per hop. None is
/// needed, because a queued task is always kept alive by the executor's
/// list of tasks:
///
/// - the list holds a reference to every task that is not `DONE`, and
///   drops one only once it is `DONE` (compaction) or in the teardown;
/// - a task is queued only while it is not `DONE` (a wake of a `DONE` task
///   queues nothing), and becomes `DONE` only in its own last poll, after
///   it left the queues, whose worker touches it no more after that (see
///   `worker::retire`) — or in the teardown, which runs after the workers
///   stopped and their queues were emptied, and which leaks the list
///   instead if a worker may still be inside a poll (after a timeout).
#[derive(Clone, Copy)]
pub(crate) struct TaskRef(NonNull<Task>);

// SAFETY: a `TaskRef` is a shared reference to a `Task` (which is `Send`
// and `Sync`) kept alive by the executor's list (see above).
unsafe impl Send for TaskRef {}
// SAFETY: as above.
unsafe impl Sync for TaskRef {}

impl TaskRef {
    /// A reference to `task`, which must be in its executor's list.
    ///
    /// From the `Arc`'s own pointer, not from a `&Task`: a pointer made
    /// from a reference may only reach the task's bytes (Miri's Stacked
    /// Borrows says so), and the waker lent for a poll
    /// ([`borrowed`](super::waker::borrowed)) reaches the `Arc`'s counts
    /// through it when a model clones it.
    pub(crate) fn new(task: &Arc<Task>) -> Self {
        let task = Arc::as_ptr(task).cast_mut();
        // SAFETY: the pointer of a live `Arc` is never null.
        TaskRef(unsafe { NonNull::new_unchecked(task) })
    }

    /// The task's pointer, as the `Arc` gave it (also where the task is,
    /// which the executor's unit tests compare).
    pub(crate) fn as_ptr(self) -> *const Task {
        self.0.as_ptr()
    }

    /// The task.
    ///
    /// # Safety
    ///
    /// The task is in a run queue or held by this worker (see the type's
    /// docs): the executor's list keeps it alive. The reference must not
    /// be used after the caller moved the task to `DONE`.
    pub(crate) unsafe fn get<'a>(self) -> &'a Task {
        // SAFETY: per the contract, the task is alive.
        unsafe { self.0.as_ref() }
    }

    /// A counted reference to the task.
    ///
    /// # Safety
    ///
    /// As for [`get`](TaskRef::get).
    pub(crate) unsafe fn to_arc(self) -> Arc<Task> {
        let ptr = self.0.as_ptr().cast_const();
        // SAFETY: per the contract the task is alive, inside the `Arc` the
        // executor's list holds (`Arc::new` in `Executor::spawn`): one more
        // reference to it, handed to the `Arc` made below.
        unsafe {
            Arc::increment_strong_count(ptr);
            Arc::from_raw(ptr)
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    /// A queued task of a bench with no worker, pending forever.
    fn task() -> Arc<Task> {
        let shared = Arc::new(Shared::new(Vec::new()));
        let meta = crate::executor::TaskMeta {
            name: std::sync::Arc::from("t"),
            model_type: "test",
            mailbox: None,
        };
        Arc::new(Task::new_scheduled(
            Box::pin(std::future::pending()),
            meta.into_probe(),
            shared,
        ))
    }

    #[test]
    fn one_holder_at_a_time() {
        let task = task();
        assert!(task.start_poll(), "a queued task can be polled");
        assert!(task.take_down().is_none(), "not while it is polled");
        assert!(!task.start_poll(), "nor polled twice");
        assert_eq!(task.end_poll(), AfterPoll::Idle);
        assert!(task.mark_woken(), "idle: the wake queues it");
        assert!(task.take_down().is_some(), "queued: the teardown takes it");
        assert!(!task.start_poll(), "taken down: never polled again");
        assert!(task.is_done());
    }

    #[test]
    fn a_wake_while_polled_requeues() {
        let task = task();
        assert!(task.start_poll());
        assert!(!task.mark_woken(), "running: the poller requeues it");
        assert_eq!(task.end_poll(), AfterPoll::Requeue);
        assert!(task.start_poll(), "requeued as scheduled");
    }

    #[test]
    fn a_finished_task_stays_done_whatever_wakes_it() {
        let task = task();
        assert!(task.start_poll());
        task.finish();
        assert!(!task.mark_woken(), "a wake queues nothing");
        assert!(task.is_done(), "and leaves it done");
        assert!(task.take_down().is_none());
        assert!(!task.start_poll());
    }

    #[test]
    fn waiting_reports_are_filed_and_cleared() {
        let task = task();
        assert!(task.start_poll());
        let report = Blocker::Reply(crate::name::Name::from("server"));
        // SAFETY: `start_poll` succeeded and nothing else holds the task.
        unsafe { task.file_waiting(Some(report)) };
        assert!(matches!(task.waiting(), Some(Blocker::Reply(name)) if &*name == "server"));
        // SAFETY: as above.
        unsafe { task.file_waiting(None) };
        assert!(task.waiting().is_none());
    }
}
