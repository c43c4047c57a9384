//! `partition`: what a partitioned bench costs — link messages per second
//! and the cost of a window — against the same bench in one process.
//!
//! ```text
//! cargo run --release -p causim-benches --bin partition -- [--runs N]
//! ```
//!
//! An emitter in partition `a` sends `burst` messages every microsecond of
//! simulated time; an absorber in partition `b` sums them. Two rows:
//!
//! - **stream**: bursts of 10 over a link of lookahead 1 ms: a thousand
//!   ticks and ten thousand messages per window, so the cost is per
//!   message (encoding, the report, decoding, scheduling);
//! - **windows**: bursts of 1 over a link of lookahead 1 µs: one tick
//!   per window, so the cost is per window (the exchange, the barrier).
//!
//! Each row runs in four ways: **direct**, a plain bench with the
//! emitter's output connected to the absorber (no link, no windows: the
//! floor); **single**, the partitioned bench in one process
//! (`Deployment::single`, no transport); **memory**, two processes as
//! threads exchanging in memory; **zenoh**, two processes as threads with
//! a Zenoh session each over TCP loopback. Prints the median of `--runs`
//! runs (5) and its spread, as messages per second and microseconds per
//! window, and the ratio to direct. `--only ROW:WAY` (`stream:single`)
//! runs one of them, for a profiler.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use causim::prelude::*;
use causim_zenoh::{
    Deployment, InMemory, PartitionedBench, Solo, Transport, ZenohSetup, ZenohTransport,
};

/// Sends `burst` messages every microsecond.
#[model(save)]
struct Emitter {
    /// To the link, or to the absorber.
    out: Output<u64>,
    /// Messages per tick.
    burst: u32,
    /// Messages sent.
    sent: u64,
}

#[model(save)]
impl Emitter {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        let tick = Duration::from_micros(1);
        cx.schedule_periodic(tick, tick, Self::ports().tick, ())
            .expect("a positive period");
    }

    #[input]
    async fn tick(&mut self) {
        for _ in 0..self.burst {
            self.sent += 1;
            self.out.send(self.sent).await;
        }
    }
}

/// Sums what it receives.
#[model(save)]
struct Absorber {
    /// Messages received.
    count: u64,
    /// Their sum.
    sum: u64,
}

#[model(save)]
impl Absorber {
    #[input]
    fn receive(&mut self, value: u64) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(value);
    }

    #[replier]
    fn count(&mut self) -> u64 {
        self.count
    }
}

/// A row: burst and lookahead.
#[derive(Clone, Copy)]
struct Row {
    name: &'static str,
    burst: u32,
    lookahead: Duration,
    simulated: Duration,
}

const ROWS: [Row; 2] = [
    Row {
        name: "stream",
        burst: 10,
        lookahead: Duration::from_millis(1),
        simulated: Duration::from_millis(100),
    },
    Row {
        name: "windows",
        burst: 1,
        lookahead: Duration::from_micros(1),
        simulated: Duration::from_millis(20),
    },
];

/// One run's wall time, messages delivered and windows.
struct Outcome {
    wall: Duration,
    messages: u64,
    windows: u64,
}

/// The plain bench.
fn direct(row: Row) -> Outcome {
    let mut emitter = Emitter {
        out: Output::new(),
        burst: row.burst,
        sent: 0,
    };
    let absorber = Mailbox::new();
    let address = absorber.address();
    emitter.out.connect(Absorber::ports().receive, &absorber);
    let init = SimInit::new()
        .with_threads(1)
        .add_model(emitter, Mailbox::new(), "emitter")
        .add_model(Absorber { count: 0, sum: 0 }, absorber, "absorber");
    let start = Instant::now();
    let mut simu = init.init(SimTime::ZERO).expect("starts");
    simu.step_until(SimTime::ZERO + row.simulated)
        .expect("runs");
    let wall = start.elapsed();
    let messages = simu
        .process_query(Absorber::ports().count, (), &address)
        .expect("answers");
    Outcome {
        wall,
        messages,
        windows: 0,
    }
}

/// The partitioned bench of `row`.
fn partitioned(row: Row) -> PartitionedBench {
    let mut bench = PartitionedBench::new();
    bench.configure(|init| init.with_threads(1));
    let link = bench.link::<u64>("stream", "a", "b", row.lookahead);
    bench.partition("a", move |p| {
        let mut emitter = Emitter {
            out: Output::new(),
            burst: row.burst,
            sent: 0,
        };
        p.link_from(link, &mut emitter.out);
        p.add_model(emitter, Mailbox::new(), "emitter");
    });
    bench.partition("b", move |p| {
        let mailbox = Mailbox::new();
        p.link_to(link, Absorber::ports().receive, &mailbox);
        p.add_model(Absorber { count: 0, sum: 0 }, mailbox, "absorber");
    });
    bench
}

