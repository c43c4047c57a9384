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

mod borrowed_waker;
pub(crate) mod mt;
pub(crate) mod st;

use std::any::Any;
use std::sync::Arc;
use std::task::{RawWaker, Waker};
use std::time::Instant;

use crate::bench::BenchId;
use crate::mailbox::channel::Channel;
use crate::model::Model;
use crate::poll_report;
use crate::wake::TaskWaker;

pub(crate) use mt::spread::DEFAULT_WAKE_THRESHOLD;
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
    /// multi-threaded one with `threads` threads in all, for the models
    /// of `bench` (the multi-threaded one marks its worker threads with
    /// it; the simulation marks the calling thread), waking a helper for
    /// more than `wake_threshold` ready tasks (see `mt::spread`).
    pub(crate) fn new(threads: usize, bench: BenchId, wake_threshold: usize) -> Self {
        if threads <= 1 {
            Executor::St(st::Executor::new())
        } else {
            Executor::Mt(mt::Executor::new(threads, bench, wake_threshold))
        }
    }

    /// Adds the task that `probe` stands for and queues it for its first
    /// poll.
    pub(crate) fn spawn(&mut self, future: TaskFuture, probe: Arc<dyn TaskProbe>) {
        match self {
            Executor::St(e) => e.spawn(future, probe),
            Executor::Mt(e) => e.spawn(future, probe),
        }
    }

    /// Adds the tasks of a bench's models at its start, on a fresh
    /// executor, polled first in the order given, when `first_poll` says.
    pub(crate) fn spawn_all(
        &mut self,
        tasks: impl ExactSizeIterator<Item = (TaskFuture, Arc<dyn TaskProbe>)>,
        first_poll: FirstPoll,
    ) {
        match self {
            Executor::St(e) => e.spawn_all(tasks, first_poll),
            Executor::Mt(e) => e.spawn_all(tasks, first_poll),
        }
    }

    /// Runs `f` (which may wake tasks) as part of the executor, so that the
    /// tasks it wakes are queued where they run soonest.
    #[inline(always)]
    pub(crate) fn enter<R>(&mut self, f: impl FnOnce() -> R) -> R {
        match self {
            Executor::St(e) => e.enter(f),
            Executor::Mt(e) => e.enter(f),
        }
    }

    /// Polls woken tasks until none is left, a task panics, or `deadline`
    /// passes.
    #[inline(always)]
    pub(crate) fn run(&mut self, deadline: Option<Instant>) -> Result<(), RunError> {
        match self {
            Executor::St(e) => e.run(deadline),
            Executor::Mt(e) => e.run(deadline),
        }
    }

    /// Stops polling for good, after a fatal error found outside the
    /// executor: workers of the multi-threaded one take no more tasks (on
    /// one thread nothing runs between calls anyway).
    pub(crate) fn stop(&self) {
        if let Executor::Mt(e) = self {
            e.stop();
        }
    }

    /// Tasks that are neither finished nor waiting on an empty mailbox.
    #[inline]
    pub(crate) fn stuck(&mut self) -> Vec<Stuck> {
        match self {
            Executor::St(e) => e.stuck(),
            Executor::Mt(e) => e.stuck(),
        }
    }

    /// The models that are neither finished nor waiting on an empty
    /// mailbox, in spawn order: what a run that timed out left busy (a
    /// model in one of its methods, or with messages waiting). Cold: only
    /// a timeout's report asks.
    pub(crate) fn busy(&self) -> Vec<TaskMeta> {
        match self {
            Executor::St(e) => e.busy(),
            Executor::Mt(e) => e.busy(),
        }
    }

    /// Gives back the memory of queues that grew with the number of tasks
    /// woken at once. The first run polls every model (unless a restored
    /// bench's first polls wait for their first messages): without this,
    /// a bench of 10⁶ idle models would keep ~24 MB of empty queues.
    pub(crate) fn trim(&mut self) {
        match self {
            Executor::St(e) => e.trim(),
            Executor::Mt(e) => e.trim(),
        }
    }

    /// Takes the reports of messages dropped because their mailbox is not
    /// in the bench (never added, or of another bench), with their sender
    /// (`None`: the bench).
    pub(crate) fn take_unbound(&mut self) -> Vec<(Option<Arc<str>>, poll_report::Misaddressed)> {
        match self {
            Executor::St(e) => e.take_unbound(),
            Executor::Mt(e) => e.take_unbound(),
        }
    }

    /// False if no message to a mailbox not in the bench was reported since the
    /// last [`take_unbound`](Executor::take_unbound) (a cheap look, made
    /// after every step).
    #[inline]
    pub(crate) fn has_unbound(&self) -> bool {
        match self {
            Executor::St(e) => e.has_unbound(),
            Executor::Mt(e) => e.has_unbound(),
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

/// When the tasks of a bench's models are first polled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FirstPoll {
    /// At the start: the tasks run their models' `init` hooks.
    AtStart,
    /// When a message reaches the model, for tasks whose first act is to
    /// ask for one (a restored bench, whose hooks are skipped): a first
    /// poll would only park each on its empty mailbox. The executors mark
    /// them parked instead (the multi-threaded one registers each task's
    /// waker with its mailbox, as the poll would), so that a bench of many
    /// models starts without touching each model's task.
    OnFirstMessage,
}

/// What an executor and the simulation can ask about a task without
/// knowing its type: who it is, whether its model is idle, and where its
/// single-threaded waker lives.
///
/// A model task's probe is its mailbox's channel ([`ModelMailbox`]), so the
/// task record holds one pointer for its name, model type, mailbox and
/// waker; a task without a mailbox (a bench query) has a [`BenchTask`].
///
/// # Safety
///
/// [`waker_parts`](TaskProbe::waker_parts) must return a raw waker made by
/// `st::raw_waker(self)`: the executor turns it into a `Waker` over the
/// probe's `Arc`.
pub(crate) unsafe trait TaskProbe: Send + Sync {
    /// The model instance's name, or `"bench"`.
    fn name(&self) -> Arc<str>;
    /// The model type's name.
    fn model_type(&self) -> &'static str;
    /// True for a model's mailbox, false for a bench task.
    fn has_mailbox(&self) -> bool;
    /// True if the model waits on an empty mailbox (never for a bench
    /// task).
    fn is_idle(&self) -> bool;
    /// Number of messages waiting.
    fn pending(&self) -> usize;
    /// The task's waker state on the single-threaded executor.
    fn task_waker(&self) -> &TaskWaker;
    /// For a task never polled, whose first act is to ask its mailbox for
    /// a message: marks it as waiting on its empty mailbox, so that a
    /// message wakes it, and returns true; false, marking nothing, if its
    /// mailbox holds a message already or it has none (a bench task).
    fn park_unpolled(&self) -> bool;
    /// [`park_unpolled`](TaskProbe::park_unpolled) on the multi-threaded
    /// executor, with the task's `waker`, which a message then wakes:
    /// true if the task is not to be queued now (it waits, or a message's
    /// wake-up queued it already), false if the caller must queue it (a
    /// message waits, or it has no mailbox).
    ///
    /// # Safety
    ///
    /// As for `Channel::park_unpolled_remote`: called once, by the
    /// executor spawning the task, before the task was ever polled.
    unsafe fn park_unpolled_remote(&self, waker: &Waker) -> bool;
    /// The task's waker state on the single-threaded executor, and a raw
    /// waker over this probe (see the trait's safety contract): what a
    /// poll needs, in one dynamic call.
    fn waker_parts(&self) -> (&TaskWaker, RawWaker);
}

/// The probe of a model's mailbox: its channel, seen with the model type
/// (which the channel, shared by every address, does not store).
#[repr(transparent)]
pub(crate) struct ModelMailbox<M: Model>(Channel<M::Message>);

impl<M: Model> ModelMailbox<M> {
    /// The probe of `channel`: the same allocation, seen as a
    /// `ModelMailbox<M>`.
    pub(crate) fn probe(channel: Arc<Channel<M::Message>>) -> Arc<dyn TaskProbe> {
        let raw = Arc::into_raw(channel).cast::<Self>();
        // SAFETY: `ModelMailbox<M>` is a `repr(transparent)` wrapper of
        // `Channel<M::Message>`, so `raw` points to a value of the same
        // size and alignment, which is what `Arc::from_raw` requires of a
        // pointer from `Arc::into_raw` of another type; the reference
        // count is handed over unchanged.
        let probe: Arc<Self> = unsafe { Arc::from_raw(raw) };
        probe
    }
}

impl<M: Model> st::HasTaskWaker for ModelMailbox<M> {
    fn task_waker(&self) -> &TaskWaker {
        self.0.task_waker()
    }
}

// SAFETY: `waker_parts` returns `st::raw_waker(self)`.
unsafe impl<M: Model> TaskProbe for ModelMailbox<M> {
    fn name(&self) -> Arc<str> {
        // Built on demand: only error and deadlock reports ask.
        Arc::from(self.0.name().unwrap_or_default())
    }

    fn model_type(&self) -> &'static str {
        M::metadata().type_name
    }

    fn has_mailbox(&self) -> bool {
        true
    }

    fn is_idle(&self) -> bool {
        self.0.is_idle()
    }

    fn pending(&self) -> usize {
        self.0.len()
    }

    fn task_waker(&self) -> &TaskWaker {
        self.0.task_waker()
    }

    fn park_unpolled(&self) -> bool {
        self.0.park_unpolled()
    }

    unsafe fn park_unpolled_remote(&self, waker: &Waker) -> bool {
        // SAFETY: the caller's contract is the channel's.
        unsafe { self.0.park_unpolled_remote(waker) }
    }

    fn waker_parts(&self) -> (&TaskWaker, RawWaker) {
        (st::HasTaskWaker::task_waker(self), st::raw_waker(self))
    }
}

