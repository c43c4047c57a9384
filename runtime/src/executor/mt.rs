//! The multi-threaded executor.
//!
//! `N` threads poll the model tasks: the thread that calls into the
//! simulation (worker 0) and `N - 1` spawned workers. Each has its own
//! `st3` work-stealing queue; a global injector takes tasks woken from
//! elsewhere; idle workers park and are unparked when work is queued.
//!
//! Why the calling thread works too: in a step with a single event, the
//! event wakes one model, which goes to the caller's own queue and is
//! polled right there, with no other thread woken and no hand-over. Other
//! workers are only woken when the work queued behind what the waking
//! thread takes next is worth a wake-up (see [`spread`]), so a sparse
//! simulation costs little more than on one thread, and a dense one
//! spreads over every worker by stealing.
//!
//! Except under a timeout: then the calling thread polls nothing and only
//! watches the clock ([`run_watching`]), and a *stand-in* worker, spawned
//! by the first run with a deadline, polls in its place. A model method
//! that never returns, polled on the caller, would keep the one thread
//! that can return `Timeout` from ever reading the clock again.
//!
//! A step is complete when the count of active (queued or running) tasks
//! drops to zero, or to the calling thread's own lease once it has nothing
//! left to poll; see [`shared`]. Then, as on one thread, every model that
//! is not waiting on an empty mailbox is reported as deadlocked.
//!
//! The order in which different models run is not deterministic here; the
//! order of messages between two models is (their mailbox is FIFO), and so
//! are both causal-messaging rules, which only depend on per-mailbox order
//! and on every message of a step being processed before the next.

pub(crate) mod shared;
pub(crate) mod sleepers;
pub(crate) mod spread;
pub(crate) mod task;
pub(crate) mod waker;
pub(crate) mod worker;
pub(crate) mod worker_context;

#[cfg(all(test, causim_loom))]
mod loom_tests;
#[cfg(all(test, not(causim_loom)))]
mod tests;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use super::st::{RunError, Stuck, TaskFuture};
use super::{FirstPoll, TaskMeta, TaskProbe};
use crate::bench::BenchId;
use crate::poll_report::Misaddressed;
use crate::sync::thread::{self, JoinHandle};
use crate::sync::work_queue::Worker;
use crate::sync::Arc;
use shared::Shared;
use task::{Task, TaskRef};
use worker_context::WorkerContext;

/// Capacity of each worker's own queue; a full queue spills its older
/// half and the new task to the injector under one lock. Larger queues
/// (1 024, 4 096) spared the injector to a step waking a thousand models,
/// but made pinball with many balls on two threads 5–14 % slower (see
/// `docs/benchmarks.md`, "Workers woken when the work pays for it", and
/// "A full queue spills half of itself").
const LOCAL_QUEUE_CAPACITY: usize = 256;

/// How long the teardown of an executor whose run stopped early (a model
/// panic, a timeout) waits for its workers to come back from the models
/// they poll before it leaves them (and the tasks) behind.
const STOPPED_GRACE: Duration = Duration::from_millis(200);

/// How many polls of the calling thread run between two looks at the clock.
const POLLS_PER_DEADLINE_CHECK: u32 = 64;

/// The multi-threaded executor.
pub(crate) struct Executor {
    /// What the workers share.
    shared: Arc<Shared>,
    /// Worker 0's context, installed on the calling thread while it
    /// delivers events and while it runs.
    main: WorkerContext,
    /// The spawned workers.
    workers: Vec<JoinHandle<()>>,
    /// Every task spawned, for deadlock reports and teardown.
    tasks: Vec<Arc<Task>>,
    /// Live tasks after the last clean-up of `tasks`.
    compacted: usize,
    /// The queue of the *stand-in* worker, spawned by the first run with a
    /// deadline: the calling thread then only watches the clock, and the
    /// stand-in polls in its place (see [`run_watching`]).
    stand_in: Option<Worker<TaskRef>>,
    /// The bench whose models it runs, marked on every worker thread.
    bench: BenchId,
    /// An empty buffer that [`stuck`](Executor::stuck) takes the step's
    /// deadlock candidates into, kept with its capacity.
    candidates: Vec<Arc<Task>>,
    /// Tasks spawned unpolled whose mailbox already held a message, queued
    /// by the next run, not at their spawn: a restore reads its models'
    /// states back while their tasks are spawned, and a worker must not
    /// poll one before (see [`push_parked`](Executor::push_parked)).
    held: Vec<TaskRef>,
}

