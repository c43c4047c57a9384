//! A `tracing-subscriber` timer that prints the simulation time instead of
//! the wall clock, so that a log of a bench reads in the bench's time.
//!
//! The kernel's own spans (feature `tracing` of `causim`) carry the time
//! of each handled message as a field; this timer stamps every line,
//! including the models' own events, with the bench's clock.

use std::fmt;

use causim::TimeView;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

/// Formats each log line's time as the bench's simulation time
/// (`12.000000000s`).
///
/// ```
/// use causim::SimInit;
/// use causim_record::SimTimer;
///
/// let init = SimInit::new();
/// let subscriber = tracing_subscriber::fmt()
///     .with_timer(SimTimer::new(init.time_view()))
///     .finish();
/// # drop(subscriber);
/// ```
#[derive(Clone)]
pub struct SimTimer {
    /// The bench's clock.
    clock: TimeView,
}

impl SimTimer {
    /// A timer reading `clock`.
    pub fn new(clock: TimeView) -> Self {
        SimTimer { clock }
    }
}

impl FormatTime for SimTimer {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        write!(w, "{}", self.clock.now())
    }
}

impl fmt::Debug for SimTimer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimTimer")
            .field("clock", &self.clock)
            .finish()
    }
}
