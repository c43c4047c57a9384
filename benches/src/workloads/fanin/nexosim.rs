//! The fan-in on NeXosim 1.0.

use std::time::Duration;

use nexosim::model::Model;
use nexosim::ports::{EventSource, Output};
use nexosim::simulation::{Mailbox, SimInit};
use nexosim::time::MonotonicTime;
use serde::{Deserialize, Serialize};

use crate::measure::time;
use crate::workloads::tally::{self, Tally};

/// Sends one message to the consumer when poked.
#[derive(Serialize, Deserialize)]
pub struct Sender {
    out: Output<u64>,
}

#[Model]
impl Sender {
    /// Sends `value` to the consumer, waiting while its mailbox is full.
    pub async fn go(&mut self, value: u64) {
        self.out.send(value).await;
    }
}

/// Counts the messages it receives.
#[derive(Serialize, Deserialize)]
pub struct Consumer {
    #[serde(skip)]
    received: Tally,
}

#[Model]
impl Consumer {
    /// Counts one message.
    pub fn take(&mut self, _value: u64) {
        self.received.bump();
    }
}

/// Builds `senders` senders into one consumer whose mailbox holds
/// `capacity` messages, pokes every sender at once, and returns the
/// messages counted and the time of the step.
pub fn run(senders: usize, capacity: usize, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let sink: Mailbox<Consumer> = Mailbox::with_capacity(capacity);
    let mailboxes: Vec<Mailbox<Sender>> = (0..senders).map(|_| Mailbox::new()).collect();
    let mut init = SimInit::with_num_threads(threads);
    let mut source = EventSource::new();
    for mailbox in &mailboxes {
        source = source.connect(Sender::go, mailbox);
    }
    let poke = source.register(&mut init);
    for (i, mailbox) in mailboxes.into_iter().enumerate() {
        let mut out = Output::new();
        out.connect(Consumer::take, &sink);
        init = init.add_model(Sender { out }, mailbox, &format!("sender{i}"));
    }
    let consumer = Consumer {
        received: Tally::new(&total),
    };
    let mut simu = init
        .add_model(consumer, sink, "consumer")
        .init(MonotonicTime::EPOCH)
        .expect("fanin init");
    simu.scheduler()
        .schedule_event(Duration::from_secs(1), &poke, 1)
        .expect("t1 is in the future");
    let (result, elapsed) = time(|| simu.step());
    result.expect("fanin step");
    drop(simu);
    (tally::read(&total), elapsed)
}
