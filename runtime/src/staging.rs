//! The ordered mode's message rounds: where a model's sends wait until
//! the models have settled.
//!
//! On several threads, what varies from run to run is only the order in
//! which messages from *different* senders, caused at one time, enter one
//! mailbox or sink: each sender's own order, the scheduled events'
//! `(time, origin, seq)` order and every reply are fixed by the senders.
//! In the ordered mode ([`MessageOrder::Deterministic`](crate::MessageOrder)) a
//! model's send therefore does not touch the recipient: it is *staged*
//! here under a key the sender fixes, `(origin, seq)` — the model's add
//! order and its own count of staged sends. Once no model can run, the
//! simulation takes the staged sends, orders them by key and delivers them
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

mod delivery;

pub(crate) use delivery::Delivery;

/// One staged send.
pub(crate) struct Staged {
    /// The sender's origin: its add order, from 1 (0 is the bench).
    pub(crate) origin: u32,
    /// Hands the message over; taken when delivered.
    pub(crate) deliver: Option<Delivery>,
}

/// The sends staged in the current round, shared by every model task of
/// one bench and its simulation.
///
/// A send's key is `(origin, seq)`, `seq` being the sender's count of
/// staged sends before it. The stage does not store `seq`: one sender's
/// sends enter the stage in that order (they are made in its polls, one
/// after the other, and every poll of a task happens after the previous
/// one, on whichever thread, so its pushes take the lock in that order
/// too). Ordering the round by origin, and by position in the stage
/// within one origin, is therefore ordering it by key.
pub(crate) struct Stage {
    /// In the order they were staged (which varies with threads; the
    /// order of one sender's sends does not).
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

/// A round taken from the stage: the sends, and the order to deliver
/// them in. Its buffers are reused from round to round.
#[derive(Default)]
pub(crate) struct Round {
    /// The sends, in the order they were staged.
    pub(crate) staged: Vec<Staged>,
    /// The sends' positions in `staged`, in key order, each in the low 32
    /// bits of `origin << 32 | position`: sorting those integers (unique,
    /// since positions are) sorts by origin then by position, which is
    /// cheaper than sorting the sends themselves.
    pub(crate) order: Vec<u64>,
    /// The counting sort's count of sends per origin, then where each
    /// origin's sends start in `order` (see [`Round::order_by_count`]).
    counts: Vec<u32>,
}

impl Round {
    /// Drops whatever the round still holds: the keys first (which cannot
    /// panic), so that a send's destructor that panics leaves no stale
    /// key behind; the sends left (after a delivery panicked) in key
    /// order, as they would have been delivered, whatever thread staged
    /// them.
    pub(crate) fn clear(&mut self) {
        let order = std::mem::take(&mut self.order);
        for &key in &order {
            if let Some(staged) = self.staged.get_mut(Round::position(key)) {
                drop(staged.deliver.take());
            }
        }
        self.order = order;
        self.order.clear();
        self.staged.clear();
    }

    /// Fills `order` with the sends in key order.
    ///
    /// A round already in order (one thread, each model's sends staged
    /// after those of the models before it) is taken as it is. A round with
    /// at least half as many sends as its range of origins is ordered by
    /// counting them per origin, which keeps each origin's sends in stage
    /// order, in time linear in the number of sends plus that range. Any other
    /// round is ordered by sorting its integer keys.
    fn order(&mut self) {
        let staged = &self.staged;
        let key = |position: usize, s: &Staged| u64::from(s.origin) << 32 | position as u64;
        let (mut low, mut high, mut sorted) = (u32::MAX, 0, true);
        for pair in staged.windows(2) {
            sorted &= pair[0].origin <= pair[1].origin;
        }
        for s in staged {
            low = low.min(s.origin);
            high = high.max(s.origin);
        }
        let keys = staged.iter().enumerate().map(|(p, s)| key(p, s));
        if sorted {
            self.order.extend(keys);
        } else if ((high - low) as usize) < 2 * staged.len() {
            self.order_by_count(low, high);
        } else {
            self.order.extend(keys);
            self.order.sort_unstable();
        }
    }

