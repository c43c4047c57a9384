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

use std::cell::{Cell, UnsafeCell};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr;
use std::sync::Arc;
use std::task::{Context, Poll};

// The lock and atomics through `sync`, and loom's thread-locals under
// loom: the hand-over between workers and the settling thread has loom
// models (`loom_tests.rs`).
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::sync::{lock, Mutex};
use crate::thread_mark::{is_marked, CheckedSlot, ThreadMark};

mod delivery;
#[cfg(test)]
pub(crate) mod drop_count;
#[cfg(all(test, causim_loom))]
mod loom_tests;
mod round;

pub(crate) use delivery::Delivery;
pub(crate) use round::Round;

/// Staged sends, each taken out (`None`) when delivered.
pub(crate) type Sends = Vec<Option<Delivery>>;

/// Empty buffers with room for up to this many entries are always kept
/// for reuse; a larger one is freed at once if it is a model's own (see
/// [`Sender`]), and by [`trim`] if it is one of the stage's lists.
const KEEP: usize = 4096;

/// Frees `list`, one of the stage's few lists, emptied after holding
/// `used` entries, if it is larger than [`KEEP`] and more than four times
/// what it held. A list a bench fills as much at every round is not freed
/// and grown again each time (which cost a large round's copies and
/// allocations, round after round); a burst's room goes when the list is
/// next used for a small round (until then the bench holds it: the stage
/// has three lists, and a round's).
fn trim<T>(list: &mut Vec<T>, used: usize) {
    if list.is_empty() && list.capacity() > KEEP && list.capacity() / 4 > used {
        *list = Vec::new();
    }
}

/// The sends one poll of one sender staged: a run of its list's sends
/// (then of its round's), in the sender's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Batch {
    /// The sender's origin: its add order, from 1 (0 is the bench).
    pub(crate) origin: u32,
    /// The sender's count of its polls that staged before this one (ever:
    /// never reset, so that a batch handed over late, into a later round,
    /// still comes after the sender's earlier ones).
    pub(crate) poll: u64,
    /// Where its sends start in the list.
    pub(crate) start: usize,
    /// How many there are.
    pub(crate) len: usize,
}

/// Staged sends and the batches they form.
#[derive(Default)]
pub(crate) struct Lists {
    /// The batches, in the order they were handed over.
    pub(crate) batches: Vec<Batch>,
    /// Their sends, batch after batch.
    pub(crate) sends: Sends,
}

impl Lists {
    /// Moves `sends` to the end of the list as a batch of `origin`'s
    /// `poll` (`sends` is left empty, with its capacity).
    fn add(&mut self, origin: u32, poll: u64, sends: &mut Sends) {
        let start = self.sends.len();
        self.sends.append(sends);
        self.close_batch(origin, poll, start);
    }

    /// Records the sends from `start` to the end as a batch of `origin`'s
    /// `poll`.
    #[inline]
    fn close_batch(&mut self, origin: u32, poll: u64, start: usize) {
        self.batches.push(Batch {
            origin,
            poll,
            start,
            len: self.sends.len() - start,
        });
    }

    /// Moves every batch of `other` to the end of this list.
    pub(crate) fn append(&mut self, other: &mut Lists) {
        let used = other.len();
        let base = self.sends.len();
        self.sends.append(&mut other.sends);
        let moved = other.batches.drain(..).map(|batch| Batch {
            start: base + batch.start,
            ..batch
        });
        self.batches.extend(moved);
        other.trim(used);
    }

    /// How many batches and sends it holds.
    pub(crate) fn len(&self) -> (usize, usize) {
        (self.batches.len(), self.sends.len())
    }

    /// Frees its buffers, emptied after holding `used` batches and sends,
    /// if they are much larger than that (see [`trim`]).
    pub(crate) fn trim(&mut self, (batches, sends): (usize, usize)) {
        trim(&mut self.batches, batches);
        trim(&mut self.sends, sends);
    }
}

#[cfg(not(causim_loom))]
std::thread_local! {
    /// The [`Stage`] whose simulation this thread is settling (its
    /// address), or 0: models polled here stage without a lock.
    static DRIVING: Cell<usize> = const { Cell::new(0) };
}

