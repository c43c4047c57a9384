//! Stress: many models, many messages, on the multi-threaded executor;
//! every message is counted and nothing may hang.
//!
//! Tokens hop between models along a fixed random graph (4 outputs per
//! model, the next hop chosen by a hash of the token), through mailboxes
//! of the default capacity, so senders regularly wait on full mailboxes.
//! Every simulation call has a timeout, which turns a hang into a failure.
//!
//! The normal suite runs a small version (10³ models, about 10⁵ messages).
//! The full size (10⁴ models, 10⁷ messages over 10 repeated simulations
//! on 2 and 4 threads) runs with
//! `CAUSIM_STRESS=full cargo test --release -p causim --test stress`.

mod common;
use common::*;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Outputs per model.
const FAN: usize = 4;

/// The size of a stress run.
#[derive(Debug, Clone, Copy)]
struct Scale {
    /// Number of models.
    models: usize,
    /// Hops of each token (a token is delivered `hops + 1` times).
    hops: u32,
    /// Time steps per simulation; each step injects one token per model.
    steps: u64,
    /// Simulations, alternately on 2 and 4 threads.
    repetitions: usize,
}

impl Scale {
    /// From `CAUSIM_STRESS`: `full` for the documented size, else small.
    fn from_env() -> Self {
        match std::env::var("CAUSIM_STRESS").as_deref() {
            Ok("full") => Scale {
                models: 10_000,
                hops: 9,
                steps: 10,
                repetitions: 10,
            },
            _ => Scale {
                models: 1_000,
                hops: 4,
                steps: 5,
                repetitions: 4,
            },
        }
    }

    /// Messages one simulation delivers.
    fn messages_per_run(&self) -> u64 {
        self.models as u64 * self.steps * u64::from(self.hops + 1)
    }
}

/// A token: who started it and how far it may still go.
#[derive(Debug, Clone)]
struct Token {
    /// Its number, for choosing the next hop.
    id: u64,
    /// Hops left.
    hops: u32,
}

/// A model that counts tokens and passes them on.
#[model]
struct Hopper {
    /// Its outputs, each to a random model.
    outputs: Vec<Output<Token>>,
    /// Tokens received, by this model.
    received: Arc<AtomicU64>,
}

#[model]
impl Hopper {
    #[input]
    async fn hop(&mut self, token: Token, _cx: &mut Context<Self>) {
        self.received.fetch_add(1, Ordering::Relaxed);
        if token.hops == 0 {
            return;
        }
        let next = (mix(token.id ^ u64::from(token.hops)) % FAN as u64) as usize;
        let token = Token {
            id: token.id,
            hops: token.hops - 1,
        };
        self.outputs[next].send(token).await;
    }
}

/// A 64-bit mixing function (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Builds and runs one simulation; returns the tokens counted.
fn run_once(scale: Scale, threads: usize, seed: u64) -> u64 {
    let mailboxes: Vec<Mailbox<Hopper>> = (0..scale.models).map(|_| Mailbox::new()).collect();
    let counters: Vec<Arc<AtomicU64>> = (0..scale.models)
        .map(|_| Arc::new(AtomicU64::new(0)))
        .collect();
    let hoppers: Vec<Hopper> = counters
        .iter()
        .enumerate()
        .map(|(i, counter)| Hopper {
            outputs: (0..FAN)
                .map(|k| {
                    let to = mix(seed ^ (i * FAN + k) as u64) % scale.models as u64;
                    let mut output = Output::new();
                    output.connect(Hopper::ports().hop, &mailboxes[to as usize]);
                    output
                })
                .collect(),
            received: counter.clone(),
        })
        .collect();
    let addresses: Vec<Address<Hopper>> = mailboxes.iter().map(Mailbox::address).collect();
    let mut init = SimInit::new()
        .with_threads(threads)
        .with_timeout(Duration::from_secs(300));
    for (i, (hopper, mailbox)) in hoppers.into_iter().zip(mailboxes).enumerate() {
        init = init.add_model(hopper, mailbox, format!("h{i}"));
    }
    let mut simu = start(init);
    let scheduler = simu.scheduler();
    for step in 1..=scale.steps {
        for (i, address) in addresses.iter().enumerate() {
            let token = Token {
                id: mix(seed ^ (step << 32) ^ i as u64),
                hops: scale.hops,
            };
            scheduler
                .schedule(t(step), Hopper::ports().hop, token, address)
                .unwrap();
        }
    }
    simu.run().expect("the stress bench failed");
    counters.iter().map(|c| c.load(Ordering::Relaxed)).sum()
}

#[test]
fn every_token_is_delivered() {
    let scale = Scale::from_env();
    let started = Instant::now();
    for repetition in 0..scale.repetitions {
        let threads = if repetition % 2 == 0 { 2 } else { 4 };
        let counted = run_once(scale, threads, repetition as u64);
        assert_eq!(
            counted,
            scale.messages_per_run(),
            "repetition {repetition} on {threads} threads lost messages"
        );
    }
    eprintln!(
        "stress: {} models, {} messages in {:?}",
        scale.models,
        scale.messages_per_run() * scale.repetitions as u64,
        started.elapsed()
    );
}
