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
//! thread measures a step that starts with tasks waiting, or from the
//! first poll that wakes another task (a model fanning out): two clock
//! reads a step, none for a step of one task that wakes nobody. The
//! measure is what keeps models whose every poll is long (a model
//! integrating a physical state for a millisecond) in parallel even when
//! only two are ready: a step in which the calling thread polled several
//! tasks reports their average, and the next steps wake a helper for two
//! such tasks.
//!
//! A step's number of tasks is not enough on its own: a tick of a thousand
//! models that each count a tick, delivered by the calling thread, ran
//! twice as slowly on two threads as on one, since every task the helper
//! took moved its mailbox and future to the other core for a poll of a few
//! tens of nanoseconds. So while the measured polls are shorter than
//! [`SHARE_WORTH`] and none of them wakes another task, their number wakes
//! no helper either. A poll that wakes another task (a model passing a
//! message on, as in a pinball of balls bounced from model to model) makes
//! the step worth sharing again at once: the helper then takes chains of
//! messages that stay on its core, not one task at a time. The first step
//! of a bench, before any measure, is shared by number; so is a run under
//! a timeout, in which the calling thread only watches: nothing is
//! measured, and the estimate from the steps before is forgotten.
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

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The threshold unless the bench sets one: this many tasks waiting behind
/// the one a worker takes next (more than this many ready) wake a helper
/// whatever their polls cost, unless the polls measured are light and wake
/// no other task.
pub(crate) const DEFAULT_WAKE_THRESHOLD: usize = 32;

/// What the tasks waiting must be expected to take for a wake-up to pay:
/// a few times what one costs (the system call, the sleeper's latency, the
/// lines its steal moves).
pub(crate) const WAKE_WORTH: Duration = Duration::from_micros(20);

/// How long a poll must take, on average, for its task to be worth moving
/// to another core when no poll wakes another task: about what the move
/// costs (the task's record, future and mailbox lines, ~150 ns here
/// against a poll of ~30 ns when a tick of a thousand models was shared).
pub(crate) const SHARE_WORTH: Duration = Duration::from_nanos(250);

/// The rule a worker applies before it wakes another.
#[derive(Debug)]
pub(crate) struct Spread {
    /// This many tasks waiting (more than this many ready) wake a helper,
    /// unless the polls measured are light and wake no other task.
    threshold: usize,
    /// The calling thread's recent average time per poll, in nanoseconds
    /// (0 until a step has measured it). Written by the calling thread at
    /// the end of a step it measured, read by any worker that
    /// queues a task: a plain estimate, which orders nothing (a stale
    /// value only makes one wake-up early or late). A `std` atomic even
    /// under loom, which need not explore it.
    poll_nanos: AtomicU64,
    /// True if a poll of the last measured step woke another task (true
    /// until a step is measured). Written and read as `poll_nanos` is.
    fans_out: AtomicBool,
}

impl Spread {
    /// The rule with `threshold` (at least 1).
    pub(crate) fn new(threshold: usize) -> Self {
        Spread {
            threshold: threshold.max(1),
            poll_nanos: AtomicU64::new(0),
            fans_out: AtomicBool::new(true),
        }
    }

    /// True if `waiting` tasks queued behind the one a worker takes next
    /// are worth waking another worker for.
    #[inline]
    pub(crate) fn worth_waking(&self, waiting: usize) -> bool {
        if waiting == 0 {
            return false;
        }
        self.worth_waking_for(waiting)
    }

    /// [`worth_waking`](Spread::worth_waking) for at least one task
    /// waiting (out of line: the common look finds none).
    #[inline(never)]
    fn worth_waking_for(&self, waiting: usize) -> bool {
        let per_poll = self.poll_nanos.load(Ordering::Relaxed);
        if waiting >= self.threshold {
            return !self.light_and_alone(per_poll);
        }
        per_poll.saturating_mul(waiting as u64) >= WAKE_WORTH.as_nanos() as u64
    }

    /// True unless the measured polls are too short to move a task to
    /// another core for, and wake no other task: a worker taking injected
    /// tasks wakes another for any of them left, as long as this holds.
    #[inline]
    pub(crate) fn sharing_pays(&self) -> bool {
        !self.light_and_alone(self.poll_nanos.load(Ordering::Relaxed))
    }

    /// True if the measured polls are too short to move a task to another
    /// core for, and wake no other task (never under the eager schedule).
    #[inline]
    fn light_and_alone(&self, per_poll: u64) -> bool {
        self.threshold > 1
            && per_poll != 0
            && per_poll < SHARE_WORTH.as_nanos() as u64
            && !self.fans_out.load(Ordering::Relaxed)
    }