// Under loom, loom's thread-locals: loom runs its threads on one OS
// thread, and a model of a worker beside the settling thread needs them
// apart (so for `CURRENT` below).
#[cfg(causim_loom)]
loom::thread_local! {
    /// As above.
    static DRIVING: Cell<usize> = Cell::new(0);
}

/// This thread settles the models of one [`Stage`]'s bench until dropped.
pub(crate) type StageMark = ThreadMark<CheckedSlot>;

/// The sends staged in the current round, shared by every model task of
/// one bench and its simulation.
///
/// A send's key is `(origin, seq)`, `seq` being the sender's count of
/// staged sends before it in the round. The sends of one poll of one
/// sender form a [`Batch`], numbered by the sender's count of polls in the
/// round; ordering a round's batches by `(origin, poll)` and delivering
/// each batch's sends as they lie orders the sends by key, with one key
/// per poll rather than per send.
///
/// A model polled on the thread settling the bench (every one on one
/// thread; on several, those the calling thread polls itself, which under
/// a timeout a stand-in thread does instead) appends its sends straight to
/// `local`, without a lock. One polled on any other thread collects them
/// in a buffer of its own and appends the buffer to `shared` when the poll
/// ends, under its lock. A sender's polls are numbered for good (never
/// per round), so a batch handed over late, while the simulation takes a
/// round (a model woken from outside), still comes after that sender's
/// earlier batches and before its later ones.
pub(crate) struct Stage {
    /// Sends staged on the thread marked as settling this stage's bench
    /// ([`drive`](Stage::drive)); reached only on that thread.
    local: UnsafeCell<Lists>,
    /// Sends staged on any other thread (the multi-threaded executor's
    /// other workers).
    shared: Mutex<Lists>,
    /// True once a batch is in `shared` since the last take: a settle that
    /// staged nothing there looks at this rather than lock. Read and
    /// cleared by the simulation; set after each hand-over (a model woken
    /// from outside may be polled on a worker while the simulation takes a
    /// round: its batch is then taken now or by the next round).
    any: AtomicBool,
    /// The polls off the settling thread that have staged sends not yet
    /// handed over: a save between calls, which finds the model idle once
    /// its poll has emptied its mailbox, must not miss them. Lowered under
    /// the `shared` lock as the batch goes in, and read under it.
    unrecorded: AtomicUsize,
    /// Connections no output holds any more, kept alive for the staged
    /// sends that may still borrow them (see [`retire`](Stage::retire)),
    /// each as a delivery that only drops it.
    retired: Mutex<Vec<Delivery>>,
}

// SAFETY: `local` is only reached on a thread whose `DRIVING` mark is this
// stage's address (`with_local`, and a sender polled there, see
// `Sender::first_send`), and through `&mut self` (drop). Only `drive` sets
// the mark; it is called only by the `Simulation` that owns this stage,
// inside its own methods (its settle), and the returned mark (not `Send`)
// restores the previous one on the same thread before the method
// returns. A `Simulation` is not `Sync`, so its methods run on one thread
// at a time: at most one thread carries the mark, and every access
// happens on it. What the lists hold is `Send`.
unsafe impl Sync for Stage {}

impl Default for Stage {
    fn default() -> Self {
        Stage {
            local: UnsafeCell::new(Lists::default()),
            shared: Mutex::new(Lists::default()),
            any: AtomicBool::new(false),
            unrecorded: AtomicUsize::new(0),
            retired: Mutex::new(Vec::new()),
        }
    }
}

impl Stage {
    /// This stage's identity, for the thread mark.
    fn key(&self) -> usize {
        self as *const Stage as usize
    }

    /// Marks this thread as settling this stage's bench: models polled
    /// here stage without a lock until the mark drops. Only the simulation
    /// that owns the stage may call this (see the `Sync` impl).
    pub(crate) fn drive(&self) -> StageMark {
        ThreadMark::set(&DRIVING, self.key())
    }

    /// True if this thread carries this stage's mark.
    #[inline(always)]
    fn is_local(&self) -> bool {
        is_marked(&DRIVING, self.key())
    }

