//! A Monte-Carlo campaign of the power bench: a thousand dispersed runs on
//! all cores, the merged table and a histogram of the battery's lowest
//! state of charge.
//!
//! ```sh
//! cargo run --release --example power_campaign
//! cargo run --release --example power_campaign -- --runs 100 --fork
//! cargo run --release --example power_campaign -- --run-index 41   # one run, as a batch task
//! cargo run --release --example power_campaign -- --task 3 --tasks 10   # a tenth of the runs
//! cargo run --release --example power_campaign -- --merge          # the table of the runs made
//! ```
//!
//! See `causim_examples::power::campaign` for the parameters and metrics,
//! and `causim_campaign` for the seeds, the result files and the flags.

use std::process::ExitCode;

use causim_campaign::{
    Action, CampaignArgs, Report, Run, RunRecord, RunResult, Table, CAMPAIGN_HELP,
};
use causim_examples::output::{run_main, AnyError, Options, Progress};
use causim_examples::power::campaign::{self, min_socs, plot_min_soc, quantile, Forked, MIN_SOC};
use causim_examples::power::PowerConfig;

const HELP: &str = "\
Runs the spacecraft power bench many times, each run with its own solar
cell efficiency, battery capacity, avionics power and payload time in the
first eclipse, and summarises the battery's lowest state of charge.

Options:
  --orbits N    orbits each run simulates (default 3)
  --soc X       initial battery state of charge, 0 to 1 (default 0.9)
  --fork        run the common start (to the first eclipse) once, save it,
                and start every run from the snapshot: only the payload
                time is then dispersed
  --out DIR     the default folder of --results: <DIR>/power-campaign, or
                <DIR>/power-forked-campaign with --fork
                (default: <target dir>/causim-examples)
";

/// The description's number of runs and base seed.
const RUNS: usize = 1000;
const BASE_SEED: u64 = 2026;

fn main() -> ExitCode {
    run_main(example)
}

fn example() -> Result<(), AnyError> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let flags = CampaignArgs::take(&mut args)?;
    let fork = take_flag(&mut args, "--fork");
    let options = Options::parse(args)?;
    if options.help {
        println!("{HELP}\n{CAMPAIGN_HELP}");
        return Ok(());
    }
    options.reject_unknown(&["orbits", "soc", "out"])?;
    let config = PowerConfig {
        orbits: options.get("orbits", 3)?,
        initial_soc: options.get("soc", PowerConfig::default().initial_soc)?,
        ..PowerConfig::default()
    };
    if config.orbits < 1 {
        return Err("--orbits must be at least 1: the payload runs in the first eclipse".into());
    }

    let built_in = if fork {
        campaign::forked_campaign(&config, RUNS, BASE_SEED)?
    } else {
        campaign::campaign(&config, RUNS, BASE_SEED)?
    };
    // A description file must be for this bench: its settings are the
    // options this program runs with.
    let settings = built_in.settings().clone();
    let description = flags.campaign(built_in)?;
    if description.settings() != &settings {
        return Err(format!(
            "the description's settings {:?} are not this run's {:?} (--orbits, --soc)",
            description.settings(),
            settings
        )
        .into());
    }
    let results = options
        .out_dir()?
        .join(format!("{}-campaign", description.name()));

    // The run function: from the start, or from the shared snapshot (made
    // once per process; a merge runs nothing).
    let forked = match (fork, flags.action) {
        (true, Action::Merge) | (false, _) => None,
        (true, _) => Some(Forked::new(config)?),
    };
    let run = |run: &Run| -> RunResult {
        match &forked {
            Some(forked) => forked.run(run),
            None => campaign::run(config, run),
        }
    };
    let progress = match flags.action {
        Action::All | Action::Slice(_) => Progress::new(description.runs() as u64, "runs"),
        Action::RunIndex(_) | Action::Merge => Progress::new(0, "runs").hidden(),
    };
    let finished = |_: &RunRecord| progress.inc();
    let report = flags.execute(&description, &results, &run, &finished)?;
    progress.finish();

    if let Some(forked) = &forked {
        println!(
            "Forked at the first eclipse: every run restored the same {}-byte snapshot.",
            forked.snapshot_len()
        );
    }
    print_report(&report)?;
    if !report.succeeded() {
        return Err("some runs failed or are missing (see above)".into());
    }
    Ok(())
}

fn print_report(report: &Report) -> Result<(), AnyError> {
    match report {
        Report::Ran(outcome) => print_run(&outcome.record, outcome.resumed),
        Report::Slice(summary) => println!(
            "{} runs made, {} already there, {} failed: {:?}",
            summary.ran,
            summary.resumed,
            summary.failed.len(),
            summary.failed
        ),
        Report::All {
            summary,
            merged,
            csv,
        } => {
            println!(
                "{} runs made, {} already there, {} failed",
                summary.ran,
                summary.resumed,
                summary.failed.len()
            );
            print_table(&merged.table, &merged.missing);
            println!("table:       {}", csv.display());
            plot(&merged.table, csv)?;
        }
        Report::Merged { merged, csv } => {
            print_table(&merged.table, &merged.missing);
            if !merged.beyond.is_empty() {
                println!(
                    "{} result files past the campaign's runs are not in the table (--runs?)",
                    merged.beyond.len()
                );
            }
            println!("table:       {}", csv.display());
            plot(&merged.table, csv)?;
        }
    }
    Ok(())
}

/// Removes `flag` from `args`; whether it was there.
fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let before = args.len();
    args.retain(|arg| arg != flag);
    args.len() != before
}

/// Prints a run made alone.
fn print_run(record: &RunRecord, resumed: bool) {
    let values: Vec<String> = record
        .parameters
        .iter()
        .map(|p| format!("{} {:.4}", p.name, p.value))
        .collect();
    let how = if resumed { ", already made" } else { "" };
    println!(
        "run {} (seed {}{how}): {}",
        record.index,
        record.seed,
        values.join(", ")
    );
    match (&record.error, record.metric(MIN_SOC)) {
        (Some(error), _) => println!("failed: {error}"),
        (None, Some(min_soc)) => println!("lowest state of charge {:.1} %", 100.0 * min_soc),
        (None, None) => println!("no lowest state of charge reported"),
    }
}

fn print_table(table: &Table, missing: &[usize]) {
    let socs = min_socs(table);
    let brown_outs = table
        .column("unmet_wh")
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .filter(|&wh| wh > 0.0)
        .count();
    println!(
        "{} runs in the table ({} failed, {} not made yet)",
        table.rows.len(),
        table.failed().count(),
        missing.len()
    );
    if !missing.is_empty() {
        let first: Vec<String> = missing.iter().take(10).map(usize::to_string).collect();
        let more = if missing.len() > 10 { ", …" } else { "" };
        println!("not made yet: runs {}{more}", first.join(", "));
    }
    if socs.is_empty() {
        return;
    }
    let percent = |q: f64| quantile(&socs, q).map_or(f64::NAN, |soc| 100.0 * soc);
    println!(
        "lowest state of charge: min {:.1} %, 5th percentile {:.1} %, median {:.1} %, max {:.1} %",
        percent(0.0),
        percent(0.05),
        percent(0.5),
        percent(1.0)
    );
    println!("runs with a brown-out (demand not supplied): {brown_outs}");
}

/// Draws the histogram beside the table `csv`.
fn plot(table: &Table, csv: &std::path::Path) -> Result<(), AnyError> {
    if table.rows.is_empty() {
        return Ok(());
    }
    let path = csv.with_file_name("min-soc.svg");
    plot_min_soc(table, &path).map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
    println!("histogram:   {}", path.display());
    Ok(())
}
