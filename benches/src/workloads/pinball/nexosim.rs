//! Pinball on NeXosim 1.0.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use nexosim::model::Model;
use nexosim::ports::{EventSource, Output};
use nexosim::simulation::{EventId, Mailbox, SimInit, Simulation};
use nexosim::time::MonotonicTime;
use serde::{Deserialize, Serialize};

use super::Shape;
use crate::measure::time;
use crate::rng::Xorshift64;
use crate::workloads::tally::{self, Tally};

/// A model that passes every ball it gets to a random peer.
#[derive(Serialize, Deserialize)]
pub struct Bumper {
    /// One output per model of the rig; its own is left unconnected.
    peers: Vec<Output<u64>>,
    /// Its index in the rig.
    me: usize,
    rng: Xorshift64,
    #[serde(skip)]
    hops: Tally,
}

#[Model]
impl Bumper {
    /// Counts the ball and, if it has hops left, passes it on.
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
pub fn run(shape: &Shape, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let (mut simu, starts) = build(shape, threads, &total);
    let scheduler = simu.scheduler();
    for ball in 0..shape.rigs * shape.balls {
        let source = &starts[ball / shape.balls][shape.start(ball % shape.balls)];
        scheduler
            .schedule_event(Duration::from_secs(1), source, shape.hops_per_ball)
            .expect("t1 is in the future");
    }
    let (result, elapsed) = time(|| simu.step());
    result.expect("pinball step");
    drop(simu);
    (tally::read(&total), elapsed)
}

/// The bench and, per rig, one event source per model to start balls.
fn build(
    shape: &Shape,
    threads: usize,
    total: &Arc<AtomicU64>,
) -> (Simulation, Vec<Vec<EventId<u64>>>) {
    let mut init = SimInit::with_num_threads(threads);
    let mut starts = Vec::new();
    for rig in 0..shape.rigs {
        let mailboxes: Vec<Mailbox<Bumper>> = (0..shape.models)
            .map(|_| Mailbox::with_capacity(shape.capacity()))
            .collect();
        let sources = mailboxes
            .iter()
            .map(|mailbox| {
                EventSource::new()
                    .connect(Bumper::ball, mailbox)
                    .register(&mut init)
            })
            .collect();
        starts.push(sources);
        let bumpers: Vec<Bumper> = (0..shape.models)
            .map(|me| bumper(rig, me, &mailboxes, total))
            .collect();
        for (me, (bumper, mailbox)) in bumpers.into_iter().zip(mailboxes).enumerate() {
            init = init.add_model(bumper, mailbox, &format!("r{rig}m{me}"));
        }
    }
    let simu = init.init(MonotonicTime::EPOCH).expect("pinball init");
    (simu, starts)
}

/// Model `me` of `rig`, wired to every other model of the rig.
fn bumper(rig: usize, me: usize, mailboxes: &[Mailbox<Bumper>], total: &Arc<AtomicU64>) -> Bumper {
    let peers = mailboxes
        .iter()
        .enumerate()
        .map(|(i, mailbox)| {
            let mut output = Output::new();
            if i != me {
                output.connect(Bumper::ball, mailbox);
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