    /// True if the calling thread should time its step: with tasks
    /// waiting at its start, what their polls take (and whether they wake
    /// others) decides the next steps. Never under the eager schedule,
    /// which wakes a helper for any waiting task.
    #[inline]
    pub(crate) fn worth_timing(&self, waiting: usize) -> bool {
        waiting > 0 && self.threshold > 1
    }

    /// True under the eager schedule (a threshold of 1), which wakes a
    /// helper for any waiting task and measures nothing.
    #[inline]
    pub(crate) fn is_eager(&self) -> bool {
        self.threshold == 1
    }

    /// Notes, during a step, that a poll woke another task: the tasks
    /// waiting are worth sharing by their number again from now on. A run
    /// under a timeout, which measures nothing, calls it too: an estimate
    /// from the steps before must not keep its tasks on one worker.
    pub(crate) fn fanned_out(&self) {
        self.fans_out.store(true, Ordering::Relaxed);
    }

    /// Notes that `polls` polls took `elapsed` on the calling thread, and
    /// whether one of them woke another task: the estimate moves a quarter
    /// of the way to their average, so that one unusual step does not
    /// decide alone.
    pub(crate) fn note(&self, elapsed: Duration, polls: u32, fanned_out: bool) {
        if polls == 0 {
            return;
        }
        self.fans_out.store(fanned_out, Ordering::Relaxed);
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
        spread.note(Duration::from_micros(2), 20, true); // 100 ns a poll
        assert!(!spread.worth_waking(DEFAULT_WAKE_THRESHOLD - 1));
    }

    #[test]
    fn long_polls_wake_a_helper_for_two_tasks() {
        let spread = Spread::new(DEFAULT_WAKE_THRESHOLD);
        spread.note(Duration::from_millis(2), 2, false); // 1 ms a poll
        assert!(spread.worth_waking(1));
    }

    #[test]
    fn many_light_tasks_that_wake_no_other_stay_on_one_thread() {
        let spread = Spread::new(DEFAULT_WAKE_THRESHOLD);
        let many = 1000;
        // Not measured yet: shared by their number.
        assert!(spread.worth_waking(many));
        // A tick of light polls (50 ns each) that woke nobody.
        spread.note(Duration::from_micros(50), 1000, false);
        assert!(!spread.worth_waking(many));
        // A poll that wakes another task shares the step at once...
        spread.fanned_out();
        assert!(spread.worth_waking(many));
        // ...and a step whose polls pass messages on shares the next.
        spread.note(Duration::from_micros(50), 1000, false);
        assert!(!spread.worth_waking(many));
        spread.note(Duration::from_micros(50), 1000, true);
        assert!(spread.worth_waking(many));
        // ...and so are polls as long as a move to another core.
        spread.note(Duration::from_micros(50), 1000, false);
        assert!(!spread.worth_waking(many));
        for _ in 0..40 {
            spread.note(Duration::from_millis(1), 1000, false); // 1 µs each
        }
        assert!(spread.worth_waking(many));
    }

    #[test]
    fn a_run_under_a_timeout_shares_by_number_again() {
        let spread = Spread::new(DEFAULT_WAKE_THRESHOLD);
        spread.note(Duration::from_micros(50), 1000, false);
        assert!(!spread.sharing_pays() && !spread.worth_waking(1000));
        spread.fanned_out();
        assert!(spread.sharing_pays() && spread.worth_waking(1000));
        // A few waiting still need long polls.
        assert!(!spread.worth_waking(2));
    }

    #[test]
    fn the_estimate_follows_the_polls_gradually() {
        let spread = Spread::new(DEFAULT_WAKE_THRESHOLD);
        spread.note(Duration::from_millis(1), 1, false);
        // One step of short polls does not undo the long ones at once...
        spread.note(Duration::from_nanos(100), 1, false);
        assert!(spread.worth_waking(1));
        // ...a run of them does.
        for _ in 0..40 {
            spread.note(Duration::from_nanos(100), 1, false);
        }
        assert!(!spread.worth_waking(1));
    }

    #[test]
    fn a_threshold_of_one_wakes_for_any_waiting_task() {
        let spread = Spread::new(1);
        assert!(spread.worth_waking(1));
        assert!(!spread.worth_timing(1));
        // Light polls that wake nobody do not change the eager schedule.
        spread.note(Duration::from_micros(1), 100, false);
        assert!(spread.worth_waking(1000));
        // A threshold of 0 is taken as 1: one task waiting wakes a helper.
        assert!(Spread::new(0).worth_waking(1));
    }
}
