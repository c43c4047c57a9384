//! Scheduling events in simulated time.
//!
//! Events can be scheduled at an absolute time, after a delay, or for the
//! current time once it has settled (one [`Deadline`] argument: a
//! [`SimTime`], a [`Duration`] or [`ZeroDelay`]), keyed (so
//! they can be cancelled) or periodic, from inside a model (its
//! [`Context`](crate::Context), on its own inputs) or from the bench (a
//! [`Scheduler`] handle, on any model's inputs or an event source).
//!
//! A `SimTime` or `Duration` deadline must be strictly in the future. "Now"
//! is asked for explicitly with [`ZeroDelay`]: the event is delivered in
//! the next *round* of the current time step, once every message caused
//! so far at this time has been processed (the simulation runs rounds
//! while zero-delay events are due, up to a limit per time step). Use
//! `Simulation::process_event` for an immediate event from the bench, or
//! send through an output from a model. A time in the past or present, a
//! zero or overflowing delay or a zero period is a [`SchedulingError`],
//! never a panic, and schedules nothing.
//!
//! Events due at the same time are delivered in a deterministic order:
//! events scheduled from the bench first, then those of each model in the
//! order the models were added to the bench, and those of one origin in the
//! order it scheduled them. A periodic event keeps its place among its
//! origin's events at every occurrence.
//!
//! A [`Scheduler`] handle can be used from any thread, even while another
//! thread runs the simulation: its events are checked against the clock and
//! queued atomically with respect to the steps that move the clock, so the
//! clock never goes backwards (see `SchedulerCore`). Once the simulation
//! is dropped, its handles refuse events.
//!
//! All events due at one time are delivered to their mailboxes before any
//! model runs at that time. Cancelling an event therefore takes effect only
//! if it is due at a *later* time: an event due now is already in its
//! model's mailbox. A model that needs "the answer arrived, forget the
//! timeout" at the same instant should check its own state when the timeout
//! arrives.

mod deadline;
pub(crate) mod heap;
mod key;
pub(crate) mod local;
pub(crate) mod spare;

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "save")]
use heap::RadixQueue;
use heap::{Entry, EventHeap, EventOrder, Origin, BENCH_ORIGIN};
pub use key::EventKey;
use local::{Driving, LocalSchedule};
use spare::{ReturningBox, SpareBox};

use crate::bench::BenchId;
use crate::mailbox::IntoAddress;
use crate::poll_report::Misaddressed;
pub use crate::ports::event::Event;
use crate::ports::InputFor;
use crate::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
use crate::sync::{lock, Mutex, MutexGuard};
use crate::time::SimTime;
pub(crate) use deadline::check_period;
pub use deadline::{Deadline, ZeroDelay};

/// Why an event could not be scheduled.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchedulingError {
    /// The requested time is not after the current time.
    NotInFuture {
        /// The simulation's current time.
        now: SimTime,
        /// The time asked for.
        requested: SimTime,
    },
    /// The delay added to the current time overflows [`SimTime`].
    TimeOverflow {
        /// The simulation's current time.
        now: SimTime,
        /// The delay asked for.
        delay: Duration,
    },
    /// A periodic event was given a period of zero.
    ZeroPeriod,
    /// The target mailbox was never added to the bench.
    NoRecipient {
        /// The type of the model the mailbox is for.
        model_type: &'static str,
        /// The port the event was for.
        port: &'static str,
    },
    /// The target mailbox (or, for an [`EventSource`](crate::EventSource)'s
    /// event, one of its connections) belongs to another bench: a mailbox
    /// belongs to the bench it was added to.
    ForeignAddress {
        /// The recipient model's name in the other bench.
        model: String,
        /// The recipient model's type.
        model_type: &'static str,
        /// The input the event was for.
        port: &'static str,
    },
    /// The simulation this [`Scheduler`] belongs to was dropped: nothing
    /// will ever deliver the event.
    SimulationDropped,
}

