//! The same partitioned bench over Zenoh on the loopback interface
//! (`tcp/127.0.0.1`, scouting off): partitions in separate processes (and
//! in threads with one session each) log exactly what one process logs,
//! and a process killed mid-run is reported by the others, naming its
//! partitions, instead of hanging.
//!
//! The processes are this test binary run again: `child_process` does
//! nothing unless `CAUSIM_ZENOH_CHILD` describes a process to be.

#[path = "support/random_bench.rs"]
#[allow(dead_code)] // shared by the tests, each using a part
mod random_bench;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use causim::prelude::*;
use causim_zenoh::{free_loopback_ports, PartitionError, Solo, ZenohSetup, ZenohTransport};
use random_bench::{bench, deployment, drive, first_difference, Line, Logs, END};

/// The longest a test waits for its processes.
const DEADLINE: Duration = Duration::from_secs(120);

/// `n` free loopback ports.
fn free_ports(n: usize) -> Vec<u16> {
    free_loopback_ports(n).expect("loopback ports")
}

/// The Zenoh setup of process `index` of `ports.len()` in run `prefix`.
fn setup(prefix: &str, ports: &[u16], index: usize) -> ZenohSetup {
    let mut setup = ZenohSetup::new(prefix, ports.len(), index).loopback_mesh(ports);
    setup.join_timeout = Duration::from_secs(60);
    setup.round_timeout = Duration::from_secs(60);
    setup
}

/// One process's run of bench `seed`; `die` ends the process abruptly
/// after the first `run_until`.
fn run_process(
    seed: u64,
    prefix: &str,
    ports: &[u16],
    index: usize,
    die: bool,
) -> Result<Logs, PartitionError> {
    let logs = Logs::default();
    let bench = bench(seed, 4, &logs);
    let hosted = bench.host(&deployment(ports.len()), index)?;
    let transport = ZenohTransport::open(setup(prefix, ports, index))
        .map_err(|error| PartitionError::Transport(format!("{error:?}")))?;
    let mut runner = hosted.init(SimTime::ZERO, transport)?;
    for (i, end) in END.into_iter().enumerate() {
        if die && i == 1 {
            std::process::exit(9);
        }
        runner.run_until(SimTime::from_nanos(end))?;
    }
    Ok(logs)
}

/// The logs of one process and one thread: the reference.
fn reference(seed: u64) -> BTreeMap<String, Vec<Line>> {
    let logs = Logs::default();
    let hosted = bench(seed, 4, &logs)
        .host(&deployment(1), 0)
        .expect("valid");
    drive(&mut hosted.init(SimTime::ZERO, Solo).expect("starts"));
    let logs = std::mem::take(&mut *logs.lock().unwrap());
    logs
}

/// Writes logs as text, one line per log line.
fn write_logs(path: &Path, logs: &BTreeMap<String, Vec<Line>>) {
    let mut text = String::new();
    for (node, lines) in logs {
        for (t, v, s) in lines {
            text.push_str(&format!("{node} {t} {v} {s}\n"));
        }
    }
    std::fs::write(path, text).expect("the test's output file");
}

/// Reads what [`write_logs`] wrote.
fn read_logs(text: &str) -> BTreeMap<String, Vec<Line>> {
    let mut logs: BTreeMap<String, Vec<Line>> = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let number = |i: usize| fields[i].parse::<u64>().expect("a number");
        logs.entry(fields[0].to_owned())
            .or_default()
            .push((number(1), number(2), number(3)));
    }
    logs
}

/// A process of a test (does nothing when run as a test itself).
#[test]
fn child_process() {
    let Ok(spec) = std::env::var("CAUSIM_ZENOH_CHILD") else {
        return;
    };
    // seed prefix index die out ports...
    let fields: Vec<&str> = spec.split(' ').collect();
    let seed: u64 = fields[0].parse().unwrap();
    let index: usize = fields[2].parse().unwrap();
    let die = fields[3] == "die";
    let out = Path::new(fields[4]);
    let ports: Vec<u16> = fields[5..].iter().map(|p| p.parse().unwrap()).collect();
    match run_process(seed, fields[1], &ports, index, die) {
        Ok(logs) => write_logs(out, &logs.lock().unwrap()),
        Err(error) => std::fs::write(out, format!("error: {error}")).unwrap(),
    }
}

