//! Pacing: when each time step may start on the wall clock.

use std::time::Duration;

use super::clock::Clock;
use crate::time::SimTime;

/// What a paced simulation does with a time step whose wall deadline has
/// already passed when the simulation reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lateness {
    /// A step later than `tolerance` stops the call with
    /// [`SimulationError::OutOfSync`](crate::SimulationError::OutOfSync)
    /// (before the step runs; not fatal: the next call starts its pacing
    /// afresh). Within the tolerance, the step runs at once.
    Error {
        /// The lag accepted.
        tolerance: Duration,
    },
    /// Late steps run at once, without waiting, until the simulation has
    /// caught up with the wall clock; time is never skipped and nothing is
    /// reported.
    CatchUp,
}

impl Default for Lateness {
    /// `Error` with a tolerance of 20 ms: an overrun is reported, the
    /// jitter of a busy machine is not.
    fn default() -> Self {
        Lateness::Error {
            tolerance: Duration::from_millis(20),
        }
    }
}

/// Paces the time steps of a simulation on a [`Clock`].
pub(crate) struct Pacer {
    /// The wall clock followed.
    clock: Box<dyn Clock>,
    /// Simulated seconds per wall second.
    speed: f64,
    /// The policy for late steps.
    lateness: Lateness,
    /// The simulated and wall times that correspond, once a paced call
    /// has started.
    anchor: Option<(SimTime, Duration)>,
}

impl Pacer {
    /// A pacer following `clock`.
    pub(crate) fn new(clock: Box<dyn Clock>, lateness: Lateness) -> Self {
        Pacer {
            speed: clock.speed(),
            clock,
            lateness,
            anchor: None,
        }
    }

    /// Waits until the wall time of a step at `target`, the simulation
    /// being at `now`; the lag if the step is later than the policy
    /// accepts. The first wait anchors `now` to the clock's present time.
    pub(crate) fn wait_for(&mut self, now: SimTime, target: SimTime) -> Result<(), Duration> {
        let (sim, wall) = *self.anchor.get_or_insert_with(|| (now, self.clock.now()));
        let elapsed = target.checked_duration_since(sim).unwrap_or_default();
        // Saturates: a slow clock's far deadline is "never", not a panic.
        let scaled = Duration::try_from_secs_f64(elapsed.as_secs_f64() / self.speed)
            .unwrap_or(Duration::MAX);
        let due = wall.saturating_add(scaled);
        let present = self.clock.now();
        let Some(lag) = present.checked_sub(due).filter(|lag| !lag.is_zero()) else {
            self.clock.sleep_until(due);
            return Ok(());
        };
        match self.lateness {
            Lateness::Error { tolerance } if lag > tolerance => {
                // The next call starts afresh.
                self.anchor = None;
                Err(lag)
            }
            _ => Ok(()),
        }
    }

    /// Forgets the anchor: the next step is paced from its own start.
    pub(crate) fn resync(&mut self) {
        self.anchor = None;
    }
}

/// The next tick strictly after `now`, on the grid of multiples of
/// `period` from time zero.
pub(crate) fn next_tick(period: Duration, now: SimTime) -> Option<SimTime> {
    let period = u64::try_from(period.as_nanos()).ok()?.max(1);
    let next = (now.as_nanos() / period + 1).checked_mul(period)?;
    Some(SimTime::from_nanos(next))
}
