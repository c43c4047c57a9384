//! Scheduling events in simulated time.
//!
//! Events can be scheduled at an absolute time or after a delay, keyed (so
//! they can be cancelled) or periodic, from inside a model (its
//! [`Context`](crate::Context), on its own inputs) or from the bench (a
//! [`Scheduler`] handle, on any model's inputs or an event source).
//!
//! An event must be strictly in the future: the current time step is already
//! being processed (or was), so an event for "now" could not keep the
//! promise that all messages of one time are handled before time moves on.
//! Use `Simulation::process_event` for an immediate event from the bench, or
//! send through an output from a model. A time in the past or present, an
//! overflowing delay or a zero period is a [`SchedulingError`], never a
//! panic, and schedules nothing.
//!
//! Events due at the same time are delivered in a deterministic order:
//! events scheduled from the bench first, then those of each model in the
//! order the models were added to the bench, and those of one origin in the
//! order it scheduled them. A periodic event keeps its place among its
//! origin's events at every occurrence.
//!
//! All events due at one time are delivered to their mailboxes before any
//! model runs at that time. Cancelling an event therefore takes effect only
//! if it is due at a *later* time: an event due now is already in its
//! model's mailbox. A model that needs "the answer arrived, forget the
//! timeout" at the same instant should check its own state when the timeout
//! arrives.

pub(crate) mod action;
mod key;
pub(crate) mod local;
pub(crate) mod queue;

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use action::Action;
pub use action::Event;
pub use key::EventKey;
use local::{Driving, LocalSchedule};
use queue::{Entry, EventOrder, EventQueue, Fired, Origin, Spares, BENCH_ORIGIN};

use crate::mailbox::IntoAddress;
use crate::ports::InputFor;
use crate::time::SimTime;

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
}

impl fmt::Display for SchedulingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulingError::NotInFuture { now, requested } => write!(
                f,
                "cannot schedule an event at {requested}: it is not after the current time {now}"
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
        }
    }
}

impl std::error::Error for SchedulingError {}

/// The state shared by the simulation, the contexts and scheduler handles.
pub(crate) struct SchedulerCore {
    /// Scheduled events.
    queue: Mutex<EventQueue>,
    /// The time (in nanoseconds) of the earliest event in `queue`'s heap,
    /// cancelled or not, or `u64::MAX` if it is empty. Written under the
    /// lock whenever the lock is released ([`QueueGuard`]), read without
    /// it by the driving thread: a lone staged event strictly earlier than
    /// this is the next step's event, taken without the lock (see
    /// [`take_next_due`](SchedulerCore::take_next_due)).
    heap_next: AtomicU64,
    /// Events scheduled on the thread running the simulation, not yet in
    /// `queue` (see [`local`]).
    local: LocalSchedule,
    /// The current simulation time, in nanoseconds.
    time: AtomicU64,
    /// Set by a halt request, cleared when the simulation reports it.
    halt_requested: AtomicBool,
    /// Scheduling sequence of the bench origin.
    bench_seq: AtomicU64,
}

impl SchedulerCore {
    /// An empty schedule starting at `time`.
    pub(crate) fn new(time: SimTime) -> Self {
        SchedulerCore {
            queue: Mutex::new(EventQueue::default()),
            heap_next: AtomicU64::new(u64::MAX),
            local: LocalSchedule::default(),
            time: AtomicU64::new(time.as_nanos()),
            halt_requested: AtomicBool::new(false),
            bench_seq: AtomicU64::new(0),
        }
    }

