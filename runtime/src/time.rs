//! Simulation time.
//!
//! Simulated time is a [`SimTime`]: a count of nanoseconds since the bench's
//! epoch (whatever instant the user gives to `SimInit::init`). Nanoseconds in
//! a `u64` cover 584 years, more than any mission, and keep comparisons and
//! arithmetic to single integer instructions, which matters in the
//! scheduler's priority queue.
//!
//! Arithmetic with [`std::time::Duration`] follows the standard library:
//! the operators panic on overflow, and `checked_*` methods return `None`.
//! The scheduling APIs use the checked forms and turn an overflow into an
//! error value, so user input never makes the library panic.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::time::Duration;

/// A point in simulated time, with nanosecond resolution.
///
/// ```
/// use causim::time::SimTime;
/// use std::time::Duration;
///
/// let t0 = SimTime::from_secs(10);
/// let t1 = t0 + Duration::from_millis(1500);
/// assert_eq!(t1.as_nanos(), 11_500_000_000);
/// assert_eq!(t1 - t0, Duration::from_millis(1500));
/// ```
///
/// With the feature `save` or `session`, a `SimTime` is serialisable (as
/// its nanoseconds), so that a model can keep times in saved state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    any(feature = "save", feature = "session"),
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct SimTime {
    /// Nanoseconds since the epoch.
    nanos: u64,
}

impl SimTime {
    /// The epoch: time zero.
    pub const ZERO: SimTime = SimTime { nanos: 0 };
    /// The latest representable time.
    pub const MAX: SimTime = SimTime { nanos: u64::MAX };

    /// Time `nanos` nanoseconds after the epoch.
    pub const fn from_nanos(nanos: u64) -> Self {
        SimTime { nanos }
    }

    /// Time `secs` seconds after the epoch (saturating at [`SimTime::MAX`]).
    pub const fn from_secs(secs: u64) -> Self {
        SimTime {
            nanos: secs.saturating_mul(1_000_000_000),
        }
    }

    /// Time `millis` milliseconds after the epoch (saturating at
    /// [`SimTime::MAX`]).
    pub const fn from_millis(millis: u64) -> Self {
        SimTime {
            nanos: millis.saturating_mul(1_000_000),
        }
    }

    /// Time `micros` microseconds after the epoch (saturating at
    /// [`SimTime::MAX`]).
    pub const fn from_micros(micros: u64) -> Self {
        SimTime {
            nanos: micros.saturating_mul(1_000),
        }
    }

    /// Time `secs` seconds after the epoch, rounded down to the nanosecond.
    ///
    /// Fails, saying why, if `secs` is negative, NaN, infinite, or later than
    /// [`SimTime::MAX`] (about 584 years).
    ///
    /// ```
    /// use causim::time::{SimTime, SimTimeError};
    ///
    /// assert_eq!(SimTime::from_secs_f64(1.5), Ok(SimTime::from_millis(1500)));
    /// assert_eq!(SimTime::from_secs_f64(-1.0), Err(SimTimeError::Negative(-1.0)));
    /// ```
    pub fn from_secs_f64(secs: f64) -> Result<Self, SimTimeError> {
        if secs.is_nan() {
            return Err(SimTimeError::NaN);
        }
        if secs.is_infinite() {
            return Err(SimTimeError::Infinite(secs));
        }
        if secs < 0.0 {
            return Err(SimTimeError::Negative(secs));
        }
        Duration::try_from_secs_f64(secs)
            .ok()
            .and_then(|d| SimTime::ZERO.checked_add(d))
            .ok_or(SimTimeError::TooLarge(secs))
    }

    /// Nanoseconds since the epoch.
    pub const fn as_nanos(self) -> u64 {
        self.nanos
    }

    /// Seconds since the epoch, as a float (for plots and printing).
    pub fn as_secs_f64(self) -> f64 {
        self.nanos as f64 * 1e-9
    }

    /// Time elapsed since the epoch.
    pub const fn since_epoch(self) -> Duration {
        Duration::from_nanos(self.nanos)
    }

    /// `self + d`, or `None` on overflow.
    pub fn checked_add(self, d: Duration) -> Option<Self> {
        let d: u64 = d.as_nanos().try_into().ok()?;
        self.nanos.checked_add(d).map(SimTime::from_nanos)
    }

    /// `self - d`, or `None` if that would be before the epoch.
    pub fn checked_sub(self, d: Duration) -> Option<Self> {
        let d: u64 = d.as_nanos().try_into().ok()?;
        self.nanos.checked_sub(d).map(SimTime::from_nanos)
    }

    /// Time from `earlier` to `self`, or `None` if `earlier` is later.
    pub fn checked_duration_since(self, earlier: SimTime) -> Option<Duration> {
        self.nanos
            .checked_sub(earlier.nanos)
            .map(Duration::from_nanos)
    }
}

