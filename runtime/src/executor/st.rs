//! The single-threaded, deterministic executor.
//!
//! Tasks are polled in the order they were woken (FIFO). A task woken while
//! it is already queued is not queued twice. Because the order of wake-ups
//! is fixed by the order of sends, and the order of sends by the models'
//! code, two runs of the same bench poll the same tasks in the same order.
//!
//! Wakers are `Send + Sync` as the `Waker` contract demands. While the
//! executor runs, wake-ups on its own thread go to a local queue without a
//! lock; others go to a shared queue behind a mutex (both in
//! [`crate::wake`], which the mailboxes share).

mod id_hash;
mod waker;

use id_hash::IdHash;
pub(crate) use waker::{raw_waker, HasTaskWaker};

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use super::{panic_message, FirstPoll, TaskMeta, TaskProbe};
use crate::poll_report::{self, Blocker, Misaddressed};
use crate::sync::atomic::Ordering;
use crate::wake::{RunQueue, Running, TaskWaker};

/// A boxed task future.
pub(crate) type TaskFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// How many polls run between two looks at the wall clock.
const POLLS_PER_DEADLINE_CHECK: u32 = 64;

/// Why [`Executor::run`] stopped early.
#[derive(Debug)]
pub(crate) enum RunError {
    /// A task panicked; it was removed.
    Panic {
        /// The task's identity.
        meta: TaskMeta,
        /// The panic message.
        message: String,
    },
    /// The deadline passed; tasks may still be queued.
    Timeout,
}

/// A spawned task. Everything about it is reached through its probe (for
/// a model, its mailbox's channel): its name, model type and idleness, and
/// its [`TaskWaker`]; the record also keeps where that waker state is and
/// the functions of a waker over the probe, so that a poll makes its
/// `Waker` on the fly without a dynamic call. What it waits on, rarely
/// known, is in [`Executor::waiting`].
struct Task {
    /// The future.
    future: TaskFuture,
    /// Who it is; owns its waker state.
    probe: Arc<dyn TaskProbe>,
    /// Its waker state, inside `probe`.
    state: waker::StateRef,
}

impl Task {
    /// Its waker state.
    #[inline]
    fn waker(&self) -> &TaskWaker {
        self.state.get(&self.probe)
    }
}

/// A task that is not idle when the run queue is empty.
#[derive(Debug)]
pub(crate) struct Stuck {
    /// Who it is.
    pub(crate) meta: TaskMeta,
    /// What it waits on, if known.
    pub(crate) waiting: Option<Blocker>,
}

/// The single-threaded executor.
pub(crate) struct Executor {
    /// Tasks by id; `None` for finished ones.
    tasks: Vec<Option<Task>>,
    /// Ids of finished tasks, for reuse.
    free: Vec<usize>,
    /// Ids of woken tasks.
    queue: Arc<RunQueue>,
    /// The tasks that may be stuck: those polled since the last
    /// [`stuck`](Executor::stuck) whose poll did not end parked on their
    /// empty mailbox, and those it found stuck. Any other task was idle
    /// then and has not run since, so it still is (a message would have
    /// woken it): a step among many idle models costs nothing per idle
    /// model, and a model that handled its messages and parked again
    /// costs nothing at the end of the step.
    candidates: RefCell<Vec<usize>>,
    /// What each task waited on after its last poll, if not its mailbox
    /// (only tasks that wait on a reply or on a full mailbox are listed).
    waiting: HashMap<usize, Blocker, IdHash>,
    /// Messages dropped because their mailbox is not in the bench (never
    /// added, or of another bench), with the sender (`None`: the bench).
    unbound: Vec<(Option<Arc<str>>, Misaddressed)>,
    /// An empty buffer swapped with the shared queue to drain it.
    drained: VecDeque<usize>,
}

impl Executor {
    /// An executor with no tasks.
    pub(crate) fn new() -> Self {
        Executor {
            tasks: Vec::new(),
            free: Vec::new(),
            queue: Arc::new(RunQueue::new()),
            candidates: RefCell::new(Vec::new()),
            waiting: HashMap::default(),
            unbound: Vec::new(),
            drained: VecDeque::new(),
        }
    }

    /// Adds a task and queues it for its first poll.
    pub(crate) fn spawn(&mut self, future: TaskFuture, probe: Arc<dyn TaskProbe>) {
        let id = self.free.pop().unwrap_or(self.tasks.len());
        // The model's mailbox wakes it directly from now on.
        let index = u32::try_from(id).expect("fewer than 2^32 tasks");
        probe.task_waker().register(index, self.queue.clone());
        probe.task_waker().wake_task();
        let state = waker::StateRef::of(&probe);
        let task = Task {
            future,
            probe,
            state,
        };
        if id == self.tasks.len() {
            self.tasks.push(Some(task));
        } else {
            self.tasks[id] = Some(task);
        }
    }

