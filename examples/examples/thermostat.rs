//! A thermostat and heater control loop over a few days.
//!
//! ```sh
//! cargo run --release --example thermostat
//! cargo run --release --example thermostat -- --days 7 --heater 2500
//! ```
//!
//! Prints the temperature trace summarised per setpoint phase, and writes
//! the trace as CSV and an SVG plot (see `causim_examples::thermostat`).

use std::process::ExitCode;

use causim_examples::output::{run_main, write_outputs, AnyError, Line, Options, Panel, Progress};
use causim_examples::thermostat::{self, ThermoConfig, ThermoSample, Weather};

use causim::SimTime;

const HELP: &str = "\
Simulates a room heated by a thermostat with hysteresis.

Options:
  --days N      days to simulate (default 3)
  --start C     room temperature at midnight of day 1, °C (default 14)
  --heater W    heater power, W (default 3000)
  --threads N   executor threads; 1 is deterministic (default 1)
  --out DIR     where thermostat.csv and thermostat.svg go
                (default: <target dir>/causim-examples)";

fn main() -> ExitCode {
    run_main(example)
}

fn example() -> Result<(), AnyError> {
    let options = Options::from_env()?;
    if options.help {
        println!("{HELP}");
        return Ok(());
    }
    options.reject_unknown(&["days", "start", "heater", "threads", "out"])?;
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
    let run = thermostat::run(config, || progress.inc())?;
    progress.finish();

    println!(
        "Thermostat, {} days, band ±{} °C around the setpoint\n",
        config.days,
        thermostat::BAND
    );
    println!("{}", run.summary);

    write_outputs(
        &out_dir,
        "thermostat",
        (
            thermostat::CSV_HEADER,
            run.samples.iter().map(thermostat::csv_row),
        ),
        ("time (h)", &panels(&run.samples)),
    )?;
    Ok(())
}

/// Temperatures on top, heater state below.
fn panels(samples: &[ThermoSample]) -> Vec<Panel> {
    let line = |name: &str, f: &dyn Fn(&ThermoSample) -> f64| Line {
        name: name.to_string(),
        points: samples.iter().map(|s| (s.time_s / 3600.0, f(s))).collect(),
    };
    let outdoor = |s: &ThermoSample| {
        Weather::temperature_at(SimTime::from_secs_f64(s.time_s).unwrap_or_default())
    };
    vec![
        Panel {
            title: "Temperature".into(),
            y_label: "°C".into(),
            lines: vec![
                line("room", &|s| s.temperature_c),
                line("setpoint", &|s| s.setpoint_c),
                line("outdoor", &outdoor),
            ],
        },
        Panel {
            title: "Heater".into(),
            y_label: "on".into(),
            lines: vec![line("heater on", &|s| f64::from(u8::from(s.heating)))],
        },
    ]
}
