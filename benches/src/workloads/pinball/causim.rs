//! Pinball on causim.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use causim::prelude::*;

use super::Shape;
use crate::measure::time;
use crate::rng::Xorshift64;
use crate::workloads::tally::{self, Tally};

/// A model that passes every ball it gets to a random peer.
#[model]
pub struct Bumper {
    /// One output per model of the rig; its own is left unconnected.
    peers: Vec<Output<u64>>,
    /// Its index in the rig.
    me: usize,
    rng: Xorshift64,
    hops: Tally,
}

#[model]
impl Bumper {
    /// Counts the ball and, if it has hops left, passes it on.
    #[input]
    pub async fn ball(&mut self, left: u64) {
        self.hops.bump();
        if left > 1 {
            let peer = self.rng.peer(self.me, self.peers.len());
            self.peers[peer].send(left - 1).await;
        }
    }
}

/// Builds the rigs, bounces every ball, and returns the hops counted and
/// the time of the step.
pub fn run(shape: &Shape, threads: usize, order: MessageOrder) -> (u64, Duration) {
    let total = tally::total();
    let (mut simu, starts) = build(shape, threads, order, &total);
    let scheduler = simu.scheduler();
    let t1 = SimTime::from_secs(1);
    for address in &starts {
        scheduler
            .schedule(t1, Bumper::ports().ball, shape.hops_per_ball, address)
            .expect("t1 is in the future");
    }
    let (result, elapsed) = time(|| simu.step());
    result.expect("pinball step");
    drop(simu);
    (tally::read(&total), elapsed)
}

/// The bench and the address of each ball's first model.
fn build(
    shape: &Shape,
    threads: usize,
    order: MessageOrder,
    total: &Arc<AtomicU64>,
) -> (Simulation, Vec<Address<Bumper>>) {
    let mut init = SimInit::new()
        .with_threads(threads)
        .with_message_order(order);
    let mut starts = Vec::new();
    for rig in 0..shape.rigs {
        let mailboxes: Vec<Mailbox<Bumper>> = (0..shape.models)
            .map(|_| Mailbox::with_capacity(shape.capacity()))
            .collect();
        for ball in 0..shape.balls {
            starts.push(mailboxes[shape.start(ball)].address());
        }
        let bumpers: Vec<Bumper> = (0..shape.models)
            .map(|me| bumper(rig, me, &mailboxes, total))
            .collect();
        for (me, (bumper, mailbox)) in bumpers.into_iter().zip(mailboxes).enumerate() {
            init = init.add_model(bumper, mailbox, format!("r{rig}m{me}"));
        }
    }
    (init.init(SimTime::ZERO).expect("pinball init"), starts)
}

/// Model `me` of `rig`, wired to every other model of the rig.
fn bumper(rig: usize, me: usize, mailboxes: &[Mailbox<Bumper>], total: &Arc<AtomicU64>) -> Bumper {
    let peers = mailboxes
        .iter()
        .enumerate()
        .map(|(i, mailbox)| {
            let mut output = Output::new();
            if i != me {
                output.connect(Bumper::ports().ball, mailbox);
            }
            output
        })
        .collect();
    Bumper {
        peers,
        me,
        rng: Xorshift64::for_model(rig, me),
        hops: Tally::new(total),
    }
}
