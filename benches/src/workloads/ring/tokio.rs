//! The ring on Tokio: one task and one bounded `mpsc` channel per model.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{channel, Receiver, Sender};

use crate::measure::time;
use crate::workloads::tally::{self, Tally};
use crate::workloads::tokio_des::{runtime, Countdown};

/// The capacity of each channel, as causim's and NeXosim's default mailbox.
const CAPACITY: usize = 16;

/// One model: counts the token and passes it on while it has hops left.
async fn link(mut inbox: Receiver<u64>, next: Sender<u64>, mut hops: Tally, end: Arc<Countdown>) {
    while let Some(left) = inbox.recv().await {
        hops.bump();
        if left > 1 {
            let _ = next.send(left - 1).await;
        } else {
            end.done();
        }
    }
}

/// Spawns the ring, passes the token `hops` times, and returns the hops
/// counted and the time from the first hop to the last.
pub fn run(models: usize, hops: u64, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let rt = runtime(threads);
    let end = Arc::new(Countdown::new(1));
    let (senders, inboxes): (Vec<_>, Vec<_>) = (0..models).map(|_| channel(CAPACITY)).unzip();
    for (i, inbox) in inboxes.into_iter().enumerate() {
        let next = senders[(i + 1) % models].clone();
        rt.spawn(link(inbox, next, Tally::new(&total), end.clone()));
    }
    let ((), elapsed) = time(|| {
        rt.block_on(async {
            let _ = senders[0].send(hops).await;
            end.wait().await;
        })
    });
    drop(rt);
    (tally::read(&total), elapsed)
}
