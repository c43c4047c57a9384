//! The ring on causim.

use std::time::Duration;

use causim::prelude::*;

use crate::measure::time;
use crate::workloads::tally::{self, Tally};

/// A model that passes the token to the next one.
#[model]
pub struct Link {
    next: Output<u64>,
    hops: Tally,
}

#[model]
impl Link {
    /// Counts the token and passes it on while it has hops left.
    #[input]
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
    let first = mailboxes[0].address();
    let mut init = SimInit::new().with_threads(threads);
    let links: Vec<Link> = (0..models)
        .map(|i| {
            let mut next = Output::new();
            next.connect(Link::ports().token, &mailboxes[(i + 1) % models]);
            Link {
                next,
                hops: Tally::new(&total),
            }
        })
        .collect();
    for (i, (link, mailbox)) in links.into_iter().zip(mailboxes).enumerate() {
        init = init.add_model(link, mailbox, format!("link{i}"));
    }
    let mut simu = init.init(SimTime::ZERO).expect("ring init");
    simu.scheduler()
        .schedule(SimTime::from_secs(1), Link::ports().token, hops, &first)
        .expect("t1 is in the future");
    let (result, elapsed) = time(|| simu.step());
    result.expect("ring step");
    drop(simu);
    (tally::read(&total), elapsed)
}
