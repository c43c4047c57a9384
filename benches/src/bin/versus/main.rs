//! `versus`: every engine on every workload, interleaved, each repetition
//! in its own process; prints a markdown table and JSON lines.
//!
//! ```text
//! cargo run --release -p causim-benches --bin versus -- [--quick] [--reps N]
//!     [--only WORKLOAD[,WORKLOAD…]] [--plot FILE.svg] [--json FILE]
//! ```
//!
//! Each repetition runs in a fresh child process (this binary re-executed
//! with `--one WORKLOAD ENGINE THREADS PARAMS`), so no engine inherits
//! another's heap, threads or warm caches, and resident memory is that of
//! one bench. Repetitions are interleaved — A, B, C, A, B, C, … — so a
//! change in machine load hits every engine alike.

mod args;
mod child;
mod plot;
mod report;
mod runner;
mod stats;
mod targets;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match args::Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("versus: {message}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    match args.one {
        Some(one) => child::run(&one),
        None => runner::run(&args),
    }
}
