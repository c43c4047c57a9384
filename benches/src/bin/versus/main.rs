//! `versus`: every engine on every workload, interleaved, each repetition
//! in its own process; prints a markdown table and JSON lines.
//!
//! ```text
//! cargo run --release -p causim-benches --bin versus -- [--quick] [--reps N]
//!     [--only WORKLOAD[,WORKLOAD…]] [--plot FILE.svg] [--json FILE]
//! cargo run --release -p causim-benches --bin versus -- --replot FILE.jsonl --plot FILE.svg
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
    match (&args.one, &args.replot) {
        (Some(one), _) => child::run(one),
        (None, Some(jsonl)) => replot(jsonl, args.plot.as_deref()),
        (None, None) => runner::run(&args),
    }
}

/// Redraws the plot of an earlier run from its JSON lines.
fn replot(jsonl: &str, svg: Option<&str>) -> ExitCode {
    let result = std::fs::read_to_string(jsonl)
        .map_err(|e| format!("{jsonl}: {e}"))
        .and_then(|text| plot::bars_from_json(&text))
        .and_then(|bars| {
            let svg = svg.ok_or("--replot needs --plot FILE.svg")?;
            std::fs::write(svg, plot::svg(&bars)).map_err(|e| format!("{svg}: {e}"))
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("versus: {message}");
            ExitCode::FAILURE
        }
    }
}
