//! Scale on Tokio: one task and one bounded `mpsc` channel per model.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc::{channel, Receiver, Sender};

use super::{Outcome, Phases};
use crate::workloads::tally::{self, Tally};
use crate::workloads::tokio_des::{runtime, Countdown};

/// The capacity of each channel, as causim's and NeXosim's default mailbox.
const CAPACITY: usize = 16;

/// A trivial model: counts pokes, acknowledging each.
async fn cell(
    mut inbox: Receiver<()>,
    mut pokes: Tally,
    started: Arc<Countdown>,
    acks: Arc<Countdown>,
) {
    started.done();
    drop(started);
    while inbox.recv().await.is_some() {
        pokes.bump();
        acks.done();
    }
}

/// Spawns `models` cells, pokes each once, and reports.
pub fn run(models: usize, threads: usize) -> Outcome {
    let total = tally::total();
    let rt = runtime(threads);
    let mut phases = Phases::default();
    let begun = Instant::now();
    phases.begin();
    let (senders, inboxes): (Vec<Sender<()>>, Vec<Receiver<()>>) =
        (0..models).map(|_| channel(CAPACITY)).unzip();
    let started = Arc::new(Countdown::new(models));
    let acks = Arc::new(Countdown::new(models));
    for inbox in inboxes {
        rt.spawn(cell(
            inbox,
            Tally::new(&total),
            started.clone(),
            acks.clone(),
        ));
    }
    // Every task has run up to its first wait: the cells are idle.
    rt.block_on(started.wait());
    phases.end();
    let build = begun.elapsed();
    let ((), deliver, deliver_bytes) = super::deliver(|| {
        rt.block_on(async {
            for sender in &senders {
                let _ = sender.send(()).await;
            }
            acks.wait().await;
        })
    });
    drop(rt);
    Outcome {
        counted: tally::read(&total),
        build,
        model_bytes: phases.added(),
        deliver,
        deliver_bytes,
    }
}