/// A channel without a model type, for the executors' unit tests.
#[cfg(test)]
impl<T: Send + 'static> st::HasTaskWaker for Channel<T> {
    fn task_waker(&self) -> &TaskWaker {
        Channel::task_waker(self)
    }
}

/// A channel without a model type, for the executors' unit tests.
#[cfg(test)]
// SAFETY: `waker_parts` returns `st::raw_waker(self)`.
unsafe impl<T: Send + 'static> TaskProbe for Channel<T> {
    fn name(&self) -> Arc<str> {
        Arc::from(self.name().unwrap_or_default())
    }

    fn model_type(&self) -> &'static str {
        "Test"
    }

    fn has_mailbox(&self) -> bool {
        true
    }

    fn is_idle(&self) -> bool {
        Channel::is_idle(self)
    }

    fn pending(&self) -> usize {
        self.len()
    }

    fn task_waker(&self) -> &TaskWaker {
        Channel::task_waker(self)
    }

    fn park_unpolled(&self) -> bool {
        Channel::park_unpolled(self)
    }

    unsafe fn park_unpolled_remote(&self, waker: &Waker) -> bool {
        // SAFETY: the caller's contract is the channel's.
        unsafe { Channel::park_unpolled_remote(self, waker) }
    }

    fn waker_parts(&self) -> (&TaskWaker, RawWaker) {
        (st::HasTaskWaker::task_waker(self), st::raw_waker(self))
    }
}

