//! The power bench split over two partitions, the orbit and the spacecraft,
//! joined by a sunlight link with a one-second lookahead.
//!
//! ```sh
//! # Both deployments in one run: every partition in this process, then
//! # each partition in its own Zenoh session (threads of this process)
//! # over the loopback interface; the telemetry must be identical.
//! cargo run --release --example power_partitioned
//!
//! # One real process per partition, on two terminals (or two machines,
//! # with their addresses instead of 127.0.0.1):
//! cargo run --release --example power_partitioned -- --process 0 --ports 7447,7448
//! cargo run --release --example power_partitioned -- --process 1 --ports 7447,7448
//! ```

use std::process::ExitCode;

use causim_examples::output::{run_main, AnyError, Options};
use causim_examples::power::partitioned::{self, PARTITIONS};
use causim_examples::power::{BusSample, PowerConfig};
use causim_zenoh::{free_loopback_ports, Deployment, Solo, ZenohSetup, ZenohTransport};

const HELP: &str = "\
Runs the spacecraft power bench split over two partitions (orbit, sat)
joined by a sunlight link, in one process and over Zenoh, and checks that
both record the same bus telemetry.

Options:
  --orbits N     orbits to simulate (default 3)
  --process I    run only process I (0: orbit, 1: sat) of a two-process run
  --ports A,B    the loopback TCP ports of processes 0 and 1
                 (default: two free ports; required with --process)";

fn main() -> ExitCode {
    run_main(example)
}

fn example() -> Result<(), AnyError> {
    let Some(options) = Options::command_line(HELP, &["orbits", "process", "ports"])? else {
        return Ok(());
    };
    let config = PowerConfig {
        orbits: options.get("orbits", 3)?,
        ..PowerConfig::default()
    };
    let ports: String = options.get("ports", String::new())?;
    let ports: Vec<u16> = if ports.is_empty() {
        free_loopback_ports(2)?
    } else {
        ports
            .split(',')
            .map(|p| p.trim().parse())
            .collect::<Result<_, _>>()
            .map_err(|_| "--ports takes two port numbers, A,B")?
    };
    if ports.len() != 2 {
        return Err("--ports takes two port numbers, A,B".into());
    }
    let two = Deployment::new(PARTITIONS.map(|p| [p]));
    let process: i64 = options.get("process", -1)?;
    if process >= 0 {
        let process = usize::try_from(process).map_err(|_| "--process is 0 or 1")?;
        let transport = ZenohTransport::open(setup(&ports, process))
            .map_err(|error| format!("joining the other process: {error:?}"))?;
        let telemetry = partitioned::run(&config, &two, process, transport)?;
        report(
            &format!("process {process} ({})", PARTITIONS[process]),
            telemetry.as_deref(),
        );
        return Ok(());
    }

    let single = partitioned::run(&config, &Deployment::single(), 0, Solo)?
        .ok_or("the single process hosts the spacecraft")?;
    report("one process", Some(&single));
    let over_zenoh = std::thread::scope(|scope| {
        let handles = [0, 1].map(|process| {
            let (config, two, ports) = (&config, &two, &ports);
            scope.spawn(move || {
                let transport = ZenohTransport::open(setup(ports, process))
                    .map_err(|error| format!("process {process}: {error:?}"))?;
                partitioned::run(config, two, process, transport).map_err(|e| e.to_string())
            })
        });
        handles.map(|h| h.join().expect("a process thread panicked"))
    });
    let [orbit, sat] = over_zenoh;
    orbit?;
    let sat = sat?.ok_or("process 1 hosts the spacecraft")?;
    report("two processes over Zenoh", Some(&sat));
    if sat != single {
        return Err("the two deployments recorded different telemetry".into());
    }
    println!("identical telemetry: {} samples, bit for bit", sat.len());
    Ok(())
}

/// Process `process`'s Zenoh setup: loopback, scouting off.
fn setup(ports: &[u16], process: usize) -> ZenohSetup {
    ZenohSetup::new("causim/examples/power", 2, process).loopback_mesh(ports)
}

/// Prints what a deployment recorded.
fn report(what: &str, telemetry: Option<&[BusSample]>) {
    match telemetry {
        Some(samples) => {
            let min_soc = samples.iter().map(|s| s.soc).fold(f64::INFINITY, f64::min);
            let last = samples.last().map_or(0.0, |s| s.soc);
            println!(
                "{what:<28} {} bus samples, minimum state of charge {:.2} %, final {:.2} %",
                samples.len(),
                100.0 * min_soc,
                100.0 * last
            );
        }
        None => println!("{what:<28} done (the telemetry is recorded by the spacecraft's process)"),
    }
}
