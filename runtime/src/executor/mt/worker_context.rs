//! Which worker the current thread is, if any.
//!
//! A waker runs on whatever thread wakes the task. When that thread is a
//! worker of the task's executor (which it is for every wake-up that a model
//! causes), the task goes to that worker's own queue: no lock, no other
//! thread involved, and it runs next on a warm cache. Any other thread
//! injects it into the shared queue. The thread that calls into the
//! simulation is worker 0 while it does: it enters before delivering events
//! and before running the models.
//!
//! A worker's own state lives here too, with every method of
//! [`WorkerContext`]: its queue and `next` slot, the lease that covers
//! them, and how a task woken on it is queued.
//!
//! The context stays where its owner keeps it (worker 0's in the executor,
//! a spawned worker's on its thread's stack); the thread-local only points
//! to it while it is [installed](install). Worker 0 is installed twice a
//! step (to deliver, then to run): a pointer set and restored, where moving
//! the context in and out of the thread-local cost ~120 instructions each
//! way (see `docs/benchmarks.md`).

use std::cell::{Cell, RefCell};
use std::ptr;

use super::shared::Shared;
use super::task::TaskRef;
use crate::sync::work_queue::Worker;
use crate::sync::Arc;

/// How many tasks in a row a worker polls from its `next` slot before it
/// takes one from its queue (see [`WorkerContext::wake_here`]).
const NEXT_STREAK: u32 = 32;

/// A worker's identity and own run queue.
pub(crate) struct WorkerContext {
    /// The executor it works for.
    pub(crate) shared: Arc<Shared>,
    /// Its index in the executor's handles (0: the calling thread).
    pub(crate) index: usize,
    /// Its own run queue.
    pub(crate) local: Worker<TaskRef>,
    /// True while the worker holds its *lease*: one unit of the executor's
    /// activity count that covers every task in its own queue, in its
    /// `next` slot, and the one it polls (see [`shared`](super::shared)).
    pub(crate) busy: Cell<bool>,
    /// The task the poll in progress woke last, polled next (see
    /// [`wake_here`](WorkerContext::wake_here)); only this worker sees it.
    pub(crate) next: Cell<Option<TaskRef>>,
    /// Polls in a row of tasks taken from `next`.
    pub(crate) next_streak: Cell<u32>,
    /// True while this worker polls a task.
    pub(crate) polling: Cell<bool>,
    /// True while worker 0 delivers the bench's events (see
    /// [`install_delivering`]): the tasks woken then are held, since a task
    /// in this worker's queue could be stolen and polled by another worker
    /// before every event is in its mailbox (the same-time rule).
    holding: Cell<bool>,
    /// The tasks woken while `holding`, but the last (which waits in
    /// `next`), kept out of every queue another worker can take from; an
    /// empty buffer otherwise.
    held: RefCell<Vec<TaskRef>>,
}

impl WorkerContext {
    /// Worker `index` of `shared`, with its own queue `local`, no lease
    /// and nothing held.
    pub(crate) fn new(shared: Arc<Shared>, index: usize, local: Worker<TaskRef>) -> Self {
        WorkerContext {
            shared,
            index,
            local,
            busy: Cell::new(false),
            next: Cell::new(None),
            next_streak: Cell::new(0),
            polling: Cell::new(false),
            holding: Cell::new(false),
            held: RefCell::new(Vec::new()),
        }
    }

    /// Queues `task` from outside the worker's runs (spawning), taking
    /// the lease first if needed; a full queue sends it to the injector.
    /// No sleeper is woken: no run is in progress.
    pub(crate) fn push_spawned(&self, task: TaskRef) {
        self.lease();
        if let Err(task) = self.local.push(task) {
            self.shared.count_active();
            self.shared.inject(task);
        }
    }

    /// Takes the lease if the worker does not hold it: one read-modify-write
    /// of the activity count, before the worker queues or steals a task.
    pub(crate) fn lease(&self) {
        if !self.busy.get() {
            self.shared.count_active();
            self.busy.set(true);
        }
    }

    /// Gives the lease back, if held; the worker's queue and `next` slot
    /// must be empty and it must not be polling. (A worker parking after
    /// [`stop`](Shared::stop) may release with a task left in `next`: the
    /// run has failed, and that task is never polled again.)
    pub(crate) fn release(&self) {
        if self.busy.replace(false) {
            self.shared.uncount_active(self.index);
        }
    }