    /// On the thread settling this stage's bench, runs `f` on the local
    /// lists; elsewhere returns `None`. `f` must not run user code (a
    /// send's drop may stage again) nor poll a model.
    #[inline(always)]
    fn with_local<R>(&self, f: impl FnOnce(&mut Lists) -> R) -> Option<R> {
        if !self.is_local() {
            return None;
        }
        // SAFETY: this thread carries the mark, so it is the only one that
        // reaches `local` (see the `Sync` impl); no model is polled while
        // `f` runs, so no sender of this thread reaches it meanwhile, and
        // no reference outlives this call.
        Some(f(unsafe { &mut *self.local.get() }))
    }

    /// Appends the sends a poll collected off the settling thread to the
    /// shared list, as a batch.
    #[inline(never)]
    fn hand_over_shared(&self, origin: u32, poll: u64, sends: &mut Sends) {
        let mut shared = lock(&self.shared);
        shared.add(origin, poll, sends);
        // Under the lock, with the batch: a count taken under it sees the
        // poll either in flight or handed over, never both.
        self.unrecorded.fetch_sub(1, Ordering::Relaxed);
        drop(shared);
        self.any.store(true, Ordering::Release);
        // A model's own buffer is freed at once if large: there is one per
        // model, and a burst must not stay with each sender that made one.
        if sends.capacity() > KEEP {
            *sends = Vec::new();
        }
    }

    /// Moves the staged batches into `round` (empty; its buffers are
    /// reused for the next round) and orders them by key; false if there
    /// were none. Called on the settling thread, when no model runs.
    pub(crate) fn take_sorted(&self, round: &mut Round) -> bool {
        debug_assert!(round.is_empty());
        let taken = self.with_local(|local| std::mem::swap(local, &mut round.lists));
        debug_assert!(taken.is_some(), "taken off the settling thread");
        let local = round.lists.batches.len();
        if self.any.load(Ordering::Acquire) {
            self.any.store(false, Ordering::Relaxed);
            round.lists.append(&mut lock(&self.shared));
        }
        if round.lists.batches.is_empty() {
            return false;
        }
        // Each list holds a sender's batches in poll order; only a round
        // taking from both may hold one sender's out of it.
        let mixed = local > 0 && round.lists.batches.len() > local;
        round.order(mixed);
        true
    }

    /// True if something was staged since the last take (called when no
    /// model runs, on the settling thread).
    #[inline]
    pub(crate) fn has_staged(&self) -> bool {
        self.any.load(Ordering::Acquire)
            || self.with_local(|local| !local.batches.is_empty()) == Some(true)
    }

    /// The origin of every staged send, in no order, and the number of
    /// polls still collecting sends on other workers, read under the
    /// shared lock (cold).
    fn origins(&self) -> (Vec<u32>, usize) {
        let of = |lists: &mut Lists| -> Vec<u32> {
            let batches = lists.batches.iter();
            batches
                .flat_map(|b| std::iter::repeat_n(b.origin, b.len))
                .collect()
        };
        let (mut origins, unrecorded) = {
            let mut shared = lock(&self.shared);
            (of(&mut shared), self.unrecorded.load(Ordering::Relaxed))
        };
        origins.extend(self.with_local(of).unwrap_or_default());
        (origins, unrecorded)
    }

    /// How many sends are staged, at least (cold: a save's check, between
    /// calls): each poll still collecting sends on another worker counts
    /// as one.
    #[cfg(any(test, feature = "save"))]
    pub(crate) fn staged_count(&self) -> usize {
        let (origins, unrecorded) = self.origins();
        origins.len() + unrecorded
    }