    /// Adds the tasks of a bench's models at its start, each queued for
    /// its first poll in the order given, or, `OnFirstMessage`, marked as
    /// parked on its empty mailbox (queued all the same if a message is
    /// in already).
    ///
    /// They go straight to the local queue, without the shared queue's
    /// lock: this thread owns the executor, and nothing is queued yet that
    /// they should come after (the executor is fresh), so the order is the
    /// one [`spawn`](Executor::spawn) would give.
    pub(crate) fn spawn_all(
        &mut self,
        tasks: impl ExactSizeIterator<Item = (TaskFuture, Arc<dyn TaskProbe>)>,
        first_poll: FirstPoll,
    ) {
        debug_assert!(self.tasks.is_empty(), "a fresh executor");
        self.tasks.reserve(tasks.len());
        let running = self.queue.local.enter();
        if first_poll == FirstPoll::AtStart {
            self.queue.local.reserve(&running, tasks.len());
        }
        for (future, probe) in tasks {
            let id = self.tasks.len();
            let index = u32::try_from(id).expect("fewer than 2^32 tasks");
            let state = waker::StateRef::of(&probe);
            let waker = state.get(&probe);
            // Registered first: a message from now on wakes the task.
            waker.register(index, self.queue.clone());
            if first_poll == FirstPoll::AtStart || !probe.park_unpolled() {
                // Relaxed: only this thread touches the flag (see
                // `TaskWaker`).
                waker.scheduled.store(true, Ordering::Relaxed);
                self.queue.local.push_back(&running, id);
            }
            self.tasks.push(Some(Task {
                future,
                probe,
                state,
            }));
        }
    }