    /// Locks the queue (never poisoned in practice: no user code runs under
    /// this lock).
    pub(crate) fn queue(&self) -> QueueGuard<'_> {
        QueueGuard {
            queue: self.queue.lock().unwrap_or_else(|e| e.into_inner()),
            heap_next: &self.heap_next,
        }
    }

    /// The current time.
    #[inline]
    pub(crate) fn time(&self) -> SimTime {
        SimTime::from_nanos(self.time.load(Ordering::Acquire))
    }

    /// Moves the clock.
    pub(crate) fn set_time(&self, time: SimTime) {
        self.time.store(time.as_nanos(), Ordering::Release);
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

    /// `now + delay`, or an error.
    #[inline]
    pub(crate) fn time_after(&self, delay: Duration) -> Result<SimTime, SchedulingError> {
        let now = self.time();
        now.checked_add(delay)
            .ok_or(SchedulingError::TimeOverflow { now, delay })
    }

    /// `now + delay` if that is strictly after now, or the error: what
    /// [`time_after`](SchedulerCore::time_after) then
    /// [`check`](SchedulerCore::check) say, from one read of the clock
    /// (it cannot move while a model runs).
    #[inline]
    pub(crate) fn future_after(&self, delay: Duration) -> Result<SimTime, SchedulingError> {
        let now = self.time();
        match now.checked_add(delay) {
            Some(time) if time > now => Ok(time),
            Some(time) => Err(not_in_future(now, time)),
            None => Err(SchedulingError::TimeOverflow { now, delay }),
        }
    }

    /// Checks that an event can be scheduled at `time`.
    #[inline]
    pub(crate) fn check(&self, time: SimTime) -> Result<(), SchedulingError> {
        let now = self.time();
        if time <= now {
            return Err(not_in_future(now, time));
        }
        Ok(())
    }

    /// Checks that a periodic event can start at `time` with `period`
    /// (the time first, so that a bad time is reported whatever the
    /// period).
    pub(crate) fn check_periodic(
        &self,
        time: SimTime,
        period: Duration,
    ) -> Result<(), SchedulingError> {
        self.check(time)?;
        if period.is_zero() {
            return Err(SchedulingError::ZeroPeriod);
        }
        Ok(())
    }

    /// Queues `event` at `time` for `origin` after checking the time.
    pub(crate) fn schedule(
        &self,
        time: SimTime,
        origin: Origin,
        seq: u64,
        event: Event,
        key: Option<EventKey>,
    ) -> Result<(), SchedulingError> {
        self.check(time)?;
        self.queue().push(entry(time, origin, seq, event, key));
        Ok(())
    }

    /// Queues a model's event, whose time was checked; also fills an
    /// empty `spare` with the model's spare action, for its next event to
    /// reuse. On the thread running the simulation the event is staged
    /// without a lock (see [`local`]); elsewhere it is queued under the
    /// lock.
    pub(crate) fn schedule_checked_from_model(
        &self,
        entry: Entry,
        spare: &mut Option<Box<dyn Action>>,
    ) {
        let origin = entry.order.origin;
        self.local.with_or(
            (entry, spare),
            |staged, (entry, spare)| {
                staged.entries.push(entry);
                if spare.is_none() {
                    *spare = staged.spares.take(origin);
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
    fn queue_from_model(&self, entry: Entry, spare: &mut Option<Box<dyn Action>>) {
        let origin = entry.order.origin;
        let mut queue = self.queue();
        queue.push(entry);
        if spare.is_none() {
            *spare = queue.spares.take(origin);
        }
    }

    /// Marks this thread as running the simulation of this schedule until
    /// the guard drops: contexts polled here stage their events (see
    /// [`local`]). Only the owning `Simulation` calls this, and only with
    /// the single-threaded executor.
    pub(crate) fn drive(&self) -> Driving {
        self.local.drive()
    }

    /// Hands the `fired` action back as a spare (leaving it in `fired` if
    /// its origin has one already, for the caller to drop outside the
    /// lock), then, if the earliest event is due no later than `limit`,
    /// moves the clock to its time and moves it and the other events due
    /// then into `due`, in order. Returns true if it did.
    ///
    /// On the driving thread, a lone staged event strictly earlier than
    /// everything in the heap (a model scheduling its own next tick) is
    /// taken without the lock. Otherwise, under one lock, the staged
    /// events (swapped through the empty buffer `incoming`) move to the
    /// heap and the due events are taken from it.
    pub(crate) fn take_next_due(
        &self,
        limit: SimTime,
        due: &mut Vec<Entry>,
        incoming: &mut Vec<Entry>,
        fired: &mut Fired,
    ) -> bool {
        let driving = self.local.with(|staged| {
            Self::keep_spare(&mut staged.spares, fired);
            if let [only] = staged.entries.as_slice() {
                let time = only.order.time;
                // Strictly earlier than the heap's top: the bench's events
                // of the same time (origin 0) and every model's are in the
                // heap or staged, so none can come first. The heap's top
                // is read as of this load: an event another thread pushes
                // after it is as if pushed after this step took its events
                // under the lock, which that thread could not tell apart
                // (it schedules against the clock it read before the
                // push, in either case). A push before it (in the lock's
                // order) stored an earlier top before unlocking.
                if time <= limit
                    && time.as_nanos() < self.heap_next.load(Ordering::Acquire)
                    && !only.is_cancelled()
                {
                    // `due` is empty between steps: swapping the buffers
                    // moves the entry without copying it.
                    debug_assert!(due.is_empty());
                    std::mem::swap(&mut staged.entries, due);
                    return Some(time);
                }
            }
            std::mem::swap(&mut staged.entries, incoming);
            None
        });
        match driving {
            Some(Some(time)) => {
                self.set_time(time);
                true
            }
            Some(None) => self.take_queued_due(limit, due, incoming, None),
            None => self.take_queued_due(limit, due, incoming, Some(fired)),
        }
    }

    /// The locked path of [`take_next_due`](SchedulerCore::take_next_due):
    /// hands `fired` back (`None` when the driving thread's spares took
    /// it), moves `incoming` to the heap and takes the due events from it.
    /// Out of line, so that the lock-free path saves and restores few
    /// registers.
    #[inline(never)]
    fn take_queued_due(
        &self,
        limit: SimTime,
        due: &mut Vec<Entry>,
        incoming: &mut Vec<Entry>,
        fired: Option<&mut Fired>,
    ) -> bool {
        let mut queue = self.queue();
        if let Some(fired) = fired {
            Self::keep_spare(&mut queue.spares, fired);
        }
        let Some(time) = queue.pop_due_with(limit, incoming, due) else {
            return false;
        };
        self.set_time(time);
        true
    }

    /// Hands the `fired` action back to `spares`, leaving it in `fired` if
    /// its origin has one already.
    #[inline]
    fn keep_spare(spares: &mut Spares, fired: &mut Fired) {
        if let Some((origin, action)) = fired.take() {
            if let Some(kept) = spares.put(origin, action) {
                *fired = Some((origin, kept));
            }
        }
    }

    /// The time of the earliest event that is not cancelled, staged or
    /// queued.
    pub(crate) fn next_time(&self) -> Option<SimTime> {
        let staged = self.local.with(|staged| {
            let live = staged.entries.iter().filter(|e| !e.is_cancelled());
            live.map(|e| e.order.time).min()
        });
        let queued = self.queue().next_time();
        match (staged.flatten(), queued) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next sequence number of the bench origin.
    fn next_bench_seq(&self) -> u64 {
        self.bench_seq.fetch_add(1, Ordering::Relaxed)
    }
}

/// The locked queue; publishes the time of the heap's earliest event
/// (for [`SchedulerCore::take_next_due`]'s lock-free path) as it unlocks.
pub(crate) struct QueueGuard<'a> {
    /// The lock.
    queue: MutexGuard<'a, EventQueue>,
    /// Where the heap's earliest time goes.
    heap_next: &'a AtomicU64,
}

impl Deref for QueueGuard<'_> {
    type Target = EventQueue;

    fn deref(&self) -> &EventQueue {
        &self.queue
    }
}

impl DerefMut for QueueGuard<'_> {
    fn deref_mut(&mut self) -> &mut EventQueue {
        &mut self.queue
    }
}

impl Drop for QueueGuard<'_> {
    fn drop(&mut self) {
        // Still under the lock (the field unlocks after this runs), so the
        // stores are in the lock's order; Release pairs with the driving
        // thread's Acquire load.
        let next = self.queue.peek_time().map_or(u64::MAX, SimTime::as_nanos);
        self.heap_next.store(next, Ordering::Release);
    }
}

/// The error for an event asked for at `requested`, not after `now`.
#[cold]
fn not_in_future(now: SimTime, requested: SimTime) -> SchedulingError {
    SchedulingError::NotInFuture { now, requested }
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
#[derive(Clone)]
pub struct Scheduler {
    /// The shared schedule.
    core: Arc<SchedulerCore>,
}

impl Scheduler {
    pub(crate) fn new(core: Arc<SchedulerCore>) -> Self {
        Scheduler { core }
    }

    /// The current simulation time.
    pub fn time(&self) -> SimTime {
        self.core.time()
    }

    /// Schedules `event` at `time`.
    pub fn schedule(&self, time: SimTime, event: Event) -> Result<(), SchedulingError> {
        self.schedule_entry(time, event, None, None)
    }

    /// Schedules `payload` for `port` of the model at `address`, at `time`.
    pub fn schedule_event<T, P>(
        &self,
        time: SimTime,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<(), SchedulingError>
    where
        T: Send + 'static,
        P: InputFor<T>,
    {
        self.schedule(time, Event::new(port, payload, address))
    }

    /// Schedules `payload` for `port` of the model at `address`, `delay`
    /// from now.
    pub fn schedule_in<T, P>(
        &self,
        delay: Duration,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<(), SchedulingError>
    where
        T: Send + 'static,
        P: InputFor<T>,
    {
        let time = self.core.time_after(delay)?;
        self.schedule_event(time, port, payload, address)
    }

    /// Like [`schedule_event`](Scheduler::schedule_event), returning a key
    /// that cancels the event.
    pub fn schedule_keyed_event<T, P>(
        &self,
        time: SimTime,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<EventKey, SchedulingError>
    where
        T: Send + 'static,
        P: InputFor<T>,
    {
        let key = EventKey::new();
        let event = Event::new(port, payload, address);
        self.schedule_entry(time, event, Some(key.clone()), None)?;
        Ok(key)
    }

    /// Like [`schedule_in`](Scheduler::schedule_in), returning a key that
    /// cancels the event.
    pub fn schedule_keyed_in<T, P>(
        &self,
        delay: Duration,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<EventKey, SchedulingError>
    where
        T: Send + 'static,
        P: InputFor<T>,
    {
        let time = self.core.time_after(delay)?;
        self.schedule_keyed_event(time, port, payload, address)
    }

    /// Like [`schedule`](Scheduler::schedule), returning a key that cancels
    /// the event (e.g. an [`EventSource`](crate::EventSource) event).
    pub fn schedule_keyed(&self, time: SimTime, event: Event) -> Result<EventKey, SchedulingError> {
        let key = EventKey::new();
        self.schedule_entry(time, event, Some(key.clone()), None)?;
        Ok(key)
    }

    /// Schedules `payload` for `port` first at `time`, then every `period`,
    /// until the returned key cancels it.
    pub fn schedule_periodic_event<T, P>(
        &self,
        time: SimTime,
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
        self.schedule_entry(time, event, Some(key.clone()), Some(period))?;
        Ok(key)
    }

    /// Like [`schedule_periodic_event`](Scheduler::schedule_periodic_event),
    /// with the first occurrence `delay` from now.
    pub fn schedule_periodic_in<T, P>(
        &self,
        delay: Duration,
        period: Duration,
        port: P,
        payload: T,
        address: impl IntoAddress<P::Model>,
    ) -> Result<EventKey, SchedulingError>
    where
        T: Clone + Send + 'static,
        P: InputFor<T>,
    {
        let time = self.core.time_after(delay)?;
        self.schedule_periodic_event(time, period, port, payload, address)
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
        time: SimTime,
        event: Event,
        key: Option<EventKey>,
        period: Option<Duration>,
    ) -> Result<(), SchedulingError> {
        if let Some(unbound) = event.action.unbound_recipient() {
            return Err(SchedulingError::NoRecipient {
                model_type: unbound.model_type,
                port: unbound.port,
            });
        }
        if let Some(period) = period {
            self.core.check_periodic(time, period)?;
        }
        let seq = self.core.next_bench_seq();
        self.core.schedule(time, BENCH_ORIGIN, seq, event, key)
    }
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scheduler")
            .field("time", &self.core.time())
            .field("queued", &self.core.queue().len())
            .finish()
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
