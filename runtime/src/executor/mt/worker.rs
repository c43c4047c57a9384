//! What a worker does: find a task, poll it, park when there is none.
//!
//! A worker looks in its own queue first, then in the injector, then steals
//! half of another worker's queue. When it finds nothing it parks (see
//! [`Sleepers`](super::sleepers)); it never spins between steps. The same
//! code serves the spawned workers (which loop until shutdown) and the
//! calling thread, worker 0 (which loops until the step is complete).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::task::{Context, Poll};
use std::time::Instant;

use super::task::{AfterPoll, Task, TaskRef};
use super::waker;
use super::worker_context::WorkerContext;
use crate::executor::{panic_message, TaskMeta};
use crate::poll_report;
use crate::sync::atomic::{fence, Ordering};
use crate::sync::thread;
use crate::sync::work_queue::StealError;

/// How many times a worker retries stealing from queues that were busy.
const STEAL_RETRIES: usize = 3;

/// The loop of a spawned worker: runs tasks until shutdown.
pub(crate) fn work(worker: &WorkerContext) {
    worker.shared.handles[worker.index].parker.set_owner();
    while !worker.shared.is_shut_down() {
        match next_task(worker) {
            Some(task) => run_task(worker, task),
            None => park(worker, None),
        }
    }
    // Let go of anything still queued here; the executor drops the futures.
    while worker.local.pop().is_some() {}
}

/// The next task to poll, unless polling has stopped.
pub(crate) fn next_task(worker: &WorkerContext) -> Option<TaskRef> {
    if worker.shared.is_stopped() {
        return None;
    }
    find_task(worker)
}

/// Looks in the local queue, the injector, then the other workers' queues.
///
/// The worker's lease (see [`shared`](super::shared)) covers what it takes:
/// a task from its own queue is already covered; an injected task brings
/// its own unit of the activity count, which becomes the lease if the
/// worker has none (else it is given back), and the injected tasks moved
/// to its queue with it give theirs back; a worker without a lease takes
/// one *before* stealing (and fences, see [`steal`]), so that the victim,
/// which gives its lease back only after seeing its queue empty, cannot
/// bring the count to zero while the stolen tasks are in flight. A failed
/// steal gives back a lease taken for it, so a worker comes out as busy as
/// it went in.
fn find_task(worker: &WorkerContext) -> Option<TaskRef> {
    if let Some(task) = worker.take_next() {
        return Some(task);
    }
    worker.next_streak.set(0);
    if let Some(task) = worker.local.pop() {
        return Some(task);
    }
    if let Some((task, moved)) = worker.shared.pop_injected_into(&worker.local) {
        // The taken tasks' units: one becomes the lease if the worker had
        // none, the others are given back (the lease covers them now).
        let had_lease = worker.busy.replace(true);
        worker.shared.give_back(moved + usize::from(had_lease));
        // Injected tasks are for any worker (handed over under a deadline,
        // woken from outside, spilled from a full queue): while some are
        // left, here or there, another worker is woken, as the thread that
        // handed them over may wait on them, unless the polls measured are
        // too light to share (this worker then polls them all itself). A
        // batch makes this once per batch, not once per task.
        if (moved > 0 || worker.shared.injected() > 0) && worker.shared.spread.sharing_pays() {
            worker.shared.notify_other(worker.index);
        }
        return Some(task);
    }
    let leased = worker.busy.get();
    // This worker's lease the only one: no other worker has a task queued
    // (queued tasks hold their worker's lease), so there is nothing to
    // steal. A worker taking its first task meanwhile polls it itself.
    if leased && worker.shared.only_one_lease() {
        return None;
    }
    worker.lease();
    let task = steal(worker);
    if task.is_none() && !leased {
        worker.release();
    }
    task
}

/// Steals half of another worker's queue and takes one of its tasks.
fn steal(worker: &WorkerContext) -> Option<TaskRef> {
    // Publishes this worker's lease to the victim: `st3` books the stolen
    // tasks with an acquire-only exchange, so a victim whose queue looks
    // empty because of it would not otherwise see the lease (a plain
    // load of the count, as the calling thread makes when it keeps its
    // lease, could still read 1 and end the step while the stolen task
    // runs, which Miri found; even the victim's read-modify-write giving
    // its lease back could come before the lease in the count's order).
    // With this fence, the victim's acquire load of its queue's heads,
    // reading the booking, sees everything before it.
    // Free on x86 (a compiler fence), where locked operations order it
    // anyway.
    fence(Ordering::Release);
    let victims = worker.shared.victims();
    for _ in 0..STEAL_RETRIES {
        let mut busy = false;
        for offset in 1..victims.len() {
            let victim = &victims[(worker.index + offset) % victims.len()];
            match victim
                .stealer
                .steal_and_pop(&worker.local, |n| n.div_ceil(2))
            {
                Ok((task, moved)) => {
                    // More work came along: let another sleeper help, if
                    // it is worth a wake-up.
                    if worker.shared.spread.worth_waking(moved) {
                        worker.shared.notify_other(worker.index);
                    }
                    return Some(task);
                }
                Err(StealError::Busy) => busy = true,
                Err(StealError::Empty) => {}
            }
        }
        if !busy {
            return None;
        }
        thread::yield_now();
    }
    None
}

