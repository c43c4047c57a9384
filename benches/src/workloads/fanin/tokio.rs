//! The fan-in on Tokio: one task per sender, one bounded `mpsc` channel
//! into the consumer's task.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{channel, Receiver};
use tokio::sync::Notify;

use crate::measure::time;
use crate::workloads::tally::{self, Tally};
use crate::workloads::tokio_des::{runtime, Countdown};

/// The consumer: counts `expected` messages, then signals the end.
async fn consumer(
    mut inbox: Receiver<u64>,
    expected: usize,
    mut received: Tally,
    end: Arc<Countdown>,
) {
    for _ in 0..expected {
        if inbox.recv().await.is_none() {
            break;
        }
        received.bump();
    }
    drop(received);
    end.done();
}

/// Spawns `senders` senders into one channel of `capacity`, pokes them all
/// at once, and returns the messages counted and the time from the poke
/// to the last reception.
pub fn run(senders: usize, capacity: usize, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let rt = runtime(threads);
    let end = Arc::new(Countdown::new(1));
    let (out, inbox) = channel(capacity);
    let poke = Arc::new(Notify::new());
    // Every sender waits on the poke before it is given.
    let ready = Arc::new(Countdown::new(senders));
    for _ in 0..senders {
        let (out, poke, ready) = (out.clone(), poke.clone(), ready.clone());
        // One sender: waits for the poke, then sends one message.
        rt.spawn(async move {
            let poked = poke.notified();
            tokio::pin!(poked);
            poked.as_mut().enable();
            ready.done();
            poked.await;
            let _ = out.send(1).await;
        });
    }
    drop(out);
    rt.spawn(consumer(inbox, senders, Tally::new(&total), end.clone()));
    rt.block_on(ready.wait());
    let ((), elapsed) = time(|| {
        rt.block_on(async {
            poke.notify_waiters();
            end.wait().await;
        })
    });
    drop(rt);
    (tally::read(&total), elapsed)
}
