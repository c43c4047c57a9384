//! `snapshot`: how fast a bench is saved and restored, and how big its
//! snapshot is.
//!
//! ```text
//! cargo run --release -p causim-benches --bin snapshot -- [--runs N] [--threads N] [--max-models N]
//!     [--models N --events N [--links N]] [--from-reader] [--serial]
//! ```
//!
//! Each row is a bench of `models` models of a few fields each (a counter,
//! a level, a mode, an optional mark) holding `events` pending events
//! between them, scheduled by the models at `init` (so each event has an
//! origin, a sequence number and a payload to save). Per run the bench is
//! built and started, then timed:
//!
//! - **save**: `Simulation::save` into a `Vec` (the bytes, in memory);
//! - **restore**: `SimInit::restore_bytes` of those bytes into the same
//!   bench built again (the building itself not timed), which checks the
//!   bench, starts it at the saved time and has every model read its state
//!   back: a fork's restore, from a snapshot read once (`--from-reader`:
//!   `SimInit::restore` of the bytes as a reader, which copies them first,
//!   as it would read a file); the events are read on a helper thread
//!   while the states are read back, as a restore does by default for a
//!   bench of 8 192 models or more on a machine of several cores
//!   (`--serial`: all on the calling thread,
//!   `SimInit::with_parallel_restore(false)`);
//! - **start**, for scale: `SimInit::init` of the same bench, which
//!   restore does too (it starts the bench's tasks), without the state.
//!
//! Every restore is checked: the time, one model's state, and the pending
//! events (the restored bench runs its first step and must deliver the
//! same events as the saved one). Prints the median and range of `--runs`
//! runs (5) and the throughput of the median, snapshot bytes per second.
//! `--models` with `--events` runs that one row instead (for a profiler);
//! `--links` gives each of its models an output connected to that many
//! others (the row's models are otherwise unconnected), so that the
//! checksums of the connections, which a bench's first save and every
//! restore compute, resolve real connections.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use causim::prelude::*;
use serde::{Deserialize, Serialize};

/// A mode, to save an enum among the fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Mode {
    /// Nothing received yet.
    Idle,
    /// Received at least one event.
    Busy,
    /// Received an event of an even payload last.
    Even,
}

/// A model of a few fields, saved whole.
#[model(save)]
struct Cell {
    /// Connected to `--links` other cells (never sent on: a port is not
    /// saved, its connections are checksummed).
    out: Output<u64>,
    /// Events scheduled at `init`, one second apart from `phase` seconds.
    events: u32,
    /// When its first event is due, s.
    phase: u32,
    /// A running total of the payloads.
    count: u64,
    /// A physical-looking quantity.
    level: f64,
    /// Its mode.
    mode: Mode,
    /// The last payload, if any.
    mark: Option<u32>,
}

