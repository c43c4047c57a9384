//! The power bench split over two partitions records the same bus
//! telemetry, bit for bit, in one process, in two processes over Zenoh on
//! the loopback interface (real processes: this test binary run again, and
//! threads with a session each), and over two in-memory processes of two
//! threads each.

use std::process::{Command, Stdio};
use std::time::Duration;

use causim_examples::power::partitioned::{self, PARTITIONS};
use causim_examples::power::{BusSample, PowerBench, PowerConfig};
use causim_zenoh::{
    free_loopback_ports, Deployment, InMemory, Solo, Transport, ZenohSetup, ZenohTransport,
};

fn config(threads: usize) -> PowerConfig {
    PowerConfig {
        orbits: 2,
        threads,
        ..PowerConfig::default()
    }
}

fn two() -> Deployment {
    Deployment::new(PARTITIONS.map(|p| [p]))
}

/// Runs both processes of [`two`] in threads, each with the transport
/// `transport` gives it (opened in its thread: a Zenoh one waits for the
/// other).
fn two_processes(
    config: &PowerConfig,
    transport: impl Fn(usize) -> Box<dyn Transport> + Sync,
) -> Vec<BusSample> {
    let results = std::thread::scope(|scope| {
        let handles = [0, 1].map(|process| {
            let (config, two, transport) = (config, two(), &transport);
            scope.spawn(move || {
                partitioned::run(config, &two, process, transport(process))
                    .expect("the run succeeds")
            })
        });
        handles.map(|h| h.join().expect("no panic"))
    });
    let [orbit, sat] = results;
    assert!(orbit.is_none(), "the orbit's process records no telemetry");
    sat.expect("the spacecraft's process records the telemetry")
}

#[test]
fn every_deployment_records_the_same_telemetry() {
    let single = partitioned::run(&config(1), &Deployment::single(), 0, Solo)
        .unwrap()
        .unwrap();
    assert_eq!(single.len(), 2 * 95 * 6 + 1, "a sample every 10 s");

    let ports = free_loopback_ports(2).unwrap();
    let zenoh = |i| {
        let setup = ZenohSetup::new("causim-test/power", 2, i).loopback_mesh(&ports);
        Box::new(ZenohTransport::open(setup).expect("joins")) as Box<dyn Transport>
    };
    assert!(two_processes(&config(1), zenoh) == single, "over Zenoh");

    let in_memory = std::sync::Mutex::new(InMemory::connect(2, Duration::from_secs(30)));
    let take = |i: usize| {
        let mut all = in_memory.lock().unwrap();
        let position = all.iter().position(|t| t.index() == i).unwrap();
        Box::new(all.swap_remove(position)) as Box<dyn Transport>
    };
    assert!(
        two_processes(&config(2), take) == single,
        "on two threads each"
    );
}

#[test]
fn the_split_bench_samples_as_the_original_and_sees_the_first_eclipse_in_the_same_sample() {
    // The one-process bench sees the first eclipse at 60 min; the split
    // bench one link delay later: the bus's first sample without solar
    // power is the first one after 60 min + 1 s in both, so the two agree
    // up to that sample's settling.
    let single = partitioned::run(&config(1), &Deployment::single(), 0, Solo)
        .unwrap()
        .unwrap();
    let mut original = PowerBench::new(config(1)).unwrap();
    original
        .run_until(causim::SimTime::from_secs(2 * 95 * 60))
        .unwrap();
    let original = original.take_outputs().samples;
    let first_dark = |samples: &[BusSample]| samples.iter().position(|s| s.solar_w == 0.0);
    assert_eq!(first_dark(&single), first_dark(&original));
    assert_eq!(single.len(), original.len());
}

/// The telemetry as text, every number by its bits.
fn as_text(samples: &[BusSample]) -> String {
    let mut text = String::new();
    for s in samples {
        for x in [s.time_s, s.volts, s.solar_w, s.load_w, s.soc] {
            text.push_str(&format!("{:016x} ", x.to_bits()));
        }
        text.push('\n');
    }
    text
}

/// A process of `two_real_processes_over_zenoh_record_the_same_telemetry`
/// (does nothing when run as a test itself): `CAUSIM_POWER_CHILD` holds
/// its index, both ports and its output file.
#[test]
fn power_child_process() {
    let Ok(spec) = std::env::var("CAUSIM_POWER_CHILD") else {
        return;
    };
    let fields: Vec<&str> = spec.split(' ').collect();
    let index: usize = fields[0].parse().unwrap();
    let ports: [u16; 2] = [fields[1].parse().unwrap(), fields[2].parse().unwrap()];
    let setup = ZenohSetup::new("causim-test/power-processes", 2, index).loopback_mesh(&ports);
    let transport = ZenohTransport::open(setup).expect("joins");
    let telemetry = partitioned::run(&config(1), &two(), index, transport).expect("runs");
    std::fs::write(fields[3], as_text(&telemetry.unwrap_or_default())).unwrap();
}

#[test]
fn two_real_processes_over_zenoh_record_the_same_telemetry() {
    let single = partitioned::run(&config(1), &Deployment::single(), 0, Solo)
        .unwrap()
        .unwrap();
    let ports = free_loopback_ports(2).unwrap();
    let dir = std::env::temp_dir().join(format!("causim-power-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let outs = [dir.join("orbit.txt"), dir.join("sat.txt")];
    let mut children: Vec<_> = (0..2)
        .map(|i| {
            let spec = format!("{i} {} {} {}", ports[0], ports[1], outs[i].display());
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "power_child_process", "--test-threads=1"])
                .env("CAUSIM_POWER_CHILD", spec)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let start = std::time::Instant::now();
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        if start.elapsed() > Duration::from_secs(120) {
            children.iter_mut().for_each(|c| drop(c.kill()));
            panic!("the two processes did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for child in &mut children {
        assert!(child.wait().unwrap().success());
    }
    let sat = std::fs::read_to_string(&outs[1]).expect("the spacecraft's process wrote it");
    assert_eq!(sat, as_text(&single), "bit for bit");
    assert_eq!(
        std::fs::read_to_string(&outs[0]).unwrap(),
        "",
        "the orbit records nothing"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