/// The probe of a task without a mailbox (a bench query): its identity
/// and its waker state, in an allocation of their own.
pub(crate) struct BenchTask {
    /// The task's name.
    name: Arc<str>,
    /// What to report as its model type.
    model_type: &'static str,
    /// Its waker state on the single-threaded executor.
    waker: TaskWaker,
}

impl BenchTask {
    /// The probe of a task called `name`, of type `model_type`.
    pub(crate) fn probe(name: Arc<str>, model_type: &'static str) -> Arc<dyn TaskProbe> {
        Arc::new(BenchTask {
            name,
            model_type,
            waker: TaskWaker::new(),
        })
    }
}

impl st::HasTaskWaker for BenchTask {
    fn task_waker(&self) -> &TaskWaker {
        &self.waker
    }
}

// SAFETY: `waker_parts` returns `st::raw_waker(self)`.
unsafe impl TaskProbe for BenchTask {
    fn name(&self) -> Arc<str> {
        self.name.clone()
    }

    fn model_type(&self) -> &'static str {
        self.model_type
    }

    fn has_mailbox(&self) -> bool {
        false
    }

    fn is_idle(&self) -> bool {
        false
    }

    fn pending(&self) -> usize {
        0
    }

    fn task_waker(&self) -> &TaskWaker {
        &self.waker
    }

    fn park_unpolled(&self) -> bool {
        false
    }

    unsafe fn park_unpolled_remote(&self, _waker: &Waker) -> bool {
        false
    }

    fn waker_parts(&self) -> (&TaskWaker, RawWaker) {
        (st::HasTaskWaker::task_waker(self), st::raw_waker(self))
    }
}

/// Who a task is, for diagnostics; what `spawn` is told, and what errors
/// report.
#[derive(Clone)]
pub(crate) struct TaskMeta {
    /// Model instance name, or `"bench"`.
    pub(crate) name: Arc<str>,
    /// Model type name.
    pub(crate) model_type: &'static str,
    /// The model's mailbox; `None` for a bench task.
    pub(crate) mailbox: Option<Arc<dyn TaskProbe>>,
}

impl TaskMeta {
    /// The probe that stands for the task: its mailbox's, or a new one.
    pub(crate) fn into_probe(self) -> Arc<dyn TaskProbe> {
        match self.mailbox {
            Some(probe) => probe,
            None => BenchTask::probe(self.name, self.model_type),
        }
    }

    /// The meta of the task `probe` stands for.
    pub(crate) fn of(probe: &Arc<dyn TaskProbe>) -> Self {
        TaskMeta {
            name: probe.name(),
            model_type: probe.model_type(),
            mailbox: probe.has_mailbox().then(|| probe.clone()),
        }
    }
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
