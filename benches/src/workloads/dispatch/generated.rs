//! The relay with `#[model]`-generated dispatch.

use std::time::Duration;

use causim::prelude::*;

use crate::workloads::tally::{self, Tally};

/// Passes a token on; has other ports so the dispatch `match` has arms.
#[model]
pub struct Relay {
    next: Output<u64>,
    hops: Tally,
    gain: u64,
}

#[model]
impl Relay {
    /// Counts the token and passes it on while it has hops left.
    #[input]
    pub async fn token(&mut self, left: u64) {
        self.hops.bump();
        if left > 1 {
            self.next.send(left - 1).await;
        }
    }

    /// Sets the gain (never driven here).
    #[input]
    pub fn set_gain(&mut self, gain: u64) {
        self.gain = gain;
    }

    /// Resets the gain (never driven here).
    #[input]
    pub fn reset(&mut self) {
        self.gain = 0;
    }

    /// Reports the hops seen (never driven here).
    #[replier]
    pub fn hops(&mut self) -> u64 {
        self.hops.local()
    }
}

/// Runs the ring of generated relays; returns hops counted and time.
pub fn run(models: usize, hops: u64, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let make = |next_mailbox: &Mailbox<Relay>| {
        let mut next = Output::new();
        next.connect(Relay::ports().token, next_mailbox);
        Relay {
            next,
            hops: Tally::new(&total),
            gain: 1,
        }
    };
    let elapsed = super::run_ring(models, hops, threads, make, Relay::ports().token);
    (tally::read(&total), elapsed)
}
