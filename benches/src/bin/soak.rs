//! `soak`: a long run of the soak bench (see `causim_benches::soak`) whose
//! resident memory must stay flat.
//!
//! ```text
//! cargo run --release -p causim-benches --bin soak -- [--threads N] [--events N] [--models N]
//!     [--max-seconds S]
//! ```
//!
//! Runs a ring of `--models` models (1000) on `--threads` threads (1) until
//! they have handled `--events` events (10⁹; `1e9` notation accepted):
//! periodic ticks, model-to-model messages, keyed watchdogs re-armed (the
//! old one cancelled) at every tick and keyed blips, half of them
//! cancelled. It samples resident memory about once a second and prints
//! events per second and resident memory at the start (bench built), after
//! the warm-up (the first tenth of the events, or of `--max-seconds`) and
//! at the end. It exits
//! with status 1 if memory is not flat after the warm-up: if any sample
//! after it exceeds the warm-up figure by more than [`TOLERANCE_BYTES`]
//! plus [`TOLERANCE_PERCENT`] of it.
//!
//! `--max-seconds` stops the run earlier, after `S` seconds of wall-clock
//! time, and reports what it ran (it says so). Not part of the test suite (`tests/soak.rs` runs a small version).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use causim_benches::soak::{resident_bytes, Soak};

/// Fixed allowance over the warm-up memory, bytes.
const TOLERANCE_BYTES: u64 = 4 << 20;
/// Proportional allowance over the warm-up memory, percent.
const TOLERANCE_PERCENT: u64 = 5;
/// Simulated periods run between two looks at the clock.
const CHUNK_PERIODS: u32 = 100;
/// Wall-clock time between two memory samples.
const SAMPLE_EVERY: Duration = Duration::from_secs(1);

/// The command line.
struct Args {
    /// Worker threads.
    threads: usize,
    /// Events to run.
    events: u64,
    /// Models in the ring.
    models: usize,
    /// Wall-clock limit of the run, if any.
    max_seconds: Option<u64>,
}

/// Parses a count, `1000000` or `1e6`.
fn count(text: &str) -> Result<u64, String> {
    if let Some((mantissa, exponent)) = text.split_once(['e', 'E']) {
        let mantissa: u64 = mantissa.parse().map_err(|e| format!("{text}: {e}"))?;
        let exponent: u32 = exponent.parse().map_err(|e| format!("{text}: {e}"))?;
        return 10u64
            .checked_pow(exponent)
            .and_then(|p| p.checked_mul(mantissa))
            .ok_or(format!("{text}: too large"));
    }
    text.parse().map_err(|e| format!("{text}: {e}"))
}

impl Args {
    /// Parses the arguments after the program name.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut parsed = Args {
            threads: 1,
            events: 1_000_000_000,
            models: 1000,
            max_seconds: None,
        };
        while let Some(arg) = args.next() {
            let value = args.next().ok_or(format!("{arg} needs a value"))?;
            match arg.as_str() {
                "--threads" => parsed.threads = count(&value)? as usize,
                "--events" => parsed.events = count(&value)?,
                "--models" => parsed.models = count(&value)? as usize,
                "--max-seconds" => parsed.max_seconds = Some(count(&value)?),
                _ => return Err(format!("unknown argument {arg}")),
            }
        }
        if parsed.threads == 0 || parsed.models < 2 {
            return Err("--threads must be at least 1, --models at least 2".into());
        }
        Ok(parsed)
    }
}

/// Memory figures of a run, bytes.
#[derive(Default)]
struct Memory {
    /// Once the bench is built.
    start: u64,
    /// At the end of the warm-up.
    warm: u64,
    /// The highest sample after the warm-up.
    peak_after_warm: u64,
    /// At the end.
    end: u64,
}

impl Memory {
    /// True if no sample after the warm-up went above the tolerance.
    fn is_flat(&self) -> bool {
        self.peak_after_warm <= self.limit()
    }

    /// The highest memory allowed after the warm-up.
    fn limit(&self) -> u64 {
        self.warm + TOLERANCE_BYTES + self.warm * TOLERANCE_PERCENT / 100
    }
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("soak: {message}\nusage: soak [--threads N] [--events N] [--models N] [--max-seconds S]");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("soak: {message}");
            ExitCode::from(2)
        }
    }
}

/// Runs the soak; true if memory stayed flat.
fn run(args: &Args) -> Result<bool, String> {
    let rss = || resident_bytes().ok_or("no /proc/self/status: cannot sample memory");
    let mut soak = Soak::new(args.models, args.threads).map_err(|e| e.to_string())?;
    let mut memory = Memory {
        start: rss()?,
        ..Memory::default()
    };
    let warm_up = args.events / 10;
    let (mut warm, mut samples) = (false, 0u64);
    let started = Instant::now();
    let deadline = args.max_seconds.map(|s| started + Duration::from_secs(s));
    // The warm-up also ends after a tenth of the time limit, if any.
    let warm_by = args
        .max_seconds
        .map(|s| started + Duration::from_secs(s) / 10);
    let mut last_sample = started;
    let cut_short = loop {
        soak.run_periods(CHUNK_PERIODS).map_err(|e| e.to_string())?;
        let events = soak.events();
        let out_of_time = deadline.is_some_and(|d| Instant::now() >= d);
        let done = events >= args.events || out_of_time;
        if last_sample.elapsed() < SAMPLE_EVERY && !done {
            continue;
        }
        last_sample = Instant::now();
        samples += 1;
        let now = rss()?;
        if samples % 60 == 0 {
            println!("  {events} events, resident {}", mib(now));
        }
        if !warm && (events >= warm_up || warm_by.is_some_and(|w| Instant::now() >= w)) {
            warm = true;
            memory.warm = now;
            println!("warm-up done: {events} events, resident {}", mib(now));
        } else if warm {
            memory.peak_after_warm = memory.peak_after_warm.max(now);
        }
        if done {
            memory.end = now;
            break events < args.events;
        }
    };
    let elapsed = started.elapsed();
    let events = soak.events();
    if cut_short {
        println!("stopped by --max-seconds before {} events", args.events);
    }
    println!(
        "soak: {} models, {} thread(s): {events} events in {:.1} s, {:.2} M events/s",
        args.models,
        args.threads,
        elapsed.as_secs_f64(),
        events as f64 / elapsed.as_secs_f64() / 1e6,
    );
    println!(
        "resident memory: start {}, after warm-up {}, end {}, peak after warm-up {} \
         (limit {}, {samples} samples); {} events still queued",
        mib(memory.start),
        mib(memory.warm),
        mib(memory.end),
        mib(memory.peak_after_warm),
        mib(memory.limit()),
        soak.simu.queued_events(),
    );
    if memory.is_flat() {
        println!("memory flat after warm-up: ok");
    } else {
        println!("memory NOT flat after warm-up");
    }
    Ok(memory.is_flat())
}

/// Bytes in MiB, for printing.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}
