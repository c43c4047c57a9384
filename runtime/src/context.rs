//! A model's view of the simulation.
//!
//! Each model gets one [`Context`], passed to its `init` hook and to every
//! input or replier that asks for it. It tells the time and the model's
//! name, gives the model's own address, and schedules events on the model's
//! own inputs (at a [`SimTime`] or after a [`Duration`]: see
//! [`Deadline`]). Scheduling another model's input from a context is a compile
//! error: models act on each other only through their ports, which keeps
//! the bench's wiring visible in one place.

use std::fmt;
use std::sync::Arc;
use std::task::{self, Poll};
use std::time::Duration;

use crate::mailbox::{Address, Mailbox};
use crate::model::Model;
use crate::ports::event::Event;
use crate::ports::{InputPort, OwnInput};
use crate::scheduler::heap::Origin;
use crate::scheduler::spare::SpareBox;
use crate::scheduler::{check_period, entry, Deadline, EventKey, SchedulerCore, SchedulingError};
use crate::time::SimTime;

/// The simulation as seen by model `M`.
pub struct Context<M: Model> {
    /// This model's mailbox, which the model's task receives from and
    /// which lends the model's address: one pointer to the channel per
    /// model task rather than two. It also knows the model's name, which
    /// is read from there rather than copied into every context.
    mailbox: Mailbox<M>,
    /// This model's origin in the event order (its add order, from 1).
    origin: Origin,
    /// Scheduling sequence of this model.
    seq: u64,
    /// The shared schedule and clock.
    core: Arc<SchedulerCore>,
    /// The box of one of this model's fired events, for the next event to
    /// reuse instead of allocating (see `scheduler::spare`).
    spare: SpareBox,
}

impl<M: Model> Context<M> {
    /// The context of the model that receives from `mailbox`, which is
    /// already bound to the model's name.
    pub(crate) fn new(mailbox: Mailbox<M>, origin: Origin, core: Arc<SchedulerCore>) -> Self {
        Context {
            mailbox,
            origin,
            seq: 0,
            core,
            spare: SpareBox::default(),
        }
    }

    /// The current simulation time.
    pub fn time(&self) -> SimTime {
        self.core.time()
    }

    /// This model instance's path: its name as given to `add_model`, after
    /// the paths of the composites it is in (`sat/power/battery`).
    pub fn name(&self) -> &str {
        // The mailbox is bound before its context is made: never empty.
        self.address().name().unwrap_or_default()
    }

    /// This model's address (e.g. to hand to another model).
    pub fn address(&self) -> &Address<M> {
        self.mailbox.address_ref()
    }

    /// The sequence number of this model's next event (saved in a
    /// snapshot, so that a restored bench orders same-time events as the
    /// saved one would have).
    #[cfg(feature = "save")]
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    /// Sets the sequence number of this model's next event (a restore).
    #[cfg(feature = "save")]
    pub(crate) fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }

    /// True if the bench was restored from a snapshot: the model's
    /// `init` hook, which ran before the bench was saved, is not run again.
    pub(crate) fn skips_init(&self) -> bool {
        self.core.skips_init()
    }

    /// Takes the model's next message, or registers the task's waker.
    #[inline]
    pub(crate) fn poll_recv(&mut self, task_cx: &mut task::Context<'_>) -> Poll<M::Message> {
        self.mailbox.poll_recv(task_cx)
    }

    /// Schedules `payload` for this model's input `port`, due at
    /// `deadline`: a [`SimTime`], a [`Duration`] from now, or
    /// [`ZeroDelay`](crate::ZeroDelay) for now, once everything caused so
    /// far at this time is processed.
    #[inline]
    pub fn schedule<T, P>(
        &mut self,
        deadline: impl Deadline,
        port: P,
        payload: T,
    ) -> Result<(), SchedulingError>
    where
        T: Send + 'static,
        P: OwnInput<M, T>,
    {
        let time = self.core.resolve(deadline)?;
        let event = self.event(port.into_own_port(), payload);
        self.schedule_checked(time, event, None);
        Ok(())
    }

    /// Like [`schedule`](Context::schedule), returning a key that cancels
    /// the event.
    pub fn schedule_keyed<T, P>(
        &mut self,
        deadline: impl Deadline,
        port: P,
        payload: T,
    ) -> Result<EventKey, SchedulingError>
    where
        T: Send + 'static,
        P: OwnInput<M, T>,
    {
        let time = self.core.resolve(deadline)?;
        let key = EventKey::new();
        let event = self.event(port.into_own_port(), payload);
        self.schedule_checked(time, event, Some(key.clone()));
        Ok(key)
    }

    /// Schedules `payload` for this model's input `port` first at
    /// `deadline` (a [`SimTime`], a [`Duration`] from now, or
    /// [`ZeroDelay`](crate::ZeroDelay)), then every
    /// `period`, until the returned key cancels it.
    pub fn schedule_periodic<T, P>(
        &mut self,
        deadline: impl Deadline,
        period: Duration,
        port: P,
        payload: T,
    ) -> Result<EventKey, SchedulingError>
    where
        T: Clone + Send + 'static,
        P: OwnInput<M, T>,
    {
        // The time first, so that a bad time is reported whatever the period.
        let time = self.core.resolve(deadline)?;
        check_period(period)?;
        let key = EventKey::new();
        let event = Event::periodic(port.into_own_port(), payload, self.address(), period);
        self.schedule_checked(time, event, Some(key.clone()));
        Ok(key)
    }

    /// Asks the simulation to stop once the current time step is complete;
    /// the running simulation call returns
    /// [`SimulationError::Halted`](crate::SimulationError::Halted).
    pub fn halt(&self) {
        self.core.request_halt();
    }

    /// A one-shot event for this model's `port`, in the spare box if any.
    /// Callers check the event's time first, so a refused event does not
    /// use up the spare box.
    fn event<T: Send + 'static>(&mut self, port: InputPort<M, T>, payload: T) -> Event {
        self.spare.event(port, payload, self.mailbox.address_ref())
    }

    /// Queues `event`, whose time was checked, under this model's origin
    /// and next sequence number.
    #[inline]
    fn schedule_checked(&mut self, time: SimTime, event: Event, key: Option<EventKey>) {
        let entry = entry(time, self.origin, self.seq, event, key);
        self.core
            .schedule_checked_from_model(entry, &mut self.spare);
        self.seq += 1;
    }
}

impl<M: Model> fmt::Debug for Context<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("model", &M::metadata().type_name)
            .field("name", &self.name())
            .field("time", &self.time())
            .finish()
    }
}