impl fmt::Display for SchedulingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulingError::NotInFuture { now, requested } => write!(
                f,
                "cannot schedule an event at {requested}: it is not after the current time {now} \
                 (for the current time, once everything caused so far is processed, use `ZeroDelay`)"
            ),
            SchedulingError::TimeOverflow { now, delay } => write!(
                f,
                "cannot schedule an event {delay:?} after {now}: the time overflows"
            ),
            SchedulingError::ZeroPeriod => {
                write!(f, "cannot schedule a periodic event with a zero period")
            }
            SchedulingError::NoRecipient { model_type, port } => write!(
                f,
                "cannot schedule an event for input `{port}` of a `{model_type}`: its mailbox was never added to the bench"
            ),
            SchedulingError::ForeignAddress {
                model,
                model_type,
                port,
            } => write!(
                f,
                "cannot schedule an event for input `{port}` of model `{model}` ({model_type}): that model was added to another bench, and a mailbox belongs to the bench it was added to"
            ),
            SchedulingError::SimulationDropped => write!(
                f,
                "cannot schedule an event: the simulation of this scheduler was dropped"
            ),
        }
    }
}

impl std::error::Error for SchedulingError {}

/// How many events the driving thread stages before it moves them to the
/// heap under one lock (see [`SchedulerCore::push_all`]).
const STAGED_BATCH: usize = 64;

/// The state shared by the simulation, the contexts and scheduler handles.
///
/// # The clock never goes backwards
///
/// The clock moves to the earliest queued time; an event is accepted only
/// if it is after the clock. For the clock to be monotonic, accepting an
/// event from another thread (check, then push) must not interleave with a
/// step (take the earliest events, then move the clock):
///
/// - a bench [`Scheduler`] resolves and checks its time, and pushes, under
///   the queue's lock ([`schedule`](SchedulerCore::schedule)); the locked
///   path of a step takes its events and moves the clock under that same
///   lock, and so does `step_until`'s final move to its target;
/// - the lock-free path of the driving thread (a lone staged event earlier
///   than the heap's top, see [`local`]), while a handle exists (none can
///   appear during a step otherwise), first announces the time it is
///   moving to in [`advancing`](SchedulerCore::advancing), then reads the
///   heap's top, with a sequentially consistent fence in between; a
///   scheduler publishes its event's time as the heap's top, then reads
///   `advancing`, with such a fence in between too. One of the two sees the
///   other: either the
///   step sees the earlier event and takes the lock, or the scheduler sees
///   the announced move and waits for it to settle (then checks against
///   the new clock).
///
/// Contexts check against the clock without the lock: the clock does not
/// move while a model runs.
pub(crate) struct SchedulerCore {
    /// Scheduled events.
    heap: Mutex<EventHeap>,
    /// The time (in nanoseconds) of the earliest event in `heap`,
    /// cancelled or not, or `u64::MAX` if it is empty; a bench scheduler
    /// lowers it first to the time of the event it is about to push. Written
    /// under the lock, read without it by the driving thread: a lone staged
    /// event strictly earlier than this is the next step's event, taken
    /// without the lock (see [`take_next_due`](SchedulerCore::take_next_due)).
    heap_next: AtomicU64,
    /// Set when an event is scheduled for the current time (a
    /// [`ZeroDelay`] one), cleared once none is due: what the step's
    /// look for zero-delay rounds reads.
    zero_delay: AtomicBool,
    /// The time (in nanoseconds) the driving thread is moving the clock to
    /// on its lock-free path, announced before it reads `heap_next`; 0
    /// when its last attempt was abandoned (reset under the lock). While
    /// it is after the clock, a bench scheduler does not queue anything at
    /// or before it.
    advancing: AtomicU64,
    /// Events scheduled on the thread running the simulation, not yet in
    /// `heap` (see [`local`]).
    local: LocalSchedule,
    /// The current simulation time, in nanoseconds.
    time: AtomicU64,
    /// Set by a halt request, cleared when the simulation reports it.
    halt_requested: AtomicBool,
    /// Scheduling sequence of the bench origin.
    bench_seq: AtomicU64,
    /// Set when the simulation is dropped; every later event is refused.
    closed: AtomicBool,
    /// Set on a bench restored from a snapshot, before it starts: its
    /// models' `init` hooks are not run (they ran before the bench was
    /// saved), neither at the start nor by a task first polled later, on
    /// its first message (see `executor::FirstPoll`).
    skip_init: AtomicBool,
    /// The number of live [`Scheduler`] handles. While there is none, no
    /// other thread can queue an event while the driving thread takes the
    /// next step's (contexts off the driving thread, the multi-threaded
    /// executor's other workers, only run during a step, and every task
    /// is done when the next events are taken), and the lock-free step
    /// needs no announcement.
    handles: AtomicUsize,
    /// The identity of this core's bench, which the mailboxes added to it
    /// record (see `crate::bench`).
    pub(crate) bench: BenchId,
}