    /// Runs `f` as if on the executor: the tasks it wakes go to the local
    /// queue, in order, without a lock.
    #[inline(always)]
    pub(crate) fn enter<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let _running = self.queue.local.enter();
        f()
    }

    /// Polls woken tasks until none is left, a task panics, or `deadline`
    /// passes.
    ///
    /// The models run on this thread, so the deadline can only be seen
    /// between polls: before every [`POLLS_PER_DEADLINE_CHECK`]th poll, and
    /// when no task is left (a run that ends after its deadline is a
    /// timeout too, so that a call made of many short steps is bounded as
    /// well). A poll that never returns cannot be interrupted.
    pub(crate) fn run(&mut self, deadline: Option<Instant>) -> Result<(), RunError> {
        let running = self.queue.local.enter();
        let mut polls = 0u32;
        loop {
            // Take the oldest woken task.
            let Some(id) = self.next_woken(&running) else {
                return match deadline {
                    Some(deadline) if Instant::now() >= deadline => Err(RunError::Timeout),
                    _ => Ok(()),
                };
            };
            // Look at the clock now and then.
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(POLLS_PER_DEADLINE_CHECK)
                && deadline.is_some_and(|d| Instant::now() >= d)
            {
                self.queue.local.push_front(&running, id);
                return Err(RunError::Timeout);
            }
            self.prefetch_ahead(&running);
            self.poll_task(id)?;
        }
    }

    /// Starts loading what the next polls will touch: the record of the
    /// task two places ahead, and the future and mailbox of the next one
    /// (whose record the previous call started loading).
    #[inline]
    fn prefetch_ahead(&self, running: &Running) {
        use crate::prefetch::prefetch;
        let (next, later) = self.queue.local.peek_two(running);
        if let Some(Some(task)) = next.and_then(|id| self.tasks.get(id)) {
            prefetch(future_ptr(&task.future));
            prefetch(Arc::as_ptr(&task.probe));
        }
        if let Some(slot) = later.and_then(|id| self.tasks.get(id)) {
            prefetch(slot);
        }
    }

    /// The oldest woken task: local wake-ups first, then those queued in
    /// the shared queue, which are moved to the local one in their order
    /// (on one thread, that is exactly the order of the wake-ups).
    fn next_woken(&mut self, running: &Running) -> Option<usize> {
        if let Some(id) = self.queue.local.pop(running) {
            return Some(id);
        }
        // Swap in the spare buffer, so that neither side reallocates. Most
        // runs end here, with nothing woken from elsewhere.
        if !self.queue.take_remote(&mut self.drained) {
            return None;
        }
        for id in self.drained.drain(..) {
            let Some(task) = self.tasks.get(id).and_then(Option::as_ref) else {
                continue; // finished since it was woken
            };
            // Acquire: see what the waking thread did before it woke us.
            let waker = task.waker();
            waker.remote.swap(false, Ordering::AcqRel);
            if !waker.scheduled.load(Ordering::Relaxed) {
                waker.scheduled.store(true, Ordering::Relaxed);
                self.queue.local.push_back(running, id);
            }
        }
        self.queue.local.pop(running)
    }

    /// Polls one task, recording what it reported.
    fn poll_task(&mut self, id: usize) -> Result<(), RunError> {
        let Some(task) = self.tasks.get_mut(id).and_then(Option::as_mut) else {
            return Ok(());
        };
        let (state, waker) = task.state.waker(&task.probe);
        // Clear the flag first, so a wake during the poll queues it again.
        state.scheduled.store(false, Ordering::Relaxed);
        // Set by its mailbox if the poll ends parked on it.
        state.parked.store(false, Ordering::Relaxed);
        let mut cx = Context::from_waker(&waker);
        let future = &mut task.future;
        let outcome = catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
        // What the ports noted during the poll, if anything (rarely).
        let report = poll_report::take_noted();
        match outcome {
            Ok(Poll::Pending) => {
                // A task that parked on its empty mailbox is idle, and stays
                // so until a message wakes it, which polls it again: only
                // the others may be stuck. (A push from another thread
                // after the run's last look at the shared queue leaves it
                // queued there for the next run, not stuck.)
                // Only this thread touches the flags: no read-modify-write.
                if !state.parked.load(Ordering::Relaxed) && !state.listed.load(Ordering::Relaxed) {
                    state.listed.store(true, Ordering::Relaxed);
                    self.candidates.get_mut().push(id);
                }
                if report.is_some() || !self.waiting.is_empty() {
                    self.file_report(id, report.unwrap_or_default());
                }
                Ok(())
            }
            Ok(Poll::Ready(())) => {
                if let Some(report) = report {
                    self.file_report(id, report);
                }
                self.remove(id);
                Ok(())
            }
            Err(payload) => {
                let message = panic_message(&*payload);
                let meta = TaskMeta::of(&task.probe);
                if let Some(report) = report {
                    self.file_report(id, report);
                }
                self.remove(id);
                Err(RunError::Panic { meta, message })
            }
        }
    }

    /// Files what the ports noted while task `id` was polled: a message
    /// to a mailbox not in the bench, and what the task now waits on (or that
    /// it no longer waits on anything but its mailbox).
    #[cold]
    fn file_report(&mut self, id: usize, report: poll_report::PollReport) {
        if let Some(unbound) = report.unbound {
            if let Some(task) = self.tasks.get(id).and_then(Option::as_ref) {
                // A bench query is not a model: the bench is the sender.
                let sender = task.probe.has_mailbox().then(|| task.probe.name());
                self.unbound.push((sender, unbound));
            }
        }
        match report.waiting {
            Some(waiting) => {
                self.waiting.insert(id, waiting);
            }
            None => {
                self.waiting.remove(&id);
            }
        }
    }

    /// Drops a task; a panic in its destructor is contained.
    fn remove(&mut self, id: usize) {
        if let Some(task) = self.tasks[id].take() {
            // Its id may be reused: it must not be taken for queued or
            // listed (nor its mailbox's waker for live).
            self.waiting.remove(&id);
            let _ = catch_unwind(AssertUnwindSafe(move || drop(task)));
            self.free.push(id);
        }
    }

    /// The models neither finished nor waiting on an empty mailbox, in
    /// task order (bench tasks, which have no mailbox, left out).
    #[cold]
    #[inline(never)]
    pub(crate) fn busy(&self) -> Vec<TaskMeta> {
        self.tasks
            .iter()
            .flatten()
            .filter(|task| task.probe.has_mailbox() && !task.probe.is_idle())
            .map(|task| TaskMeta::of(&task.probe))
            .collect()
    }

    /// Tasks that are neither finished nor waiting on an empty mailbox.
    /// Only the [`candidates`](Executor::candidates) are looked at; the
    /// result is in task order.
    #[inline]
    pub(crate) fn stuck(&self) -> Vec<Stuck> {
        // Usually every task polled since the last look parked on its
        // mailbox: nothing to look at, and no call.
        if self.candidates.borrow().is_empty() {
            return Vec::new();
        }
        self.stuck_among_candidates()
    }

    /// [`stuck`](Executor::stuck) when there are candidates.
    #[inline(never)]
    fn stuck_among_candidates(&self) -> Vec<Stuck> {
        let mut candidates = self.candidates.borrow_mut();
        let mut still = Vec::new();
        for &id in candidates.iter() {
            let Some(task) = self.tasks.get(id).and_then(Option::as_ref) else {
                continue; // finished
            };
            // A reused id can be listed twice: look once.
            let listed = task.waker().listed.load(Ordering::Relaxed);
            task.waker().listed.store(false, Ordering::Relaxed);
            if listed && !task.probe.is_idle() {
                still.push(id);
            }
        }
        candidates.clear();
        if still.is_empty() {
            return Vec::new();
        }
        still.sort_unstable();
        let stuck = still
            .iter()
            .filter_map(|&id| self.tasks[id].as_ref().map(|t| (t, id)))
            .map(|(t, id)| {
                t.waker().listed.store(true, Ordering::Relaxed);
                Stuck {
                    meta: TaskMeta::of(&t.probe),
                    waiting: self.waiting.get(&id).cloned(),
                }
            })
            .collect();
        candidates.extend(still);
        stuck
    }

    /// Gives back the memory of queues that grew with the number of tasks
    /// woken at once (the first run polls every task, unless their first
    /// polls wait for their first messages).
    pub(crate) fn trim(&mut self) {
        self.queue.shrink_remote();
        self.drained.shrink_to_fit();
        self.candidates.get_mut().shrink_to_fit();
        self.waiting.shrink_to_fit();
        let running = self.queue.local.enter();
        self.queue.local.shrink_to_fit(&running);
    }

    /// Takes the reports of messages dropped because their mailbox is not
    /// in the bench (never added, or of another bench), with their sender
    /// (`None`: the bench).
    pub(crate) fn take_unbound(&mut self) -> Vec<(Option<Arc<str>>, Misaddressed)> {
        std::mem::take(&mut self.unbound)
    }

    /// True if messages to mailboxes not in the bench were reported since the
    /// last [`take_unbound`](Executor::take_unbound).
    pub(crate) fn has_unbound(&self) -> bool {
        !self.unbound.is_empty()
    }

    /// Number of live tasks.
    pub(crate) fn task_count(&self) -> usize {
        self.tasks.len() - self.free.len()
    }
}