    /// The origins of the staged sends, each with its count of sends, in
    /// origin order (cold: a timeout's report).
    pub(crate) fn senders(&self) -> Vec<(u32, usize)> {
        let (mut origins, _) = self.origins();
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

    /// Drops whatever is staged (after a fatal error), outside the locks.
    pub(crate) fn clear(&self) {
        self.any.store(false, Ordering::Relaxed);
        let shared = std::mem::take(&mut *lock(&self.shared));
        drop(shared);
        if let Some(local) = self.with_local(std::mem::take) {
            drop(local);
        }
    }

    /// Keeps `connection` (a delivery that only drops a connection when
    /// it is dropped, never run) until no staged send can borrow that
    /// connection any more: called as the last handle on a staged
    /// connection goes, on any thread (see `ports/staged.rs`).
    ///
    /// Every send that borrows it was staged before this call (the
    /// connection's last handle is gone), so it lies in a poll's own
    /// buffer (counted by `unrecorded`), in the shared or local lists, or
    /// in the round being delivered; [`sweep`](Stage::sweep) frees what
    /// was retired once all of those are empty. The flag `any`, set after
    /// the push, makes the next settle take the rounds' path, which
    /// sweeps.
    #[cold]
    pub(crate) fn retire(&self, connection: Delivery) {
        lock(&self.retired).push(connection);
        self.any.store(true, Ordering::Release);
    }

    /// Frees the connections retired so far if no staged send is left
    /// anywhere: called on the settling thread once its rounds are
    /// delivered (`take_sorted` found nothing), when no model runs here
    /// (once per settle that staged something, so the lock is taken
    /// without a look at a flag first).
    ///
    /// If a poll on another worker is still collecting sends, or has
    /// handed a batch over since (a model woken from outside, whose poll
    /// the step did not wait for), every retired connection is kept for a
    /// later settle.
    pub(crate) fn sweep(&self) {
        debug_assert!(self.is_local(), "swept off the settling thread");
        // Taken first, then the lists looked at: a connection retired
        // after this take waits for the next sweep, whatever it finds.
        let taken = std::mem::take(&mut *lock(&self.retired));
        if taken.is_empty() {
            return;
        }
        let quiet = {
            let shared = lock(&self.shared);
            shared.batches.is_empty() && self.unrecorded.load(Ordering::Relaxed) == 0
        };
        let quiet = quiet && self.with_local(|local| local.batches.is_empty()) == Some(true);
        if quiet {
            // Outside the locks: dropping a connection may drop a user's
            // values, which may retire more; a destructor that panics
            // there is ignored, as in a round's clearing.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(taken)));
        } else {
            lock(&self.retired).extend(taken);
        }
    }

    /// True if a retired connection waits for a sweep (tests).
    #[cfg(test)]
    pub(crate) fn has_retired(&self) -> bool {
        !lock(&self.retired).is_empty()
    }
}

/// The sending model of a task: its origin, where it stages, and where
/// the poll in progress puts its sends.
pub(crate) struct Sender {
    /// The model's origin.
    origin: u32,
    /// Where it stages.
    stage: Arc<Stage>,
    /// Where the poll in progress appends its sends, from its first send
    /// on (null before it, and between polls): the stage's local sends on
    /// the settling thread, `own` elsewhere. Set and used through
    /// `CURRENT` by the polling thread, during the poll.
    dest: Cell<*mut Sends>,
    /// The length of the stage's local sends before the poll's first send
    /// there.
    start: Cell<usize>,
    /// The sends of a poll off the settling thread, handed over when the
    /// poll ends (empty between polls).
    own: UnsafeCell<Sends>,
    /// Its batches so far: the next one's number.
    polls: Cell<u64>,
}

// SAFETY: `dest` points into this sender's own buffer or the stage's
// local lists, only set and used during a poll, on the polling thread
// (see `first_send`); `end_poll` nulls it as the poll ends, returning or
// unwinding, so between polls it is null. Moving the sender to
// another thread between polls moves nothing that thread could reach
// unsafely: the next poll sets `dest` again there.
unsafe impl Send for Sender {}

impl Sender {
    /// The sender of origin `origin`, staging on `stage`.
    fn new(origin: u32, stage: Arc<Stage>) -> Self {
        Sender {
            origin,
            stage,
            dest: Cell::new(ptr::null_mut()),
            start: Cell::new(0),
            own: UnsafeCell::new(Vec::new()),
            polls: Cell::new(0),
        }
    }

    /// Where the poll in progress appends its sends, chosen at its first
    /// send: the stage's local sends on the settling thread, this
    /// sender's own buffer elsewhere.
    #[inline]
    fn dest(&self) -> *mut Sends {
        let dest = self.dest.get();
        if !dest.is_null() {
            return dest;
        }
        self.first_send()
    }