    /// [`order`](Round::order) by counting the sends of each origin from
    /// `low` to `high`.
    fn order_by_count(&mut self, low: u32, high: u32) {
        let counts = &mut self.counts;
        counts.clear();
        counts.resize((high - low) as usize + 2, 0);
        // The count of each origin, one slot along...
        for s in &self.staged {
            counts[(s.origin - low) as usize + 1] += 1;
        }
        // ...summed into where each origin's sends start.
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        self.order.resize(self.staged.len(), 0);
        for (position, s) in self.staged.iter().enumerate() {
            let next = &mut counts[(s.origin - low) as usize];
            self.order[*next as usize] = u64::from(s.origin) << 32 | position as u64;
            *next += 1;
        }
    }

    /// The position in `staged` of the send with `key`, from `order`.
    #[inline(always)]
    pub(crate) fn position(key: u64) -> usize {
        key as u32 as usize
    }
}

impl Stage {
    /// Adds one send.
    fn push(&self, staged: Staged) {
        lock(&self.staged).push(staged);
        self.any.store(true, Ordering::Release);
    }

    /// Swaps the staged sends into `round` (empty; its buffers are reused
    /// for the next round) and orders them by key; false if there were
    /// none. Called when no model runs.
    pub(crate) fn take_sorted(&self, round: &mut Round) -> bool {
        debug_assert!(round.staged.is_empty() && round.order.is_empty());
        if !self.any.load(Ordering::Acquire) {
            return false;
        }
        self.any.store(false, Ordering::Relaxed);
        std::mem::swap(&mut *lock(&self.staged), &mut round.staged);
        if round.staged.is_empty() {
            return false;
        }
        // A round of 2^32 sends would take hundreds of gigabytes.
        assert!(round.staged.len() <= u32::MAX as usize);
        round.order();
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

    /// The origins of the staged sends, each with its count of sends, in
    /// origin order (cold: a timeout's report).
    pub(crate) fn senders(&self) -> Vec<(u32, usize)> {
        let mut origins: Vec<u32> = lock(&self.staged).iter().map(|s| s.origin).collect();
        origins.sort_unstable();
        let mut counts: Vec<(u32, usize)> = Vec::new();
        for origin in origins {
            match counts.last_mut() {
                Some((last, count)) if *last == origin => *count += 1,
                _ => counts.push((origin, 1)),
            }
        }
        counts
    }

    /// Drops whatever is staged (after a fatal error).
    pub(crate) fn clear(&self) {
        self.any.store(false, Ordering::Relaxed);
        let dropped = std::mem::take(&mut *lock(&self.staged));
        drop(dropped);
    }
}

/// The sending model of a task: its origin and where it stages.
pub(crate) struct Sender {
    /// The model's origin.
    origin: u32,
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

/// Stages `deliver`, which hands one message over, under the current
/// sender's next key. Called when [`active`] is true; outside a keyed poll
/// (never, by construction) it delivers at once rather than lose the
/// message.
#[inline]
pub(crate) fn stage<F: FnOnce() + Send + 'static>(deliver: F) {
    stage_delivery(Delivery::new(deliver));
}

/// [`stage`], once the closure is stored.
#[inline(never)]
fn stage_delivery(deliver: Delivery) {
    CURRENT.with(|current| {
        let sender = current.get();
        if sender.is_null() {
            debug_assert!(false, "stage() outside a keyed poll");
            deliver.run();
            return;
        }
        // SAFETY: `CURRENT` is non-null only while `Keyed::poll` polls its
        // task on this thread (its guard resets it before the poll
        // returns or unwinds), and it then points to that task's
        // `Sender`, pinned in the task's box, which outlives the poll.
        // `Sender` is only used through shared references.
        let sender = unsafe { &*sender };
        sender.stage.push(Staged {
            origin: sender.origin,
            deliver: Some(deliver),
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
            sender: Sender { origin, stage },
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

/// Points `CURRENT` at a sender (or at none) until dropped, then back
/// where it was.
pub(crate) struct CurrentGuard {
    /// What `CURRENT` held before.
    previous: *const Sender,
}

impl CurrentGuard {
    /// Points `CURRENT` at `sender`.
    fn set(sender: &Sender) -> Self {
        let previous = CURRENT.with(|current| current.replace(sender));
        CurrentGuard { previous }
    }

    /// Points `CURRENT` at no sender: a bench run from inside a model's
    /// method (a nested simulation, on the thread polling that model)
    /// must not stage its models' sends into the outer bench.
    pub(crate) fn unkeyed() -> Self {
        let previous = CURRENT.with(|current| current.replace(ptr::null()));
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
    use std::sync::Mutex;
    use std::task::Waker;

    /// What the deliveries of a test recorded: `(sender, its send)`.
    type Log = Arc<Mutex<Vec<(u32, u32)>>>;

    /// A task that stages `per_poll` deliveries per poll, each recording
    /// `(name, count of its sends before)` into `log` when delivered.
    fn staging_task(log: Log, name: u32, per_poll: u32) -> impl Future<Output = ()> + Unpin {
        let mut sent = 0;
        std::future::poll_fn(move |_| {
            assert!(active());
            for _ in 0..per_poll {
                let log = log.clone();
                let send = sent;
                stage(move || log.lock().unwrap().push((name, send)));
                sent += 1;
            }
            Poll::Pending
        })
    }

    /// Delivers `round` in key order.
    fn deliver(round: &mut Round) {
        for &key in &round.order {
            let staged = &mut round.staged[Round::position(key)];
            staged.deliver.take().unwrap().run();
        }
        round.clear();
    }

    #[test]
    fn sends_are_staged_only_while_a_keyed_task_is_polled() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        assert!(!active());
        let mut cx = Context::from_waker(Waker::noop());
        let mut late = Keyed::new(staging_task(log.clone(), 2, 2), 2, stage.clone());
        let mut early = Keyed::new(staging_task(log.clone(), 1, 1), 1, stage.clone());
        // Staged as 2, 2, 1, 2, 2, 1.
        for _ in 0..2 {
            assert_eq!(Pin::new(&mut late).poll(&mut cx), Poll::Pending);
            assert_eq!(Pin::new(&mut early).poll(&mut cx), Poll::Pending);
        }
        assert!(!active(), "reset after the poll");
        let mut round = Round::default();
        assert!(stage.take_sorted(&mut round));
        deliver(&mut round);
        let delivered = log.lock().unwrap().clone();
        let by_key = [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (2, 3)];
        assert_eq!(delivered, by_key, "by origin, then each sender's order");
        assert!(!stage.take_sorted(&mut round), "nothing left");
    }

    #[test]
    fn every_way_of_ordering_a_round_orders_by_origin_then_stage_order() {
        // In order; dense origins (counted); sparse origins (sorted).
        let rounds: [&[u32]; 3] = [
            &[1, 1, 2, 3, 3],
            &[3, 1, 2, 1, 3, 2, 2],
            &[1000, 5, 1000, 7, 5],
        ];
        for origins in rounds {
            let mut round = Round::default();
            let sends = origins.iter().map(|&origin| Staged {
                origin,
                deliver: Some(Delivery::new(|| {})),
            });
            round.staged.extend(sends);
            round.order();
            let positions: Vec<_> = round.order.iter().map(|&k| Round::position(k)).collect();
            let mut expected: Vec<_> = (0..origins.len()).collect();
            expected.sort_by_key(|&p| origins[p]);
            assert_eq!(positions, expected, "origins {origins:?}");
        }
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
