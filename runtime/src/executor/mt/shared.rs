//! The state every worker of the multi-threaded executor shares.
//!
//! - **Run queues**: each worker's own `st3` queue (others steal from it
//!   through its stealer) and one global injector for tasks woken from
//!   outside a worker or overflowing a full local queue.
//! - **Activity count**: the number of *leases* held — one per worker that
//!   has tasks in its own queue or is polling — plus one per task in the
//!   injector. When it reaches zero no task is queued or being polled and,
//!   as every wake-up inside a step comes from a poll in progress or from
//!   the calling thread before it waits, none can become runnable: the step
//!   is over, exactly, with no polling of mailboxes. The worker that brings
//!   it to zero unparks the calling thread. The calling thread, when it
//!   runs out of work holding the only lease (a count of one), ends the
//!   step just the same and keeps its lease for the next one: a step that
//!   stays on the calling thread then changes the count at neither end.
//!
//!   Why leases and not one unit per task: a hop in a busy simulation is a
//!   model waking another on the same worker, then going idle. Counting
//!   tasks made that two read-modify-writes of this one word, which every
//!   worker hits on every hop, so its cache line moved between cores all
//!   the time (pinball with few balls in flight was much slower on two
//!   threads than on one; see `docs/benchmarks.md`, "Measurements behind
//!   code decisions"). A worker takes its lease when its
//!   queue gets its first task (or before it steals) and gives it back when
//!   it has nothing left to poll; in between, wakes and polls leave the
//!   count alone. Stealing is safe because the thief takes its lease
//!   before the steal and then issues a release fence, and the victim
//!   gives its own back (or ends the step on it) only after its queue's
//!   acquire load has seen the steal (`worker::find_task`,
//!   `worker::steal`): `st3` books a steal with an acquire-only exchange,
//!   so without the fence neither the victim's load nor even its
//!   read-modify-write of the count is bound to see the thief's lease.
//! - **Sleepers** and the stop/shutdown flags that end the workers' loops.
//! - **Reports**: the first model panic, and messages sent to mailboxes
//!   not in the bench, for the calling thread to turn into errors.

use std::collections::VecDeque;

use super::sleepers::Sleepers;
use super::spread::{Spread, DEFAULT_WAKE_THRESHOLD};
use super::task::{Task, TaskRef};
use super::worker_context;
use crate::executor::TaskMeta;
use crate::poll_report::Misaddressed;
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::sync::work_queue::{Stealer, Worker};
use crate::sync::{lock, Arc, Mutex, Parker};

/// What other threads know about one worker.
pub(crate) struct WorkerHandle {
    /// Steals from the worker's own queue.
    pub(crate) stealer: Stealer<TaskRef>,
    /// Where the worker parks (for worker 0: the thread that called in
    /// last).
    pub(crate) parker: Parker,
}

impl WorkerHandle {
    /// Wakes the worker if it is parked (or makes its next park return at
    /// once).
    pub(crate) fn unpark(&self) {
        self.parker.unpark();
    }
}

/// The first model panic.
pub(crate) struct Failure {
    /// The panicking task.
    pub(crate) meta: TaskMeta,
    /// Its panic message.
    pub(crate) message: String,
}

