//! The server's cost over loopback: the round trip of `ProcessEvent` and
//! of one `Step` (p50, p99), and how many sink values a subscriber
//! receives per second.
//!
//! ```sh
//! cargo bench -p causim-server --bench roundtrip            # 5 rounds
//! cargo bench -p causim-server --bench roundtrip -- 1       # 1 round
//! ```
//!
//! The server runs on its own runtime (two threads, as `cli::main` sets
//! up) and the client on another thread, connected through the loopback
//! interface as a local client would be. The bench is the tank of
//! `tests/remote/heater.rs`, on one executor thread: a step is one sample
//! of one model, so the figures are the server's and the network's cost,
//! not the simulation's. Each round prints its figures; the last lines are
//! the medians over the rounds.

#[path = "../tests/remote/heater.rs"]
mod heater;

use std::time::{Duration, Instant};

use causim_server::proto::simulator_client::SimulatorClient;
use causim_server::proto::{self, deadline::When, Deadline};
use causim_server::{ServeOptions, Server};
use heater::TankConfig;
use tonic::transport::Channel;

/// Calls timed per round, after as many untimed.
const CALLS: usize = 20_000;
/// Sink values streamed per round: fewer than a subscriber may fall
/// behind (65 536) before it loses values, since the simulation makes them
/// faster than a connection takes them.
const VALUES: u64 = 60_000;

/// One round's figures.
#[derive(Debug, Clone, Copy)]
struct Round {
    /// `Time`, which touches no simulation: the floor of a call.
    time_p50: Duration,
    /// Its 99th percentile.
    time_p99: Duration,
    /// `ProcessEvent` of `true` to `tank/heater_on`.
    event_p50: Duration,
    /// Its 99th percentile.
    event_p99: Duration,
    /// `Step`: one sample of the tank.
    step_p50: Duration,
    /// Its 99th percentile.
    step_p99: Duration,
    /// Sink values a subscriber receives per second.
    values_per_s: f64,
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let address = start_server();
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let figures: Vec<Round> = (0..rounds)
        .map(|i| {
            let round = client.block_on(round(&address));
            println!("round {i}: {round:?}");
            round
        })
        .collect();
    let median = |f: fn(&Round) -> f64| {
        let mut values: Vec<f64> = figures.iter().map(f).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    println!("medians over {rounds} rounds:");
    println!(
        "time round trip (floor):   p50 {:.1} µs, p99 {:.1} µs",
        median(|r| us(r.time_p50)),
        median(|r| us(r.time_p99))
    );
    println!(
        "process_event round trip: p50 {:.1} µs, p99 {:.1} µs",
        median(|r| us(r.event_p50)),
        median(|r| us(r.event_p99))
    );
    println!(
        "step round trip:          p50 {:.1} µs, p99 {:.1} µs",
        median(|r| us(r.step_p50)),
        median(|r| us(r.step_p99))
    );
    println!(
        "sink streaming:           {:.0} values/s",
        median(|r| r.values_per_s)
    );
}

/// Microseconds.
fn us(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// Starts a server of the tank on a free loopback port, on a runtime of
/// its own; returns its URI.
fn start_server() -> String {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            let server = Server::new(heater::build).expect("starts");
            let options = ServeOptions {
                address: "127.0.0.1:0".parse().expect("an address"),
                ..ServeOptions::default()
            };
            let listening = server.bind(&options).await.expect("binds");
            sender
                .send(format!("http://{}", listening.local_addr()))
                .expect("main waits");
            listening.serve().await.expect("serves");
        });
    });
    receiver.recv().expect("the server starts")
}

/// One round: a fresh bench, then each measure.
async fn round(address: &str) -> Round {
    let mut client = SimulatorClient::connect(address.to_string())
        .await
        .expect("connects");
    init(&mut client, 1).await;
    let (time_p50, time_p99) = percentiles(
        timed(CALLS, || {
            let mut client = client.clone();
            async move {
                client.time(proto::TimeRequest {}).await.expect("time");
            }
        })
        .await,
    );
    let (event_p50, event_p99) = percentiles(
        timed(CALLS, || {
            let mut client = client.clone();
            async move {
                let request = proto::ProcessEventRequest {
                    endpoint: "tank/heater_on".into(),
                    payload_json: "true".into(),
                };
                client.process_event(request).await.expect("event");
            }
        })
        .await,
    );
    let (step_p50, step_p99) = percentiles(
        timed(CALLS, || {
            let mut client = client.clone();
            async move {
                client.step(proto::StepRequest {}).await.expect("step");
            }
        })
        .await,
    );
    let values_per_s = streaming(&mut client).await;
    Round {
        time_p50,
        time_p99,
        event_p50,
        event_p99,
        step_p50,
        step_p99,
        values_per_s,
    }
}

/// Builds a tank sampling every `period_ms`.
async fn init(client: &mut SimulatorClient<Channel>, period_ms: u64) {
    let config = TankConfig {
        period_ms,
        ..TankConfig::default()
    };
    let config_json = format!(
        r#"{{"period_ms": {}, "threads": {}}}"#,
        config.period_ms, config.threads
    );
    client
        .init(proto::InitRequest { config_json })
        .await
        .expect("builds");
}

/// The durations of `calls` calls of `call`, after as many untimed.
async fn timed<F, Fut>(calls: usize, call: F) -> Vec<Duration>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..calls {
        call().await;
    }
    let mut durations = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        call().await;
        durations.push(start.elapsed());
    }
    durations
}

/// p50 and p99.
fn percentiles(mut durations: Vec<Duration>) -> (Duration, Duration) {
    durations.sort();
    let at = |q: f64| durations[((durations.len() - 1) as f64 * q).round() as usize];
    (at(0.50), at(0.99))
}

/// Values per second a subscriber receives while the tank makes
/// [`VALUES`] samples in one `StepUntil`: from the call to the last value.
async fn streaming(client: &mut SimulatorClient<Channel>) -> f64 {
    init(client, 1).await;
    let request = proto::SinkRequest {
        endpoint: "tank/temperature".into(),
    };
    let mut stream = client
        .subscribe(request)
        .await
        .expect("subscribes")
        .into_inner();
    let mut stepper = client.clone();
    let start = Instant::now();
    let step = tokio::spawn(async move {
        let deadline = Some(Deadline {
            when: Some(When::AtNs(VALUES * 1_000_000)),
        });
        stepper
            .step_until(proto::StepUntilRequest { deadline })
            .await
            .expect("steps");
    });
    let mut received = 0u64;
    while received < VALUES {
        let batch = stream.message().await.expect("no loss").expect("values");
        received += batch.values.len() as u64;
    }
    let elapsed = start.elapsed();
    step.await.expect("the step ends");
    VALUES as f64 / elapsed.as_secs_f64()
}
