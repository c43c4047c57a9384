//! How a save reaches a saveable model (feature `save`): directly in the
//! cell its task runs it from, between steps. These are the cases where
//! that could go wrong — many saves and restores of a bench that keeps
//! running, and a thread outside the simulation sending to a model while
//! the bench is being saved, which on several threads has a worker poll
//! that model's task during the save — on 1 and 4 threads. Small enough
//! for Miri (`.ci/miri` runs this file), which checks the accesses.
//!
//! Not in the executor matrix: each test runs its benches on both thread
//! counts itself.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Waker};

use causim::prelude::*;

/// A model whose state is what it was sent.
#[model(save)]
#[derive(Debug)]
pub struct Tally {
    /// The sum of what it was sent.
    total: u64,
    /// How many messages it got.
    count: u64,
}

#[model(save)]
impl Tally {
    #[input]
    pub fn add(&mut self, n: u64) {
        self.total += n;
        self.count += 1;
    }

    #[replier]
    pub fn read(&mut self) -> (u64, u64) {
        (self.total, self.count)
    }
}

/// A bench of `n` tallies on `threads` threads, and their addresses.
fn bench(n: usize, threads: usize) -> (SimInit, Vec<Address<Tally>>) {
    let mut init = SimInit::new().with_threads(threads);
    let mut addresses = Vec::new();
    for i in 0..n {
        let mailbox = Mailbox::new();
        addresses.push(mailbox.address());
        init = init.add_model(Tally { total: 0, count: 0 }, mailbox, format!("tally{i}"));
    }
    (init, addresses)
}

/// Each tally's (total, count).
fn read_all(simu: &mut Simulation, tallies: &[Address<Tally>]) -> Vec<(u64, u64)> {
    tallies
        .iter()
        .map(|t| simu.process_query(Tally::ports().read, (), t).unwrap())
        .collect()
}

/// Saves between steps again and again while the bench runs; each
/// snapshot, restored, has the state of the moment it was taken.
#[test]
fn saves_between_steps_hold_the_state_of_their_moment() {
    for threads in [1, 4] {
        let (init, tallies) = bench(3, threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        for round in 0..4u64 {
            for (i, tally) in tallies.iter().enumerate() {
                let at = Duration::from_millis(round * 10 + i as u64 + 1);
                let scheduler = simu.scheduler();
                scheduler
                    .schedule(at, Tally::ports().add, round + 1, tally)
                    .unwrap();
            }
            simu.step_until(SimTime::from_millis(round * 10 + 5))
                .unwrap();
            let expected = read_all(&mut simu, &tallies);
            let mut snapshot = Vec::new();
            simu.save(&mut snapshot).unwrap();
            let (init, restored_tallies) = bench(3, threads);
            let mut restored = init.restore(snapshot.as_slice()).unwrap();
            assert_eq!(
                read_all(&mut restored, &restored_tallies),
                expected,
                "{threads} threads, round {round}"
            );
        }
    }
}

/// Polls `send` with a waker that does nothing until it completes (the
/// sender is a thread outside the simulation, with no executor).
fn send_from_outside(output: &mut Output<u64>, value: u64) {
    let mut send = std::pin::pin!(output.send(value));
    let mut cx = TaskContext::from_waker(Waker::noop());
    while send.as_mut().poll(&mut cx) == Poll::Pending {
        std::thread::yield_now();
    }
}

/// A thread outside the simulation sends to a model while the bench is
/// saved over and over: each save either sees the model idle or refuses
/// it as busy, never reads it while its task runs; every message arrives.
#[test]
fn a_send_from_outside_during_saves_is_never_seen_half_done() {
    let saves = if cfg!(miri) { 3 } else { 300 };
    for threads in [1, 4] {
        let (init, tallies) = bench(2, threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        let mut output = Output::new();
        output.connect(Tally::ports().add, &tallies[0]);
        let saving = Arc::new(AtomicBool::new(true));
        // Sends until the saves are over; returns how many it sent.
        let sender = {
            let saving = saving.clone();
            std::thread::spawn(move || {
                let mut sent = 0;
                while saving.load(Ordering::Acquire) {
                    send_from_outside(&mut output, 1);
                    sent += 1;
                }
                sent
            })
        };
        let mut busy = 0;
        for _ in 0..saves {
            let mut snapshot = Vec::new();
            match simu.save(&mut snapshot) {
                Ok(()) => {
                    let (init, restored_tallies) = bench(2, threads);
                    let mut restored = init.restore(snapshot.as_slice()).unwrap();
                    let (total, count) = read_all(&mut restored, &restored_tallies)[0];
                    assert_eq!(total, count, "a tally restored half-updated");
                }
                Err(causim::snapshot::SaveError::State { model, .. }) => {
                    assert_eq!(model, "tally0");
                    busy += 1;
                }
                Err(other) => panic!("{other}"),
            }
            // On one thread, the sent messages move only while the bench
            // runs its models (the mailbox holds 16): a query does. On
            // several, the workers take them between calls, which is the
            // case under test (a bench call racing sends from outside is
            // not: the injector is the way to send while a bench runs).
            if threads == 1 {
                simu.process_query(Tally::ports().read, (), &tallies[1])
                    .unwrap();
            }
        }
        saving.store(false, Ordering::Release);
        // On one thread the sender may wait for room: let the models run
        // until it is done.
        while threads == 1 && !sender.is_finished() {
            simu.process_query(Tally::ports().read, (), &tallies[1])
                .unwrap();
            std::thread::yield_now();
        }
        let sent = sender.join().unwrap();
        simu.process_query(Tally::ports().read, (), &tallies[1])
            .unwrap();
        let tally = read_all(&mut simu, &tallies)[0];
        assert_eq!(
            tally,
            (sent, sent),
            "{threads} threads, {busy} saves refused"
        );
    }
}
