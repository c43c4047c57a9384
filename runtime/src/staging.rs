//! The ordered mode's message rounds: where a model's sends wait until
//! the models have settled.
//!
//! On several threads, what varies from run to run is only the order in
//! which messages from *different* senders, caused at one time, enter one
//! mailbox or sink: each sender's own order, the scheduled events'
//! `(time, origin, seq)` order and every reply are fixed by the senders.
//! In the ordered mode ([`Ordering::Deterministic`](crate::Ordering)) a
//! model's send therefore does not touch the recipient: it is *staged*
//! here under a key the sender fixes, `(origin, seq)` — the model's add
//! order and its own count of staged sends. Once no model can run, the
//! simulation takes the staged sends, sorts them by key and delivers them
//! through the bench's own path, which never waits; then the models run
//! again: one *round*. Whatever thread ran which model, every mailbox and
//! sink receives the same messages in the same order.
//!
//! The sender is found without the ports knowing it: the executor polls a
//! model task wrapped in a [`Keyed`] future, which points this thread's
//! `CURRENT` at the task's [`Sender`] for the duration of the poll. The
//! ports look at `CURRENT` ([`active`]) only when they check a connection
//! list, once, on its first send: a list checked in a keyed poll has its
//! connections wrapped into staging ones (`ports/staged.rs`), so the
//! causal mode's send path does not test anything (see
//! `docs/benchmarks.md`, "Deterministic message order").
//!
//! It sits on the crate's ground floor, like `poll_report`: the ports
//! stage, the simulation delivers, and neither imports the other.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::ptr;
// The plain `std` types, as in the ports: no loom model covers the stage,
// whose lock is only ever contended by model tasks staging at once.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use crate::sync::lock;

/// A delivery waiting for the end of the round: what the bench does to
/// hand the message to its mailbox or sink.
pub(crate) type Delivery = Box<dyn FnOnce() + Send>;

/// One staged send.
pub(crate) struct Staged {
    /// The sender's origin: its add order, from 1 (0 is the bench).
    pub(crate) origin: u32,
    /// The sender's count of staged sends before this one.
    pub(crate) seq: u64,
    /// Hands the message over.
    pub(crate) deliver: Delivery,
}

/// The sends staged in the current round, shared by every model task of
/// one bench and its simulation.
pub(crate) struct Stage {
    /// In the order they were staged (which varies with threads; the
    /// key does not).
    staged: Mutex<Vec<Staged>>,
    /// True once something is staged since the last take: a settle that
    /// staged nothing (a step of scheduled events only) looks at this
    /// rather than lock. Read and cleared by the simulation when no model
    /// runs: the executor's own synchronisation orders it after every
    /// poll's store.
    any: AtomicBool,
}

impl Default for Stage {
    fn default() -> Self {
        Stage {
            staged: Mutex::new(Vec::new()),
            any: AtomicBool::new(false),
        }
    }
}

impl Stage {
    /// Adds one send.
    fn push(&self, staged: Staged) {
        lock(&self.staged).push(staged);
        self.any.store(true, Ordering::Release);
    }

    /// Swaps the staged sends into `into` (empty; its buffer is reused
    /// for the next round) and sorts them by key; false if there were
    /// none. Called when no model runs.
    pub(crate) fn take_sorted(&self, into: &mut Vec<Staged>) -> bool {
        debug_assert!(into.is_empty());
        if !self.any.load(Ordering::Acquire) {
            return false;
        }
        self.any.store(false, Ordering::Relaxed);
        std::mem::swap(&mut *lock(&self.staged), into);
        if into.is_empty() {
            return false;
        }
        // Keys are unique (one sender's `seq` never repeats).
        into.sort_unstable_by_key(|s| (s.origin, s.seq));
        true
    }

