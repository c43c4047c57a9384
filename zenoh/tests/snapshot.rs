//! Coordinated save and restore: every process saves its own snapshot at
//! the same point; restored, each from its own, they continue exactly as
//! the uninterrupted run. Wrong snapshots are refused, naming why.

#[path = "support/random_bench.rs"]
#[allow(dead_code)] // shared by the tests, each using a part
mod random_bench;

use std::collections::BTreeMap;
use std::time::Duration;

use causim::prelude::*;
use causim_zenoh::{InMemory, PartitionRunner, Solo, Transport};
use random_bench::{bench, deployment, first_difference, Line, Logs};

/// The save time and the end of the runs.
const SAVE: u64 = 120;
const END: u64 = 400;

/// Runs every process of `deployment(processes)` in a thread with `body`,
/// returning their results in process order.
fn in_processes<R: Send>(
    processes: usize,
    body: impl Fn(usize, Box<dyn Transport>) -> R + Sync,
) -> Vec<R> {
    if processes == 1 {
        return vec![body(0, Box::new(Solo))];
    }
    let transports = InMemory::connect(processes, Duration::from_secs(20));
    std::thread::scope(|scope| {
        let handles: Vec<_> = transports
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                let body = &body;
                scope.spawn(move || body(i, Box::new(t)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Runs bench `seed` to `SAVE`, saves every process, restores each into a
/// fresh bench and runs to `END`: the logs of both halves, per node.
fn saved_and_restored(seed: u64, processes: usize) -> BTreeMap<String, Vec<Line>> {
    let before = Logs::default();
    let first = bench(seed, 4, &before);
    let snapshots: Vec<Vec<u8>> = in_processes(processes, |i, transport| {
        let hosted = first.host(&deployment(processes), i).unwrap();
        let mut runner: PartitionRunner = hosted.init(SimTime::ZERO, transport).unwrap();
        runner.run_until(SimTime::from_nanos(SAVE)).unwrap();
        let mut snapshot = Vec::new();
        runner.save(&mut snapshot).unwrap();
        snapshot
    });
    let after = Logs::default();
    let second = bench(seed, 4, &after);
    in_processes(processes, |i, transport| {
        let hosted = second.host(&deployment(processes), i).unwrap();
        let mut runner = hosted.restore(snapshots[i].as_slice(), transport).unwrap();
        assert_eq!(runner.time(), SimTime::from_nanos(SAVE));
        runner.run_until(SimTime::from_nanos(END)).unwrap();
    });
    let mut logs = std::mem::take(&mut *before.lock().unwrap());
    for (node, lines) in std::mem::take(&mut *after.lock().unwrap()) {
        logs.entry(node).or_default().extend(lines);
    }
    logs
}

/// The uninterrupted run of one process.
fn uninterrupted(seed: u64) -> BTreeMap<String, Vec<Line>> {
    let logs = Logs::default();
    let hosted = bench(seed, 4, &logs).host(&deployment(1), 0).unwrap();
    let mut runner = hosted.init(SimTime::ZERO, Solo).unwrap();
    runner.run_until(SimTime::from_nanos(END)).unwrap();
    let logs = std::mem::take(&mut *logs.lock().unwrap());
    logs
}

#[test]
fn restored_processes_continue_as_the_uninterrupted_run() {
    for seed in 0..8 {
        let reference = uninterrupted(seed);
        for processes in [1, 2, 4] {
            let logs = saved_and_restored(seed, processes);
            if let Some(difference) = first_difference(&reference, &logs) {
                panic!("seed {seed}, {processes} process(es), saved at {SAVE} ns: {difference}");
            }
        }
    }
}

/// Process 0's snapshot of a 2-process run of bench 1, saved at `SAVE`.
fn snapshot_of_process_0() -> Vec<u8> {
    let logs = Logs::default();
    let bench = bench(1, 4, &logs);
    in_processes(2, |i, transport| {
        let hosted = bench.host(&deployment(2), i).unwrap();
        let mut runner = hosted.init(SimTime::ZERO, transport).unwrap();
        runner.run_until(SimTime::from_nanos(SAVE)).unwrap();
        let mut snapshot = Vec::new();
        runner.save(&mut snapshot).unwrap();
        snapshot
    })
    .swap_remove(0)
}

/// The error of restoring `bytes` as process `process` of 2 of bench `seed`.
fn restore_error(seed: u64, process: usize, bytes: &[u8]) -> String {
    let logs = Logs::default();
    let hosted = bench(seed, 4, &logs).host(&deployment(2), process).unwrap();
    let mut transports = InMemory::connect(2, Duration::from_secs(1));
    let transport = transports.swap_remove(process);
    match hosted.restore(bytes, transport) {
        Ok(_) => panic!("the restore should fail"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn wrong_snapshots_are_refused_naming_why() {
    let snapshot = snapshot_of_process_0();
    assert_eq!(
        restore_error(1, 1, &snapshot),
        "partition snapshot: saved by process 0, restored as process 1"
    );
    assert!(restore_error(2, 0, &snapshot).contains("saved from another bench or deployment"));
    assert!(restore_error(1, 0, &snapshot[..5]).contains("truncated header"));
    assert!(
        restore_error(1, 0, b"not a snapshot at all, just some bytes")
            .contains("not a partition's snapshot")
    );
    let error = restore_error(1, 0, &snapshot[..snapshot.len() - 3]);
    assert!(
        error.starts_with("restore: "),
        "the simulation's own check: {error}"
    );
}

#[test]
fn random_and_cut_bytes_are_errors_not_panics() {
    let snapshot = snapshot_of_process_0();
    let mut state = 0x5eed_u64;
    for cut in (0..snapshot.len()).step_by(7) {
        restore_error(1, 0, &snapshot[..cut]);
    }
    for _ in 0..200 {
        let mut bytes = snapshot.clone();
        for _ in 0..4 {
            state = random_bench::Mix(state).next();
            let at = (state % bytes.len() as u64) as usize;
            bytes[at] ^= (state >> 32) as u8 | 1;
        }
        let logs = Logs::default();
        let hosted = bench(1, 4, &logs).host(&deployment(2), 0).unwrap();
        let mut transports = InMemory::connect(2, Duration::from_millis(1));
        // The header and the simulation's snapshot each have a CRC-32: every
        // corruption is an error.
        assert!(hosted
            .restore(bytes.as_slice(), transports.swap_remove(0))
            .is_err());
    }
}
