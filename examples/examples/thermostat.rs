//! A thermostat and heater control loop over a few days.
//!
//! ```sh
//! cargo run --release --example thermostat
//! cargo run --release --example thermostat -- --days 7 --heater 2500
//! ```
//!
//! Prints the temperature trace summarised per setpoint phase, and writes
//! the trace recorded with `causim-record` as CSV, a VCD waveform and an
//! SVG plot (see `causim_examples::thermostat`). The progress bar follows
//! the simulation's progress callback.

use std::process::ExitCode;

use causim_examples::output::{run_main, write_outputs, AnyError, Options, Progress};
use causim_examples::thermostat::{self, ThermoConfig};
use causim_record::{Figure, Panel};

const HELP: &str = "\
Simulates a room heated by a thermostat with hysteresis.

Options:
  --days N      days to simulate (default 3)
  --start C     room temperature at midnight of day 1, °C (default 14)
  --heater W    heater power, W (default 3000)
  --threads N   executor threads; 1 is deterministic (default 1)
  --out DIR     where thermostat.csv, .vcd and .svg go
                (default: <target dir>/causim-examples)";

fn main() -> ExitCode {
    run_main(example)
}

fn example() -> Result<(), AnyError> {
    let Some(options) =
        Options::command_line(HELP, &["days", "start", "heater", "threads", "out"])?
    else {
        return Ok(());
    };
    let defaults = ThermoConfig::default();
    let config = ThermoConfig {
        days: options.get("days", defaults.days)?,
        initial_c: options.get("start", defaults.initial_c)?,
        heater_w: options.get("heater", defaults.heater_w)?,
        threads: options.get("threads", defaults.threads)?,
        ..defaults
    };
    let out_dir = options.out_dir()?;

    let progress = Progress::new(u64::from(config.days) * 24, "hours");
    let bar = progress.handle();
    let run = thermostat::run(config, move |p| {
        let hours = p.time.as_nanos() / 3_600_000_000_000;
        bar.set(hours, format!("{:.0} events/s", p.events_per_sec()));
    })?;
    progress.finish();

    println!(
        "Thermostat, {} days, band ±{} °C around the setpoint\n",
        config.days,
        thermostat::BAND
    );
    println!("{}", run.summary);

    write_outputs(&out_dir, "thermostat", &run.series, &figure())?;
    Ok(())
}

/// Temperatures on top, heater state below.
fn figure() -> Figure {
    Figure {
        x_label: "time (h)".into(),
        seconds_per_unit: 3600.0,
        panels: vec![
            Panel::new("Temperature", "°C")
                .line("room", "thermostat/temperature_c")
                .line("setpoint", "thermostat/setpoint_c")
                .line("outdoor", "weather/outdoor_c"),
            Panel::new("Heater", "on").line("heater on", "thermostat/heating"),
        ],
    }
}
