//! Parent mode: plan the configurations, run the repetitions interleaved
//! in child processes, then report.

use std::io::{IsTerminal, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use causim_benches::Workload;

use crate::args::Args;
use crate::stats::{Config, Run, Series};
use crate::{plot, report, targets};

/// A child that runs longer than this is killed and its series noted.
const CHILD_LIMIT: Duration = Duration::from_secs(900);

/// Runs everything `args` asks for and prints the report.
pub fn run(args: &Args) -> ExitCode {
    let started = Instant::now();
    let mut all = Vec::new();
    print_header(args);
    for workload in Workload::ALL {
        if !args.only.is_empty() && !args.only.contains(&workload) {
            continue;
        }
        for params in workload.param_sets(args.quick) {
            let group = configs(workload, &params);
            let reps = args.reps.max(workload.min_repetitions());
            all.extend(run_group(group, reps, &all));
        }
    }
    let elapsed = started.elapsed();
    let table = report::table(&all);
    println!("{table}");
    println!("{}", targets::check(&all));
    let lines = report::json_lines(&all);
    println!("{lines}");
    println!("total wall-clock time: {:.0} s", elapsed.as_secs_f64());
    write_outputs(args, &all, &lines)
}

/// Says what is being measured.
fn print_header(args: &Args) {
    let mode = if args.quick {
        "QUICK run: reduced sizes (dispatch 2·10⁵ hops, pinball 25 000 hops/rig, ring 10⁶ hops, chain and drain 5·10⁴, periodic until 100 s, hold 2·10⁵ holds at 10³–10⁶ pending, scale 10⁴–10⁵)"
    } else {
        "full run"
    };
    println!("# causim versus NeXosim 1.0 and Tokio\n");
    println!(
        "{mode}; {} interleaved repetitions (dispatch: at least 15), each in its own process.",
        args.reps
    );
    println!("{}\n", machine());
}

/// One line about the machine: CPU model, cores, load.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    format!(
        "machine: {cpu}, {cores} cores; load average at start {}",
        load.join(" ")
    )
}

/// Every engine × thread count of one workload and parameter set.
fn configs(workload: Workload, params: &causim_benches::Params) -> Vec<Config> {
    let mut configs = Vec::new();
    for &engine in workload.engines() {
        for &threads in workload.threads() {
            configs.push(Config {
                workload,
                params: params.clone(),
                engine,
                threads,
            });
        }
    }
    configs
}

/// Runs `reps` rounds of the group, one repetition of each configuration
/// per round.
fn run_group(group: Vec<Config>, reps: usize, done: &[Series]) -> Vec<Series> {
    let mut series: Vec<Series> = group
        .into_iter()
        .map(|config| {
            let note = crate::targets::memory_guard(&config, done);
            Series {
                config,
                runs: Vec::new(),
                note,
            }
        })
        .collect();
    // The progress line rewrites itself with `\r`: only on a terminal,
    // where it reads as a status line; in a log it would be noise.
    let show = std::io::stderr().is_terminal();
    for rep in 0..reps {
        for s in series.iter_mut().filter(|s| s.note.is_none()) {
            if show {
                eprint!(
                    "\r{} {} {} t{} rep {}/{}            ",
                    s.config.workload,
                    s.config.params,
                    s.config.engine,
                    s.config.threads,
                    rep + 1,
                    reps
                );
                let _ = std::io::stderr().flush();
            }
            match spawn(&s.config) {
                Ok(run) => s.runs.push(run),
                Err(why) => s.note = Some(why),
            }
        }
    }
    if show {
        eprintln!();
    }
    series
}

/// Runs one repetition in a child process.
fn spawn(config: &Config) -> Result<Run, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("--one")
        .arg(config.workload.name())
        .arg(config.engine.name())
        .arg(config.threads.to_string())
        .arg(config.params.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let started = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if started.elapsed() > CHILD_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("killed after {} s", CHILD_LIMIT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("failed ({}): {last}", output.status));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).map_err(|e| format!("bad child output {line:?}: {e}"))
}

/// Writes the JSON lines and the plot where asked.
fn write_outputs(args: &Args, all: &[Series], lines: &str) -> ExitCode {
    if let Some(path) = &args.json {
        if let Err(e) = std::fs::write(path, format!("{lines}\n")) {
            eprintln!("versus: writing {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &args.plot {
        if let Err(e) = std::fs::write(path, plot::svg(&plot::bars(all))) {
            eprintln!("versus: writing {path}: {e}");
            return ExitCode::FAILURE;
        }
        eprintln!("plot written to {path}");
    }
    ExitCode::SUCCESS
}