/// Parks until woken (or `deadline`), after registering as a sleeper and
/// looking for work one last time.
pub(crate) fn park(worker: &WorkerContext, deadline: Option<Instant>) {
    let shared = &worker.shared;
    if worker.index == 0 {
        // Whoever calls in is worker 0; only its parking needs to know.
        shared.handles[0].parker.set_owner();
    }
    shared.sleepers.register(worker.index);
    // The last look, after registering: work queued from now on wakes us.
    if let Some(task) = next_task(worker) {
        shared.sleepers.unregister(worker.index);
        run_task(worker, task);
        return;
    }
    // Nothing queued here, nothing polled: the lease goes back (the last
    // one back ends the step).
    worker.release();
    // Worker 0 must not sleep through the end of the step or a failure.
    let done = worker.index == 0 && (shared.is_quiescent() || shared.is_stopped());
    if !done && !shared.is_shut_down() {
        let timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        shared.handles[worker.index].parker.park(timeout);
    }
    shared.sleepers.unregister(worker.index);
}

/// Polls `task` once and files the outcome.
pub(crate) fn run_task(worker: &WorkerContext, queued: TaskRef) {
    // SAFETY: the task was in a run queue and is now held by this worker,
    // which moves it to `DONE` only in `retire`, its last use of `task`.
    let task = unsafe { queued.get() };
    if !task.start_poll() {
        return; // taken down by the executor's teardown
    }
    // SAFETY: every task is made by `Arc::new` and kept in the executor's
    // task list (see `TaskRef`), past this poll.
    let waker = unsafe { waker::borrowed(queued) };
    let mut task_cx = Context::from_waker(&waker);
    // Tasks the poll wakes here go to the `next` slot.
    worker.polling.set(true);
    // SAFETY: `start_poll` succeeded: this worker holds the task until
    // `end_poll` or `finish` below.
    let outcome = unsafe {
        task.with_future(|future| {
            let future = future.as_mut()?;
            Some(catch_unwind(AssertUnwindSafe(|| {
                future.as_mut().poll(&mut task_cx)
            })))
        })
    };
    worker.polling.set(false);
    // Whether the poll ended parked on the task's mailbox (taken whatever
    // the outcome, so that no note outlives its poll).
    let parked = poll_report::take_parked();
    let Some(outcome) = outcome else {
        // Defensive: only `retire` and `take_down` take the future, and
        // both leave the task DONE, which `start_poll` refuses.
        task.finish();
        return;
    };
    // File what the ports noted during the poll under this task.
    let report = poll_report::take();
    if let Some(unbound) = report.unbound {
        // A held task always has its probe: only finished tasks lose it.
        // SAFETY: this worker holds the task.
        // A bench query is not a model: the bench is the sender.
        let sender =
            unsafe { task.with_probe(|probe| probe.has_mailbox().then(|| probe.name())) }.flatten();
        worker.shared.file_unbound(sender, unbound);
    }
    match outcome {
        Ok(Poll::Pending) => {
            // SAFETY: still held (see above).
            unsafe { task.file_waiting(report.waiting) };
            // SAFETY: as above.
            unsafe { worker.shared.list_candidate(queued, parked) };
            // An idle task leaves the count as it is: the worker's lease
            // covered it and still covers the worker.
            if task.end_poll() == AfterPoll::Requeue {
                worker.push_local(queued);
            }
        }
        Ok(Poll::Ready(())) => retire(task),
        Err(payload) => {
            let message = panic_message(&*payload);
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            // Held, so it has its probe (see above).
            // SAFETY: this worker still holds the task (`retire` follows).
            if let Some(meta) = unsafe { task.with_probe(TaskMeta::of) } {
                worker.shared.fail(meta, message);
            }
            retire(task);
        }
    }
}

/// Finishes a task held by this worker: its future dropped (a panic in
/// its destructor is contained), and no more wake-ups. Marking it `DONE`
/// is the worker's last touch of the task: the executor may free it from
/// then on (see [`TaskRef`]).
fn retire(task: &Task) {
    // SAFETY: the caller (`run_task`) holds the task until `finish` below.
    let future = unsafe { task.with_future(Option::take) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(future)));
    task.finish();
}
