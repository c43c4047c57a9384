//! The ring on NeXosim 1.0.

use std::time::Duration;

use nexosim::model::Model;
use nexosim::ports::{EventSource, Output};
use nexosim::simulation::{Mailbox, SimInit};
use nexosim::time::MonotonicTime;
use serde::{Deserialize, Serialize};

use crate::measure::time;
use crate::workloads::tally::{self, Tally};

/// A model that passes the token to the next one.
#[derive(Serialize, Deserialize)]
pub struct Link {
    next: Output<u64>,
    #[serde(skip)]
    hops: Tally,
}

#[Model]
impl Link {
    /// Counts the token and passes it on while it has hops left.
    pub async fn token(&mut self, left: u64) {
        self.hops.bump();
        if left > 1 {
            self.next.send(left - 1).await;
        }
    }
}

/// Builds the ring, passes the token `hops` times, and returns the hops
/// counted and the time of the step.
pub fn run(models: usize, hops: u64, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let mailboxes: Vec<Mailbox<Link>> = (0..models).map(|_| Mailbox::new()).collect();
    let mut init = SimInit::with_num_threads(threads);
    let start = EventSource::new()
        .connect(Link::token, &mailboxes[0])
        .register(&mut init);
    let links: Vec<Link> = (0..models)
        .map(|i| {
            let mut next = Output::new();
            next.connect(Link::token, &mailboxes[(i + 1) % models]);
            Link {
                next,
                hops: Tally::new(&total),
            }
        })
        .collect();
    for (i, (link, mailbox)) in links.into_iter().zip(mailboxes).enumerate() {
        init = init.add_model(link, mailbox, &format!("link{i}"));
    }
    let mut simu = init.init(MonotonicTime::EPOCH).expect("ring init");
    simu.scheduler()
        .schedule_event(Duration::from_secs(1), &start, hops)
        .expect("t1 is in the future");
    let (result, elapsed) = time(|| simu.step());
    result.expect("ring step");
    drop(simu);
    (tally::read(&total), elapsed)
}
