//! The hold workload on causim.

use causim::prelude::*;

use super::{memory_mark, memory_since, Increments, Outcome, Plan};
use crate::measure::time;
use crate::workloads::tally::{self, Tally};

/// Keeps `pending` events queued: each fire schedules its lane's next one.
#[model]
pub struct Hold {
    pending: u64,
    increments: Increments,
    fired: Tally,
}

#[model]
impl Hold {
    /// Schedules the first event of every lane.
    #[input]
    pub fn start(&mut self, cx: &mut Context<Self>) {
        for lane in 0..self.pending {
            let at = SimTime::from_nanos(self.increments.first(lane));
            cx.schedule(at, Self::ports().fire, ()).expect("the future");
        }
    }

    /// One hold: schedules the next event of the lane that fired.
    #[input]
    pub fn fire(&mut self, cx: &mut Context<Self>) {
        self.fired.bump();
        let at = SimTime::from_nanos(self.increments.after(cx.time().as_nanos()));
        cx.schedule(at, Self::ports().fire, ()).expect("the future");
    }
}

/// Runs `plan` on `threads` threads.
pub fn run(plan: &Plan, threads: usize) -> Outcome {
    let total = tally::total();
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let model = Hold {
        pending: plan.pending,
        increments: Increments::new(plan.dist),
        fired: Tally::new(&total),
    };
    let mut simu = SimInit::new()
        .with_threads(threads)
        .add_model(model, mailbox, "hold")
        .init(SimTime::ZERO)
        .expect("init");
    let mark = memory_mark();
    simu.process_event(Hold::ports().start, (), &address)
        .expect("start");
    simu.step().expect("first step");
    let queued_bytes = memory_since(mark);
    let (result, elapsed) = time(|| {
        for _ in 0..plan.holds {
            simu.step()?;
        }
        Ok::<_, SimulationError>(())
    });
    result.expect("hold run");
    drop(simu);
    Outcome {
        fired: tally::read(&total),
        elapsed,
        queued_bytes,
    }
}
