//! What one run measures, and how resident memory is read.

use std::time::{Duration, Instant};

/// The outcome of one run of one workload on one engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Events (messages delivered to models) in the timed section.
    pub events: u64,
    /// Wall-clock time of the timed section.
    pub elapsed: Duration,
    /// Time to build the bench (scale workload).
    pub build: Option<Duration>,
    /// Resident bytes per model after building (scale workload).
    pub bytes_per_model: Option<f64>,
    /// Resident bytes per model once each got one message (scale workload).
    pub bytes_per_model_after_event: Option<f64>,
}

impl Sample {
    /// A sample of `events` events in `elapsed`.
    pub fn timed(events: u64, elapsed: Duration) -> Self {
        Sample {
            events,
            elapsed,
            build: None,
            bytes_per_model: None,
            bytes_per_model_after_event: None,
        }
    }

    /// Nanoseconds per event.
    pub fn ns_per_event(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / self.events.max(1) as f64
    }
}

/// Runs `f` and returns its result and how long it took.
pub fn time<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let result = f();
    (result, start.elapsed())
}

/// This process's resident set size in bytes, from `VmRSS` in
/// `/proc/self/status` (`None` where there is no procfs).
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Resident bytes added per model between two readings.
pub fn bytes_per_model(before: Option<u64>, after: Option<u64>, models: usize) -> Option<f64> {
    let (before, after) = (before?, after?);
    Some(after.saturating_sub(before) as f64 / models.max(1) as f64)
}
