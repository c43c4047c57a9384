//! When a scheduled event is due: one argument for an absolute time, a
//! delay, or the current time after everything it has caused so far.
//!
//! Every scheduling method takes its time as one `deadline` argument, a
//! [`SimTime`] (at that time), a [`Duration`] (that long after the
//! current time) or [`ZeroDelay`] (now, in the next zero-delay round),
//! rather than coming in an absolute and a relative twin.
//! The trait is sealed and generic, never `dyn`: each call is compiled for
//! its kind of deadline, so a delay still costs one read of the clock and
//! one checked addition.

use std::time::Duration;

use super::SchedulingError;
use crate::time::SimTime;

/// When a scheduled event is due: a [`SimTime`] for an absolute time, a
/// [`Duration`] for a delay from the current time, or [`ZeroDelay`] for
/// the current time once everything caused so far has been processed.
///
/// A `SimTime` or a `Duration` must be strictly in the future: a time not
/// after the current one, a zero `Duration` or a delay that overflows
/// [`SimTime`] is a [`SchedulingError`]. Asking for "now" takes the
/// explicit [`ZeroDelay`]. From a [`Scheduler`](crate::Scheduler) handle, a
/// delay counts from the clock as the event is queued, even while another
/// thread runs the simulation.
///
/// ```
/// # use causim::prelude::*;
/// use causim::Deadline;
///
/// #[model]
/// pub struct Lamp;
///
/// #[model]
/// impl Lamp {
///     #[input]
///     pub fn switch(&mut self, _on: bool) {}
/// }
///
/// fn switch_on(scheduler: &Scheduler, when: impl Deadline, lamp: &Address<Lamp>) {
///     scheduler.schedule(when, Lamp::ports().switch, true, lamp).unwrap();
/// }
///
/// let mailbox = Mailbox::new();
/// let lamp = mailbox.address();
/// let simu = SimInit::new().add_model(Lamp, mailbox, "lamp").init(SimTime::ZERO)?;
/// switch_on(&simu.scheduler(), SimTime::from_secs(3), &lamp); // at 3 s
/// switch_on(&simu.scheduler(), Duration::from_millis(250), &lamp); // 250 ms from now
/// # Ok::<(), causim::SimulationError>(())
/// ```
///
/// Only these three types are deadlines (the trait is sealed).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a deadline for a scheduled event",
    label = "expected a `SimTime`, a `Duration` or `ZeroDelay`",
    note = "use a `SimTime` for an absolute time, a `Duration` for a delay from now, or `ZeroDelay` for now, after everything caused so far"
)]
pub trait Deadline: sealed::Sealed {}

impl Deadline for SimTime {}

impl Deadline for Duration {}

impl Deadline for ZeroDelay {}

/// The deadline of a *zero-delay* event: the current time, after every
/// message caused so far at this time has been processed.
///
/// The models run until none has anything left to do at the current time;
/// then the zero-delay events scheduled meanwhile are delivered, in the
/// same-time order of every event (bench first, then models in the order
/// they were added, each origin in its scheduling order), and the models
/// run again: one *round*. Rounds repeat while zero-delay events are
/// scheduled, all at the same simulation time, within one `step` (a
/// SystemC delta cycle, a DEVS zero-time transition). A model that must
/// see all of a time's inputs before acting once schedules its action with
/// `ZeroDelay` from the first of them.
///
/// A time step runs at most [`SimInit::with_zero_delay_rounds`] rounds
/// (10 000 by default); one more is
/// [`SimulationError::ZeroDelayLimit`](crate::SimulationError::ZeroDelayLimit),
/// naming the recipients of the events still due, which stay queued.
///
/// ```
/// # use causim::prelude::*;
/// /// Counts the pulses of one instant, and reports the count once.
/// #[model]
/// pub struct Batcher {
///     pub count: Output<u32>,
///     pending: u32,
/// }
///
/// #[model]
/// impl Batcher {
///     #[input]
///     pub fn pulse(&mut self, _: (), cx: &mut Context<Self>) {
///         if self.pending == 0 {
///             cx.schedule(ZeroDelay, Self::ports().report, ()).unwrap();
///         }
///         self.pending += 1;
///     }
///
///     #[input]
///     pub async fn report(&mut self, _: ()) {
///         self.count.send(std::mem::take(&mut self.pending)).await;
///     }
/// }
///
/// let mut batcher = Batcher { count: Output::new(), pending: 0 };
/// let counts = EventQueue::new();
/// batcher.count.connect_sink(&counts);
/// let mailbox = Mailbox::new();
/// let address = mailbox.address();
/// let mut simu = SimInit::new().add_model(batcher, mailbox, "batcher").init(SimTime::ZERO)?;
/// let scheduler = simu.scheduler();
/// for _ in 0..3 {
///     scheduler.schedule(SimTime::from_secs(1), Batcher::ports().pulse, (), &address)?;
/// }
/// simu.step()?;
/// assert_eq!(counts.take_all(), vec![3]);
/// assert_eq!(simu.time(), SimTime::from_secs(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`SimInit::with_zero_delay_rounds`]: crate::SimInit::with_zero_delay_rounds
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ZeroDelay;

/// Keeps [`Deadline`] to the types above, and holds the crate's view of
/// it.
pub(crate) mod sealed {
    use super::*;

    /// The part of [`Deadline`] only this crate sees.
    pub trait Sealed: Copy {
        /// The time this means when the clock shows `now`, if strictly
        /// after it.
        fn resolve(self, now: SimTime) -> Result<SimTime, SchedulingError>;
    }

    impl Sealed for SimTime {
        #[inline]
        fn resolve(self, now: SimTime) -> Result<SimTime, SchedulingError> {
            if self > now {
                return Ok(self);
            }
            Err(not_in_future(now, self))
        }
    }

    impl Sealed for ZeroDelay {
        #[inline]
        fn resolve(self, now: SimTime) -> Result<SimTime, SchedulingError> {
            Ok(now)
        }
    }

    impl Sealed for Duration {
        #[inline]
        fn resolve(self, now: SimTime) -> Result<SimTime, SchedulingError> {
            match now.checked_add(self) {
                Some(time) if time > now => Ok(time),
                Some(time) => Err(not_in_future(now, time)),
                None => Err(SchedulingError::TimeOverflow { now, delay: self }),
            }
        }
    }
}

/// Checks the period of a periodic event.
#[inline]
pub(crate) fn check_period(period: Duration) -> Result<(), SchedulingError> {
    if period.is_zero() {
        return Err(SchedulingError::ZeroPeriod);
    }
    Ok(())
}

/// The error for an event asked for at `requested`, not after `now`.
#[cold]
fn not_in_future(now: SimTime, requested: SimTime) -> SchedulingError {
    SchedulingError::NotInFuture { now, requested }
}
