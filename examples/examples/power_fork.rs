//! What-if cases from a common state: the power bench saved at its first
//! eclipse, and three load scenarios run from the snapshot in parallel.
//!
//! ```sh
//! cargo run --release --example power_fork
//! cargo run --release --example power_fork -- --orbits 3 --soc 0.7
//! ```
//!
//! Prints each scenario's state of charge at the fork (the same for all:
//! they restore the same snapshot) and its lowest and final state of
//! charge, and writes the snapshot to `power-fork.snapshot` (see
//! `causim_examples::power::fork` for the scenarios).

use std::process::ExitCode;

use causim_examples::output::{run_main, AnyError, Options};
use causim_examples::power::fork::{self, SCENARIOS};
use causim_examples::power::PowerConfig;

const HELP: &str = "\
Runs the spacecraft power bench to its first eclipse, saves it, and runs
three load scenarios from the snapshot, each on its own thread.

Options:
  --orbits N    orbits to simulate in all (default 2)
  --soc X       initial battery state of charge, 0 to 1 (default 0.9)
  --threads N   executor threads of each bench (default 1)
  --out DIR     where power-fork.snapshot goes
                (default: <target dir>/causim-examples)";

fn main() -> ExitCode {
    run_main(example)
}

fn example() -> Result<(), AnyError> {
    let Some(options) = Options::command_line(HELP, &["orbits", "soc", "threads", "out"])? else {
        return Ok(());
    };
    let defaults = PowerConfig::default();
    let config = PowerConfig {
        orbits: options.get("orbits", 2)?,
        initial_soc: options.get("soc", defaults.initial_soc)?,
        threads: options.get("threads", defaults.threads)?,
        ..defaults
    };
    if config.orbits < 1 {
        return Err("--orbits must be at least 1: the fork is in the first orbit".into());
    }
    let out_dir = options.out_dir()?;

    let fork = fork::fork(config, &SCENARIOS)?;
    println!(
        "Spacecraft power subsystem saved at the first eclipse ({:.0} min, state of charge {:.1} %),\n\
         {} scenarios restored from its snapshot ({} bytes), run to the end of orbit {}\n",
        fork.time.as_secs_f64() / 60.0,
        100.0 * fork.soc_at_fork,
        fork.outcomes.len(),
        fork.snapshot.len(),
        config.orbits,
    );
    println!(
        "{:<26}{:>14}{:>14}{:>14}",
        "scenario", "SoC at fork", "minimum SoC", "final SoC"
    );
    for outcome in &fork.outcomes {
        println!(
            "{:<26}{:>12.1} %{:>12.1} %{:>12.1} %",
            outcome.scenario.name,
            100.0 * outcome.soc_at_fork,
            100.0 * outcome.min_soc,
            100.0 * outcome.final_soc,
        );
        if outcome.unmet_wh > 0.0 {
            println!(
                "{:<26}brown-out: {:.1} Wh not supplied",
                "", outcome.unmet_wh
            );
        }
    }

    let path = out_dir.join("power-fork.snapshot");
    std::fs::write(&path, &fork.snapshot)?;
    println!("\nsnapshot:    {}", path.display());
    Ok(())
}
