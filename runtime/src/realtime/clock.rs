//! Wall clocks that a paced simulation follows.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::sync::lock;

/// The wall clock a paced simulation follows, and how fast.
///
/// A simulation with a clock ([`SimInit::with_clock`]) waits, before each
/// time step, until the clock reaches the wall time of that step: the
/// simulated time elapsed since the run was anchored, divided by
/// [`speed`](Clock::speed). [`SystemClock`] is the machine's monotonic
/// clock; [`ManualClock`] is moved by hand, for tests of the pacing that
/// never sleep.
///
/// [`SimInit::with_clock`]: crate::SimInit::with_clock
pub trait Clock: Send + 'static {
    /// Wall time elapsed since an origin of the clock's choosing.
    fn now(&self) -> Duration;

    /// Returns once [`now`](Clock::now) has reached `wall` (at once if it
    /// has already).
    fn sleep_until(&self, wall: Duration);

    /// Simulated seconds per wall second: 1.0 is real time, 10.0 ten
    /// times faster.
    fn speed(&self) -> f64;
}

/// A speed factor that is not a positive, finite number.
///
/// Two are equal if their bits are (so that a NaN equals itself).
#[derive(Debug, Clone, Copy)]
pub struct InvalidSpeed(pub f64);

impl PartialEq for InvalidSpeed {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for InvalidSpeed {}

impl fmt::Display for InvalidSpeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a clock's speed factor must be a positive, finite number of simulated seconds \
             per wall second (1.0 is real time), not {}",
            self.0
        )
    }
}

impl std::error::Error for InvalidSpeed {}

/// `speed`, if it is positive and finite.
pub(crate) fn checked_speed(speed: f64) -> Result<f64, InvalidSpeed> {
    if speed.is_finite() && speed > 0.0 {
        Ok(speed)
    } else {
        Err(InvalidSpeed(speed))
    }
}

/// The machine's monotonic clock ([`Instant`]).
///
/// It sleeps with the operating system's timer, then spins for the last
/// 200 µs before a deadline: a sleep alone wakes up 50–100 µs late on a
/// common Linux machine, more than a 1 kHz tick can take.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    /// Where `now` counts from.
    origin: Instant,
    /// Simulated seconds per wall second.
    speed: f64,
}

/// How long before a deadline [`SystemClock`] stops sleeping and spins.
const SPIN: Duration = Duration::from_micros(200);

impl SystemClock {
    /// Real time: one simulated second per wall second.
    pub fn real_time() -> Self {
        SystemClock {
            origin: Instant::now(),
            speed: 1.0,
        }
    }

    /// `speed` simulated seconds per wall second; refused unless positive
    /// and finite.
    pub fn with_speed(speed: f64) -> Result<Self, InvalidSpeed> {
        Ok(SystemClock {
            speed: checked_speed(speed)?,
            ..Self::real_time()
        })
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep_until(&self, wall: Duration) {
        // Too far to be a point in time (a very slow clock's next step):
        // never, as the pacer says of a deadline past `Duration::MAX`.
        let Some(deadline) = self.origin.checked_add(wall) else {
            loop {
                std::thread::sleep(Duration::from_secs(u64::from(u32::MAX)));
            }
        };
        // Sleep most of the way, then spin.
        if let Some(sleep) = deadline
            .checked_duration_since(Instant::now())
            .and_then(|left| left.checked_sub(SPIN))
        {
            std::thread::sleep(sleep);
        }
        while Instant::now() < deadline {
            std::hint::spin_loop();
        }
    }

    fn speed(&self) -> f64 {
        self.speed
    }
}

/// A wall clock moved by hand, for tests of pacing.
///
/// `sleep_until` moves it forward to the deadline at once and notes the
/// wait; [`advance`](ManualClock::advance) moves it as if wall time had
/// passed while a step ran, which is how a test makes a step late.
/// Clones share the clock.
#[derive(Debug, Clone)]
pub struct ManualClock {
    /// The shared state.
    state: Arc<Mutex<ManualState>>,
    /// Simulated seconds per wall second.
    speed: f64,
}

/// A manual clock's reading and history.
#[derive(Debug, Default)]
struct ManualState {
    /// The current wall time.
    now: Duration,
    /// Every `sleep_until` that waited: from, to.
    sleeps: Vec<(Duration, Duration)>,
}

impl ManualClock {
    /// A clock at wall time zero, for real-time pacing.
    pub fn new() -> Self {
        ManualClock {
            state: Arc::default(),
            speed: 1.0,
        }
    }

    /// A clock at wall time zero, pacing at `speed`; refused unless
    /// positive and finite.
    pub fn with_speed(speed: f64) -> Result<Self, InvalidSpeed> {
        Ok(ManualClock {
            speed: checked_speed(speed)?,
            ..Self::new()
        })
    }

    /// Moves the clock forward by `wall` (wall time spent working).
    pub fn advance(&self, wall: Duration) {
        lock(&self.state).now += wall;
    }

    /// Every wait so far, as (from, to) wall times.
    pub fn sleeps(&self) -> Vec<(Duration, Duration)> {
        lock(&self.state).sleeps.clone()
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        lock(&self.state).now
    }

    fn sleep_until(&self, wall: Duration) {
        let mut state = lock(&self.state);
        if wall > state.now {
            let from = state.now;
            state.sleeps.push((from, wall));
            state.now = wall;
        }
    }

    fn speed(&self) -> f64 {
        self.speed
    }
}
