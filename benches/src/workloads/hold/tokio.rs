//! The hold workload on Tokio, with the hand-rolled event driver of
//! [`tokio_des`](crate::workloads::tokio_des).

use super::{memory_mark, memory_since, Increments, Outcome, Plan};
use crate::measure::time;
use crate::workloads::tally::{self, Tally};
use crate::workloads::tokio_des::Driver;
use crate::workloads::tokio_des::{runtime, Delivery, Port, Reply};

/// Payload that starts the model.
const START: u64 = 0;
/// Payload of a hold.
const FIRE: u64 = 1;

/// An event for model 0 at `time` ns.
fn at(time: u64) -> Delivery {
    Delivery {
        time,
        model: 0,
        payload: FIRE,
    }
}

/// The model: schedules every lane's first event when started, then the
/// next event of the lane of each one that fires.
async fn hold(mut port: Port, plan: Plan, mut fired: Tally) {
    let mut increments = Increments::new(plan.dist);
    while let Some(d) = port.inbox.recv().await {
        if d.payload == START {
            for lane in 0..plan.pending {
                let _ = port
                    .replies
                    .send(Reply::Schedule(at(increments.first(lane))));
            }
        } else {
            fired.bump();
            let _ = port
                .replies
                .send(Reply::Schedule(at(increments.after(d.time))));
        }
        let _ = port.replies.send(Reply::Done);
    }
}

/// Runs `plan` on `threads` threads.
pub fn run(plan: &Plan, threads: usize) -> Outcome {
    let total = tally::total();
    let rt = runtime(threads);
    let mut driver = Driver::new();
    let port = driver.add_model();
    rt.spawn(hold(port, *plan, Tally::new(&total)));
    let mark = memory_mark();
    driver.schedule(
        Delivery {
            payload: START,
            ..at(0)
        },
        0,
    );
    rt.block_on(async {
        driver.step().await;
        driver.step().await;
    });
    let queued_bytes = memory_since(mark);
    let (_, elapsed) = time(|| {
        rt.block_on(async {
            for _ in 0..plan.holds {
                driver.step().await;
            }
        })
    });
    drop(rt);
    Outcome {
        fired: tally::read(&total),
        elapsed,
        queued_bytes,
    }
}