/// The state shared by the workers.
pub(crate) struct Shared {
    /// Tasks queued from outside a worker, or that overflowed a local
    /// queue.
    injector: Mutex<VecDeque<TaskRef>>,
    /// Length of `injector`, readable without the lock.
    injected: AtomicUsize,
    /// Tasks queued or being polled.
    active: AtomicUsize,
    /// One per worker; 0 is the calling thread, the last the stand-in
    /// (see `Executor::stand_in`).
    pub(crate) handles: Box<[WorkerHandle]>,
    /// How many of `handles` a worker steals from: all but the stand-in's
    /// until the stand-in is spawned, so that every look for work does not
    /// pay for a queue nobody fills (a steal attempt on each of two calls
    /// per step: about 50 instructions per step on two threads).
    stealable: AtomicUsize,
    /// Workers parked (or about to park) for lack of work.
    pub(crate) sleepers: Sleepers,
    /// When queued tasks are worth waking a sleeper for.
    pub(crate) spread: Spread,
    /// Set by a model panic or a timeout: no task is polled any more.
    stop: AtomicBool,
    /// Set when the executor is dropped: the workers exit.
    shutdown: AtomicBool,
    /// The first model panic.
    failure: Mutex<Option<Failure>>,
    /// Messages dropped because their mailbox is not in the bench (never
    /// added, or of another bench), with the sender (`None`: the bench).
    unbound: Mutex<Vec<(Option<std::sync::Arc<str>>, Misaddressed)>>,
    /// True while `unbound` may hold reports (set under its lock).
    has_unbound: AtomicBool,
    /// Tasks whose poll since the last end-of-step check ended pending
    /// other than parked on their empty mailbox (a later poll in the step
    /// may have parked them since): the only ones that can be stuck, so
    /// the check need not scan every model of a large, mostly idle bench.
    candidates: Mutex<Vec<Arc<Task>>>,
    /// True when `candidates` may be non-empty (set under its lock), so
    /// that the end of a step that listed none takes no lock.
    has_candidates: AtomicBool,
}

impl Shared {
    /// Shared state for workers with these stealers (index 0 first).
    pub(crate) fn new(stealers: Vec<Stealer<TaskRef>>) -> Self {
        let stealable = stealers.len().saturating_sub(1);
        Shared {
            injector: Mutex::new(VecDeque::new()),
            injected: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            handles: stealers
                .into_iter()
                .map(|stealer| WorkerHandle {
                    stealer,
                    parker: Parker::new(),
                })
                .collect(),
            stealable: AtomicUsize::new(stealable),
            sleepers: Sleepers::new(),
            spread: Spread::new(DEFAULT_WAKE_THRESHOLD),
            stop: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            failure: Mutex::new(None),
            unbound: Mutex::new(Vec::new()),
            has_unbound: AtomicBool::new(false),
            candidates: Mutex::new(Vec::new()),
            has_candidates: AtomicBool::new(false),
        }
    }

    /// The same, waking a sleeper for more than `threshold` ready tasks
    /// (see [`spread`](super::spread)).
    pub(crate) fn with_wake_threshold(mut self, threshold: usize) -> Self {
        self.spread = Spread::new(threshold);
        self
    }

    /// Lists `task`, whose poll just ended pending, as a deadlock
    /// candidate, once per step, unless the poll ended `parked` on the
    /// task's empty mailbox.
    ///
    /// A parked task is idle until a message wakes it, and the wake-up
    /// polls it again before the step ends: only the others may be stuck.
    /// (A push that lands as it parks wakes it too.)
    ///
    /// # Safety
    ///
    /// As for [`TaskRef::get`]: the caller holds the task.
    #[inline]
    pub(crate) unsafe fn list_candidate(&self, task: TaskRef, parked: bool) {
        if parked {
            return;
        }
        // SAFETY: per the contract, the task is alive.
        let listed = &unsafe { task.get() }.listed;
        // A load first: a task polled again in the same step (the common
        // case) costs no read-modify-write.
        if !listed.load(Ordering::Relaxed) && !listed.swap(true, Ordering::Relaxed) {
            // SAFETY: as above.
            unsafe { self.push_candidate(task) };
        }
    }

    /// Adds `task` to the candidates (the first listing of a step).
    ///
    /// # Safety
    ///
    /// As for [`list_candidate`](Shared::list_candidate).
    #[inline(never)]
    unsafe fn push_candidate(&self, task: TaskRef) {
        let mut candidates = lock(&self.candidates);
        // SAFETY: per the contract, the task is alive.
        candidates.push(unsafe { task.to_arc() });
        self.has_candidates.store(true, Ordering::Relaxed);
    }