impl Executor {
    /// An executor with `threads` threads in all (at least 2): the caller
    /// and `threads - 1` spawned workers, which a worker wakes for more
    /// than `wake_threshold` ready tasks (see [`spread`]).
    ///
    /// One more slot is made for the stand-in worker, whose thread is only
    /// spawned if a run has a deadline.
    pub(crate) fn new(threads: usize, bench: BenchId, wake_threshold: usize) -> Self {
        Self::with_queues(threads, bench, wake_threshold, LOCAL_QUEUE_CAPACITY)
    }

    /// [`new`](Executor::new) with worker queues of `capacity` tasks (the
    /// loom models use tiny ones, to spill).
    fn with_queues(threads: usize, bench: BenchId, wake_threshold: usize, capacity: usize) -> Self {
        let threads = threads.max(2);
        let locals: Vec<_> = (0..=threads).map(|_| Worker::new(capacity)).collect();
        let stealers = locals.iter().map(Worker::stealer).collect();
        let shared = Arc::new(Shared::new(stealers).with_wake_threshold(wake_threshold));
        let mut locals = locals.into_iter();
        let main = WorkerContext::new(
            shared.clone(),
            0,
            locals.next().expect("one queue per thread"),
        );
        let stand_in = locals.next_back();
        let workers = locals
            .enumerate()
            .filter_map(|(i, local)| spawn_worker(&shared, i + 1, local, bench))
            .collect();
        Executor {
            shared,
            main,
            workers,
            tasks: Vec::new(),
            compacted: 0,
            stand_in,
            bench,
            candidates: Vec::new(),
            held: Vec::new(),
        }
    }

    /// Adds a task and queues it for its first poll.
    pub(crate) fn spawn(&mut self, future: TaskFuture, probe: std::sync::Arc<dyn TaskProbe>) {
        self.compact();
        self.push_scheduled(future, probe);
    }

    /// Adds the tasks of a bench's models at its start, each queued for
    /// its first poll in the order given — or, for `OnFirstMessage`, each
    /// parked on its empty mailbox as that poll would have left it, and
    /// queued only if a message waits for it already.
    pub(crate) fn spawn_all(
        &mut self,
        tasks: impl ExactSizeIterator<Item = (TaskFuture, std::sync::Arc<dyn TaskProbe>)>,
        first_poll: FirstPoll,
    ) {
        self.compact();
        self.tasks.reserve(tasks.len());
        for (future, probe) in tasks {
            match first_poll {
                FirstPoll::AtStart => self.push_scheduled(future, probe),
                FirstPoll::OnFirstMessage => self.push_parked(future, probe),
            }
        }
        // Every task of the list is live: no compaction before it doubles.
        self.compacted = self.tasks.len();
    }

    /// Adds a task and queues it for its first poll.
    fn push_scheduled(&mut self, future: TaskFuture, probe: std::sync::Arc<dyn TaskProbe>) {
        let task = Arc::new(Task::new_scheduled(future, probe, self.shared.clone()));
        // The list keeps the task alive while it is queued (see `TaskRef`).
        self.tasks.push(task);
        let task = TaskRef::new(&self.tasks[self.tasks.len() - 1]);
        self.main.push_spawned(task);
    }

    /// Adds a task whose first act is to ask its mailbox for a message,
    /// without polling it: its waker is registered with the mailbox, which
    /// is marked as waiting, so that a message wakes it; if a message is
    /// there already, it is marked scheduled and held, to be queued by the
    /// next run (a wake-up meanwhile finds it scheduled and does nothing).
    /// (A poll would do the same, and touch the task's future and model
    /// besides, on a worker: what that cost a restore of many models is
    /// in docs/benchmarks.md, "Save and restore".)
    fn push_parked(&mut self, future: TaskFuture, probe: std::sync::Arc<dyn TaskProbe>) {
        let task = Arc::new(Task::new_idle(future, probe.clone(), self.shared.clone()));
        // The list keeps the task alive for the waker lent below, and
        // while it is queued.
        self.tasks.push(task);
        let task = &self.tasks[self.tasks.len() - 1];
        let task_ref = TaskRef::new(task);
        // SAFETY: the task is inside an `Arc` in the list, which outlives
        // this borrow (the mailbox clones the waker it keeps).
        let waker = unsafe { waker::borrowed(task_ref) };
        // SAFETY: the task was just made, never polled, and is queued only
        // by the next run (held below, after this call) or by a wake-up
        // the call makes possible.
        let waits = unsafe { probe.park_unpolled_remote(&waker) };
        if !waits && task.mark_woken() {
            self.held.push(task_ref);
        }
    }