    /// [`dest`](Sender::dest) at the poll's first send.
    #[inline(never)]
    fn first_send(&self) -> *mut Sends {
        let dest = if self.stage.is_local() {
            // SAFETY: this thread carries the stage's mark, so it is the
            // only one that reaches `local` (see `Stage`'s `Sync` impl),
            // and the simulation does not while a model is polled. The
            // pointer (to the `Vec`, which stays in place) is used by this
            // poll only and cleared by `end_poll`; no reference to the
            // lists is alive.
            let sends = unsafe { &raw mut (*self.stage.local.get()).sends };
            // SAFETY: as above.
            self.start.set(unsafe { (*sends).len() });
            sends
        } else {
            // Counted until handed over (see `Stage::unrecorded`): before
            // the poll can empty the mailbox and let a save read the model
            // (whose gate then orders this before the save's count).
            self.stage.unrecorded.fetch_add(1, Ordering::Relaxed);
            self.own.get()
        };
        self.dest.set(dest);
        dest
    }

    /// Records what the poll that ended staged, if anything, as one batch:
    /// in the local lists, or handed over to the shared ones. Runs as the
    /// poll returns or unwinds (see `Keyed::poll`), once `CURRENT` no
    /// longer points here.
    #[inline]
    fn end_poll(&self) {
        let dest = self.dest.replace(ptr::null_mut());
        if dest.is_null() {
            return;
        }
        let (origin, poll) = (self.origin, self.polls.get());
        self.polls.set(poll + 1);
        if dest == self.own.get() {
            // SAFETY: the poll is over and `CURRENT` no longer points to
            // this sender: nothing else reaches `own` until the next poll.
            let own = unsafe { &mut *self.own.get() };
            self.stage.hand_over_shared(origin, poll, own);
        } else {
            // SAFETY: as in `first_send`: this thread still carries the
            // mark (the poll ran inside the settle that set it), and no
            // other reference to the lists is alive.
            let local = unsafe { &mut *self.stage.local.get() };
            local.close_batch(origin, poll, self.start.get());
        }
    }
}

/// Ends a poll of a keyed task when dropped: records what it staged.
struct PollEnd<'a>(&'a Sender);

impl Drop for PollEnd<'_> {
    fn drop(&mut self) {
        self.0.end_poll();
    }
}

#[cfg(not(causim_loom))]
std::thread_local! {
    /// The sender whose task this thread is polling, in the ordered mode;
    /// null otherwise.
    static CURRENT: Cell<*const Sender> = const { Cell::new(ptr::null()) };
}

#[cfg(causim_loom)]
loom::thread_local! {
    /// As above.
    static CURRENT: Cell<*const Sender> = Cell::new(ptr::null());
}

/// True if the send being made must be staged: this thread is polling a
/// model task of a bench in the ordered mode.
#[inline(always)]
pub(crate) fn active() -> bool {
    CURRENT.with(|current| !current.get().is_null())
}

/// Stages `deliver`, which hands one message over, as the current
/// sender's next send. Called when [`active`] is true; outside a keyed
/// poll (never, by construction) it delivers at once rather than lose the
/// message.
#[inline]
pub(crate) fn stage<F: FnOnce() + Send + 'static>(deliver: F) {
    let sender = CURRENT.with(Cell::get);
    if sender.is_null() {
        debug_assert!(false, "stage() outside a keyed poll");
        deliver();
        return;
    }
    stage_for(sender, Delivery::new(deliver));
}

/// If this thread is polling a model task in the ordered mode, stages the
/// delivery built of `value` and returns `Ok`; otherwise hands `value`
/// back, to be sent as in the causal order.
///
/// The send goes through a connection that `stage` keeps alive once its
/// last handle goes (see [`Stage::retire`]). If the current sender stages
/// on `stage`, the delivery `borrowed` builds may borrow the connection;
/// if it stages on another stage (an output moved into a model of another
/// bench), the delivery `owned` builds must own what it uses, as that
/// stage's sweeps know nothing of this connection.
#[inline]
pub(crate) fn try_stage_through<T, F, G>(
    value: T,
    stage: *const Stage,
    borrowed: impl FnOnce(T) -> F,
    owned: impl FnOnce(T) -> G,
) -> Result<(), T>
where
    F: FnOnce() + Send + 'static,
    G: FnOnce() + Send + 'static,
{
    let sender = CURRENT.with(Cell::get);
    if sender.is_null() {
        return Err(value);
    }
    // SAFETY: as in `stage_for`: a non-null `CURRENT` points to the sender
    // of the task this thread polls, which outlives the poll.
    let same = ptr::eq(Arc::as_ptr(unsafe { &(*sender).stage }), stage);
    let deliver = if same {
        Delivery::new(borrowed(value))
    } else {
        Delivery::new(owned(value))
    };
    stage_for(sender, deliver);
    Ok(())
}

