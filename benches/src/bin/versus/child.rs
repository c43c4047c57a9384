//! Child mode: run one workload once and print one JSON line.

use std::process::ExitCode;

use serde_json::json;

use crate::args::One;

/// Runs `one` and prints its sample as JSON on stdout.
pub fn run(one: &One) -> ExitCode {
    let sample = one.workload.run(one.engine, one.threads, &one.params);
    let line = json!({
        "events": sample.events,
        "elapsed_ns": sample.elapsed.as_nanos() as u64,
        "build_ns": sample.build.map(|b| b.as_nanos() as u64),
        "bytes_per_model": sample.bytes_per_model,
        "bytes_per_model_after_event": sample.bytes_per_model_after_event,
    });
    println!("{line}");
    ExitCode::SUCCESS
}
