//! The flagship bench: a spacecraft power subsystem over a few orbits.
//!
//! ```sh
//! cargo run --release --example power
//! cargo run --release --example power -- --orbits 15 --out /tmp/power
//! ```
//!
//! Prints the energy summary, and writes the bus telemetry recorded with
//! `causim-record` as CSV, a VCD waveform and an SVG plot, and the bench's
//! diagram as SVG and Graphviz DOT (see
//! `causim_examples::power` for the models).

use std::process::ExitCode;

use causim_examples::output::{run_main, write_outputs, AnyError, Options, Progress};
use causim_examples::power::{self, PowerConfig};
use causim_record::{Figure, Panel};

const HELP: &str = "\
Simulates a spacecraft power subsystem in low Earth orbit.

Options:
  --orbits N    orbits to simulate (default 5)
  --soc X       initial battery state of charge, 0 to 1 (default 0.9)
  --threads N   executor threads; 1 is deterministic (default 1)
  --out DIR     where power.csv, power.vcd, power.svg and the bench's
                diagram (power-topology.svg, power-topology.dot) go
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
        orbits: options.get("orbits", defaults.orbits)?,
        initial_soc: options.get("soc", defaults.initial_soc)?,
        threads: options.get("threads", defaults.threads)?,
        ..defaults
    };
    let out_dir = options.out_dir()?;

    let progress = Progress::new(u64::from(config.orbits), "orbits");
    let run = power::run(config, || progress.inc())?;
    progress.finish();

    println!(
        "Spacecraft power subsystem, {} orbits of 95 min\n",
        config.orbits
    );
    println!("{}", run.summary);

    write_outputs(&out_dir, "power", &run.series, &figure())?;
    let diagram = out_dir.join("power-topology.svg");
    std::fs::write(&diagram, run.topology.to_svg())?;
    std::fs::write(out_dir.join("power-topology.dot"), run.topology.to_dot())?;
    println!("diagram:     {}", diagram.display());
    Ok(())
}

/// Power flows on top, state of charge below.
fn figure() -> Figure {
    Figure {
        x_label: "time (min)".into(),
        seconds_per_unit: 60.0,
        panels: vec![
            Panel::new("Power on the bus", "W")
                .line("solar array", "sat/power/bus/solar_w")
                .line("loads", "sat/power/bus/load_w"),
            Panel::new("Battery", "state of charge (%)")
                .line("state of charge", "sat/power/bus/soc_percent"),
        ],
    }
}
