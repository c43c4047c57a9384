//! When waking another worker pays.
//!
//! A sleeping worker costs the thread that wakes it a system call, and the
//! woken worker's first steal moves the tasks' lines to the other core:
//! several microseconds on the machines we measure on, where a model's
//! poll in a typical step takes well under one. Waking a helper as soon as
//! two models were ready made every step with a few light models slower
//! on two threads than on one (a step of two models paid a wake-up for a
//! few hundred nanoseconds of work; see `docs/benchmarks.md`, "Workers
//! woken when the work pays for it").
//!
//! So the thread that queues a task wakes a sleeping worker only when the
//! tasks waiting behind the one it takes next are worth it: at least the
//! *threshold* of them (`SimInit::with_wake_threshold`, default
//! [`DEFAULT_WAKE_THRESHOLD`]; more tasks ready than the threshold), or
//! fewer whose polls, at the average time the calling thread measured for
//! its recent polls, would take longer than [`WAKE_WORTH`]. The calling
//! thread measures a step that starts with a few tasks waiting, or from
//! the first poll that wakes another task (a model fanning out); under a
//! timeout it only watches, and nothing is measured. The measure is what keeps models whose every poll
//! is long (a model integrating a physical state for a millisecond) in
//! parallel even when only two are ready: a step in which the calling
//! thread polled several tasks reports their average, and the next steps
//! wake a helper for two such tasks.
//!
//! A threshold of 1 is the eager schedule: a worker is woken whenever two
//! tasks are ready. Most tests of the executor's promises use it (the `mt4`
//! matrix target, the property tests), since it is the schedule where
//! threads interleave most.
//!
//! Nothing here decides *whether* a task runs, only on which thread: every
//! task queued is polled, by the thread that queued it if no other takes
//! it, so a wake-up left out costs time, not progress, as long as each
//! poll returns. A model that blocks its thread until another model runs
//! (through something other than messages) may wait longer for it than
//! with the eager schedule: the other may be queued behind it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The threshold unless the bench sets one: this many tasks waiting behind
/// the one a worker takes next (more than this many ready) wake a helper
/// whatever their polls cost.
pub(crate) const DEFAULT_WAKE_THRESHOLD: usize = 32;

/// What the tasks waiting must be expected to take for a wake-up to pay:
/// a few times what one costs (the system call, the sleeper's latency, the
/// lines its steal moves).
pub(crate) const WAKE_WORTH: Duration = Duration::from_micros(20);

/// The rule a worker applies before it wakes another.
#[derive(Debug)]
pub(crate) struct Spread {
    /// This many tasks waiting (more than this many ready) wake a helper.
    threshold: usize,
    /// The calling thread's recent average time per poll, in nanoseconds
    /// (0 until a step has measured it). Written by the calling thread at
    /// the end of a step it measured, read by any worker that
    /// queues a task: a plain estimate, which orders nothing (a stale
    /// value only makes one wake-up early or late). A `std` atomic even
    /// under loom, which need not explore it.
    poll_nanos: AtomicU64,
}

impl Spread {
    /// The rule with `threshold` (at least 1).
    pub(crate) fn new(threshold: usize) -> Self {
        Spread {
            threshold: threshold.max(1),
            poll_nanos: AtomicU64::new(0),
        }
    }

    /// True if `waiting` tasks queued behind the one a worker takes next
    /// are worth waking another worker for.
    #[inline]
    pub(crate) fn worth_waking(&self, waiting: usize) -> bool {
        if waiting == 0 {
            return false;
        }
        if waiting >= self.threshold {
            return true;
        }
        let per_poll = self.poll_nanos.load(Ordering::Relaxed);
        per_poll.saturating_mul(waiting as u64) >= WAKE_WORTH.as_nanos() as u64
    }

    /// True if the calling thread should time its step: with tasks
    /// waiting at its start but not enough to wake a helper by their
    /// number alone, the time their polls take is what decides the next
    /// steps.
    #[inline]
    pub(crate) fn worth_timing(&self, waiting: usize) -> bool {
        waiting > 0 && waiting < self.threshold
    }

    /// Notes that `polls` polls took `elapsed` on the calling thread: the
    /// estimate moves a quarter of the way to their average, so that one
    /// unusual step does not decide alone.
    pub(crate) fn note(&self, elapsed: Duration, polls: u32) {
        if polls == 0 {
            return;
        }
        let sample = u64::try_from(elapsed.as_nanos() / u128::from(polls)).unwrap_or(u64::MAX);
        let old = self.poll_nanos.load(Ordering::Relaxed);
        let new = if old == 0 {
            sample
        } else {
            old - old / 4 + sample / 4
        };
        self.poll_nanos.store(new, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_light_tasks_wake_no_one() {
        let spread = Spread::new(DEFAULT_WAKE_THRESHOLD);
        assert!(!spread.worth_waking(0));
        assert!(!spread.worth_waking(DEFAULT_WAKE_THRESHOLD - 1));
        assert!(spread.worth_waking(DEFAULT_WAKE_THRESHOLD));
        spread.note(Duration::from_micros(2), 20); // 100 ns a poll
        assert!(!spread.worth_waking(DEFAULT_WAKE_THRESHOLD - 1));
    }

    #[test]
    fn long_polls_wake_a_helper_for_two_tasks() {
        let spread = Spread::new(DEFAULT_WAKE_THRESHOLD);
        spread.note(Duration::from_millis(2), 2); // 1 ms a poll
        assert!(spread.worth_waking(1));
    }

    #[test]
    fn the_estimate_follows_the_polls_gradually() {
        let spread = Spread::new(DEFAULT_WAKE_THRESHOLD);
        spread.note(Duration::from_millis(1), 1);
        // One step of short polls does not undo the long ones at once...
        spread.note(Duration::from_nanos(100), 1);
        assert!(spread.worth_waking(1));
        // ...a run of them does.
        for _ in 0..40 {
            spread.note(Duration::from_nanos(100), 1);
        }
        assert!(!spread.worth_waking(1));
    }

    #[test]
    fn a_threshold_of_one_wakes_for_any_waiting_task() {
        let spread = Spread::new(1);
        assert!(spread.worth_waking(1));
        assert!(!spread.worth_timing(1));
        // A threshold of 0 is taken as 1: one task waiting wakes a helper.
        assert!(Spread::new(0).worth_waking(1));
    }
}