    /// True if something was staged since the last take (called when no
    /// model runs).
    #[inline]
    pub(crate) fn has_staged(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    /// How many sends are staged (cold: a save's check).
    #[cfg(feature = "save")]
    pub(crate) fn staged_count(&self) -> usize {
        lock(&self.staged).len()
    }

    /// Drops whatever is staged (after a fatal error).
    pub(crate) fn clear(&self) {
        self.any.store(false, Ordering::Relaxed);
        let dropped = std::mem::take(&mut *lock(&self.staged));
        drop(dropped);
    }
}

/// The sending model of a task: its key and where it stages.
pub(crate) struct Sender {
    /// The model's origin.
    origin: u32,
    /// The number of sends it staged so far.
    seq: Cell<u64>,
    /// Where it stages.
    stage: Arc<Stage>,
}

thread_local! {
    /// The sender whose task this thread is polling, in the ordered mode;
    /// null otherwise.
    static CURRENT: Cell<*const Sender> = const { Cell::new(ptr::null()) };
}

/// True if the send being made must be staged: this thread is polling a
/// model task of a bench in the ordered mode.
#[inline(always)]
pub(crate) fn active() -> bool {
    CURRENT.with(|current| !current.get().is_null())
}

/// Stages `deliver` under the current sender's next key. Called when
/// [`active`] is true; outside a keyed poll (never, by construction) it
/// delivers at once rather than lose the message.
#[cold]
#[inline(never)]
pub(crate) fn stage(deliver: Delivery) {
    CURRENT.with(|current| {
        let sender = current.get();
        if sender.is_null() {
            debug_assert!(false, "stage() outside a keyed poll");
            deliver();
            return;
        }
        // SAFETY: `CURRENT` is non-null only while `Keyed::poll` polls its
        // task on this thread (its guard resets it before the poll
        // returns or unwinds), and it then points to that task's
        // `Sender`, pinned in the task's box, which outlives the poll.
        // `Sender` is only used through shared references (`Cell`).
        let sender = unsafe { &*sender };
        let seq = sender.seq.get();
        sender.seq.set(seq + 1);
        sender.stage.push(Staged {
            origin: sender.origin,
            seq,
            deliver,
        });
    });
}

/// A model task in the ordered mode: polls the task with its sender set.
pub(crate) struct Keyed<F> {
    /// The sending model.
    sender: Sender,
    /// The model's task.
    task: F,
}

impl<F> Keyed<F> {
    /// The task `task` of the model with origin `origin`, staging on
    /// `stage`.
    pub(crate) fn new(task: F, origin: u32, stage: Arc<Stage>) -> Self {
        Keyed {
            sender: Sender {
                origin,
                seq: Cell::new(0),
                stage,
            },
            task,
        }
    }
}

impl<F: Future<Output = ()> + Unpin> Future for Keyed<F> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let _current = CurrentGuard::set(&this.sender);
        Pin::new(&mut this.task).poll(cx)
    }
}

/// Points `CURRENT` at a sender until dropped, then back where it was.
struct CurrentGuard {
    /// What `CURRENT` held before.
    previous: *const Sender,
}

impl CurrentGuard {
    /// Points `CURRENT` at `sender`.
    fn set(sender: &Sender) -> Self {
        let previous = CURRENT.with(|current| current.replace(sender));
        CurrentGuard { previous }
    }
}

impl Drop for CurrentGuard {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.previous));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Waker;

    /// A task that stages one delivery per poll, bumping `counter` by
    /// `by` when delivered.
    fn staging_task(counter: Arc<AtomicUsize>, by: usize) -> impl Future<Output = ()> + Unpin {
        std::future::poll_fn(move |_| {
            assert!(active());
            let counter = counter.clone();
            stage(Box::new(move || {
                counter.fetch_add(by, Ordering::Relaxed);
            }));
            Poll::Ready(())
        })
    }

    #[test]
    fn sends_are_staged_only_while_a_keyed_task_is_polled() {
        let stage = Arc::new(Stage::default());
        let counter = Arc::new(AtomicUsize::new(0));
        assert!(!active());
        let mut cx = Context::from_waker(Waker::noop());
        let mut late = Keyed::new(staging_task(counter.clone(), 10), 2, stage.clone());
        let mut early = Keyed::new(staging_task(counter.clone(), 1), 1, stage.clone());
        assert_eq!(Pin::new(&mut late).poll(&mut cx), Poll::Ready(()));
        assert_eq!(Pin::new(&mut early).poll(&mut cx), Poll::Ready(()));
        assert!(!active(), "reset after the poll");
        let mut round = Vec::new();
        assert!(stage.take_sorted(&mut round));
        let keys: Vec<_> = round.iter().map(|s| (s.origin, s.seq)).collect();
        assert_eq!(keys, [(1, 0), (2, 0)], "sorted by origin");
        for staged in round.drain(..) {
            (staged.deliver)();
        }
        assert_eq!(counter.load(Ordering::Relaxed), 11);
        assert!(!stage.take_sorted(&mut round), "nothing left");
    }

    #[test]
    fn a_panicking_poll_resets_the_sender() {
        let stage = Arc::new(Stage::default());
        let mut task = Keyed::new(
            std::future::poll_fn(|_| -> Poll<()> { panic!("boom") }),
            1,
            stage,
        );
        let mut cx = Context::from_waker(Waker::noop());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = Pin::new(&mut task).poll(&mut cx);
        }));
        assert!(outcome.is_err());
        assert!(!active());
    }
}