impl SchedulerCore {
    /// An empty schedule starting at `time`.
    pub(crate) fn new(time: SimTime) -> Self {
        SchedulerCore {
            heap: Mutex::new(EventHeap::default()),
            heap_next: AtomicU64::new(u64::MAX),
            zero_delay: AtomicBool::new(false),
            advancing: AtomicU64::new(0),
            local: LocalSchedule::default(),
            time: AtomicU64::new(time.as_nanos()),
            halt_requested: AtomicBool::new(false),
            bench_seq: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            skip_init: AtomicBool::new(false),
            handles: AtomicUsize::new(0),
            bench: BenchId::new(),
        }
    }

    /// Locks the heap (never poisoned in practice: no user code runs under
    /// this lock).
    pub(crate) fn lock_heap(&self) -> HeapGuard<'_> {
        HeapGuard {
            heap: lock(&self.heap),
            heap_next: &self.heap_next,
        }
    }

    /// The current time.
    #[inline]
    pub(crate) fn time(&self) -> SimTime {
        SimTime::from_nanos(self.time.load(Ordering::Acquire))
    }

    /// Sets the clock of a schedule not shared yet (the bench's start).
    pub(crate) fn start_at(&self, time: SimTime) {
        self.time.store(time.as_nanos(), Ordering::Release);
    }

    /// Moves the clock, under the lock (`_heap`), so that no bench
    /// scheduler checks its event against the clock in between.
    fn set_time_locked(&self, _heap: &HeapGuard<'_>, time: SimTime) {
        self.time.store(time.as_nanos(), Ordering::Release);
    }

    /// True for a restored bench (see `skip_init`).
    pub(crate) fn skips_init(&self) -> bool {
        self.skip_init.load(Ordering::Relaxed)
    }

    /// Marks the bench as restored, before it starts.
    #[cfg(feature = "save")]
    pub(crate) fn skip_init(&self) {
        self.skip_init.store(true, Ordering::Relaxed);
    }

    /// The next sequence number of the bench origin (saved in a snapshot).
    #[cfg(feature = "save")]
    pub(crate) fn bench_seq(&self) -> u64 {
        self.bench_seq.load(Ordering::Relaxed)
    }

    /// Sets the next sequence number of the bench origin (a restore).
    #[cfg(feature = "save")]
    pub(crate) fn set_bench_seq(&self, seq: u64) {
        self.bench_seq.store(seq, Ordering::Relaxed);
    }

    /// Takes every pending event out, staged or queued, cancelled or not,
    /// for a snapshot to look at outside the lock (their payloads'
    /// `Serialize` impls are user code): the queue itself, with the staged
    /// events filed in it. The caller puts it back with
    /// [`put_back_pending`](SchedulerCore::put_back_pending). Between
    /// steps, on the driving thread: a `Scheduler` handle on another thread
    /// may queue meanwhile, which the order by key makes harmless.
    #[cfg(feature = "save")]
    pub(crate) fn take_pending(&self) -> RadixQueue {
        let mut queue = self.lock_heap().take_all();
        let staged = self
            .local
            .with(|staged| std::mem::take(&mut staged.entries))
            .unwrap_or_default();
        for entry in staged {
            queue.push(entry);
        }
        queue
    }

    /// Queues again the events [`take_pending`](SchedulerCore::take_pending)
    /// took, `live` of which are not cancelled; their keys fix their order.
    #[cfg(feature = "save")]
    pub(crate) fn put_back_pending(&self, queue: RadixQueue, live: usize) {
        self.lock_heap().put_back_all(queue, live);
    }

    /// Queues the restored events of `queue`, whose times are not before
    /// the clock.
    #[cfg(feature = "save")]
    pub(crate) fn restore_pending(&self, queue: RadixQueue) {
        if queue.peek_time() == Some(self.time().as_nanos()) {
            self.zero_delay.store(true, Ordering::Relaxed);
        }
        let live = queue.len();
        self.put_back_pending(queue, live);
    }

    /// Asks the simulation to stop after the current time step.
    pub(crate) fn request_halt(&self) {
        self.halt_requested.store(true, Ordering::Release);
    }

    /// Takes a pending halt request (a plain load when there is none, the
    /// common case, which spares a read-modify-write per step).
    pub(crate) fn take_halt(&self) -> bool {
        self.halt_requested.load(Ordering::Relaxed)
            && self.halt_requested.swap(false, Ordering::AcqRel)
    }

    /// The time `deadline` means now, if strictly in the future (or the
    /// current time, for [`ZeroDelay`]), from one
    /// read of the clock: for a context, whose model runs while the clock
    /// cannot move.
    #[inline]
    pub(crate) fn resolve(&self, deadline: impl Deadline) -> Result<SimTime, SchedulingError> {
        let now = self.time();
        let time = deadline.resolve(now)?;
        self.note_zero_delay(now, time);
        Ok(time)
    }

    /// Notes an event asked for at `time` with the clock at `now`: a
    /// zero-delay one if they are equal (a comparison per event; the
    /// store only for zero-delay events).
    #[inline(always)]
    fn note_zero_delay(&self, now: SimTime, time: SimTime) {
        if time == now {
            self.zero_delay.store(true, Ordering::Relaxed);
        }
    }

    /// Queues a bench event due at `deadline`, for `origin`, with `period`
    /// if it is periodic: resolves and checks its time against the clock
    /// and pushes it atomically with respect to the steps moving the clock
    /// (see the type's documentation). Refuses it once the simulation is
    /// dropped.
    pub(crate) fn schedule(
        &self,
        deadline: impl Deadline,
        period: Option<Duration>,
        origin: Origin,
        seq: u64,
        event: Event,
        key: Option<EventKey>,
    ) -> Result<(), SchedulingError> {
        loop {
            let mut heap = self.lock_heap();
            if self.closed.load(Ordering::Relaxed) {
                return Err(SchedulingError::SimulationDropped);
            }
            let now = self.time();
            let time = deadline.resolve(now)?;
            if let Some(period) = period {
                check_period(period)?;
            }
            self.note_zero_delay(now, time);
            if self.clear_of_lock_free_step(&heap, now, time) {
                heap.push(entry(time, origin, seq, event, key));
                return Ok(());
            }
            // The driving thread is moving the clock past `time` without
            // the lock: let it finish, then check against its clock.
            drop(heap);
            crate::sync::thread::yield_now();
        }
    }

    /// With the lock held (`heap`) and the clock at `now`: lowers the
    /// published heap top to `time`, then tells whether the driving
    /// thread's lock-free path cannot move the clock past `time` (false
    /// while it announces a move to `time` or later that may still
    /// happen).
    fn clear_of_lock_free_step(&self, heap: &HeapGuard<'_>, now: SimTime, time: SimTime) -> bool {
        let top = heap.peek_time().map_or(u64::MAX, SimTime::as_nanos);
        let time = time.as_nanos();
        // Store, sequentially consistent fence, load, against the driving
        // thread's store of `advancing`, fence, load of `heap_next`: one of
        // the two loads sees the other thread's store.
        self.heap_next.store(top.min(time), Ordering::Relaxed);
        fence(Ordering::SeqCst);
        let advancing = self.advancing.load(Ordering::Relaxed);
        advancing <= now.as_nanos() || time > advancing
    }

    /// Refuses every later bench event and drops the queued ones (outside
    /// the lock: an event's drop may release a mailbox). Called once, when
    /// the simulation is dropped.
    pub(crate) fn close(&self) {
        let events = {
            let mut heap = self.lock_heap();
            self.closed.store(true, Ordering::Relaxed);
            heap.take_all()
        };
        drop(events);
    }

    /// Queues a model's event, whose time was checked; also restocks the
    /// model's `spare` box, for its next event to reuse (see [`spare`]).
    /// On the thread running the simulation the event is staged without a
    /// lock (see [`local`]); elsewhere it is queued under the lock.
    pub(crate) fn schedule_checked_from_model(&self, entry: Entry, spare: &mut SpareBox) {
        let origin = entry.order.origin;
        self.local.with_or(
            (entry, spare),
            |staged, (entry, spare)| {
                staged.entries.push(entry);
                spare.restock(&mut staged.spares, origin);
                if staged.entries.len() >= STAGED_BATCH {
                    self.push_all(&mut staged.entries);
                }
            },
            |(entry, spare)| self.queue_from_model(entry, spare),
        );
    }

    /// The path of
    /// [`schedule_checked_from_model`](SchedulerCore::schedule_checked_from_model)
    /// off the driving thread, under the lock; out of line so that the
    /// staging path keeps few registers live.
    #[inline(never)]
    fn queue_from_model(&self, entry: Entry, spare: &mut SpareBox) {
        let origin = entry.order.origin;
        let mut heap = self.lock_heap();
        heap.push(entry);
        spare.restock(&mut heap.spares, origin);
    }

    /// Marks this thread as running the simulation of this schedule until
    /// the guard drops: contexts polled here stage their events (see
    /// [`local`]). Only the owning `Simulation` calls this, on the thread
    /// that calls into it (worker 0 of the multi-threaded executor).
    pub(crate) fn drive(&self) -> Driving {
        self.local.drive()
    }

    /// Takes the `returning` box back as a spare (leaving it there if its
    /// origin has one already, for the caller to drop outside the lock;
    /// see [`spare`]), then, if the earliest event is due no later than `limit`,
    /// moves the clock to its time and moves it and the other events due
    /// then into `due`, in order, and returns true.
    ///
    /// On the driving thread, a lone staged event strictly earlier than
    /// everything in the heap (a model scheduling its own next tick) is
    /// taken without the lock (see [`claim`](SchedulerCore::claim)).
    /// Otherwise, under one lock, the staged events (swapped through the
    /// empty buffer `incoming`) move to the heap and the due events are
    /// taken from it.
    pub(crate) fn take_next_due(
        &self,
        limit: SimTime,
        due: &mut Vec<Entry>,
        incoming: &mut Vec<Entry>,
        returning: &mut ReturningBox,
    ) -> bool {
        let driving = self.local.with(|staged| {
            staged.spares.take_back(returning);
            if let [only] = staged.entries.as_slice() {
                let time = only.order.time;
                // Strictly earlier than the heap's top: the bench's events
                // of the same time (origin 0) and every model's are in the
                // heap or staged, so none can come first.
                if time <= limit && !only.is_cancelled() && self.claim(time) {
                    // `due` is empty between steps: swapping the buffers
                    // moves the entry without copying it.
                    debug_assert!(due.is_empty());
                    std::mem::swap(&mut staged.entries, due);
                    return true;
                }
            }
            std::mem::swap(&mut staged.entries, incoming);
            false
        });
        match driving {
            Some(true) => true,
            Some(false) => self.take_queued_due(limit, due, incoming, None),
            None => self.take_queued_due(limit, due, incoming, Some(returning)),
        }
    }

    /// The lock-free move of the clock to `time`, the time of the lone
    /// staged event: done (true) if `time` is strictly earlier than the
    /// heap's top. While a [`Scheduler`] handle exists, the move is
    /// announced in [`advancing`](SchedulerCore::advancing) before the top
    /// is read, so that a handle on another thread either queued its
    /// earlier event before the read (then the read sees it and this gives
    /// up, for the locked path) or sees the announcement (see the type's
    /// documentation).
    #[inline]
    fn claim(&self, time: SimTime) -> bool {
        let time = time.as_nanos();
        // No handle: nothing can be queued from elsewhere until this step
        // ends (a handle is only made by the simulation, which the step
        // borrows, or cloned from another). Acquire, and read first: what
        // a dropped handle queued is then in the top read next.
        let alone = self.handles.load(Ordering::Acquire) == 0;
        // Not earlier than the top as last published: the locked path,
        // without announcing anything.
        if time >= self.heap_next.load(Ordering::Relaxed) {
            return false;
        }
        if alone {
            self.time.store(time, Ordering::Release);
            return true;
        }
        self.claim_announced(time)
    }

    /// [`claim`](SchedulerCore::claim) while a handle exists: announces
    /// the move, then reads the top again. Out of line: benches without a
    /// handle alive keep few registers live on the lock-free path.
    #[inline(never)]
    fn claim_announced(&self, time: u64) -> bool {
        self.advancing.store(time, Ordering::Relaxed);
        // Orders the store before the load, against the scheduler's fence
        // (a fence rather than sequentially consistent accesses: loom
        // models those as acquire-release only).
        fence(Ordering::SeqCst);
        if time >= self.heap_next.load(Ordering::Relaxed) {
            // The locked path that follows withdraws the announcement.
            return false;
        }
        self.time.store(time, Ordering::Release);
        true
    }

    /// The locked path of [`take_next_due`](SchedulerCore::take_next_due):
    /// takes the `returning` box back (`None` when the driving thread's
    /// spares took it), moves `incoming` to the heap, takes the due events from it and
    /// moves the clock. Out of line, so that the lock-free path saves and
    /// restores few registers.
    #[inline(never)]
    fn take_queued_due(
        &self,
        limit: SimTime,
        due: &mut Vec<Entry>,
        incoming: &mut Vec<Entry>,
        returning: Option<&mut ReturningBox>,
    ) -> bool {
        let mut heap = self.lock_heap();
        // An abandoned lock-free move is withdrawn before the clock moves
        // here: a scheduler waiting for it may go on.
        if self.advancing.load(Ordering::Relaxed) != 0 {
            self.advancing.store(0, Ordering::Relaxed);
        }
        if let Some(returning) = returning {
            heap.spares.take_back(returning);
        }
        let Some(time) = heap.pop_due_with(limit, incoming, due) else {
            return false;
        };
        self.set_time_locked(&heap, time);
        true
    }

    /// Moves the clock forward to `time` (`step_until`'s target) unless an
    /// event is due by then; true if it did. The look at the queue and the
    /// move are under one lock, so that no bench scheduler queues an event
    /// before `time` in between. Called after
    /// [`take_next_due`](SchedulerCore::take_next_due) found nothing due
    /// by `time`, which left nothing staged: only a handle on another
    /// thread can have queued something since.
    pub(crate) fn advance_to(&self, time: SimTime) -> bool {
        let mut heap = self.lock_heap();
        if heap.next_time().is_some_and(|next| next <= time) {
            return false;
        }
        if time > self.time() {
            self.set_time_locked(&heap, time);
        }
        true
    }

    /// True if a zero-delay event was scheduled since the last call that
    /// returned false: one load when none was (the common case). Once one
    /// was, tells whether an event (cancelled or not) is staged or queued
    /// for `now` or earlier, which is a zero-delay one once the events of
    /// `now` were taken.
    #[inline]
    pub(crate) fn has_zero_delay_due(&self, now: SimTime) -> bool {
        self.zero_delay.load(Ordering::Relaxed) && self.has_due_by(now)
    }

    /// The second part of
    /// [`has_zero_delay_due`](SchedulerCore::has_zero_delay_due); clears
    /// the note when nothing is due by `now`.
    #[cold]
    #[inline(never)]
    fn has_due_by(&self, now: SimTime) -> bool {
        let now = now.as_nanos();
        let staged = self.local.with(|staged| {
            staged
                .entries
                .iter()
                .any(|e| e.order.time.as_nanos() <= now)
        });
        let due = staged == Some(true)
            || self
                .lock_heap()
                .peek_time()
                .is_some_and(|t| t.as_nanos() <= now);
        if !due {
            self.zero_delay.store(false, Ordering::Relaxed);
        }
        due
    }

    /// Moves `entries` to the heap under one lock, with their keys: a
    /// full batch of staged events (a model scheduling thousands of events
    /// in one step, a plan or a bulk load, then fills the heap as it goes,
    /// instead of a staging buffer that grows by copies and is read again
    /// at the next step), or events taken by
    /// [`take_next_due`](SchedulerCore::take_next_due) and not delivered
    /// (put back, their order unchanged). Cold on both paths.
    #[cold]
    #[inline(never)]
    pub(crate) fn push_all(&self, entries: &mut Vec<Entry>) {
        let mut heap = self.lock_heap();
        for entry in entries.drain(..) {
            heap.push(entry);
        }
    }

    /// The time of the earliest event that is not cancelled, staged or
    /// queued.
    pub(crate) fn next_time(&self) -> Option<SimTime> {
        let staged = self.local.with(|staged| {
            let live = staged.entries.iter().filter(|e| !e.is_cancelled());
            live.map(|e| e.order.time).min()
        });
        let queued = self.lock_heap().next_time();
        match (staged.flatten(), queued) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The number of events staged or queued, cancelled ones included.
    pub(crate) fn queued(&self) -> usize {
        let staged = self.local.with(|staged| staged.entries.len());
        staged.unwrap_or(0) + self.lock_heap().len()
    }

    /// The next sequence number of the bench origin.
    fn next_bench_seq(&self) -> u64 {
        self.bench_seq.fetch_add(1, Ordering::Relaxed)
    }
}