#[model(save)]
impl Cell {
    /// Schedules this cell's pending events.
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        for i in 0..self.events {
            let delay = Duration::from_secs(u64::from(self.phase + i) + 1);
            cx.schedule(delay, Self::ports().poke, u64::from(i))
                .expect("the delay is positive");
        }
    }

    /// An event comes due.
    #[input]
    fn poke(&mut self, n: u64) {
        self.count += n + 1;
        self.level = self.level * 0.5 + n as f64;
        self.mode = if n.is_multiple_of(2) {
            Mode::Even
        } else {
            Mode::Busy
        };
        self.mark = Some(n as u32);
    }

    /// The running total.
    #[replier]
    fn count(&mut self) -> u64 {
        self.count
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
struct Row {
    /// Models in the bench.
    models: usize,
    /// Pending events in the bench.
    events: usize,
    /// Connections of each model's output.
    links: usize,
}

/// The rows: 10³, 10⁵ and 10⁶ models with one pending event each; 10⁶
/// models without events (the models' share); 10³ models with 10⁶ events
/// (the events' share).
const ROWS: [Row; 5] = [
    Row {
        models: 1_000,
        events: 1_000,
        links: 0,
    },
    Row {
        models: 100_000,
        events: 100_000,
        links: 0,
    },
    Row {
        models: 1_000_000,
        events: 1_000_000,
        links: 0,
    },
    Row {
        models: 1_000_000,
        events: 0,
        links: 0,
    },
    Row {
        models: 1_000,
        events: 1_000_000,
        links: 0,
    },
];

/// The command line.
struct Args {
    /// Runs per row.
    runs: usize,
    /// Executor threads.
    threads: usize,
    /// Rows with more models are skipped.
    max_models: usize,
    /// The one row to run instead of [`ROWS`], if given.
    row: Option<Row>,
    /// Restore from a reader (`SimInit::restore`) instead of from the bytes.
    from_reader: bool,
    /// Restore on the calling thread only.
    serial: bool,
}

impl Args {
    /// Parses the arguments after the program name.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut parsed = Args {
            runs: 5,
            threads: 1,
            max_models: usize::MAX,
            row: None,
            from_reader: false,
            serial: false,
        };
        let (mut models, mut events, mut links) = (None, None, 0);
        while let Some(arg) = args.next() {
            if arg == "--from-reader" || arg == "--serial" {
                parsed.from_reader |= arg == "--from-reader";
                parsed.serial |= arg == "--serial";
                continue;
            }
            let value = args.next().ok_or(format!("{arg} needs a value"))?;
            let number: usize = value.parse().map_err(|e| format!("{arg} {value}: {e}"))?;
            match arg.as_str() {
                "--runs" => parsed.runs = number,
                "--threads" => parsed.threads = number,
                "--max-models" => parsed.max_models = number,
                "--models" => models = Some(number),
                "--events" => events = Some(number),
                "--links" => links = number,
                _ => return Err(format!("unknown argument {arg}")),
            }
        }
        if parsed.runs == 0 || parsed.threads == 0 {
            return Err("--runs and --threads must be at least 1".into());
        }
        parsed.row = match (models, events) {
            (None, None) if links > 0 => return Err("--links needs --models and --events".into()),
            (None, None) => None,
            (Some(models), Some(events)) if models > 0 => Some(Row {
                models,
                events,
                links,
            }),
            _ => return Err("give --models (at least 1) and --events together".into()),
        };
        Ok(parsed)
    }
}

/// The bench of `row`, built, not started; the address of its last model.
fn bench(row: Row, threads: usize) -> (SimInit, Address<Cell>) {
    let mut init = SimInit::new().with_threads(threads);
    let per_model = row.events / row.models;
    let extra = row.events % row.models;
    let mailboxes: Vec<Mailbox<Cell>> = (0..row.models).map(|_| Mailbox::new()).collect();
    let addresses: Vec<Address<Cell>> = mailboxes.iter().map(Mailbox::address).collect();
    for (index, mailbox) in mailboxes.into_iter().enumerate() {
        let mut out = Output::new();
        for link in 0..row.links {
            let to = (index + 1 + link * 7919) % row.models;
            out.connect(Cell::ports().poke, &addresses[to]);
        }
        let cell = Cell {
            out,
            events: (per_model + usize::from(index < extra)) as u32,
            phase: (index % 1000) as u32,
            count: index as u64 * 7919,
            level: index as f64 * 0.25,
            mode: if index % 3 == 0 {
                Mode::Idle
            } else {
                Mode::Busy
            },
            mark: (index % 2 == 0).then_some(index as u32),
        };
        init = init.add_model(cell, mailbox, format!("cell {index}"));
    }
    let last = addresses.last().expect("at least one model").clone();
    (init, last)
}

/// The timings of one run.
#[derive(Debug, Clone, Copy)]
struct Timing {
    /// `SimInit::init` of the bench.
    start: Duration,
    /// `Simulation::save`.
    save: Duration,
    /// `SimInit::restore`.
    restore: Duration,
    /// The snapshot's size.
    bytes: usize,
}

