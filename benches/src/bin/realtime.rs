//! Real-time figures: step lateness at a 1 kHz tick, injection throughput,
//! and the latency from injection to the model's input.
//!
//! ```sh
//! cargo run --release -p causim-benches --bin realtime -- [SECONDS]
//! ```
//!
//! - **Lateness**: a bench paced at real time with a 1 ms ticker and a
//!   model woken every millisecond by a periodic event; the model notes
//!   how long after its step's wall deadline it runs. SECONDS (60 by
//!   default) of simulated, hence wall, time.
//! - **Throughput**: one thread injects 10⁶ events as fast as it can into
//!   a simulation that steps as fast as it can (no clock, 1 µs ticker);
//!   events applied per wall second.
//! - **Latency**: at real time with a 1 ms ticker, a thread injects an
//!   event every 2 ms of wall time carrying its injection instant; the
//!   model notes how long after it receives it.
//!
//! Percentiles over all samples; the machine's load average is printed
//! with them, since a busy machine delays threads.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use causim::ports::InputRef;
use causim::prelude::*;
use causim::realtime::{Clock, Lateness, SystemClock};

/// The system clock, noting the wall time at which the pacing anchored
/// (its first reading), so that the probe knows each step's exact wall
/// deadline.
struct AnchoredClock {
    /// The clock paced on.
    inner: SystemClock,
    /// Where `inner` counts from.
    origin: Instant,
    /// The first reading: the pacing's anchor.
    anchor: Arc<OnceLock<Duration>>,
}

impl Clock for AnchoredClock {
    fn now(&self) -> Duration {
        let now = self.origin.elapsed();
        self.anchor.get_or_init(|| now);
        now
    }

    fn sleep_until(&self, wall: Duration) {
        let target = self.origin + wall;
        self.inner
            .sleep_until(target.saturating_duration_since(Instant::now()) + self.inner.now());
    }

    fn speed(&self) -> f64 {
        1.0
    }
}

/// Notes wall-time delays, in microseconds.
#[model]
struct Probe {
    /// The paced clock's origin and anchor: simulated time zero is at
    /// `origin + anchor` on the wall clock.
    origin: Instant,
    anchor: Arc<OnceLock<Duration>>,
    /// The delays noted.
    delays: Arc<Mutex<Vec<f64>>>,
}

#[model]
impl Probe {
    /// A periodic wake-up: how late is it against its wall deadline?
    #[input]
    fn tick(&mut self, cx: &mut Context<Self>) {
        let anchor = self.anchor.get().copied().unwrap_or_default();
        let deadline = self.origin + anchor + cx.time().since_epoch();
        let late = Instant::now().saturating_duration_since(deadline);
        self.delays.lock().unwrap().push(late.as_secs_f64() * 1e6);
    }

    /// An injected event carrying its injection instant.
    #[input]
    fn stamped(&mut self, injected: Instant) {
        let latency = injected.elapsed();
        self.delays
            .lock()
            .unwrap()
            .push(latency.as_secs_f64() * 1e6);
    }

    /// Counts an event (throughput run).
    #[input]
    fn count(&mut self, _: u64) {}
}

fn percentiles(name: &str, mut samples: Vec<f64>) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    println!(
        "{name}: {} samples, p50 {:.1} µs, p99 {:.1} µs, p99.9 {:.1} µs, max {:.1} µs",
        samples.len(),
        at(0.5),
        at(0.99),
        at(0.999),
        samples.last().copied().unwrap_or(0.0)
    );
}

/// A probe on one thread, with its stamped and counting inputs and the
/// delays it notes.
struct ProbeBench {
    simu: Simulation,
    stamped: InputRef<Probe, Instant>,
    count: InputRef<Probe, u64>,
    delays: Arc<Mutex<Vec<f64>>>,
}

fn probe_bench(init: SimInit) -> ProbeBench {
    let delays = Arc::new(Mutex::new(Vec::new()));
    let mailbox = Mailbox::with_capacity(1 << 16);
    let stamped = InputRef::new(Probe::ports().stamped, &mailbox);
    let count = InputRef::new(Probe::ports().count, &mailbox);
    let probe = Probe {
        origin: Instant::now(),
        anchor: Arc::default(),
        delays: delays.clone(),
    };
    let simu = init
        .with_threads(1)
        .add_model(probe, mailbox, "probe")
        .init(SimTime::ZERO)
        .expect("bench");
    ProbeBench {
        simu,
        stamped,
        count,
        delays,
    }
}

fn lateness(seconds: u64) {
    let delays = Arc::new(Mutex::new(Vec::new()));
    let mailbox = Mailbox::new();
    let tick = InputRef::new(Probe::ports().tick, &mailbox);
    let clock = AnchoredClock {
        inner: SystemClock::real_time(),
        origin: Instant::now(),
        anchor: Arc::default(),
    };
    let probe = Probe {
        origin: clock.origin,
        anchor: clock.anchor.clone(),
        delays: delays.clone(),
    };
    let mut simu = SimInit::new()
        .with_threads(1)
        .with_clock(clock)
        .with_lateness(Lateness::CatchUp)
        .with_tick(Duration::from_millis(1))
        .add_model(probe, mailbox, "probe")
        .init(SimTime::ZERO)
        .expect("bench");
    simu.scheduler()
        .schedule_periodic(
            SimTime::from_millis(1),
            Duration::from_millis(1),
            tick.port(),
            (),
            tick.address(),
        )
        .expect("in the future");
    simu.step_until(SimTime::from_secs(seconds))
        .expect("paced run");
    percentiles(
        &format!("step lateness at 1 kHz, {seconds} s real time"),
        delays.lock().unwrap().clone(),
    );
}

fn throughput() {
    let ProbeBench {
        mut simu, count, ..
    } = probe_bench(SimInit::new().with_tick(Duration::from_micros(1)));
    let injector = simu.injector();
    const N: u64 = 1_000_000;
    let started = Instant::now();
    let sender = std::thread::spawn(move || {
        for i in 0..N {
            injector.send(&count, i).expect("the simulation runs");
        }
    });
    while !sender.is_finished() {
        simu.step().expect("step");
    }
    sender.join().expect("sender");
    simu.step().expect("last step");
    let took = started.elapsed();
    println!(
        "injection throughput: {N} events in {took:.2?}: {:.2} M events/s",
        N as f64 / took.as_secs_f64() / 1e6
    );
}

fn latency(seconds: u64) {
    let ProbeBench {
        mut simu,
        stamped,
        delays,
        ..
    } = probe_bench(
        SimInit::new()
            .with_clock(SystemClock::real_time())
            .with_lateness(Lateness::CatchUp)
            .with_tick(Duration::from_millis(1)),
    );
    let injector = simu.injector();
    let sender = std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(seconds);
        while Instant::now() < end {
            if injector.send(&stamped, Instant::now()).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    });
    simu.step_until(SimTime::from_secs(seconds) + Duration::from_millis(50))
        .expect("paced run");
    sender.join().expect("sender");
    percentiles(
        "latency from injection to the model's input, real time, 1 kHz tick",
        delays.lock().unwrap().clone(),
    );
}

fn main() {
    let seconds = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average: {}", load.trim());
    lateness(seconds);
    throughput();
    latency(seconds.min(20));
}