impl Add<Duration> for SimTime {
    type Output = SimTime;

    /// # Panics
    ///
    /// Panics on overflow, like `std::time::Instant`; use
    /// [`SimTime::checked_add`] to handle it.
    fn add(self, d: Duration) -> SimTime {
        self.checked_add(d)
            .expect("overflow when adding a duration to a SimTime")
    }
}

impl AddAssign<Duration> for SimTime {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub<SimTime> for SimTime {
    type Output = Duration;

    /// # Panics
    ///
    /// Panics if `rhs` is later than `self`; use
    /// [`SimTime::checked_duration_since`] to handle it.
    fn sub(self, rhs: SimTime) -> Duration {
        self.checked_duration_since(rhs)
            .expect("subtracting a later SimTime from an earlier one")
    }
}

impl Sub<Duration> for SimTime {
    type Output = SimTime;

    /// # Panics
    ///
    /// Panics if the result would be before the epoch.
    fn sub(self, d: Duration) -> SimTime {
        self.checked_sub(d)
            .expect("subtracting a duration moves a SimTime before the epoch")
    }
}

impl fmt::Display for SimTime {
    /// Seconds with nanosecond precision, e.g. `12.000000500s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}s",
            self.nanos / 1_000_000_000,
            self.nanos % 1_000_000_000
        )
    }
}

/// Why a number of seconds is not a [`SimTime`]: returned by
/// [`SimTime::from_secs_f64`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SimTimeError {
    /// The number was negative: simulated time starts at the epoch.
    Negative(f64),
    /// The number was NaN.
    NaN,
    /// The number was infinite.
    Infinite(f64),
    /// The number was later than [`SimTime::MAX`], about 584 years.
    TooLarge(f64),
}

impl fmt::Display for SimTimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimTimeError::Negative(secs) => write!(
                f,
                "{secs} s is not a simulation time: it is negative, and time starts at the epoch"
            ),
            SimTimeError::NaN => f.write_str("NaN is not a simulation time"),
            SimTimeError::Infinite(secs) => {
                write!(f, "{secs} s is not a simulation time: it is infinite")
            }
            SimTimeError::TooLarge(secs) => write!(
                f,
                "{secs} s is not a simulation time: it is later than SimTime::MAX (about 584 years)"
            ),
        }
    }
}

impl std::error::Error for SimTimeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_arithmetic_reports_overflow() {
        assert_eq!(SimTime::MAX.checked_add(Duration::from_nanos(1)), None);
        assert_eq!(SimTime::ZERO.checked_sub(Duration::from_nanos(1)), None);
        assert_eq!(SimTime::ZERO.checked_add(Duration::MAX), None);
        assert_eq!(
            SimTime::from_secs(1).checked_sub(Duration::from_millis(1)),
            Some(SimTime::from_nanos(999_000_000))
        );
    }

    #[test]
    fn displays_seconds_with_nanoseconds() {
        assert_eq!(
            SimTime::from_nanos(12_000_000_500).to_string(),
            "12.000000500s"
        );
    }

    #[test]
    fn from_secs_f64_says_why_it_fails() {
        assert_eq!(
            SimTime::from_secs_f64(-1.0),
            Err(SimTimeError::Negative(-1.0))
        );
        assert_eq!(SimTime::from_secs_f64(f64::NAN), Err(SimTimeError::NaN));
        assert_eq!(
            SimTime::from_secs_f64(f64::NEG_INFINITY),
            Err(SimTimeError::Infinite(f64::NEG_INFINITY))
        );
        assert_eq!(
            SimTime::from_secs_f64(1e12),
            Err(SimTimeError::TooLarge(1e12))
        );
        assert_eq!(
            SimTime::from_secs_f64(1.5),
            Ok(SimTime::from_nanos(1_500_000_000))
        );
        assert_eq!(SimTime::from_secs_f64(-0.0), Ok(SimTime::ZERO));
        assert!(SimTimeError::Negative(-1.0)
            .to_string()
            .contains("negative"));
        assert!(SimTimeError::TooLarge(1e12)
            .to_string()
            .contains("584 years"));
    }

    #[test]
    fn from_millis_and_micros() {
        const MS: SimTime = SimTime::from_millis(1500);
        const US: SimTime = SimTime::from_micros(1500);
        assert_eq!(MS, SimTime::from_nanos(1_500_000_000));
        assert_eq!(US, SimTime::from_nanos(1_500_000));
        assert_eq!(SimTime::from_millis(u64::MAX), SimTime::MAX);
        assert_eq!(SimTime::from_micros(u64::MAX), SimTime::MAX);
    }
}