/// Closes the schedule of a simulation when the simulation is dropped: its
/// [`Scheduler`] handles then refuse events, and its queued events are
/// released.
pub(crate) struct Owner {
    /// The schedule closed on drop.
    core: Arc<SchedulerCore>,
}

impl Owner {
    /// Closes `core` when dropped.
    pub(crate) fn new(core: Arc<SchedulerCore>) -> Self {
        Owner { core }
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        self.core.close();
    }
}

/// The locked heap; publishes the time of the heap's earliest event
/// (for [`SchedulerCore::take_next_due`]'s lock-free path) as it unlocks.
pub(crate) struct HeapGuard<'a> {
    /// The lock.
    heap: MutexGuard<'a, EventHeap>,
    /// Where the heap's earliest time goes.
    heap_next: &'a AtomicU64,
}

impl Deref for HeapGuard<'_> {
    type Target = EventHeap;

    fn deref(&self) -> &EventHeap {
        &self.heap
    }
}

impl DerefMut for HeapGuard<'_> {
    fn deref_mut(&mut self) -> &mut EventHeap {
        &mut self.heap
    }
}

impl Drop for HeapGuard<'_> {
    fn drop(&mut self) {
        // Still under the lock (the field unlocks after this runs), so the
        // stores are in the lock's order. The driving thread reads the value
        // only (see `SchedulerCore::claim` for what orders it against other
        // threads' pushes).
        let next = self.heap.peek_time().map_or(u64::MAX, SimTime::as_nanos);
        self.heap_next.store(next, Ordering::Release);
    }
}