    /// True if a task was listed since the candidates were last taken.
    /// Relaxed: read when no task is active (see
    /// [`swap_candidates`](Shared::swap_candidates) for the ordering).
    #[inline]
    pub(crate) fn has_candidates(&self) -> bool {
        self.has_candidates.load(Ordering::Relaxed)
    }

    /// Takes the deadlock candidates, unlisting them.
    pub(crate) fn take_candidates(&self) -> Vec<Arc<Task>> {
        let mut candidates = Vec::new();
        self.swap_candidates(&mut candidates);
        candidates
    }

    /// Moves the deadlock candidates into `into`, which must be empty,
    /// unlisting them; the list keeps the capacity of `into` for the next
    /// step (one allocation and one free per step otherwise).
    ///
    /// Called when no task is active: at the end of a step that listed
    /// some (`Executor::stuck` looks at [`has_candidates`] first, after
    /// the acquire load that saw the activity count at zero, or at the
    /// calling thread's own lease, which every
    /// worker's release of its lease, an acquire-release read-modify-write
    /// made after its listings, comes before, so the flag's relaxed load
    /// sees them), or at teardown, after the workers were joined.
    ///
    /// [`has_candidates`]: Shared::has_candidates
    pub(crate) fn swap_candidates(&self, into: &mut Vec<Arc<Task>>) {
        debug_assert!(into.is_empty());
        let mut candidates = lock(&self.candidates);
        self.has_candidates.store(false, Ordering::Relaxed);
        std::mem::swap(&mut *candidates, into);
        drop(candidates);
        for task in into.iter() {
            task.listed.store(false, Ordering::Relaxed);
        }
    }

    /// Queues a task that was just woken from idle, on this thread's queue
    /// if it is one of our workers, else on the injector.
    ///
    /// Inline, with the worker's own path: every message to an idle model
    /// comes here, and a call for each of the two layers cost more than
    /// the work they do (docs/benchmarks.md, "The consumer's waker without
    /// a notifier lock").
    #[inline]
    pub(crate) fn schedule_woken(task: &Arc<Task>) {
        let shared = &task.shared;
        worker_context::with(|worker| match worker {
            Some(worker) if Arc::ptr_eq(&worker.shared, shared) => {
                worker.wake_here(TaskRef::new(task))
            }
            _ => Self::schedule_from_outside(shared, task),
        });
    }

    /// [`schedule_woken`](Shared::schedule_woken) from a thread that is not
    /// one of our workers: on the injector, with a worker woken for it.
    #[inline(never)]
    fn schedule_from_outside(&self, task: &Arc<Task>) {
        self.count_active();
        self.inject(TaskRef::new(task));
        self.notify_one();
    }

    /// The handles a worker steals from (see [`stealable`](Shared::stealable)).
    #[inline]
    pub(crate) fn victims(&self) -> &[WorkerHandle] {
        &self.handles[..self.stealable.load(Ordering::Relaxed)]
    }

    /// Lets workers steal from the stand-in's queue too, before it is
    /// spawned. A worker that still reads the old count only misses a
    /// chance to help: the stand-in polls its own queue, whose tasks its
    /// lease covers.
    pub(crate) fn include_stand_in(&self) {
        self.stealable.store(self.handles.len(), Ordering::Relaxed);
    }

    /// Counts one more task as active (before it is queued).
    pub(crate) fn count_active(&self) {
        self.active.fetch_add(1, Ordering::AcqRel);
    }

    /// True if one lease is held in all (the caller's, when it holds
    /// one). Relaxed: a hint that spares a steal bound to find nothing; a
    /// lease taken meanwhile comes with its own worker to poll its tasks.
    #[inline]
    pub(crate) fn only_one_lease(&self) -> bool {
        self.active.load(Ordering::Relaxed) == 1
    }

