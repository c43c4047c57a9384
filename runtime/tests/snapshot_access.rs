//! How a save reaches a saveable model (feature `save`): directly in the
//! cell its task runs it from, between steps. These are the cases where
//! that could go wrong — many saves and restores of a bench that keeps
//! running; a thread outside the simulation sending to a model while the
//! bench is being saved, which on several threads has a worker poll that
//! model's task during the save; messages sent from outside before a save
//! and not handled yet, or staged by the deterministic order; a state that
//! panics when read back; a bench larger than what a restore loads ahead
//! — on 1 and 4 threads. Small enough
//! for Miri (`.ci/miri` runs this file), which checks the accesses.
//!
//! Not in the executor matrix: each test runs its benches on both thread
//! counts itself.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Waker};

use causim::prelude::*;
use causim::snapshot::{RestoreError, SaveError};
use causim::MessageOrder;

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
        // Two saves under Miri, where each is slow.
        let rounds = if cfg!(miri) { 2 } else { 4 };
        for round in 0..rounds {
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

/// A bench of more models than a restore loads ahead (each model's cell
/// sixteen models ahead, each event's recipient sixteen events ahead):
/// every state and pending event comes back, whether a helper thread
/// reads the events (one pending event per model), the states (one for a
/// few models) or nothing, and the accesses of those loops (and of the
/// two threads) are checked under Miri.
#[test]
fn a_bench_larger_than_the_restores_look_ahead_comes_back_whole() {
    const MODELS: usize = 20;
    for (threads, pending) in [(1, MODELS), (2, MODELS), (4, MODELS), (2, 3)] {
        let (init, tallies) = bench(MODELS, threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        for (i, tally) in tallies.iter().enumerate() {
            let n = i as u64 + 1;
            simu.process_event(Tally::ports().add, n, tally).unwrap();
            if i >= pending {
                continue;
            }
            // One pending event each, in the reverse of the add order.
            let at = Duration::from_millis(1 + (MODELS - i) as u64);
            simu.scheduler()
                .schedule(at, Tally::ports().add, 100 * n, tally)
                .unwrap();
        }
        let mut snapshot = Vec::new();
        simu.save(&mut snapshot).unwrap();
        simu.step_until(SimTime::from_millis(30)).unwrap();
        let expected = read_all(&mut simu, &tallies);
        let topology = simu.topology();

        for parallel in [false, true] {
            let (init, restored_tallies) = bench(MODELS, threads);
            let init = init.with_parallel_restore(parallel);
            let mut restored = init.restore_bytes(&snapshot).unwrap();
            let states = read_all(&mut restored, &restored_tallies);
            let saved: Vec<(u64, u64)> = (1..=MODELS as u64).map(|n| (n, 1)).collect();
            let case = format!("{threads} threads, {pending} events, parallel restore {parallel}");
            assert_eq!(states, saved, "{case}: the states");
            // Taken from the bench for the restore, and given back.
            assert_eq!(restored.topology(), topology, "{case}: the topology");
            restored.step_until(SimTime::from_millis(30)).unwrap();
            assert_eq!(
                read_all(&mut restored, &restored_tallies),
                expected,
                "{case}: the pending events"
            );
        }
    }
}

/// A message sent from outside to a bench built again, before it is
/// restored, is handled after the model's state is back, on the restored
/// state, whichever thread reads that state (on several threads, a
/// restore spawns the tasks while the states are read back: the task of
/// a model with a message waiting must not be polled before).
#[test]
fn a_message_sent_before_a_restore_is_handled_on_the_restored_state() {
    let models = if cfg!(miri) { 20 } else { 3000 };
    let target = models / 2;
    for threads in [1, 2, 4] {
        let (init, tallies) = bench(models, threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        simu.process_event(Tally::ports().add, 12, &tallies[target])
            .unwrap();
        let mut snapshot = Vec::new();
        simu.save(&mut snapshot).unwrap();
        // A few rounds: the race it guards against is a matter of timing.
        let rounds = if cfg!(miri) { 1 } else { 10 };
        for round in 0..rounds {
            let (init, tallies) = bench(models, threads);
            let mut output = Output::new();
            output.connect(Tally::ports().add, &tallies[target]);
            send_from_outside(&mut output, 5);
            let init = init.with_parallel_restore(true);
            let mut restored = init.restore_bytes(&snapshot).unwrap();
            let read = restored.process_query(Tally::ports().read, (), &tallies[target]);
            assert_eq!(read.unwrap(), (17, 2), "{threads} threads, round {round}");
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
                Err(SaveError::State { model, .. }) => {
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

/// Saves `simu`, stepping (a query to `other`) while the save is refused
/// because of what a thread outside the simulation sent since the last
/// call; returns the snapshot and how many saves were refused.
fn save_once_settled(simu: &mut Simulation, other: &Address<Tally>) -> (Vec<u8>, usize) {
    let mut refused = 0;
    loop {
        let mut snapshot = Vec::new();
        match simu.save(&mut snapshot) {
            Ok(()) => return (snapshot, refused),
            Err(SaveError::State { error, .. })
                if error.message.contains("wait in its mailbox") => {}
            Err(SaveError::State { error, .. }) if error.message.contains("middle of a method") => {
            }
            Err(SaveError::Staged { .. }) => {}
            Err(other) => panic!("{other}"),
        }
        refused += 1;
        simu.process_query(Tally::ports().read, (), other).unwrap();
    }
}

/// A message sent from outside the simulation between steps and not
/// handled yet (on one thread it waits for the next call) is not lost by a
/// save: the save refuses, naming the model, until a call has handled it.
#[test]
fn a_message_sent_from_outside_is_handled_before_a_save_succeeds() {
    for threads in [1, 4] {
        let (init, tallies) = bench(2, threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        let mut output = Output::new();
        output.connect(Tally::ports().add, &tallies[0]);
        send_from_outside(&mut output, 7);
        let (snapshot, refused) = save_once_settled(&mut simu, &tallies[1]);
        if threads == 1 {
            assert_eq!(
                refused, 1,
                "the message waits for the next call on one thread"
            );
        }
        let (init, restored_tallies) = bench(2, threads);
        let mut restored = init.restore(snapshot.as_slice()).unwrap();
        assert_eq!(
            read_all(&mut restored, &restored_tallies)[0],
            (7, 1),
            "{threads} threads"
        );
        assert_eq!(
            read_all(&mut simu, &tallies)[0],
            (7, 1),
            "{threads} threads"
        );
    }
}

/// Sends relayed by every `Relay` so far (the test waits on it).
static RELAYED: AtomicU64 = AtomicU64::new(0);

/// Forwards what it gets to a tally.
#[model(save)]
#[derive(Debug)]
pub struct Relay {
    /// Where it forwards.
    pub out: Output<u64>,
    /// How many it forwarded.
    relayed: u64,
}

#[model(save)]
impl Relay {
    #[input]
    pub async fn add(&mut self, n: u64) {
        self.relayed += 1;
        self.out.send(n).await;
        RELAYED.fetch_add(1, Ordering::SeqCst);
    }
}

/// In the deterministic order, what a model sends while handling a
/// message from outside is staged until the bench settles: a save refuses
/// (`SaveError::Staged`) rather than lose it, until a call delivers it.
#[test]
fn messages_staged_since_the_last_call_are_not_lost_by_a_save() {
    let bench = |threads| {
        let (relay_box, tally_box) = (Mailbox::new(), Mailbox::new());
        let (relay, tally) = (relay_box.address(), tally_box.address());
        let mut model = Relay {
            out: Output::new(),
            relayed: 0,
        };
        model.out.connect(Tally::ports().add, &tally);
        let init = SimInit::new()
            .with_threads(threads)
            .with_message_order(MessageOrder::Deterministic)
            .add_model(model, relay_box, "relay")
            .add_model(Tally { total: 0, count: 0 }, tally_box, "tally");
        (init, relay, tally)
    };
    // On one thread the relay waits for the next call: the save refuses
    // its waiting message. On four, a worker runs it between calls: the
    // save refuses what it staged.
    for threads in [1, 4] {
        let (init, relay, tally) = bench(threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        let mut output = Output::new();
        output.connect(Relay::ports().add, &relay);
        let before = RELAYED.load(Ordering::SeqCst);
        send_from_outside(&mut output, 3);
        if threads > 1 {
            while RELAYED.load(Ordering::SeqCst) == before {
                std::thread::yield_now();
            }
        }
        let refused = simu.save(&mut Vec::new()).unwrap_err();
        match (&refused, threads) {
            (SaveError::State { model, error }, 1) => {
                assert_eq!(model, "relay");
                assert!(error.message.contains("wait in its mailbox"), "{refused}");
            }
            (SaveError::Staged { messages: 1 }, 4) => {}
            // The worker may not have left the method yet.
            (SaveError::State { model, error }, 4) if model == "relay" => {
                assert!(error.message.contains("middle of a method"), "{refused}");
            }
            _ => panic!("{threads} threads: {refused}"),
        }
        // A call delivers it; the next save holds it.
        let (snapshot, _) = save_once_settled(&mut simu, &tally);
        let (init, _, restored_tally) = bench(threads);
        let mut restored = init.restore(snapshot.as_slice()).unwrap();
        let read =
            |simu: &mut Simulation, tally| simu.process_query(Tally::ports().read, (), tally);
        assert_eq!(
            read(&mut restored, &restored_tally).unwrap(),
            (3, 1),
            "{threads} threads"
        );
        assert_eq!(
            read(&mut simu, &tally).unwrap(),
            (3, 1),
            "{threads} threads"
        );
    }
}

/// A value whose deserialisation panics.
#[derive(Debug, Default, serde::Serialize)]
pub struct Brittle;

impl<'de> serde::Deserialize<'de> for Brittle {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        panic!("cannot read this back")
    }
}

/// A model with a state that cannot be read back.
#[model(save)]
#[derive(Debug)]
pub struct Fragile {
    /// Its state.
    part: Brittle,
}

#[model(save)]
impl Fragile {}

/// A panicking `Deserialize` impl is a `RestoreError` naming the model,
/// not a panic of `restore`.
#[test]
fn a_panicking_deserialisation_fails_the_restore() {
    let bench = || SimInit::new().add_model(Fragile { part: Brittle }, Mailbox::new(), "fragile");
    let mut snapshot = Vec::new();
    bench()
        .init(SimTime::ZERO)
        .unwrap()
        .save(&mut snapshot)
        .unwrap();
    let error = bench().restore(snapshot.as_slice()).unwrap_err();
    assert!(
        matches!(&error, RestoreError::State { model, error } if model == "fragile" && error.message.contains("cannot read this back")),
        "{error}"
    );
}
