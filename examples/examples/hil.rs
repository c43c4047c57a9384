//! Hardware in the loop: a real-time session commanded over UDP, logged,
//! then replayed offline and compared.
//!
//! ```sh
//! cargo run --release --example hil
//! cargo run --release --example hil -- --speed 10 --duration 60
//! ```
//!
//! See `causim_examples::hil` for the bench.

use std::process::ExitCode;

use causim_examples::hil::{self, HilConfig};
use causim_examples::output::{run_main, AnyError, Options};

const HELP: &str = "\
Runs on-board software and a spacecraft in real time, commanded by a ground
station over UDP on the loopback interface; logs the session, replays it
offline and compares the telemetry.

Options:
  --speed X      simulated seconds per wall second (default 1, real time)
  --duration N   simulated seconds (default 10)
  --out DIR      where hil-session.log goes
                 (default: <target dir>/causim-examples)";

fn main() -> ExitCode {
    run_main(example)
}

fn example() -> Result<(), AnyError> {
    let Some(options) = Options::command_line(HELP, &["speed", "duration", "out"])? else {
        return Ok(());
    };
    let defaults = HilConfig::default();
    let config = HilConfig {
        speed: options.get("speed", defaults.speed)?,
        duration_s: options.get("duration", defaults.duration_s)?,
    };
    let out_dir = options.out_dir()?;
    println!(
        "Real-time session: {} s of simulated time at {}x, ground station on 127.0.0.1",
        config.duration_s, config.speed
    );
    let run = hil::run(config)?;
    for frame in &run.telemetry {
        println!("  {frame}");
    }
    std::fs::create_dir_all(&out_dir)?;
    let log_path = out_dir.join("hil-session.log");
    std::fs::write(&log_path, &run.log_bytes)?;
    println!(
        "\nwall time {:.2?}; telecommands sent {}, applied and logged {}; telemetry frames \
         received on the ground {}",
        run.wall, run.sent, run.logged, run.received
    );
    println!("session log: {}", log_path.display());
    println!(
        "replay (as fast as possible, one thread): {}",
        if run.identical() {
            "telemetry identical, frame for frame"
        } else {
            "TELEMETRY DIFFERS"
        }
    );
    if run.identical() {
        Ok(())
    } else {
        Err("the replay did not reproduce the session".into())
    }
}