    /// Queues the tasks [`push_parked`](Self::push_parked) held.
    fn queue_held(&mut self) {
        for task in self.held.drain(..) {
            self.main.push_spawned(task);
        }
        self.held = Vec::new();
    }

    /// Runs `f` as worker 0: tasks it wakes go to this thread's queue (the
    /// last one to its `next` slot) once `f` has returned, so that no other
    /// worker can take one and poll it while `f` still delivers (the same-time rule: every event of the
    /// bench's delivery is in its mailbox before any model runs).
    pub(crate) fn enter<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let _installed = worker_context::install_delivering(&self.main);
        f()
    }

    /// Polls tasks, with the workers, until none is active, a task panics,
    /// or `deadline` passes.
    ///
    /// Without a deadline the calling thread polls too. With one, it only
    /// watches: a model method that never returns would otherwise hold it
    /// where no clock is read. The stand-in worker polls in its place.
    pub(crate) fn run(&mut self, deadline: Option<Instant>) -> Result<(), RunError> {
        if !self.held.is_empty() {
            self.queue_held();
        }
        let watch = deadline.is_some() && self.start_stand_in();
        let _installed = worker_context::install(&self.main);
        // A note left on this thread by a mailbox polled outside any
        // executor must not be read as the end of a first poll here (each
        // poll of a worker takes the note it made).
        crate::poll_report::clear_parked();
        if watch {
            run_watching(&self.main, deadline)
        } else {
            run_main(&self.main, deadline)
        }
    }

    /// Spawns the stand-in worker unless it runs already; true if some
    /// spawned worker can poll (if the OS refused every thread, the calling
    /// thread has to poll itself).
    fn start_stand_in(&mut self) -> bool {
        if let Some(local) = self.stand_in.take() {
            let index = self.shared.handles.len() - 1;
            self.shared.include_stand_in();
            self.workers
                .extend(spawn_worker(&self.shared, index, local, self.bench));
        }
        !self.workers.is_empty()
    }

    /// Stops polling for good: workers take no more tasks.
    pub(crate) fn stop(&self) {
        self.shared.stop();
    }

    /// Tasks that are neither finished nor waiting on an empty mailbox.
    ///
    /// Called when no task is active. Only tasks polled since the last call
    /// can have left their mailbox's wait (an idle model is only ever
    /// polled again after a wake-up), and of those only the ones a poll
    /// left other than parked on their empty mailbox are listed (see
    /// `Shared::list_candidate`), so those are checked first; only if
    /// one of them is stuck — a deadlock, which ends the simulation — is
    /// every task scanned, to report all of them in spawn order.
    ///
    /// The candidates are taken into a buffer the executor keeps, whose
    /// capacity goes back to the list: no allocation and free per step.
    #[inline]
    pub(crate) fn stuck(&mut self) -> Vec<Stuck> {
        if !self.shared.has_candidates() {
            // The common end of a step: every task polled parked.
            return Vec::new();
        }
        self.shared.swap_candidates(&mut self.candidates);
        let any_stuck = self.candidates.iter().any(|task| is_stuck(task));
        self.candidates.clear();
        if !any_stuck {
            return Vec::new();
        }
        self.every_stuck()
    }

    /// The models neither finished nor waiting on an empty mailbox, in
    /// spawn order (bench tasks left out), after a run stopped early.
    ///
    /// Polls already under way when the run stopped end on their own (the
    /// workers take no more tasks): they are given [`SETTLE_FOR_REPORT`]
    /// to, so that the report is not read while a model hands a message
    /// to another (both could then look idle). A method that does not
    /// return keeps its task running past that, and is listed.
    #[cold]
    #[inline(never)]
    pub(crate) fn busy(&self) -> Vec<TaskMeta> {
        let until = Instant::now() + SETTLE_FOR_REPORT;
        await_running_polls(&self.tasks, || {
            std::thread::sleep(Duration::from_micros(100));
            Instant::now() < until
        });
        self.tasks
            .iter()
            .filter(|task| !task.is_done())
            .filter_map(|task| {
                // SAFETY: `release_probe`, the only writer of a probe,
                // needs `&mut Executor`, which this `&self` borrow rules
                // out; what is read are the probe's atomics.
                unsafe {
                    task.with_probe(|probe| {
                        let busy = task.is_running_or_queued() || !probe.is_idle();
                        (probe.has_mailbox() && busy).then(|| TaskMeta::of(probe))
                    })
                }
                .flatten()
            })
            .collect()
    }

    /// Every stuck task, in spawn order (a deadlock: cold).
    #[cold]
    #[inline(never)]
    fn every_stuck(&self) -> Vec<Stuck> {
        self.tasks
            .iter()
            .filter_map(|task| stuck_task(task))
            .collect()
    }

    /// False if no message to a mailbox not in the bench was reported
    /// since the last [`take_unbound`](Executor::take_unbound).
    #[inline]
    pub(crate) fn has_unbound(&self) -> bool {
        self.shared.has_unbound()
    }

    /// Gives back the memory of queues that grew with the number of tasks
    /// woken at once.
    pub(crate) fn trim(&mut self) {
        self.shared.trim();
    }

    /// Takes the reports of messages dropped because their mailbox is not
    /// in the bench (never added, or of another bench), with their sender
    /// (`None`: the bench).
    pub(crate) fn take_unbound(&mut self) -> Vec<(Option<std::sync::Arc<str>>, Misaddressed)> {
        self.shared.take_unbound()
    }

    /// Number of live tasks.
    pub(crate) fn task_count(&self) -> usize {
        self.tasks.iter().filter(|t| is_live(t)).count()
    }

    /// Forgets finished tasks once they make up half of the list.
    fn compact(&mut self) {
        if self.tasks.len() >= 2 * self.compacted + 16 {
            self.tasks.retain(|t| {
                // SAFETY: `&mut self`: this is the executor's owner, with
                // the executor to itself.
                unsafe { t.release_probe() };
                is_live(t)
            });
            self.compacted = self.tasks.len();
        }
    }
}