/// A queue entry for `event`.
#[inline]
pub(crate) fn entry(
    time: SimTime,
    origin: Origin,
    seq: u64,
    event: Event,
    key: Option<EventKey>,
) -> Entry {
    Entry {
        order: EventOrder { time, origin, seq },
        action: event.action,
        key,
    }
}

/// Schedules events from the bench, between or during simulation calls.
///
/// Obtained from [`Simulation::scheduler`](crate::Simulation::scheduler);
/// cheap to clone. Events scheduled here come before same-time events
/// scheduled by models.
///
/// A handle can be used from any thread, also while another thread runs
/// the simulation: an event is checked against the clock and queued
/// atomically with respect to the steps that move the clock, which
/// therefore never goes backwards. Once its simulation is dropped, a
/// handle refuses events ([`SchedulingError::SimulationDropped`]).
pub struct Scheduler {
    /// The shared schedule.
    core: Arc<SchedulerCore>,
}

impl Clone for Scheduler {
    fn clone(&self) -> Self {
        Scheduler::new(self.core.clone())
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        // Release: what this handle queued is published to a step that
        // then sees no handle (see `SchedulerCore::claim`).
        self.core.handles.fetch_sub(1, Ordering::Release);
    }
}

impl Scheduler {
    /// A handle on `core`, counted in its `handles`.
    pub(crate) fn new(core: Arc<SchedulerCore>) -> Self {
        core.handles.fetch_add(1, Ordering::Relaxed);
        Scheduler { core }
    }

