//! Progress of a long call: a callback that [`Simulation::step_until`] and
//! [`Simulation::run`] invoke now and then with how far they got.
//!
//! Why a callback and not a bar: the kernel draws nothing. A terminal bar
//! (the examples use `indicatif`), a log line or a GUI all sit on the same
//! report: the simulation time reached, the events and steps processed
//! since the call began, the wall-clock time spent and the rate.
//!
//! Cost: with no callback set, one test of an `Option` per time step. With
//! one, a few counters per step and a read of the wall clock every
//! [`CHECK_EVERY`] steps (a clock read per step would cost about as much as
//! a sparse step itself); the callback runs at most once per interval, and
//! once more when the call completes.

use std::fmt;
use std::time::{Duration, Instant};

use super::Simulation;
use crate::time::SimTime;

/// Steps between two reads of the wall clock.
const CHECK_EVERY: u32 = 64;

/// How far a [`step_until`](Simulation::step_until) or
/// [`run`](Simulation::run) call got.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// The simulation time reached (the time of the last step processed).
    pub time: SimTime,
    /// Where the call stops: `step_until`'s time, `None` for `run`.
    pub until: Option<SimTime>,
    /// Scheduled events delivered since the call began.
    pub events: u64,
    /// Time steps processed since the call began.
    pub steps: u64,
    /// Wall-clock time since the call began.
    pub elapsed: Duration,
    /// True for the last report of a call that completed.
    pub done: bool,
}

impl Progress {
    /// Events delivered per wall-clock second since the call began.
    pub fn events_per_sec(&self) -> f64 {
        self.events as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The share of the call done, from 0 to 1, for `step_until` (time
    /// reached over time to reach); `None` for `run`.
    pub fn fraction(&self, start: SimTime) -> Option<f64> {
        let until = self.until?;
        let total = until.as_nanos().saturating_sub(start.as_nanos());
        let done = self.time.as_nanos().saturating_sub(start.as_nanos());
        Some(if total == 0 {
            1.0
        } else {
            done as f64 / total as f64
        })
    }
}

/// The callback and its counters.
pub(crate) struct ProgressHook {
    /// Wall-clock time between two reports.
    every: Duration,
    /// What the user gets.
    callback: Box<dyn FnMut(&Progress) + Send>,
    /// The report being filled.
    report: Progress,
    /// When the current call began.
    started: Instant,
    /// When the callback last ran.
    last: Instant,
    /// Steps left before the next read of the wall clock.
    countdown: u32,
}

impl ProgressHook {
    /// A new call begins, which stops at `until`.
    pub(crate) fn begin(&mut self, time: SimTime, until: Option<SimTime>) {
        let now = Instant::now();
        self.report = Progress {
            time,
            until,
            events: 0,
            steps: 0,
            elapsed: Duration::ZERO,
            done: false,
        };
        self.started = now;
        self.last = now;
        self.countdown = CHECK_EVERY;
    }

    /// A step at `time` with `events` due begins.
    #[inline]
    pub(crate) fn step(&mut self, time: SimTime, events: usize) {
        self.report.time = time;
        self.report.steps += 1;
        self.report.events += events as u64;
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = CHECK_EVERY;
            self.maybe_report();
        }
    }

    /// Runs the callback if an interval has passed since it last ran.
    #[cold]
    fn maybe_report(&mut self) {
        let now = Instant::now();
        if now.duration_since(self.last) >= self.every {
            self.last = now;
            self.report.elapsed = now.duration_since(self.started);
            (self.callback)(&self.report);
        }
    }

    /// The call completed at `time`: a last report.
    pub(crate) fn end(&mut self, time: SimTime) {
        self.report.time = time;
        self.report.done = true;
        self.report.elapsed = self.started.elapsed();
        (self.callback)(&self.report);
    }
}

impl fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgressHook")
            .field("every", &self.every)
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl Simulation {
    /// Calls `callback` with the [`Progress`] of every later
    /// [`step_until`](Self::step_until), [`step_by`](Self::step_by) and
    /// [`run`](Self::run) call, at most once per `every` of wall-clock
    /// time while the call runs, and once when it completes (`done`).
    /// Replaces a callback set before.
    ///
    /// ```
    /// # use causim::prelude::*;
    /// let mut simu = SimInit::new().with_threads(1).init(SimTime::ZERO).unwrap();
    /// simu.set_progress(Duration::from_millis(100), |p| {
    ///     eprintln!("{}: {:.0} events/s", p.time, p.events_per_sec());
    /// });
    /// simu.step_until(SimTime::from_secs(60)).unwrap();
    /// ```
    pub fn set_progress(
        &mut self,
        every: Duration,
        callback: impl FnMut(&Progress) + Send + 'static,
    ) {
        let now = Instant::now();
        self.progress = Some(Box::new(ProgressHook {
            every,
            callback: Box::new(callback),
            report: Progress {
                time: self.time(),
                until: None,
                events: 0,
                steps: 0,
                elapsed: Duration::ZERO,
                done: false,
            },
            started: now,
            last: now,
            countdown: CHECK_EVERY,
        }));
    }

    /// Removes the progress callback.
    pub fn clear_progress(&mut self) {
        self.progress = None;
    }

    /// A call that reports progress begins (until `until`).
    pub(super) fn begin_progress(&mut self, until: Option<SimTime>) {
        let time = self.time();
        if let Some(hook) = &mut self.progress {
            hook.begin(time, until);
        }
    }

    /// A step of the events in `due` begins.
    #[inline(always)]
    pub(super) fn step_progress(&mut self) {
        if let Some(hook) = &mut self.progress {
            hook.step(self.core.time(), self.due.len());
        }
    }

    /// The call completed.
    pub(super) fn end_progress(&mut self) {
        let time = self.time();
        if let Some(hook) = &mut self.progress {
            hook.end(time);
        }
    }
}