/// True if `task` is neither finished nor waiting on an empty mailbox:
/// the look [`Executor::stuck`] takes at every candidate, which builds no
/// report.
#[inline]
fn is_stuck(task: &Task) -> bool {
    if task.is_done() {
        return false;
    }
    // SAFETY: as in `stuck_task`.
    unsafe { task.with_probe(|probe| !probe.is_idle()) }.unwrap_or(false)
}

/// `task`, if it is neither finished nor waiting on an empty mailbox.
fn stuck_task(task: &Task) -> Option<Stuck> {
    if task.is_done() {
        return None;
    }
    // SAFETY: only `Executor::stuck` calls this (and `is_stuck`), when no
    // task is active (no worker holds one), on the executor's owner's
    // thread, which is the only one that calls `release_probe` (with
    // `&mut Executor`): never during this read.
    unsafe {
        task.with_probe(|probe| {
            (!probe.is_idle()).then(|| Stuck {
                meta: TaskMeta::of(probe),
                waiting: task.waiting(),
            })
        })
    }
    .flatten()
}

/// True unless the task finished.
fn is_live(task: &Task) -> bool {
    !task.is_done()
}

/// How long a timeout's report waits for the polls under way to end.
const SETTLE_FOR_REPORT: Duration = Duration::from_millis(20);

/// Waits while a poll of one of `tasks` is under way, calling `pause`
/// between looks, until it returns false. Once no task is seen running,
/// what each poll did (a message handed to another model, the wake that
/// queued it) is visible: a task's state leaves `RUNNING` with release
/// ordering, and is read here with acquire.
fn await_running_polls(tasks: &[Arc<Task>], mut pause: impl FnMut() -> bool) {
    while tasks.iter().any(|task| task.is_running()) && pause() {}
}