/// The stage of the model task this thread polls, if it is in the ordered
/// mode (cold: a connection list's check).
pub(crate) fn current_stage() -> Option<Arc<Stage>> {
    let sender = CURRENT.with(Cell::get);
    // SAFETY: as in `try_stage_through`.
    (!sender.is_null()).then(|| Arc::clone(unsafe { &(*sender).stage }))
}

/// Appends `deliver` to the sends of `sender`, read from `CURRENT` on this
/// thread (non-null).
#[inline(never)]
fn stage_for(sender: *const Sender, deliver: Delivery) {
    // SAFETY: `CURRENT` is non-null only while `Keyed::poll` polls its
    // task on this thread (its guard resets it before the poll returns or
    // unwinds), and it then points to that task's `Sender`, pinned in the
    // task's box, which outlives the poll; the caller read it on this
    // thread, in that poll. The sender is only read here (`dest` is a
    // `Cell`).
    let dest = unsafe { (*sender).dest() };
    // SAFETY: during the poll `dest` points to the sender's own buffer or
    // to the stage's local sends on the thread settling the bench (see
    // `Sender::first_send`), which nothing else reaches while the poll
    // lasts; no reference to it outlives this call.
    unsafe { (*dest).push(Some(deliver)) };
}

/// A model task in the ordered mode: polls the task with its sender set,
/// then records what the poll staged as one batch.
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
            sender: Sender::new(origin, stage),
            task,
        }
    }
}