    /// Queues `task`, woken on this worker: during a poll, in the `next`
    /// slot (the task in it before goes to the queue), else in the queue.
    ///
    /// A model that sends a message and goes idle hands the hop to the
    /// recipient, whose mailbox and message are now in this core's cache:
    /// polling it next, rather than after everything queued before it,
    /// keeps a chain of messages on one warm core and spares a queue push
    /// and pop (with its compare-and-swap). The order of models on several
    /// threads is not specified, so this changes no promise; a streak is
    /// capped ([`NEXT_STREAK`]) so that a ping-pong does not keep the
    /// queue waiting.
    #[inline]
    pub(crate) fn wake_here(&self, task: TaskRef) {
        if !self.polling.get() {
            return self.queue_unpolled(task);
        }
        // The lease held for the poll covers the slot.
        if let Some(previous) = self.next.replace(Some(task)) {
            self.push_local(previous);
        }
    }

    /// Queues `task`, woken outside a poll: held back while the bench
    /// delivers, else in the queue.
    fn queue_unpolled(&self, task: TaskRef) {
        if self.holding.get() {
            return self.hold(task);
        }
        self.push_local(task);
    }

    /// Keeps `task` out of the queues: in the `next` slot, which only this
    /// worker sees (most deliveries wake one task: no buffer touched), the
    /// one it replaces in the buffer behind those before it.
    fn hold(&self, task: TaskRef) {
        if let Some(earlier) = self.next.replace(Some(task)) {
            self.held.borrow_mut().push(earlier);
        }
    }

    /// Queues the tasks held since [`install_delivering`], in the order
    /// they were woken, but the last, which stays in the `next` slot and is
    /// polled first by this thread (a step's one delivered task then costs
    /// no queue push and pop); wakes are queued at once again.
    #[inline]
    pub(crate) fn queue_held(&self) {
        self.holding.set(false);
        if self.next.get().is_some() {
            // The lease covers the slot, as during a poll.
            self.lease();
        }
        if !self.held.borrow().is_empty() {
            self.queue_held_tasks();
        }
    }

    /// The buffered tasks of [`queue_held`](WorkerContext::queue_held), to
    /// the queue; the buffer keeps its capacity for the next delivery.
    ///
    /// As many as the queue has room for go in at once (one release of
    /// the queue's tail, and one look at whether they are worth a helper,
    /// rather than one of each per task: a tick of a thousand models spent
    /// a sixth of its step pushing them one by one); the rest one at a
    /// time, spilling to the injector.
    #[cold]
    fn queue_held_tasks(&self) {
        let mut held = std::mem::take(&mut *self.held.borrow_mut());
        self.lease();
        // Only this worker pushes to its queue: its room can only grow
        // until the tasks are in, so every one of them fits.
        let room = self.local.spare_capacity().min(held.len());
        self.local.extend(held.drain(..room));
        held.drain(..).for_each(|task| self.push_local(task));
        *self.held.borrow_mut() = held;
        if self.shared.spread.worth_waking(self.waiting()) {
            self.shared.hint_one();
        }
    }

    /// Tasks in this worker's own queue and `next` slot behind the one it
    /// takes next.
    #[inline]
    pub(crate) fn waiting(&self) -> usize {
        let queued = self.local.capacity() - self.local.spare_capacity();
        (queued + usize::from(self.next.get().is_some())).saturating_sub(1)
    }

    /// The task in the `next` slot, unless the streak is at its cap (the
    /// task then goes to the back of the queue).
    pub(crate) fn take_next(&self) -> Option<TaskRef> {
        let task = self.next.take()?;
        let streak = self.next_streak.get();
        if streak < NEXT_STREAK {
            self.next_streak.set(streak + 1);
            return Some(task);
        }
        self.push_local(task);
        None
    }

    /// Queues `task` on this worker's own queue (under the worker's lease,
    /// taken if needed), waking a sleeper when the tasks waiting behind the
    /// one this worker takes next are worth it (see
    /// [`spread`](super::spread)). A full queue sends its older half and
    /// the task to the injector, where each counts for itself.
    pub(crate) fn push_local(&self, task: TaskRef) {
        self.lease();
        match self.local.push(task) {
            Ok(()) => {
                if self.shared.spread.worth_waking(self.waiting()) {
                    self.shared.hint_one();
                }
            }
            Err(task) => self.spill(task),
        }
    }

