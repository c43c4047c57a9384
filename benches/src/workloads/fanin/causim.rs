//! The fan-in on causim.

use std::time::Duration;

use causim::prelude::*;

use crate::measure::time;
use crate::workloads::tally::{self, Tally};

/// Sends one message to the consumer when poked.
#[model]
pub struct Sender {
    out: Output<u64>,
}

#[model]
impl Sender {
    /// Sends `value` to the consumer, waiting while its mailbox is full.
    #[input]
    pub async fn go(&mut self, value: u64) {
        self.out.send(value).await;
    }
}

/// Counts the messages it receives.
#[model]
pub struct Consumer {
    received: Tally,
}

#[model]
impl Consumer {
    /// Counts one message.
    #[input]
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
    let mut poke = EventSource::new();
    let mut init = SimInit::new().with_threads(threads);
    for i in 0..senders {
        let mut out = Output::new();
        out.connect(Consumer::ports().take, &sink);
        let mailbox = Mailbox::new();
        poke.connect(Sender::ports().go, &mailbox);
        init = init.add_model(Sender { out }, mailbox, format!("sender{i}"));
    }
    let consumer = Consumer {
        received: Tally::new(&total),
    };
    let mut simu = init
        .add_model(consumer, sink, "consumer")
        .init(SimTime::ZERO)
        .expect("fanin init");
    simu.scheduler()
        .schedule_event(SimTime::from_secs(1), poke.event(1))
        .expect("t1 is in the future");
    let (result, elapsed) = time(|| simu.step());
    result.expect("fanin step");
    drop(simu);
    (tally::read(&total), elapsed)
}
