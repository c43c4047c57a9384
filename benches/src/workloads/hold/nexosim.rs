//! The hold workload on NeXosim 1.0.

use std::time::Duration;

use nexosim::model::{schedulable, Context, Model};
use nexosim::ports::EventSource;
use nexosim::simulation::{ExecutionError, Mailbox, SimInit};
use nexosim::time::MonotonicTime;
use serde::{Deserialize, Serialize};

use super::{memory_mark, memory_since, Increments, Outcome, Plan};
use crate::measure::time;
use crate::workloads::tally::{self, Tally};

/// Keeps `pending` events queued: each fire schedules its lane's next one.
#[derive(Serialize, Deserialize)]
pub struct Hold {
    pending: u64,
    increments: Increments,
    #[serde(skip)]
    fired: Tally,
}

/// `nanos` after the epoch.
fn at(nanos: u64) -> MonotonicTime {
    MonotonicTime::EPOCH + Duration::from_nanos(nanos)
}

#[Model]
impl Hold {
    /// Schedules the first event of every lane.
    pub fn start(&mut self, _: (), cx: &Context<Self>) {
        for lane in 0..self.pending {
            let time = at(self.increments.first(lane));
            cx.schedule_event(time, schedulable!(Self::fire), ())
                .expect("the future");
        }
    }

    /// One hold: schedules the next event of the lane that fired.
    #[nexosim(schedulable)]
    pub fn fire(&mut self, _: (), cx: &Context<Self>) {
        self.fired.bump();
        let now = cx.time().duration_since(MonotonicTime::EPOCH).as_nanos() as u64;
        let time = at(self.increments.after(now));
        cx.schedule_event(time, schedulable!(Self::fire), ())
            .expect("the future");
    }
}

/// Runs `plan` on `threads` threads.
pub fn run(plan: &Plan, threads: usize) -> Outcome {
    let total = tally::total();
    let mut init = SimInit::with_num_threads(threads);
    let mailbox = Mailbox::new();
    let start = EventSource::new()
        .connect(Hold::start, &mailbox)
        .register(&mut init);
    let model = Hold {
        pending: plan.pending,
        increments: Increments::new(plan.dist),
        fired: Tally::new(&total),
    };
    let mut simu = init
        .add_model(model, mailbox, "hold")
        .init(MonotonicTime::EPOCH)
        .expect("init");
    let mark = memory_mark();
    simu.process_event(&start, ()).expect("start");
    simu.step().expect("first step");
    let queued_bytes = memory_since(mark);
    let (result, elapsed) = time(|| {
        for _ in 0..plan.holds {
            simu.step()?;
        }
        Ok::<_, ExecutionError>(())
    });
    result.expect("hold run");
    drop(simu);
    Outcome {
        fired: tally::read(&total),
        elapsed,
        queued_bytes,
    }
}
