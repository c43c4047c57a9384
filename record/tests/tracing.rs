//! The kernel's spans (feature `tracing`) as a subscriber prints them, with
//! the simulation time from `SimTimer`: model paths, port names and times.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use causim::prelude::*;
use causim_record::SimTimer;

/// Ticks every 500 ms and logs it.
#[model]
struct Blinker {
    /// Ticks so far.
    ticks: u32,
}

#[model]
impl Blinker {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        tracing::info!("starting");
        let period = Duration::from_millis(500);
        cx.schedule_periodic(period, period, Self::ports().tick, ())
            .unwrap();
    }

    #[input]
    fn tick(&mut self) {
        self.ticks += 1;
        tracing::info!(ticks = self.ticks, "tick");
    }
}

/// A panel holding the blinker, so that its path has two levels.
struct Panel;

impl Composite for Panel {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(Blinker { ticks: 0 }, Mailbox::new(), "blinker");
    }
}

/// A log shared with the subscriber.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A subscriber printing to `log`, with the simulation time of `init`'s
/// bench.
fn subscriber(init: &SimInit, log: &Log) -> impl tracing::Subscriber + Send + Sync {
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_timer(SimTimer::new(init.time_view()))
        .with_max_level(tracing::Level::DEBUG)
        .with_target(false)
        .with_writer(move || writer.clone())
        .finish()
}

#[test]
fn spans_name_the_model_path_port_and_simulation_time() {
    let log = Log::default();
    let init = SimInit::new().with_threads(1);
    let subscriber = subscriber(&init, &log);
    tracing::subscriber::with_default(subscriber, || {
        let mut simu = init
            .add_composite(Panel, "panel")
            .init(SimTime::from_secs(10))
            .unwrap();
        simu.step_until(SimTime::from_secs(11)).unwrap();
    });
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    assert_eq!(
        lines,
        [
            "10.000000000s  INFO model{path=\"panel/blinker\" type=\"Blinker\"}:init{time=10.000000000s}: starting",
            "10.500000000s  INFO model{path=\"panel/blinker\" type=\"Blinker\"}:message{port=\"tick\" time=10.500000000s}: tick ticks=1",
            "11.000000000s  INFO model{path=\"panel/blinker\" type=\"Blinker\"}:message{port=\"tick\" time=11.000000000s}: tick ticks=2",
        ],
        "{text}"
    );
}

/// Two panels in one bench, each with its blinker.
struct Pair;

impl Composite for Pair {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_composite(Panel, "left")
            .add_composite(Panel, "right");
    }
}

/// On several threads a subscriber must be the global one (a scoped
/// default covers one thread only): the spans of models polled on the
/// worker threads carry their paths and times too.
#[test]
fn spans_from_worker_threads_reach_a_global_subscriber() {
    let log = Log::default();
    let init = SimInit::new().with_threads(2);
    let subscriber = subscriber(&init, &log);
    // The only global subscriber of this test binary.
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let mut simu = init
        .add_composite(Pair, "pair")
        .init(SimTime::from_secs(10))
        .unwrap();
    simu.step_until(SimTime::from_secs(11)).unwrap();
    drop(simu);
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    // Lines from the two models interleave as the threads ran them: compare
    // them as a set, each line whole.
    let mut lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| line.contains("pair/"))
        .collect();
    lines.sort_unstable();
    let mut expected = Vec::new();
    for side in ["left", "right"] {
        let model = format!("model{{path=\"pair/{side}/blinker\" type=\"Blinker\"}}");
        expected.push(format!(
            "10.000000000s  INFO {model}:init{{time=10.000000000s}}: starting"
        ));
        for (ticks, at) in [(1, "10.500000000s"), (2, "11.000000000s")] {
            expected.push(format!(
                "{at}  INFO {model}:message{{port=\"tick\" time={at}}}: tick ticks={ticks}"
            ));
        }
    }
    expected.sort_unstable();
    assert_eq!(lines, expected, "{text}");
}