/// Spawns worker `index` with its queue; `None` if the OS refuses a thread
/// (the other workers and the calling thread then do the work).
fn spawn_worker(
    shared: &Arc<Shared>,
    index: usize,
    local: Worker<TaskRef>,
    bench: BenchId,
) -> Option<JoinHandle<()>> {
    let shared = shared.clone();
    let name = format!("causim-worker-{index}");
    thread::spawn_named(name, move || {
        // The thread runs this bench's models only (see `crate::bench`).
        crate::bench::set_for_thread(bench);
        let context = WorkerContext::new(shared, index, local);
        let _installed = worker_context::install(&context);
        worker::work(&context);
    })
    .ok()
}

/// The calling thread's loop: work until the step is complete.
fn run_main(caller: &WorkerContext, deadline: Option<Instant>) -> Result<(), RunError> {
    let shared = &caller.shared;
    // Work queued before the call (spawns, deliveries; what spilled to the
    // injector too) may wake a helper and start the step's measure, see
    // `start_step_with_waiting`. (Start, polls before it.)
    let mut timing = None;
    let waiting = caller.waiting() + shared.injected();
    if waiting > 0 {
        timing = start_step_with_waiting(shared, waiting);
    }
    let mut fanned_out = false;
    let mut polls = 0u32;
    loop {
        if let Some(error) = reported_panic(shared) {
            return Err(error);
        }
        if let Some(task) = worker::next_task(caller) {
            worker::run_task(caller, task);
            polls = polls.wrapping_add(1);
            if caller.next.get().is_some() && !fanned_out {
                fanned_out = true;
                note_fan_out(caller, &mut timing, polls);
            }
            if polls.is_multiple_of(POLLS_PER_DEADLINE_CHECK) && passed(deadline) {
                shared.stop();
                return Err(RunError::Timeout);
            }
            continue;
        }
        // Nothing to poll: note what the polls took. If this thread's
        // lease is the only one, the step is over, and the lease is kept
        // for the next step (no read-modify-write of the count at either
        // end of a step that stays on this thread); else give it back: if
        // it was the last, the step is over too.
        if let Some((start, before)) = timing.take() {
            let polls = polls.wrapping_sub(before);
            shared.spread.note(start.elapsed(), polls, fanned_out);
        }
        if caller.busy.get() && shared.is_sole_lease() {
            return finished(shared, deadline);
        }
        caller.release();
        if shared.is_quiescent() {
            return finished(shared, deadline);
        }
        if passed(deadline) {
            shared.stop();
            return Err(RunError::Timeout);
        }
        worker::park(caller, deadline);
    }
}

/// The start of a step with `waiting` tasks queued behind the one the
/// calling thread takes first: wakes a helper if they are worth it, and
/// starts the step's measure if wanted. What the polls take, and whether
/// they wake other tasks, decides the next steps; the measure starts
/// here, or at the first poll that wakes another task (`note_fan_out`),
/// so a step of one task that wakes nobody reads no clock.
#[inline(never)]
fn start_step_with_waiting(shared: &Shared, waiting: usize) -> Option<(Instant, u32)> {
    if shared.spread.worth_waking(waiting) {
        shared.notify_one();
    }
    shared
        .spread
        .worth_timing(waiting)
        .then(|| (Instant::now(), 0))
}

/// A poll of the calling thread woke another task (the first in this
/// step): from now on the step's tasks are shared by their number again
/// (the estimate may hold light polls that woke nobody, from the steps
/// before), and the step is timed from here if it was not already.
#[cold]
#[inline(never)]
fn note_fan_out(caller: &WorkerContext, timing: &mut Option<(Instant, u32)>, polls: u32) {
    let shared = &caller.shared;
    if shared.spread.is_eager() {
        // Every waiting task wakes a helper already; nothing to measure.
        return;
    }
    shared.spread.fanned_out();
    if shared
        .spread
        .worth_waking(caller.waiting() + shared.injected())
    {
        shared.notify_one();
    }
    timing.get_or_insert_with(|| (Instant::now(), polls));
}

