// The integration suite, as modules, for the executor-matrix targets
// (`mt2.rs`, `mt4.rs`). Each file below is also a target of its own, run on
// the single-threaded executor; `common::threads()` reads the target name,
// so the same tests run here on 2 or 4 threads.
//
// Not here, because they are about the single-threaded executor only:
// - `alloc.rs`: counts allocations with a global allocator (one per binary,
//   and worker threads would blur the count);
// - `determinism.rs`: bit-identical traces are the deterministic mode's
//   promise, not the multi-threaded executor's;
// - `causal_props.rs`: runs every bench on 1, 2 and 4 threads itself;
// - `deterministic.rs`: the deterministic message order's promise is the
//   same outputs on 1, 2 and 4 threads, which it compares itself;
// - `macro_vs_hand.rs`: compares generated with hand-written models, not
//   executors (and builds its benches without `common::sim_init`);
// - `session.rs`: runs each live session on 1 and 2 threads itself and
//   replays it on the counts it compares (one, and two for the fan-in in
//   the deterministic message order);
// - `snapshot.rs`: saves on one thread count and restores on another,
//   each pair chosen by the test.
// `matrix_is_complete` (in `mt2.rs`) fails when a new test file is neither
// listed here nor above.

#[path = "../backpressure.rs"]
mod backpressure;
#[path = "../clock.rs"]
mod clock;
#[path = "../composites.rs"]
mod composites;
#[path = "../deadlock.rs"]
mod deadlock;
#[path = "../fan.rs"]
mod fan;
#[path = "../halt.rs"]
mod halt;
#[path = "../map.rs"]
mod map;
#[path = "../misaddressed.rs"]
mod misaddressed;
#[path = "../observe.rs"]
mod observe;
#[path = "../ordering.rs"]
mod ordering;
#[path = "../panic.rs"]
mod panic;
#[path = "../realtime.rs"]
mod realtime;
#[path = "../requests.rs"]
mod requests;
#[path = "../same_time.rs"]
mod same_time;
#[path = "../scheduling.rs"]
mod scheduling;
#[path = "../sources_sinks.rs"]
mod sources_sinks;
#[path = "../time.rs"]
mod time;
#[path = "../timeout.rs"]
mod timeout;
#[path = "../topology.rs"]
mod topology;
#[path = "../zero_delay.rs"]
mod zero_delay;

/// Test files that only make sense on the single-threaded executor, or are
/// not executor tests; plus the targets that are not suite files.
#[allow(dead_code)]
pub const NOT_IN_MATRIX: &[&str] = &[
    "alloc.rs",
    "causal_props.rs",
    "determinism.rs",
    "deterministic.rs",
    "leak.rs",
    "macro_vs_hand.rs",
    "mt2.rs",
    "mt4.rs",
    "session.rs",
    "snapshot.rs",
    "snapshot_access.rs",
    "stress.rs",
    "wake_threshold.rs",
];