/// Builds, starts, saves and restores the bench of `row` once, checking
/// the restored bench against the saved one.
fn run_once(row: Row, args: &Args) -> Result<Timing, String> {
    let threads = args.threads;
    let (init, last) = bench(row, threads);
    let started = Instant::now();
    let mut simu = init.init(SimTime::ZERO).map_err(|e| e.to_string())?;
    let start = started.elapsed();

    let mut snapshot = Vec::new();
    let started = Instant::now();
    simu.save(&mut snapshot).map_err(|e| e.to_string())?;
    let save = started.elapsed();

    // What the restored bench must reproduce: the last model's state, and
    // the first step's time and effect.
    let count = simu
        .process_query(Cell::ports().count, (), &last)
        .map_err(|e| e.to_string())?;
    let expected_step = first_step(&mut simu, &last)?;

    // The saved bench is dropped only after the restore: a restore into
    // the memory it freed was faster or slower by how the allocator
    // handed that memory back, with the same restore code, where a
    // restore in a fresh process, a fork's case, has no such memory to
    // reuse. (Two restores in a row were not comparable either: the
    // second was the slower, whichever way it read; see "Save and
    // restore" in docs/benchmarks.md.)
    let (init, last) = bench(row, threads);
    let init = if args.serial {
        init.with_parallel_restore(false)
    } else {
        init
    };
    let started = Instant::now();
    let restored = if args.from_reader {
        init.restore(snapshot.as_slice())
    } else {
        init.restore_bytes(&snapshot)
    };
    let mut restored = restored.map_err(|e| e.to_string())?;
    let restore = started.elapsed();
    drop(simu);
    let restored_count = restored
        .process_query(Cell::ports().count, (), &last)
        .map_err(|e| e.to_string())?;
    if restored_count != count || first_step(&mut restored, &last)? != expected_step {
        return Err(format!(
            "{row:?}: the restored bench differs from the saved one"
        ));
    }
    Ok(Timing {
        start,
        save,
        restore,
        bytes: snapshot.len(),
    })
}

/// Runs one step; its time and the last model's count after it.
fn first_step(simu: &mut Simulation, last: &Address<Cell>) -> Result<(SimTime, u64), String> {
    simu.step().map_err(|e| e.to_string())?;
    let count = simu
        .process_query(Cell::ports().count, (), last)
        .map_err(|e| e.to_string())?;
    Ok((simu.time(), count))
}

/// The median and the range of `values`.
fn median(mut values: Vec<Duration>) -> (Duration, Duration, Duration) {
    values.sort();
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

/// Milliseconds, as the table prints them.
fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    // Two decimals under a millisecond: the small rows' times.
    if ms < 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.1}")
    }
}

/// `median (min..max)` in milliseconds.
fn spread((median, min, max): (Duration, Duration, Duration)) -> String {
    format!("{} ({}..{})", ms(median), ms(min), ms(max))
}

/// Megabytes (10⁶ bytes) per second.
fn mb_per_s(bytes: usize, time: Duration) -> String {
    format!("{:.0}", bytes as f64 / time.as_secs_f64() / 1e6)
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!(
                "snapshot: {message}\nusage: snapshot [--runs N] [--threads N] [--max-models N] [--models N --events N [--links N]] [--from-reader] [--serial]"
            );
            return ExitCode::from(2);
        }
    };
    let source = if args.from_reader {
        "a reader"
    } else {
        "bytes"
    };
    println!(
        "save and restore (from {source}{}), {} thread(s), median (min..max) of {} runs\n",
        if args.serial { ", serial" } else { "" },
        args.threads,
        args.runs
    );
    println!("| models | pending events | snapshot bytes | bytes per model | start ms | save ms | save MB/s | restore ms | restore MB/s |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let rows = args.row.map_or(ROWS.to_vec(), |row| vec![row]);
    for row in rows.into_iter().filter(|row| row.models <= args.max_models) {
        let mut timings = Vec::with_capacity(args.runs);
        for _ in 0..args.runs {
            match run_once(row, &args) {
                Ok(timing) => timings.push(timing),
                Err(message) => {
                    eprintln!("snapshot: {message}");
                    return ExitCode::FAILURE;
                }
            }
        }
        let bytes = timings[0].bytes;
        let start = median(timings.iter().map(|t| t.start).collect());
        let save = median(timings.iter().map(|t| t.save).collect());
        let restore = median(timings.iter().map(|t| t.restore).collect());
        println!(
            "| {} | {} | {bytes} | {:.1} | {} | {} | {} | {} | {} |",
            row.models,
            row.events,
            bytes as f64 / row.models as f64,
            spread(start),
            spread(save),
            mb_per_s(bytes, save.0),
            spread(restore),
            mb_per_s(bytes, restore.0),
        );
    }
    ExitCode::SUCCESS
}
