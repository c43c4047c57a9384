//! Every workload at a tiny size on every engine and thread count: the
//! event counts must be exact (each run checks them and panics if not).
//!
//! This keeps the benchmark code honest under `cargo test --workspace`
//! without timing anything.

use causim_benches::{Engine, Params, Workload};

/// A tiny parameter set for `workload`.
fn tiny(workload: Workload) -> Vec<Params> {
    match workload {
        Workload::Dispatch => vec![Params::of(&[("models", 5), ("hops", 1_000)])],
        Workload::Fanin => [16, 0]
            .into_iter()
            .map(|capacity| Params::of(&[("senders", 200), ("capacity", capacity)]))
            .collect(),
        Workload::Pinball => [1, 7, 41]
            .into_iter()
            .map(|balls| {
                Params::of(&[("rigs", 3), ("models", 13), ("balls", balls), ("hops", 500)])
            })
            .collect(),
        Workload::Ring => vec![Params::of(&[("models", 10), ("hops", 1_000)])],
        Workload::SchedChain => vec![Params::of(&[("steps", 200)])],
        Workload::SchedDrain => vec![Params::of(&[("events", 300)])],
        Workload::SchedAligned | Workload::SchedStaggered => {
            vec![Params::of(&[("models", 20), ("until_s", 10)])]
        }
        Workload::SchedHold => [0, 1]
            .into_iter()
            .map(|dist| Params::of(&[("pending", 50), ("holds", 500), ("dist", dist)]))
            .collect(),
        Workload::Scale => vec![Params::of(&[("models", 500)])],
    }
}

/// Runs `workload` tiny on every engine and thread count it supports.
fn run_all(workload: Workload) {
    for params in tiny(workload) {
        for &engine in workload.engines() {
            for &threads in workload.threads() {
                let sample = workload.run(engine, threads, &params);
                assert!(sample.events > 0, "{workload} {engine} {threads}");
            }
        }
    }
}

#[test]
fn dispatch_counts_are_exact() {
    run_all(Workload::Dispatch);
}

#[test]
fn fanin_counts_are_exact() {
    run_all(Workload::Fanin);
}

#[test]
fn pinball_counts_are_exact() {
    run_all(Workload::Pinball);
}

#[test]
fn recorded_pinball_options_record_every_hop() {
    // The run checks that every hop was recorded once.
    for (reserve, probe) in [(1, 0), (0, 1), (1, 1)] {
        let params = Params::of(&[
            ("rigs", 3),
            ("models", 13),
            ("balls", 7),
            ("hops", 500),
            ("reserve", reserve),
            ("probe", probe),
        ]);
        for &threads in Workload::Pinball.threads() {
            let sample = Workload::Pinball.run(Engine::CausimRecorded, threads, &params);
            assert!(
                sample.events > 0,
                "reserve={reserve} probe={probe} {threads}"
            );
        }
    }
}

#[test]
fn ring_counts_are_exact() {
    run_all(Workload::Ring);
}

#[test]
fn scheduler_counts_are_exact() {
    for workload in [
        Workload::SchedChain,
        Workload::SchedDrain,
        Workload::SchedAligned,
        Workload::SchedStaggered,
        Workload::SchedHold,
    ] {
        run_all(workload);
    }
}

#[test]
fn scale_counts_are_exact() {
    run_all(Workload::Scale);
}

#[test]
fn staggered_expectation_is_right() {
    // 20 models, periods 1000..1019 ms, 10 s: each fires 9 times except
    // model 0 (period exactly 1 s), which fires 10 times.
    let plan = causim_benches::workloads::scheduler::Plan::of(
        Workload::SchedStaggered,
        &Params::of(&[("models", 20), ("until_s", 10)]),
    );
    assert_eq!(plan.expected(), 10 + 19 * 9);
}
