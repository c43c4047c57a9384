//! A partitioned bench runs the same in every deployment: all partitions
//! in one process, or spread over 2 or 4 processes (threads exchanging in
//! memory here; over Zenoh in `zenoh.rs`), each process on 1, 2 or 4
//! threads.

#[path = "support/random_bench.rs"]
#[allow(dead_code)] // shared by the tests, each using a part
mod random_bench;

use std::collections::BTreeMap;
use std::time::Duration;

use causim::prelude::*;
use causim_zenoh::{InMemory, PartitionRunner, Solo, WindowStats};
use random_bench::{
    bench_with_addresses, deployment, drive, drive_with_bench_events, first_difference, Addresses,
    Line, Logs,
};

/// How a test drives each process's runner.
#[derive(Clone, Copy)]
enum Driving {
    /// To each end of `END`.
    Plain,
    /// The same, scheduling bench events between the two calls.
    WithBenchEvents,
}

/// Every node's log of bench `seed` run under `processes` processes of
/// `threads` threads each, and the runners' counts.
fn run(
    seed: u64,
    processes: usize,
    threads: usize,
    driving: Driving,
) -> (BTreeMap<String, Vec<Line>>, Vec<WindowStats>) {
    let logs = Logs::default();
    let addresses = Addresses::default();
    let mut bench = bench_with_addresses(seed, 4, &logs, &addresses);
    bench.configure(move |init| init.with_threads(threads));
    let deployment = deployment(processes);
    let drive = |runner: &mut PartitionRunner| match driving {
        Driving::Plain => drive(runner),
        Driving::WithBenchEvents => drive_with_bench_events(runner, &addresses, seed),
    };
    let stats = if processes == 1 {
        let hosted = bench.host(&deployment, 0).expect("a valid bench");
        vec![drive(
            &mut hosted.init(SimTime::ZERO, Solo).expect("starts"),
        )]
    } else {
        let transports = InMemory::connect(processes, Duration::from_secs(20));
        std::thread::scope(|scope| {
            let handles: Vec<_> = transports
                .into_iter()
                .enumerate()
                .map(|(process, transport)| {
                    let (bench, deployment, drive) = (&bench, &deployment, &drive);
                    scope.spawn(move || {
                        let hosted = bench.host(deployment, process).expect("a valid bench");
                        drive(&mut hosted.init(SimTime::ZERO, transport).expect("starts"))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("no panic"))
                .collect()
        })
    };
    let logs = std::mem::take(&mut *logs.lock().unwrap());
    (logs, stats)
}

#[test]
fn every_deployment_on_any_number_of_threads_logs_the_same_as_one_process_on_one_thread() {
    same_logs_in_every_deployment(Driving::Plain);
}

/// Bench events scheduled between two `run_until` calls, at the times link
/// messages arrive, fall after every message sent up to the first call's
/// end in every deployment (each call ends with an exchange).
#[test]
fn bench_events_scheduled_between_runs_keep_their_place_in_every_deployment() {
    same_logs_in_every_deployment(Driving::WithBenchEvents);
}

/// Runs 24 seeds under every deployment and thread count, comparing each
/// with one process on one thread.
fn same_logs_in_every_deployment(driving: Driving) {
    let mut crossed = 0;
    for seed in 0..24 {
        let (reference, stats) = run(seed, 1, 1, driving);
        let lines: usize = reference.values().map(Vec::len).sum();
        assert!(
            lines > 10,
            "seed {seed}: a bench that does something ({lines} lines)"
        );
        crossed += stats[0].received;
        for (processes, threads) in [(1, 2), (1, 4), (2, 1), (2, 2), (4, 1), (4, 4)] {
            let (logs, stats) = run(seed, processes, threads, driving);
            if let Some(difference) = first_difference(&reference, &logs) {
                panic!(
                    "seed {seed}: {processes} process(es) of {threads} thread(s) differ from \
                     one process of one thread: {difference}"
                );
            }
            let sent: u64 = stats.iter().map(|s| s.sent).sum();
            let received: u64 = stats.iter().map(|s| s.received).sum();
            assert_eq!(
                sent, received,
                "seed {seed}: every link message delivered once"
            );
        }
    }
    assert!(crossed > 100, "messages crossed links ({crossed})");
}