impl<F: Future<Output = ()> + Unpin> Future for Keyed<F> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        // Dropped last, after `CURRENT` is reset: records the poll's batch,
        // also if the poll unwinds (the bench has failed then; what it
        // staged is dropped with the stage).
        let _end = PollEnd(&this.sender);
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

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::drop_count::DropCount;
    use super::*;
    use std::sync::Mutex;
    use std::task::Waker;

    /// What the deliveries of a test recorded: `(sender, its send)`.
    type Log = Arc<Mutex<Vec<(u32, u32)>>>;

    /// A task that stages `per_poll` deliveries per poll, each recording
    /// `(name, count of its sends before)` into `log` when delivered.
    fn staging_task(log: Log, name: u32, per_poll: u32) -> impl Future<Output = ()> + Unpin + Send {
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

    /// Polls `task` once on this thread.
    fn poll_once(task: &mut (impl Future<Output = ()> + Unpin)) {
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(Pin::new(task).poll(&mut cx), Poll::Pending);
    }

    /// Takes the next round of `stage` (on the settling thread), delivers
    /// it in key order and returns what it logged in `log`, or `None` if
    /// nothing was staged.
    fn next_round(stage: &Stage, log: &Log) -> Option<Vec<(u32, u32)>> {
        let _settling = stage.drive();
        let mut round = Round::default();
        if !stage.take_sorted(&mut round) {
            return None;
        }
        round.deliver(&mut 0);
        round.clear();
        Some(std::mem::take(&mut *log.lock().unwrap()))
    }

    #[test]
    fn sends_are_staged_only_while_a_keyed_task_is_polled() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        assert!(!active());
        let mut late = Keyed::new(staging_task(log.clone(), 2, 2), 2, stage.clone());
        let mut early = Keyed::new(staging_task(log.clone(), 1, 1), 1, stage.clone());
        // Staged as 2, 2, 1, 2, 2, 1.
        for _ in 0..2 {
            poll_once(&mut late);
            poll_once(&mut early);
        }
        assert!(!active(), "reset after the poll");
        let by_key = [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (2, 3)];
        let delivered = next_round(&stage, &log);
        assert_eq!(
            delivered.as_deref(),
            Some(&by_key[..]),
            "by origin, then each sender's order"
        );
        assert_eq!(next_round(&stage, &log), None, "nothing left");
    }

    #[test]
    fn a_sender_split_between_the_settling_thread_and_another_keeps_its_order() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let mut split = Keyed::new(staging_task(log.clone(), 2, 2), 2, stage.clone());
        let mut local = Keyed::new(staging_task(log.clone(), 1, 1), 1, stage.clone());
        // The split sender's first poll on another worker (the shared
        // buffer), its second on the settling thread (the local one),
        // which comes first in the taken round.
        std::thread::scope(|s| {
            s.spawn(|| poll_once(&mut split));
        });
        {
            let _settling = stage.drive();
            poll_once(&mut split);
            poll_once(&mut local);
        }
        let by_key = [(1, 0), (2, 0), (2, 1), (2, 2), (2, 3)];
        assert_eq!(next_round(&stage, &log).as_deref(), Some(&by_key[..]));
        // A sender's polls are counted across rounds: the next round's
        // batches come after this one's whatever round takes them.
        {
            let _settling = stage.drive();
            poll_once(&mut split);
        }
        std::thread::scope(|s| {
            s.spawn(|| poll_once(&mut split));
        });
        let _settling = stage.drive();
        let mut round = Round::default();
        assert!(stage.take_sorted(&mut round));
        let keys: Vec<_> = round
            .lists
            .batches
            .iter()
            .map(|b| (b.origin, b.poll, b.start))
            .collect();
        assert_eq!(keys, [(2, 2, 0), (2, 3, 2)], "local, then shared");
        round.deliver(&mut 0);
        round.clear();
        assert!(round.is_empty());
    }

    #[test]
    fn a_poll_on_another_worker_counts_until_its_batch_is_handed_over() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (stage_in, seen_in, log_in) = (stage.clone(), seen.clone(), log.clone());
        // Stages one send, then looks at the count, as a save would once
        // the poll emptied the mailbox.
        let task = std::future::poll_fn(move |_| {
            let log = log_in.clone();
            super::stage(move || log.lock().unwrap().push((1, 0)));
            seen_in.lock().unwrap().push(stage_in.staged_count());
            Poll::<()>::Pending
        });
        let mut task = Keyed::new(task, 1, stage.clone());
        std::thread::scope(|s| {
            s.spawn(|| poll_once(&mut task));
        });
        assert_eq!(*seen.lock().unwrap(), [1], "counted while the poll runs");
        assert_eq!(stage.unrecorded.load(Ordering::Relaxed), 0);
        assert_eq!(stage.senders(), [(1, 1)], "handed over as it ended");
    }

    #[test]
    fn a_panicking_poll_still_records_its_batch_and_forgets_its_destination() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let log_in = log.clone();
        let mut task = Keyed::new(
            std::future::poll_fn(move |_| -> Poll<()> {
                let log = log_in.clone();
                super::stage(move || log.lock().unwrap().push((1, 0)));
                panic!("boom")
            }),
            1,
            stage.clone(),
        );
        let _settling = stage.drive();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            poll_once(&mut task);
        }));
        assert!(outcome.is_err());
        assert!(!active());
        assert!(task.sender.dest.get().is_null());
        assert_eq!(stage.senders(), [(1, 1)]);
        stage.clear();
        assert!(log.lock().unwrap().is_empty(), "dropped, not delivered");
    }

    /// In a keyed poll: stages a send of `origin`, logged when delivered,
    /// then retires what it went through (a value counted in `freed` when
    /// dropped).
    fn stage_and_retire(stage: &Stage, log: &Log, origin: u32, freed: &Arc<AtomicUsize>) {
        let log = log.clone();
        super::stage(move || log.lock().unwrap().push((origin, 0)));
        let kept = DropCount(freed.clone());
        stage.retire(Delivery::new(move || drop(kept)));
    }

    /// Sweeps `stage` as the settling thread does after its rounds.
    fn sweep_settled(stage: &Stage) {
        let _settling = stage.drive();
        stage.sweep();
    }

    #[test]
    fn a_retired_connection_is_kept_until_no_staged_send_is_left() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let freed = Arc::new(AtomicUsize::new(0));
        let (staged_tx, staged_rx) = std::sync::mpsc::channel::<()>();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let (stage_in, log_in, freed_in) = (stage.clone(), log.clone(), freed.clone());
        // On another worker: stages a send, retires what it went through,
        // and waits before its poll ends (a model woken from outside,
        // whose poll a step does not wait for).
        let task = std::future::poll_fn(move |_| {
            stage_and_retire(&stage_in, &log_in, 1, &freed_in);
            staged_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            Poll::<()>::Pending
        });
        let mut task = Keyed::new(task, 1, stage.clone());
        std::thread::scope(|s| {
            s.spawn(|| poll_once(&mut task));
            staged_rx.recv().unwrap();
            let flagged = stage.has_staged();
            sweep_settled(&stage);
            let freed_in_flight = freed.load(Ordering::SeqCst);
            go_tx.send(()).unwrap();
            assert!(flagged, "a retirement makes the settle sweep");
            assert_eq!(freed_in_flight, 0, "its poll still collects");
        });
        sweep_settled(&stage);
        assert_eq!(freed.load(Ordering::SeqCst), 0, "its batch is staged");
        assert_eq!(next_round(&stage, &log).as_deref(), Some(&[(1, 0)][..]));
        sweep_settled(&stage);
        assert_eq!(freed.load(Ordering::SeqCst), 1, "delivered: freed");
        assert!(!stage.has_retired());
        // On the settling thread: kept while its local batch waits.
        let (stage_in, log_in, freed_in) = (stage.clone(), log.clone(), freed.clone());
        let mut local = Keyed::new(
            std::future::poll_fn(move |_| {
                stage_and_retire(&stage_in, &log_in, 2, &freed_in);
                Poll::<()>::Pending
            }),
            2,
            stage.clone(),
        );
        {
            let _settling = stage.drive();
            poll_once(&mut local);
            stage.sweep();
        }
        assert_eq!(freed.load(Ordering::SeqCst), 1, "its local batch is staged");
        assert_eq!(next_round(&stage, &log).as_deref(), Some(&[(2, 0)][..]));
        sweep_settled(&stage);
        assert_eq!(freed.load(Ordering::SeqCst), 2);
        assert!(!stage.has_retired());
    }

    #[test]
    fn only_the_marked_thread_stages_without_the_lock() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let mut task = Keyed::new(staging_task(log.clone(), 1, 1), 1, stage.clone());
        poll_once(&mut task);
        assert!(
            stage.any.load(Ordering::Relaxed),
            "unmarked: the shared buffer"
        );
        let settling = stage.drive();
        assert!(stage.has_staged());
        assert_eq!(stage.senders(), [(1, 1)]);
        poll_once(&mut task);
        assert_eq!(stage.senders(), [(1, 2)], "both buffers counted");
        assert_eq!(stage.with_local(|local| local.batches.len()), Some(1));
        assert_eq!(lock(&stage.shared).batches.len(), 1);
        stage.clear();
        assert!(!stage.has_staged());
        drop(settling);
        assert_eq!(
            stage.with_local(|local| local.batches.len()),
            None,
            "unmarked"
        );
        assert!(log.lock().unwrap().is_empty(), "cleared, not delivered");
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "forty thousand sends: slow under Miri, and no `unsafe` decides"
    )]
    fn a_large_buffer_is_kept_while_rounds_fill_it_and_freed_after_a_burst() {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        // As the simulation does: one round, reused.
        let mut round = Round::default();
        let mut run_round = |task: &mut Keyed<_>| {
            let _settling = stage.drive();
            poll_once(task);
            assert!(stage.take_sorted(&mut round));
            round.deliver(&mut 0);
            let (_, sends) = round.lists.len();
            round.clear();
            let local = stage.with_local(|local| local.sends.capacity());
            (sends, round.lists.sends.capacity(), local.unwrap())
        };
        // Rounds of one size past `KEEP`: the two buffers the round and
        // the stage swap keep their room.
        let many = 3 * KEEP;
        let mut big = Keyed::new(staging_task(log.clone(), 1, many as u32), 1, stage.clone());
        let mut sizes: Vec<_> = (0..3).map(|_| run_round(&mut big)).collect();
        assert!(
            sizes[1..]
                .iter()
                .all(|&(n, r, l)| n == many && r >= many && l >= many),
            "{sizes:?}"
        );
        // Then small rounds: each large buffer goes after its first small
        // round (the stage's is the next round's).
        let mut small = Keyed::new(staging_task(log.clone(), 2, 1), 2, stage.clone());
        sizes = (0..2).map(|_| run_round(&mut small)).collect();
        assert_eq!(sizes[0].1, 0, "{sizes:?}");
        assert_eq!(sizes[1], (1, 0, 0), "{sizes:?}");
    }
}