    /// Counts one task less as active; the last one wakes the calling
    /// thread (unless it is that thread, `index` 0).
    pub(crate) fn uncount_active(&self, index: usize) {
        if self.active.fetch_sub(1, Ordering::AcqRel) == 1 && index != 0 {
            self.handles[0].unpark();
        }
    }

    /// True when the only lease held is the caller's own: called by a
    /// worker holding a lease, with its queue and `next` slot empty and no
    /// poll under way, it means no task is queued or being polled
    /// anywhere (every other worker with work, or stealing, holds a lease;
    /// every injected task counts for itself). The acquire load sees what
    /// the others' polls did, as [`is_quiescent`](Shared::is_quiescent)
    /// does.
    pub(crate) fn is_sole_lease(&self) -> bool {
        self.active.load(Ordering::Acquire) == 1
    }

    /// True when no task is queued or being polled.
    pub(crate) fn is_quiescent(&self) -> bool {
        self.active.load(Ordering::Acquire) == 0
    }

    /// Puts a task on the injector.
    pub(crate) fn inject(&self, task: TaskRef) {
        let mut injector = lock(&self.injector);
        injector.push_back(task);
        self.injected.store(injector.len(), Ordering::Release);
    }

    /// Puts `older`, then `newest`, on the injector in that order, under
    /// one lock, each counted for itself first (how a worker's full queue
    /// spills half of itself; see
    /// [`WorkerContext::push_local`](super::worker_context::WorkerContext::push_local)).
    pub(crate) fn inject_batch(
        &self,
        older: impl ExactSizeIterator<Item = TaskRef>,
        newest: TaskRef,
    ) {
        self.active.fetch_add(older.len() + 1, Ordering::AcqRel);
        let mut injector = lock(&self.injector);
        injector.extend(older);
        injector.push_back(newest);
        self.injected.store(injector.len(), Ordering::Release);
    }

    /// Takes the oldest injected task, and moves half of the others, as
    /// many as `local` has room for, to `local` in their order, under the
    /// same lock; returns the task and the number moved. Each moved task
    /// still counts for itself: the caller's lease takes them over.
    ///
    /// Why a batch: a step that wakes more tasks than a worker's queue
    /// holds spills the rest here, and taking them one lock at a time
    /// against the other workers made the lock the step's largest cost
    /// (see `docs/benchmarks.md`, "Workers woken when the work pays for
    /// it").
    #[inline]
    pub(crate) fn pop_injected_into(&self, local: &Worker<TaskRef>) -> Option<(TaskRef, usize)> {
        // The common look, at every step's end, finds none: inlined.
        if self.injected.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.take_injected_into(local)
    }

    /// [`pop_injected_into`](Shared::pop_injected_into) once tasks were
    /// seen injected.
    #[inline(never)]
    fn take_injected_into(&self, local: &Worker<TaskRef>) -> Option<(TaskRef, usize)> {
        let mut injector = lock(&self.injector);
        let task = injector.pop_front()?;
        let batch = (injector.len() / 2).min(local.spare_capacity());
        let mut moved = 0;
        while moved < batch {
            let Some(next) = injector.pop_front() else {
                break;
            };
            if let Err(next) = local.push(next) {
                injector.push_front(next);
                break;
            }
            moved += 1;
        }
        self.injected.store(injector.len(), Ordering::Release);
        Some((task, moved))
    }

    /// Gives back `units` of the activity count that a worker's lease took
    /// over: the units of injected tasks now in its queue, and of the one
    /// it took too if it held a lease already. The count stays at least at
    /// that lease, so nobody is woken.
    pub(crate) fn give_back(&self, units: usize) {
        if units > 0 {
            let before = self.active.fetch_sub(units, Ordering::AcqRel);
            debug_assert!(before > units, "the caller's lease is still counted");
        }
    }

    /// Gives back the injector's memory, which grows with the number of
    /// tasks queued at once (spawning a bench queues every model).
    pub(crate) fn trim(&self) {
        lock(&self.injector).shrink_to_fit();
        lock(&self.candidates).shrink_to_fit();
    }