    /// Moves the older half of this worker's full queue, then `task`, to
    /// the injector, under one lock, and hints a sleeper if worth it: a
    /// step that wakes more tasks than a queue holds (a tick of a thousand
    /// models) then takes the lock once per half a queue rather than once
    /// per task (see
    /// `docs/benchmarks.md`, "A full queue spills half of itself"). If a
    /// steal from this queue is under way (its items booked), `task` goes
    /// alone.
    #[cold]
    #[inline(never)]
    fn spill(&self, task: TaskRef) {
        match self.local.drain(|queued| queued / 2) {
            Ok(older) => self.shared.inject_batch(older, task),
            Err(_) => {
                self.shared.count_active();
                self.shared.inject(task);
            }
        }
        // This worker takes injected tasks back once its queue is empty: a
        // helper is wanted for speed, not for progress, so a hint without
        // the fence will do, if worth it.
        let queued = self.waiting() + self.shared.injected();
        if self.shared.spread.worth_waking(queued) {
            self.shared.hint_one();
        }
    }
}

#[cfg(not(causim_loom))]
std::thread_local! {
    /// The context of the worker running on this thread, while one is
    /// installed (see [`install`]); null otherwise.
    static CONTEXT: Cell<*const WorkerContext> = const { Cell::new(ptr::null()) };
}

#[cfg(causim_loom)]
loom::thread_local! {
    /// The context of the worker running on this thread, while one is
    /// installed (see [`install`]); null otherwise.
    static CONTEXT: Cell<*const WorkerContext> = Cell::new(ptr::null());
}

/// Runs `f` with this thread's worker context, if any.
///
/// Nested calls are fine (a poll inside `f` wakes tasks): they only share
/// the context.
#[inline]
pub(crate) fn with<R>(f: impl FnOnce(Option<&WorkerContext>) -> R) -> R {
    let context = CONTEXT.with(Cell::get);
    // SAFETY: a non-null pointer was set by an `Installed` guard of this
    // thread that is still alive: guards are made and dropped in stack
    // order (each restores the pointer it replaced), and the guard borrows
    // the context, which therefore outlives it, unmoved. `f` runs inside
    // this call, deeper in the stack than that guard: the reference it is
    // given does not outlive the guard either.
    f(unsafe { context.as_ref() })
}

/// Makes this thread worker `context` until the guard is dropped (also
/// when unwinding); what was installed before (another executor's worker,
/// usually nothing) is installed again then.
#[inline]
pub(crate) fn install(context: &WorkerContext) -> Installed<'_> {
    let previous = CONTEXT.with(|c| c.replace(context));
    Installed { context, previous }
}

/// [`install`] for a delivery of the bench's events: the tasks woken until
/// the guard is dropped are held (see `WorkerContext::holding`), then
/// queued, in the order they were woken, when it is dropped (the last in
/// the `next` slot, see [`WorkerContext::queue_held`]).
#[inline]
pub(crate) fn install_delivering(context: &WorkerContext) -> Installed<'_> {
    context.holding.set(true);
    install(context)
}

/// Undoes [`install`] when dropped.
pub(crate) struct Installed<'a> {
    /// The installed context.
    context: &'a WorkerContext,
    /// What was installed before (another executor's worker, usually
    /// nothing).
    previous: *const WorkerContext,
}

