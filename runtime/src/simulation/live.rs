//! The step loop of a live simulation: paced on a clock, ticking, or
//! taking injected input (see [`crate::realtime`] for the design).
//!
//! A simulation with none of these never comes here: `step`, `step_until`
//! and `run` test once per call whether the simulation is live, and keep
//! their own loops otherwise.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Simulation, SimulationError};
use crate::realtime::{next_tick, AppliedInput, InjectQueue, Injected, Injector, Pacer};
use crate::time::SimTime;

/// What a live simulation adds to a plain one.
pub(crate) struct Live {
    /// Waits for each step's wall deadline, if the simulation has a clock.
    pub(crate) pacer: Option<Pacer>,
    /// The ticker's period, if it ticks.
    pub(crate) tick: Option<Duration>,
    /// Input injected from other threads, once an injector was made.
    pub(crate) queue: Option<QueueOwner>,
    /// Receives every input a step applies, if the bench logs them.
    pub(crate) log: Option<Box<dyn FnMut(AppliedInput) + Send>>,
    /// The inputs of the step being applied (reused).
    taken: Vec<Injected>,
    /// The time of the last step that applied input: a time applies input
    /// once, even if a call stopped inside its step (a zero-delay limit,
    /// a misaddressed message) and the next call resumes it.
    applied_at: Option<SimTime>,
}

impl Live {
    /// A live part with the given pieces.
    pub(crate) fn new(
        pacer: Option<Pacer>,
        tick: Option<Duration>,
        log: Option<Box<dyn FnMut(AppliedInput) + Send>>,
    ) -> Self {
        Live {
            pacer,
            tick,
            queue: None,
            log,
            taken: Vec::new(),
            applied_at: None,
        }
    }

