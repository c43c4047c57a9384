//! The command line.

use causim_benches::{Engine, Params, Threads, Workload};

/// How to call this binary.
pub const USAGE: &str =
    "usage: versus [--quick] [--reps N] [--only W[,W…]] [--plot FILE.svg] [--json FILE]
       versus --replot FILE.jsonl --plot FILE.svg        (the plot of an earlier run's --json)
       versus --one WORKLOAD ENGINE THREADS PARAMS   (one run, one JSON line; used internally)";

/// One run requested by the parent process.
#[derive(Debug, Clone)]
pub struct One {
    pub workload: Workload,
    pub engine: Engine,
    pub threads: Threads,
    pub params: Params,
}

/// Parsed arguments.
#[derive(Debug, Default)]
pub struct Args {
    /// Reduced sizes, to finish in under 3 minutes on 2 cores.
    pub quick: bool,
    /// Repetitions per configuration (at least 5).
    pub reps: usize,
    /// Only these workloads (all if empty).
    pub only: Vec<Workload>,
    /// Where to write the throughput plot, if anywhere.
    pub plot: Option<String>,
    /// Where to also write the JSON lines, if anywhere.
    pub json: Option<String>,
    /// Child mode: run this once and print its sample.
    pub one: Option<One>,
    /// Plot mode: redraw the plot from these JSON lines.
    pub replot: Option<String>,
}

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut parsed = Args {
            reps: 5,
            ..Args::default()
        };
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "--quick" => parsed.quick = true,
                "--reps" => {
                    parsed.reps = value("--reps")?
                        .parse()
                        .map_err(|e| format!("--reps: {e}"))?
                }
                "--only" => parsed.only = parse_list(&value("--only")?)?,
                "--plot" => parsed.plot = Some(value("--plot")?),
                "--json" => parsed.json = Some(value("--json")?),
                "--replot" => parsed.replot = Some(value("--replot")?),
                "--one" => parsed.one = Some(parse_one(&mut args)?),
                "--bench" => {} // passed by `cargo bench`; nothing to do
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        if parsed.reps < 5 && parsed.one.is_none() {
            return Err("at least 5 repetitions (--reps 5)".into());
        }
        Ok(parsed)
    }
}

/// `a,b,c` → workloads.
fn parse_list(list: &str) -> Result<Vec<Workload>, String> {
    list.split(',').map(str::parse).collect()
}

/// The four values after `--one`.
fn parse_one(args: &mut impl Iterator<Item = String>) -> Result<One, String> {
    let mut next = |what: &str| args.next().ok_or(format!("--one needs {what}"));
    Ok(One {
        workload: next("WORKLOAD")?.parse()?,
        engine: next("ENGINE")?.parse()?,
        threads: next("THREADS")?
            .parse()
            .map_err(|e| format!("THREADS: {e}"))?,
        params: next("PARAMS")?.parse()?,
    })
}
