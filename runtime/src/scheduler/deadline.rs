//! When a scheduled event is due: one argument for an absolute time or a
//! delay.
//!
//! Every scheduling method takes its time as one `deadline` argument, a
//! [`SimTime`] (at that time) or a [`Duration`] (that long after the
//! current time), rather than coming in an absolute and a relative twin.
//! The trait is sealed and generic, never `dyn`: each call is compiled for
//! its kind of deadline, so a delay still costs one read of the clock and
//! one checked addition.

use std::time::Duration;

use super::SchedulingError;
use crate::time::SimTime;

/// When a scheduled event is due: a [`SimTime`] for an absolute time, or a
/// [`Duration`] for a delay from the current time.
///
/// Either must be strictly in the future: a time not after the current one,
/// a zero delay or a delay that overflows [`SimTime`] is a
/// [`SchedulingError`]. From a [`Scheduler`](crate::Scheduler) handle, a
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
/// Only these two types are deadlines (the trait is sealed).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a deadline for a scheduled event",
    label = "expected a `SimTime` or a `Duration`",
    note = "use a `SimTime` for an absolute time, or a `Duration` for a delay from now"
)]
pub trait Deadline: sealed::Sealed {}

impl Deadline for SimTime {}

impl Deadline for Duration {}

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