/// Process `process` of `deployment`, timed from its start.
fn process(
    row: Row,
    deployment: &Deployment,
    process: usize,
    transport: impl Transport + 'static,
) -> Outcome {
    let hosted = partitioned(row)
        .host(deployment, process)
        .expect("a valid bench");
    let start = Instant::now();
    let mut runner = hosted.init(SimTime::ZERO, transport).expect("starts");
    runner
        .run_until(SimTime::ZERO + row.simulated)
        .expect("runs");
    let wall = start.elapsed();
    let stats = runner.stats();
    Outcome {
        wall,
        messages: stats.received.max(stats.sent),
        windows: stats.rounds,
    }
}

/// Two processes in threads, each with the transport `open` gives it.
fn two(row: Row, open: impl Fn(usize) -> Box<dyn Transport> + Sync) -> Outcome {
    let deployment = Deployment::new([["a"], ["b"]]);
    let outcomes = std::thread::scope(|scope| {
        let handles = [0, 1].map(|i| {
            let (deployment, open) = (&deployment, &open);
            scope.spawn(move || process(row, deployment, i, open(i)))
        });
        handles.map(|h| h.join().expect("no panic"))
    });
    let [a, b] = outcomes;
    Outcome {
        wall: a.wall.max(b.wall),
        messages: b.messages,
        windows: b.windows,
    }
}

/// Two free loopback ports.
fn ports() -> [u16; 2] {
    let ports = causim_zenoh::free_loopback_ports(2).expect("loopback ports");
    [ports[0], ports[1]]
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(5usize);
    // `--only ROW:WAY` runs that one (for a profiler).
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    println!(
        "{:<8} {:<7} {:>14} {:>10} {:>12} {:>9} {:>8}",
        "row", "way", "messages/s", "spread", "µs/window", "windows", "×direct"
    );
    for row in ROWS {
        let mut direct_rate = 0.0;
        for way in ["direct", "single", "memory", "zenoh"] {
            if only
                .as_ref()
                .is_some_and(|o| *o != format!("{}:{way}", row.name))
            {
                continue;
            }
            let outcomes: Vec<Outcome> = (0..runs)
                .map(|run| match way {
                    "direct" => direct(row),
                    "single" => process(row, &Deployment::single(), 0, Solo),
                    "memory" => {
                        let transports =
                            std::sync::Mutex::new(InMemory::connect(2, Duration::from_secs(60)));
                        two(row, |i| {
                            let mut all = transports.lock().unwrap();
                            let at = all.iter().position(|t| t.index() == i).unwrap();
                            Box::new(all.swap_remove(at))
                        })
                    }
                    _ => {
                        let ports = ports();
                        let prefix = format!("causim-bench/{}/{run}", std::process::id());
                        two(row, |i| {
                            let setup = ZenohSetup::new(prefix.clone(), 2, i).loopback_mesh(&ports);
                            Box::new(ZenohTransport::open(setup).expect("joins"))
                        })
                    }
                })
                .collect();
            let mut rates: Vec<f64> = outcomes
                .iter()
                .map(|o| o.messages as f64 / o.wall.as_secs_f64())
                .collect();
            rates.sort_by(f64::total_cmp);
            let median = rates[rates.len() / 2];
            let spread = (rates[rates.len() - 1] - rates[0]) / median;
            let windows = outcomes[0].windows;
            let mut per_window: Vec<f64> = outcomes
                .iter()
                .filter(|o| o.windows > 0)
                .map(|o| o.wall.as_secs_f64() * 1e6 / o.windows as f64)
                .collect();
            per_window.sort_by(f64::total_cmp);
            let window_us = per_window.get(per_window.len() / 2).copied();
            if way == "direct" {
                direct_rate = median;
            }
            println!(
                "{:<8} {:<7} {:>14.0} {:>9.0}% {:>12} {:>9} {:>8.2}",
                row.name,
                way,
                median,
                100.0 * spread,
                window_us.map_or("-".to_owned(), |w| format!("{w:.2}")),
                windows,
                median / direct_rate
            );
        }
    }
    ExitCode::SUCCESS
}