    /// The current simulation time.
    pub fn time(&self) -> SimTime {
        self.core.time()
    }

    /// Schedules `payload` for `port` of the model at `address`, due at
    /// `deadline`: a [`SimTime`], a [`Duration`] from now, or
    /// [`ZeroDelay`]. "Now" is the clock as the event is queued, even while
    /// another thread runs the simulation: a positive delay is never
    /// refused as not in the future. A zero-delay event scheduled between
    /// steps is processed by the next step, at the current time; one
    /// scheduled from another thread while a step runs is processed in a
    /// round of that step if the step has not finished its rounds yet, else
    /// by the next step, at the same time.
    pub fn schedule<T, P>(
        &self,
        deadline: impl Deadline,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<(), SchedulingError>
    where
        T: Send + 'static,
        P: InputFor<T>,
    {
        let event = Event::new(port, payload, address);
        self.schedule_entry(deadline, event, None, None)
    }

    /// Like [`schedule`](Scheduler::schedule), returning a key that cancels
    /// the event.
    pub fn schedule_keyed<T, P>(
        &self,
        deadline: impl Deadline,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<EventKey, SchedulingError>
    where
        T: Send + 'static,
        P: InputFor<T>,
    {
        self.schedule_keyed_event(deadline, Event::new(port, payload, address))
    }

    /// Schedules `payload` for `port` first at `deadline` (a [`SimTime`],
    /// a [`Duration`] from now, or [`ZeroDelay`]), then every `period`,
    /// until the returned key cancels it.
    pub fn schedule_periodic<T, P>(
        &self,
        deadline: impl Deadline,
        period: Duration,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<EventKey, SchedulingError>
    where
        T: Clone + Send + 'static,
        P: InputFor<T>,
    {
        let key = EventKey::new();
        let event = Event::periodic(port, payload, address, period);
        self.schedule_entry(deadline, event, Some(key.clone()), Some(period))?;
        Ok(key)
    }

    /// Schedules a prebuilt `event` (e.g. an
    /// [`EventSource`](crate::EventSource)'s) due at `deadline`.
    pub fn schedule_event(
        &self,
        deadline: impl Deadline,
        event: Event,
    ) -> Result<(), SchedulingError> {
        self.schedule_entry(deadline, event, None, None)
    }

    /// Like [`schedule_event`](Scheduler::schedule_event), returning a key
    /// that cancels the event.
    pub fn schedule_keyed_event(
        &self,
        deadline: impl Deadline,
        event: Event,
    ) -> Result<EventKey, SchedulingError> {
        let key = EventKey::new();
        self.schedule_entry(deadline, event, Some(key.clone()), None)?;
        Ok(key)
    }

    /// Asks the simulation to stop after the current time step; the running
    /// call returns [`SimulationError::Halted`](crate::SimulationError::Halted).
    pub fn halt(&self) {
        self.core.request_halt();
    }

    /// Queues `event` (periodic if it has a `period`) under the bench
    /// origin, after checking its recipient, its time and its period, in
    /// that order.
    fn schedule_entry(
        &self,
        deadline: impl Deadline,
        event: Event,
        key: Option<EventKey>,
        period: Option<Duration>,
    ) -> Result<(), SchedulingError> {
        if let Some(misaddressed) = event.action.misaddressed(self.core.bench) {
            return Err(misaddressed_event(misaddressed));
        }
        let seq = self.core.next_bench_seq();
        self.core
            .schedule(deadline, period, BENCH_ORIGIN, seq, event, key)
    }
}

/// The error of an event whose recipient is not in the bench (cold).
#[cold]
fn misaddressed_event(misaddressed: Misaddressed) -> SchedulingError {
    match misaddressed.foreign {
        None => SchedulingError::NoRecipient {
            model_type: misaddressed.model_type,
            port: misaddressed.port,
        },
        Some(model) => SchedulingError::ForeignAddress {
            model: model.to_string(),
            model_type: misaddressed.model_type,
            port: misaddressed.port,
        },
    }
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scheduler")
            .field("time", &self.core.time())
            .field("queued", &self.core.lock_heap().len())
            .finish()
    }
}

#[cfg(all(test, causim_loom))]
mod loom_tests;

#[cfg(all(test, not(causim_loom)))]
mod tests;
