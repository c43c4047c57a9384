//! Pinball on Tokio: one task per model, one bounded `mpsc` channel per
//! task, and a countdown of unfinished balls to know when the run is over.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{channel, Receiver, Sender};

use super::Shape;
use crate::measure::time;
use crate::rng::Xorshift64;
use crate::workloads::tally::{self, Tally};
use crate::workloads::tokio_des::{runtime, Countdown};

/// One model: counts each ball and passes it to a random peer.
async fn bumper(
    mut inbox: Receiver<u64>,
    peers: Vec<Sender<u64>>,
    me: usize,
    mut rng: Xorshift64,
    mut hops: Tally,
    finished: Arc<Countdown>,
) {
    while let Some(left) = inbox.recv().await {
        hops.bump();
        if left > 1 {
            let peer = rng.peer(me, peers.len());
            // Every channel holds all the balls of its rig: never full.
            let _ = peers[peer].send(left - 1).await;
        } else {
            finished.done();
        }
    }
}

/// Spawns the rigs, bounces every ball, and returns the hops counted and
/// the time from the first ball to the last hop.
pub fn run(shape: &Shape, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let rt = runtime(threads);
    let finished = Arc::new(Countdown::new(shape.rigs * shape.balls));
    let rigs: Vec<Vec<Sender<u64>>> = (0..shape.rigs)
        .map(|rig| spawn_rig(&rt, shape, rig, &total, &finished))
        .collect();
    let ((), elapsed) = time(|| {
        rt.block_on(async {
            for rig in &rigs {
                for ball in 0..shape.balls {
                    let _ = rig[shape.start(ball)].send(shape.hops_per_ball).await;
                }
            }
            finished.wait().await;
        })
    });
    drop(rt);
    (tally::read(&total), elapsed)
}

/// Spawns the tasks of one rig and returns their senders.
fn spawn_rig(
    rt: &tokio::runtime::Runtime,
    shape: &Shape,
    rig: usize,
    total: &Arc<AtomicU64>,
    finished: &Arc<Countdown>,
) -> Vec<Sender<u64>> {
    let (senders, inboxes): (Vec<_>, Vec<_>) =
        (0..shape.models).map(|_| channel(shape.capacity())).unzip();
    for (me, inbox) in inboxes.into_iter().enumerate() {
        rt.spawn(bumper(
            inbox,
            senders.clone(),
            me,
            Xorshift64::for_model(rig, me),
            Tally::new(total),
            finished.clone(),
        ));
    }
    senders
}