/// Starts process `index` of a test.
fn spawn(seed: u64, prefix: &str, ports: &[u16], index: usize, die: bool, out: &Path) -> Child {
    let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
    let spec = format!(
        "{seed} {prefix} {index} {} {} {}",
        if die { "die" } else { "live" },
        out.display(),
        ports.join(" ")
    );
    Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CAUSIM_ZENOH_CHILD", spec)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the test binary runs again")
}

/// Waits for `children`, killing them all past the deadline.
fn wait_all(children: &mut [Child]) {
    let start = Instant::now();
    while children
        .iter_mut()
        .any(|c| c.try_wait().expect("waitable").is_none())
    {
        if start.elapsed() > DEADLINE {
            for child in children.iter_mut() {
                let _ = child.kill();
            }
            panic!("the processes did not finish within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A fresh directory for a test's outputs.
fn out_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("causim-zenoh-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

#[test]
fn one_two_and_four_processes_over_zenoh_log_the_same_as_one_without_it() {
    let dir = out_dir("processes");
    for (seed, processes) in [(7, 1), (3, 2), (11, 4), (5, 2)] {
        let ports = free_ports(processes);
        let prefix = format!("causim-test/{}/{seed}", std::process::id());
        let outs: Vec<_> = (0..processes)
            .map(|i| dir.join(format!("{seed}-{i}.txt")))
            .collect();
        let mut children: Vec<Child> = (0..processes)
            .map(|i| spawn(seed, &prefix, &ports, i, false, &outs[i]))
            .collect();
        wait_all(&mut children);
        let mut merged = BTreeMap::new();
        for out in &outs {
            let text = std::fs::read_to_string(out).expect("each process wrote its output");
            assert!(!text.starts_with("error"), "seed {seed}: {text}");
            merged.extend(read_logs(&text));
        }
        if let Some(difference) = first_difference(&reference(seed), &merged) {
            panic!("seed {seed}, {processes} processes over Zenoh: {difference}");
        }
    }
}

#[test]
fn partitions_in_threads_with_their_own_sessions_log_the_same_as_one_process() {
    let seed = 8;
    let ports = free_ports(2);
    let prefix = format!("causim-test/{}/threads", std::process::id());
    let logs: Vec<BTreeMap<String, Vec<Line>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let (ports, prefix) = (&ports, &prefix);
                scope.spawn(move || run_process(seed, prefix, ports, i, false))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let logs = h.join().expect("no panic").expect("the run succeeds");
                let logs = std::mem::take(&mut *logs.lock().unwrap());
                logs
            })
            .collect()
    });
    let merged: BTreeMap<_, _> = logs.into_iter().flatten().collect();
    assert_eq!(first_difference(&reference(seed), &merged), None);
}

#[test]
fn a_killed_process_is_reported_by_the_others_naming_its_partitions() {
    let dir = out_dir("killed");
    let ports = free_ports(2);
    let prefix = format!("causim-test/{}/killed", std::process::id());
    let outs = [dir.join("0.txt"), dir.join("1.txt")];
    let start = Instant::now();
    let mut children = vec![
        spawn(3, &prefix, &ports, 0, false, &outs[0]),
        spawn(3, &prefix, &ports, 1, true, &outs[1]),
    ];
    wait_all(&mut children);
    let survivor = std::fs::read_to_string(&outs[0]).expect("the survivor wrote its output");
    assert!(
        survivor.contains("partitions `p1`, `p3` are gone"),
        "the survivor names the lost partitions: {survivor}"
    );
    assert!(!outs[1].exists(), "the killed process wrote nothing");
    eprintln!("{survivor} (after {:?})", start.elapsed());
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "reported without waiting for the round timeout (60 s): {:?}",
        start.elapsed()
    );
}