/// The calling thread's loop when the run has a deadline: hand the queued
/// tasks to the workers, then wait until the step is complete, a model
/// panics or the deadline passes, whatever the models do meanwhile.
fn run_watching(caller: &WorkerContext, deadline: Option<Instant>) -> Result<(), RunError> {
    let shared = &caller.shared;
    // Nothing is measured here: the threshold alone decides (an estimate
    // of light polls from the steps before is forgotten).
    shared.spread.fanned_out();
    // The end of the step and a failure unpark this thread.
    shared.handles[0].parker.set_owner();
    hand_over(caller);
    loop {
        if let Some(error) = reported_panic(shared) {
            return Err(error);
        }
        if shared.is_quiescent() {
            return finished(shared, deadline);
        }
        if passed(deadline) {
            shared.stop();
            return Err(RunError::Timeout);
        }
        let timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        shared.handles[0].parker.park(timeout);
    }
}

/// Moves the tasks queued on the calling thread (by the bench's deliveries
/// and spawns) to the injector, each counted for itself, then gives back
/// the thread's lease and wakes a worker.
fn hand_over(caller: &WorkerContext) {
    let shared = &caller.shared;
    let mut moved = false;
    while let Some(task) = caller.next.take().or_else(|| caller.local.pop()) {
        shared.count_active();
        shared.inject(task);
        moved = true;
    }
    caller.release();
    if moved {
        shared.notify_one();
    }
}

/// The outcome of a run whose tasks are all done: a recorded panic, else a
/// timeout if the deadline passed meanwhile (so that a call made of many
/// short steps is bounded too), else success.
#[inline]
fn finished(shared: &Shared, deadline: Option<Instant>) -> Result<(), RunError> {
    if let Some(error) = reported_panic(shared) {
        return Err(error);
    }
    if passed(deadline) {
        return Err(RunError::Timeout);
    }
    Ok(())
}

/// The model panic a worker reported, as the run's error. Only looked for
/// once the stop flag is set (`fail` records the failure before it sets
/// the flag): the end of every step takes no lock.
fn reported_panic(shared: &Shared) -> Option<RunError> {
    if !shared.is_stopped() {
        return None;
    }
    let failure = shared.take_failure()?;
    Some(RunError::Panic {
        meta: failure.meta,
        message: failure.message,
    })
}

/// True if `deadline` is set and passed.
fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

impl Drop for Executor {
    fn drop(&mut self) {
        // A run that ended with every task done leaves no worker in a poll:
        // joining is quick. One that stopped early (a model panic, a
        // timeout, a panic of the bench's code during a delivery: each
        // sets the stop flag) may have left a worker inside a model method
        // that runs for long, or forever. (The activity count cannot tell:
        // an idle worker takes a lease for a moment each time it looks for
        // work to steal.)
        let settled = !self.shared.is_stopped();
        self.shared.shut_down();
        let workers = std::mem::take(&mut self.workers);
        if settled {
            workers.into_iter().for_each(|w| drop(w.join()));
        } else if !thread::join_within(workers, STOPPED_GRACE) {
            // A worker still in a poll is left to exit on its own when (if)
            // its model returns, and the tasks stay allocated, as that
            // worker may still touch the one it polls (see `TaskRef`).
            std::mem::forget(std::mem::take(&mut self.tasks));
        }
        // A delivery not followed by a run leaves a task in the `next`
        // slot: a bare pointer, forgotten like those in the queue.
        self.main.next.take();
        while self.main.local.pop().is_some() {}
        drop(self.shared.drain_injected());
        // Futures hold wakers of tasks (their own, through their mailbox):
        // dropping them here breaks those cycles. Each mailbox's channel
        // keeps the waker its task registered for as long as it lives, and
        // the task keeps the channel as its probe: releasing the probe
        // breaks that cycle too.
        for task in self.tasks.drain(..) {
            // A task a stuck worker is polling keeps its future.
            let future = task.take_down();
            let _ = catch_unwind(AssertUnwindSafe(move || drop(future)));
            // SAFETY: `&mut self`, and the workers are gone (or the list
            // was forgotten above): the executor is this thread's alone.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { task.release_probe() }));
        }
        // Dropping them may have woken tasks onto the injector.
        drop(self.shared.drain_injected());
        // The candidate list holds tasks, which hold `shared`: break that
        // cycle too; an untaken panic report holds a mailbox, which holds
        // its task's waker.
        drop(self.shared.take_candidates());
        drop(self.shared.take_failure());
    }
}
