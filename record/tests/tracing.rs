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

#[test]
fn spans_name_the_model_path_port_and_simulation_time() {
    let log = Log::default();
    let init = SimInit::new().with_threads(1);
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_timer(SimTimer::new(init.time_view()))
        .with_max_level(tracing::Level::DEBUG)
        .with_target(false)
        .with_writer(move || writer.clone())
        .finish();
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