    /// The next boundary after `now` that is not an event: a tick or a
    /// timed input.
    fn next_appointment(&self, now: SimTime) -> Option<SimTime> {
        let tick = self.tick.and_then(|period| next_tick(period, now));
        let timed = self.queue.as_ref().and_then(|q| q.0.next_timed());
        match (tick, timed) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The simulation's hold on its injection queue: dropping it (with the
/// simulation) closes the queue, so that injectors learn the simulation is
/// gone and waiting queries get no reply instead of waiting forever.
pub(crate) struct QueueOwner(pub(crate) Arc<InjectQueue>);

impl Drop for QueueOwner {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// How far a live call goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// One time step.
    Step,
    /// Every step up to and including a time, then the clock moves there.
    Until(SimTime),
    /// Until nothing is scheduled (with a ticker: until halted).
    Run,
}

impl Simulation {
    /// A handle through which other threads inject events and queries
    /// while this simulation runs; clones share one queue.
    ///
    /// Injected input is applied at the start of the next time step,
    /// after its scheduled events and before any model runs, in the order
    /// it was injected (see the guide, "Real time and injected input").
    /// Input injected while no call runs waits for the next call's first
    /// step.
    pub fn injector(&mut self) -> Injector {
        let live = self
            .live
            .get_or_insert_with(|| Box::new(Live::new(None, None, None)));
        let bench = self.core.bench;
        let queue = live
            .queue
            .get_or_insert_with(|| QueueOwner(Arc::new(InjectQueue::new(bench))));
        Injector::new(queue.0.clone())
    }

    /// Forgets how the wall clock and the simulation were lined up: the
    /// next step of a paced simulation is paced from that step's start, as
    /// if the run began there. For a bench that pauses on purpose between
    /// calls (a GUI's pause button); otherwise the pause counts as
    /// lateness. Does nothing without a clock.
    pub fn resync_clock(&mut self) {
        if let Some(pacer) = self.live.as_mut().and_then(|live| live.pacer.as_mut()) {
            pacer.resync();
        }
    }

    /// True if calls go through [`live_steps`](Simulation::live_steps).
    #[inline(always)]
    pub(crate) fn is_live(&self) -> bool {
        self.live.is_some()
    }

    /// `step`, `step_until` or `run` of a live simulation.
    pub(crate) fn live_steps(&mut self, reach: Reach) -> Result<(), SimulationError> {
        self.check_usable()?;
        let _driving = self.drive();
        let _bench = self.enter();
        let limit = match reach {
            Reach::Until(time) => time,
            Reach::Step | Reach::Run => SimTime::MAX,
        };
        let reports = reach != Reach::Step;
        if reports {
            self.begin_progress((limit != SimTime::MAX).then_some(limit));
        }
        loop {
            let now = self.time();
            let Some(next) = self.next_boundary(now, limit) else {
                // Nothing before the limit: the clock moves to it (a step
                // of its own), or the call is over.
                if limit != SimTime::MAX && limit > now {
                    self.pace(limit)?;
                    if !self.core.advance_to(limit) {
                        continue;
                    }
                    self.live_boundary(self.deadline(), false)?;
                }
                if reports {
                    self.end_progress();
                }
                return Ok(());
            };
            self.pace(next)?;
            let has_events = self.take_next_due(next);
            if !has_events && !self.core.advance_to(next) {
                continue; // an event came from another thread meanwhile
            }
            if reports {
                self.step_progress();
            }
            // The wall-clock limit applies to each step, from the end of
            // its wait: the waits of a paced run are not the models' time.
            self.live_boundary(self.deadline(), has_events)?;
            if reach == Reach::Step {
                return Ok(());
            }
        }
    }

    /// The time of the next step within `limit`: the earliest event, tick
    /// or timed input after `now`.
    fn next_boundary(&self, now: SimTime, limit: SimTime) -> Option<SimTime> {
        let event = self.core.next_time();
        let appointment = self
            .live
            .as_ref()
            .and_then(|live| live.next_appointment(now));
        let next = match (event, appointment) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        (next <= limit).then_some(next)
    }

    /// Waits until the wall time of a step at `target`, if the simulation
    /// has a clock.
    fn pace(&mut self, target: SimTime) -> Result<(), SimulationError> {
        let now = self.time();
        let Some(pacer) = self.live.as_mut().and_then(|live| live.pacer.as_mut()) else {
            return Ok(());
        };
        pacer
            .wait_for(now, target)
            .map_err(|lag| SimulationError::OutOfSync { time: target, lag })
    }

    /// One step of a live simulation, the clock just moved: the due events
    /// (if `has_events`), then the injected input, all delivered before any
    /// model runs; then the models run, with the zero-delay rounds.
    fn live_boundary(
        &mut self,
        deadline: Option<Instant>,
        has_events: bool,
    ) -> Result<(), SimulationError> {
        let mut injected = self.take_injected()?;
        if !has_events && injected.is_empty() {
            self.return_injected(injected);
            // A tick with nothing to deliver: no model can run.
            return self.check_halt();
        }
        let outcome = self.deliver_with_injected(&mut injected);
        if has_events && outcome.is_ok() {
            self.file_delivered();
        }
        self.due.clear();
        self.reschedule_periodic();
        // Input not delivered (after a panic) is dropped: its queries get
        // no reply.
        injected.clear();
        self.return_injected(injected);
        outcome?;
        self.settle(deadline)?;
        self.check_unbound()?;
        self.run_zero_delay_rounds(deadline)?;
        self.check_halt()
    }

    /// The input injected for the step at the current time, in order,
    /// each handed to the log (a panic of the log is fatal, as one of the
    /// bench's code during a delivery); nothing if this time has already
    /// applied its input.
    fn take_injected(&mut self) -> Result<Vec<Injected>, SimulationError> {
        let now = self.time();
        let Some(live) = self.live.as_mut() else {
            return Ok(Vec::new());
        };
        let mut taken = std::mem::take(&mut live.taken);
        if live.applied_at == Some(now) {
            return Ok(taken);
        }
        live.applied_at = Some(now);
        if let Some(queue) = live.queue.as_ref().filter(|q| q.0.has_pending()) {
            queue.0.take_due(now, &mut taken);
        }
        let Some(log) = live.log.as_mut() else {
            return Ok(taken);
        };
        let logged = catch_unwind(AssertUnwindSafe(|| {
            for (order, input) in taken.iter_mut().enumerate() {
                log(AppliedInput {
                    time: now,
                    order: u32::try_from(order).unwrap_or(u32::MAX),
                    record: input.record.take(),
                });
            }
        }));
        match logged {
            Ok(()) => Ok(taken),
            Err(payload) => {
                drop(taken); // their queries get no reply
                let event = "the bench's input log (`SimInit::with_input_log`)".to_string();
                Err(self.event_panicked(event, payload))
            }
        }
    }

    /// Keeps the emptied buffer for the next step.
    fn return_injected(&mut self, taken: Vec<Injected>) {
        if let Some(live) = self.live.as_mut() {
            live.taken = taken;
        }
    }

    /// Delivers the due events, then `injected`, as one delivery of the
    /// bench (on several threads, no model runs before all of it is in
    /// the mailboxes; see `deliver_due`).
    fn deliver_with_injected(&mut self, injected: &mut [Injected]) -> Result<(), SimulationError> {
        let due = &mut self.due;
        let mut next = 0;
        let fired = self.executor.enter(|| {
            catch_unwind(AssertUnwindSafe(|| {
                for entry in due.iter_mut() {
                    entry.action.fire();
                    next += 1;
                }
                for input in injected.iter_mut() {
                    input.action.fire();
                    next += 1;
                }
            }))
        });
        self.note_unbound_from_bench();
        let Err(payload) = fired else {
            return Ok(());
        };
        let event = match self.due.get(next) {
            Some(entry) => entry.action.describe(),
            None => injected[next - self.due.len()].action.describe(),
        };
        Err(self.event_panicked(event, payload))
    }
}