    /// Number of injected tasks.
    pub(crate) fn injected(&self) -> usize {
        self.injected.load(Ordering::Acquire)
    }

    /// Takes every injected task (on teardown).
    pub(crate) fn drain_injected(&self) -> VecDeque<TaskRef> {
        let mut injector = lock(&self.injector);
        self.injected.store(0, Ordering::Release);
        std::mem::take(&mut *injector)
    }

    /// Wakes one parked worker, if any, after queuing work.
    pub(crate) fn notify_one(&self) {
        if let Some(index) = self.sleepers.pop() {
            self.handles[index].unpark();
        }
    }

    /// Wakes one parked worker other than worker `worker`, if any, after
    /// that worker found more work than it takes (see
    /// [`Sleepers::pop_other`]).
    pub(crate) fn notify_other(&self, worker: usize) {
        if let Some(index) = self.sleepers.pop_other(worker) {
            self.handles[index].unpark();
        }
    }

    /// Wakes one parked worker if one is seen registered, after a worker
    /// queued work worth a helper on its own queue (see
    /// [`spread`](super::spread)), or spilled it to the injector.
    ///
    /// Only a hint, with no fence: the owner polls every task of its own
    /// queue, and takes back what it spilled, whether or not another worker
    /// helps, so a sleeper missed here
    /// (registered just as the work was queued) costs parallelism, never a
    /// lost task or a hung step; the next push sees it. The full fence of
    /// [`notify_one`](Shared::notify_one) cost a tenth of a cross-worker
    /// hop, paid on every push while the queue was not empty.
    pub(crate) fn hint_one(&self) {
        if let Some(index) = self.sleepers.pop_seen() {
            self.handles[index].unpark();
        }
    }

    /// Records a model panic and stops polling; the calling thread is told.
    pub(crate) fn fail(&self, meta: TaskMeta, message: String) {
        lock(&self.failure).get_or_insert(Failure { meta, message });
        self.stop();
        self.handles[0].unpark();
    }

    /// Takes the recorded model panic.
    pub(crate) fn take_failure(&self) -> Option<Failure> {
        lock(&self.failure).take()
    }

    /// Stops polling tasks (after a fatal error).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// True once polling stopped.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Tells every worker to exit and wakes them.
    pub(crate) fn shut_down(&self) {
        self.shutdown.store(true, Ordering::Release);
        self.handles[1..].iter().for_each(WorkerHandle::unpark);
    }

    /// True once the executor is being dropped.
    pub(crate) fn is_shut_down(&self) -> bool {
        self.shutdown.load(Ordering::Acquire)
    }

    /// Notes a message sent by `sender` (`None`: the bench) to a mailbox
    /// not in the bench.
    pub(crate) fn file_unbound(&self, sender: Option<std::sync::Arc<str>>, unbound: Misaddressed) {
        let mut reports = lock(&self.unbound);
        reports.push((sender, unbound));
        self.has_unbound.store(true, Ordering::Release);
    }

    /// False if no report was filed since the last
    /// [`take_unbound`](Shared::take_unbound): a load rather than a lock
    /// at the end of every step. Read once the run is over: the workers'
    /// filings happened before the end of their polls, which the end of
    /// the run synchronises with.
    pub(crate) fn has_unbound(&self) -> bool {
        self.has_unbound.load(Ordering::Acquire)
    }

    /// Takes the reports of messages dropped because their mailbox is not
    /// in the bench (never added, or of another bench), with their sender
    /// (`None`: the bench).
    pub(crate) fn take_unbound(&self) -> Vec<(Option<std::sync::Arc<str>>, Misaddressed)> {
        let mut unbound = lock(&self.unbound);
        // Under the lock: a report filed after this take sets it again.
        self.has_unbound.store(false, Ordering::Relaxed);
        std::mem::take(&mut *unbound)
    }
}
