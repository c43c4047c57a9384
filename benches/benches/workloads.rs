//! The `versus` workloads under criterion, for profiling and for tracking
//! one engine over time: `cargo bench -p causim-benches [-- FILTER]`.
//!
//! Sizes are the `--quick` ones. Each iteration builds a fresh bench and
//! criterion times only the workload's measured section (`iter_custom`),
//! exactly what `versus` reports. Unlike `versus`, everything runs in one
//! process, so use `versus` for the comparison and this for a profiler
//! (`cargo bench -p causim-benches --no-run`, then run the bench binary
//! under `perf` or `valgrind --tool=callgrind` with a filter).

use std::time::Duration;

use causim_benches::{Threads, Workload};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

/// One group per workload; one benchmark per parameter set × engine ×
/// thread count.
fn workloads(c: &mut Criterion) {
    for workload in Workload::ALL {
        let mut group = c.benchmark_group(workload.name());
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(3));
        for params in workload.param_sets(true) {
            for &engine in workload.engines() {
                for &threads in workload.threads() {
                    let id = BenchmarkId::new(format!("{engine}/t{threads}"), &params);
                    group.bench_with_input(id, &params, |b, params| {
                        b.iter_custom(|iters| measure(workload, engine, threads, params, iters));
                    });
                }
            }
        }
        group.finish();
    }
}

/// The summed measured time of `iters` runs.
fn measure(
    workload: Workload,
    engine: causim_benches::Engine,
    threads: Threads,
    params: &causim_benches::Params,
    iters: u64,
) -> Duration {
    (0..iters)
        .map(|_| workload.run(engine, threads, params).elapsed)
        .sum()
}

criterion_group!(benches, workloads);
criterion_main!(benches);