impl Drop for Installed<'_> {
    #[inline]
    fn drop(&mut self) {
        // The thread-local is gone only while the thread exits, when
        // nothing reads it any more.
        let _ = CONTEXT.try_with(|c| c.set(self.previous));
        let context = self.context;
        if context.holding.get() {
            // The delivery is over (or unwound): its tasks to the queue,
            // but the last, which stays in the `next` slot.
            context.queue_held();
        } else if let Some(task) = context.next.take() {
            // A task left in the `next` slot by a call that stopped early
            // (a panic, a timeout) waits in the queue like the others.
            context.push_local(task);
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;
    use crate::executor::mt::task::Task;
    use crate::executor::TaskMeta;

    /// A queued task of `shared`, pending forever.
    fn task(shared: &Arc<Shared>, name: &str) -> Arc<Task> {
        let meta = TaskMeta {
            name: std::sync::Arc::from(name),
            model_type: "test",
            mailbox: None,
        };
        let future = Box::pin(std::future::pending());
        Arc::new(Task::new_scheduled(
            future,
            meta.into_probe(),
            shared.clone(),
        ))
    }

    /// Worker 0 of a one-worker executor, installed on this thread, and
    /// three tasks.
    fn worker_with_tasks(f: impl FnOnce(&WorkerContext, [TaskRef; 3])) {
        let local = Worker::new(16);
        let shared = Arc::new(Shared::new(vec![local.stealer()]));
        let tasks = ["a", "b", "c"].map(|name| task(&shared, name));
        let context = WorkerContext::new(shared.clone(), 0, local);
        let _installed = install(&context);
        with(|worker| {
            f(
                worker.expect("installed"),
                [0, 1, 2].map(|i| TaskRef::new(&tasks[i])),
            )
        });
    }

    #[test]
    fn a_task_woken_by_a_poll_runs_next() {
        worker_with_tasks(|worker, [a, b, c]| {
            // Outside a poll: the queue, in order.
            worker.wake_here(a);
            assert!(worker.next.take().is_none());
            // During a poll: the last woken takes the slot, the one it
            // replaces goes behind `a`.
            worker.polling.set(true);
            worker.wake_here(b);
            worker.wake_here(c);
            worker.polling.set(false);
            assert_eq!(worker.take_next().map(TaskRef::as_ptr), Some(c.as_ptr()));
            let queued = [worker.local.pop(), worker.local.pop()].map(|t| t.map(TaskRef::as_ptr));
            assert_eq!(queued, [Some(a.as_ptr()), Some(b.as_ptr())]);
        });
    }

    /// While worker 0 delivers, the tasks it wakes are in no queue another
    /// worker can take from; when the delivery ends they are queued in the
    /// order they were woken, but the last, which waits in the `next` slot
    /// under the worker's lease.
    #[test]
    fn a_delivery_holds_its_woken_tasks_until_it_ends() {
        let local = Worker::new(16);
        let shared = Arc::new(Shared::new(vec![local.stealer()]));
        let tasks = ["a", "b", "c"].map(|name| task(&shared, name));
        let [a, b, c] = [0, 1, 2].map(|i| TaskRef::new(&tasks[i]));
        let context = WorkerContext::new(shared.clone(), 0, local);
        let installed = install_delivering(&context);
        with(|worker| {
            let worker = worker.expect("installed");
            [a, b, c]
                .into_iter()
                .for_each(|task| worker.wake_here(task));
            assert!(worker.local.is_empty(), "nothing to steal mid-delivery");
        });
        drop(installed);
        assert!(with(|worker| worker.is_none()), "uninstalled");
        let queued: Vec<_> = std::iter::from_fn(|| context.local.pop())
            .map(TaskRef::as_ptr)
            .collect();
        assert_eq!(queued, [a.as_ptr(), b.as_ptr()]);
        assert_eq!(context.next.get().map(TaskRef::as_ptr), Some(c.as_ptr()));
        assert!(context.busy.get() && shared.is_sole_lease(), "leased");
        assert_eq!(context.waiting(), 0, "the queue was taken out above");
    }

    /// A worker taking from the injector takes the oldest task and moves
    /// half of the others to its queue, in order, as far as it has room;
    /// their units of the activity count stay until the caller gives them
    /// back.
    #[test]
    fn an_injected_batch_moves_half_the_rest_in_order() {
        let local = Worker::new(2);
        let shared = Arc::new(Shared::new(vec![local.stealer()]));
        let tasks = ["a", "b", "c", "d", "e", "f", "g"].map(|name| task(&shared, name));
        let refs = tasks.each_ref().map(TaskRef::new);
        for task in refs {
            shared.count_active();
            shared.inject(task);
        }
        let (first, moved) = shared.pop_injected_into(&local).expect("injected");
        assert_eq!(first.as_ptr(), refs[0].as_ptr());
        // Half of the six left is three; the queue has room for two.
        assert_eq!(moved, 2);
        let queued = [local.pop(), local.pop()].map(|t| t.map(TaskRef::as_ptr));
        assert_eq!(queued, [Some(refs[1].as_ptr()), Some(refs[2].as_ptr())]);
        assert_eq!(shared.injected(), 4, "the rest stays injected");
        let (next, moved) = shared.pop_injected_into(&local).expect("injected");
        assert_eq!((next.as_ptr(), moved), (refs[3].as_ptr(), 1));
        assert_eq!(local.pop().map(TaskRef::as_ptr), Some(refs[4].as_ptr()));
        assert_eq!(shared.injected(), 2);
        // One unit becomes a lease, the others are given back: the count
        // still holds that lease and the two tasks left injected.
        shared.give_back(7 - 2 - 1);
        assert!(!shared.is_quiescent() && !shared.is_sole_lease());
        drop(shared.drain_injected());
    }

    /// The tasks of `refs` at `indices`, as pointers.
    fn pointers(refs: &[TaskRef], indices: &[usize]) -> Vec<*const Task> {
        indices.iter().map(|&i| refs[i].as_ptr()).collect()
    }

    /// The injected tasks, taken out in order.
    fn injected(shared: &Shared) -> Vec<*const Task> {
        shared.drain_injected().iter().map(|t| t.as_ptr()).collect()
    }

    /// The tasks in `context`'s queue, popped in order.
    fn queued(context: &WorkerContext) -> Vec<*const Task> {
        std::iter::from_fn(|| context.local.pop())
            .map(TaskRef::as_ptr)
            .collect()
    }

    /// A task queued on a full queue goes to the injector behind the older
    /// half of the queue, under one lock, each counted for itself; the
    /// newer half stays, in order.
    #[test]
    fn a_full_queue_spills_its_older_half_then_the_task() {
        let local = Worker::new(4);
        let shared = Arc::new(Shared::new(vec![local.stealer()]));
        let tasks = ["a", "b", "c", "d", "e"].map(|name| task(&shared, name));
        let refs = tasks.each_ref().map(TaskRef::new);
        let context = WorkerContext::new(shared.clone(), 0, local);
        for task in refs {
            context.push_local(task);
        }
        assert_eq!(
            shared.injected(),
            3,
            "two of the four queued, then the fifth"
        );
        assert_eq!(injected(&shared), pointers(&refs, &[0, 1, 4]));
        assert_eq!(queued(&context), pointers(&refs, &[2, 3]));
        // The lease and the three injected tasks: four units.
        shared.give_back(3);
        assert!(shared.is_sole_lease());
    }

    /// A delivery that wakes more tasks than the queue holds: the queue
    /// takes as many as it has room for at once, the next push spills its
    /// older half with that task, the rest follow, the last waits in the
    /// `next` slot; every task is queued once, in wake order within each
    /// place, and counted.
    #[test]
    fn a_delivery_of_more_tasks_than_the_queue_holds_spills_the_rest() {
        let local = Worker::new(4);
        let shared = Arc::new(Shared::new(vec![local.stealer()]));
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        let tasks = names.map(|name| task(&shared, name));
        let refs = tasks.each_ref().map(TaskRef::new);
        let context = WorkerContext::new(shared.clone(), 0, local);
        let installed = install_delivering(&context);
        with(|worker| {
            refs.into_iter()
                .for_each(|t| worker.expect("installed").wake_here(t))
        });
        drop(installed);
        // Held: a..f, `next`: g. The queue took a, b, c, d; e spilled a, b
        // and itself; f went into the room left.
        assert_eq!(injected(&shared), pointers(&refs, &[0, 1, 4]));
        assert_eq!(queued(&context), pointers(&refs, &[2, 3, 5]));
        assert_eq!(
            context.next.get().map(TaskRef::as_ptr),
            Some(refs[6].as_ptr())
        );
        // The lease and the three injected tasks.
        shared.give_back(3);
        assert!(shared.is_sole_lease());
    }

    /// A delivery that wakes one task leaves it in the `next` slot, under
    /// a lease, with nothing in the queue for another worker.
    #[test]
    fn a_delivery_of_one_task_leaves_it_in_the_next_slot_leased() {
        let local = Worker::new(16);
        let shared = Arc::new(Shared::new(vec![local.stealer()]));
        let only = task(&shared, "only");
        let context = WorkerContext::new(shared.clone(), 0, local);
        let installed = install_delivering(&context);
        with(|worker| worker.expect("installed").wake_here(TaskRef::new(&only)));
        drop(installed);
        assert!(context.local.is_empty(), "nothing to steal");
        assert_eq!(
            context.next.get().map(TaskRef::as_ptr),
            Some(TaskRef::new(&only).as_ptr())
        );
        assert!(context.busy.get() && shared.is_sole_lease(), "leased");
        assert_eq!(context.waiting(), 0, "nothing behind it");
    }

    #[test]
    fn a_streak_from_the_slot_is_capped() {
        worker_with_tasks(|worker, [a, _, _]| {
            for _ in 0..NEXT_STREAK {
                worker.next.set(Some(a));
                assert!(worker.take_next().is_some());
            }
            // At the cap the task goes to the queue, behind what waits.
            worker.next.set(Some(a));
            assert!(worker.take_next().is_none());
            assert!(worker.local.pop().is_some());
        });
    }
}
