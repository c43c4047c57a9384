//! Pinball on causim with a recorder: every bumper also sends the ball it
//! got on an output tapped by a `causim-record` recorder, so that every
//! event of the workload records one sample (its simulation time and the
//! ball's hops left). The difference with plain causim, per hop, is the
//! cost of recording (target: at most 20 % of the hop time).
//!
//! Each bumper has its own series (a recorder per output, as a bench
//! records the outputs of its models), all in one recording per run.
//!
//! An output of its own rather than taps on the twelve outputs the bumper
//! already sends on: a tap is a line of memory of its own, and twelve per
//! model (9 516 in all) do not stay in cache, which cost more than the
//! extra send (`docs/benchmarks.md`, "Recording").
//!
//! Two options in the parameters, not in `versus`'s sets (given to
//! `versus --one`): `reserve=1` maps the memory of every sample before the
//! step (`Recording::reserve`), so that the step meets no page fault;
//! `probe=1` keeps the recorder's tap in the model and calls it directly
//! (`Tap::observe`) instead of sending on the extra output: the recorder's
//! own cost, without the send's.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use causim::prelude::*;
use causim::Tap;
use causim_record::{RecorderTap, Recording};

use super::Shape;
use crate::measure::time;
use crate::rng::Xorshift64;
use crate::workloads::tally::{self, Tally};

/// The bumper of `causim.rs`, with its balls recorded.
#[model]
pub struct RecordedBumper {
    /// One output per model of the rig; its own is left unconnected.
    peers: Vec<Output<u64>>,
    /// Every ball it gets, to its recorder's tap.
    seen: Output<u64>,
    /// With `probe=1`: the tap itself, called with every ball it gets.
    probe: Option<RecorderTap<u64>>,
    /// Its index in the rig.
    me: usize,
    rng: Xorshift64,
    hops: Tally,
}

#[model]
impl RecordedBumper {
    /// Counts and records the ball and, if it has hops left, passes it on.
    #[input]
    pub async fn ball(&mut self, left: u64) {
        self.hops.bump();
        match &mut self.probe {
            Some(probe) => probe.observe(&left),
            None => self.seen.send(left).await,
        }
        if left > 1 {
            let peer = self.rng.peer(self.me, self.peers.len());
            self.peers[peer].send(left - 1).await;
        }
    }
}

/// Builds the rigs, bounces every ball, checks that every hop was
/// recorded, and returns the hops counted and the time of the step.
pub fn run(shape: &Shape, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let init = SimInit::new().with_threads(threads);
    let recording = Recording::new(init.time_view());
    if shape.reserve {
        recording.reserve(shape.expected() as usize);
    }
    let (mut simu, starts) = build(init, &recording, shape, &total);
    let scheduler = simu.scheduler();
    let t1 = SimTime::from_secs(1);
    for address in &starts {
        scheduler
            .schedule(
                t1,
                RecordedBumper::ports().ball,
                shape.hops_per_ball,
                address,
            )
            .expect("t1 is in the future");
    }
    let (result, elapsed) = time(|| simu.step());
    result.expect("pinball step");
    drop(simu);
    let recorded: usize = recording.series().iter().map(|s| s.samples.len()).sum();
    let counted = tally::read(&total);
    assert_eq!(recorded as u64, counted, "every hop is recorded once");
    (counted, elapsed)
}

/// The bench and the address of each ball's first model.
fn build(
    mut init: SimInit,
    recording: &Recording,
    shape: &Shape,
    total: &Arc<AtomicU64>,
) -> (Simulation, Vec<Address<RecordedBumper>>) {
    let mut starts = Vec::new();
    for rig in 0..shape.rigs {
        let mailboxes: Vec<Mailbox<RecordedBumper>> = (0..shape.models)
            .map(|_| Mailbox::with_capacity(shape.capacity()))
            .collect();
        for ball in 0..shape.balls {
            starts.push(mailboxes[shape.start(ball)].address());
        }
        let bumpers: Vec<RecordedBumper> = (0..shape.models)
            .map(|me| bumper(rig, me, &mailboxes, total))
            .collect();
        for (me, (mut bumper, mailbox)) in bumpers.into_iter().zip(mailboxes).enumerate() {
            let name = format!("r{rig}m{me}");
            let recorder = recording.record::<u64>(format!("{name}/seen"));
            if shape.probe {
                bumper.probe = Some(recorder.tap());
            } else {
                bumper.seen.tap(recorder.tap());
            }
            init = init.add_model(bumper, mailbox, name);
        }
    }
    (init.init(SimTime::ZERO).expect("pinball init"), starts)
}

/// Model `me` of `rig`, wired to every other model of the rig.
fn bumper(
    rig: usize,
    me: usize,
    mailboxes: &[Mailbox<RecordedBumper>],
    total: &Arc<AtomicU64>,
) -> RecordedBumper {
    let peers = mailboxes
        .iter()
        .enumerate()
        .map(|(i, mailbox)| {
            let mut output = Output::new();
            if i != me {
                output.connect(RecordedBumper::ports().ball, mailbox);
            }
            output
        })
        .collect();
    RecordedBumper {
        peers,
        seen: Output::new(),
        probe: None,
        me,
        rng: Xorshift64::for_model(rig, me),
        hops: Tally::new(total),
    }
}