/// Where a task's future is, found without making a reference to it.
///
/// A reference to the future, even a shared one that is never read, would
/// assert that nothing else may write to it while it lives: a model's
/// future holds `&mut` borrows into its own fields across its polls (the
/// model and its context, see `run_model`), and Miri's Stacked Borrows
/// rightly flags such a reference as invalidating them. A raw pointer
/// read out of the `Box` asserts nothing.
#[inline(always)]
fn future_ptr(future: &TaskFuture) -> *const (dyn Future<Output = ()> + Send) {
    // `Pin<Ptr>` is documented to have the layout of `Ptr`.
    let boxed = ptr::from_ref(future).cast::<Box<dyn Future<Output = ()> + Send>>();
    // SAFETY: `boxed` points to the `Box` inside `future`, alive and
    // readable for this call (layout as above); the place `**boxed` only
    // reads the box's pointer: no reference to the future is made, and
    // nothing is moved out of the pin.
    unsafe { ptr::addr_of!(**boxed) }
}

impl std::fmt::Debug for TaskMeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskMeta")
            .field("name", &self.name)
            .field("model_type", &self.model_type)
            .finish()
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;

#[cfg(all(test, causim_loom))]
mod loom_tests;

#[cfg(all(test, not(causim_loom)))]
mod size_tests {
    use super::Task;
    use crate::mailbox::channel::Channel;

    /// A model's task record and mailbox stay small: a bench of 10⁶ idle
    /// models pays these once per model (`docs/benchmarks.md`).
    #[test]
    fn task_records_and_channels_stay_small() {
        // Future, probe, waker state and waker functions: no name, model
        // type, waiting report or flags of its own.
        assert_eq!(std::mem::size_of::<Option<Task>>(), 48);
        // The channel holds the task's waker state (no allocation of its
        // own), an 8-byte wait list, an 8-byte overflow, the model's name,
        // inline when short (24 bytes: no allocation of its own for most
        // models), the model's place and the multi-threaded executor's
        // waker (24 bytes); 136 bytes put its `Arc` (16 bytes of counts
        // more) in a 160-byte malloc chunk (request + 8, rounded up to
        // 16): 144 would take a 176-byte one.
        assert!(std::mem::size_of::<Channel<u64>>() <= 136);
    }
}
