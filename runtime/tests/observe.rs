//! Observing a bench from outside: a `CallbackSink` with the `TimeView`
//! (what recorders are built on), and the progress callback of long calls.

mod common;
use common::*;

use std::sync::{Arc, Mutex};

use causim::{CallbackSink, Progress};

/// Sends its tick number on every tick.
#[model]
struct Ticker {
    ticks: u64,
    out: Output<u64>,
}

#[model]
impl Ticker {
    #[input]
    async fn tick(&mut self) {
        self.ticks += 1;
        self.out.send(self.ticks).await;
    }
}

/// A ticker ticking every second from 1 s to `n` s, with `sink` on its output.
fn ticking(n: u64, sink: impl FnOnce(&SimInit) -> CallbackSink<u64>) -> Simulation {
    let init = sim_init();
    let mut ticker = Ticker {
        ticks: 0,
        out: Output::new(),
    };
    ticker.out.connect_sink(&sink(&init));
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let simu = init.add_model(ticker, mbox, "ticker").init(t(0)).unwrap();
    for s in 1..=n {
        simu.scheduler()
            .schedule(t(s), Ticker::ports().tick, (), &addr)
            .unwrap();
    }
    simu
}

#[test]
fn a_callback_sink_sees_each_value_at_the_time_it_was_sent() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let mut simu = ticking(5, |init| {
        let clock = init.time_view();
        CallbackSink::new(move |v| log.lock().unwrap().push((clock.now(), v)))
    });
    simu.step_until(t(10)).unwrap();
    let expected: Vec<(SimTime, u64)> = (1..=5).map(|s| (t(s), s)).collect();
    assert_eq!(*seen.lock().unwrap(), expected);
    assert_eq!(simu.time_view().now(), t(10));
}

#[test]
fn progress_reports_time_events_and_completion() {
    let reports = Arc::new(Mutex::new(Vec::<Progress>::new()));
    let log = reports.clone();
    let mut simu = ticking(300, |_| CallbackSink::new(|_| {}));
    // Every 64 steps the clock is read, and with a zero interval the
    // callback runs then.
    simu.set_progress(Duration::ZERO, move |p| log.lock().unwrap().push(*p));
    simu.step_until(t(250)).unwrap();
    let reports = std::mem::take(&mut *reports.lock().unwrap());
    let steps: Vec<u64> = reports.iter().map(|p| p.steps).collect();
    assert_eq!(steps, [64, 128, 192, 250]);
    let times: Vec<SimTime> = reports.iter().map(|p| p.time).collect();
    assert_eq!(times, [t(64), t(128), t(192), t(250)]);
    let last = reports.last().unwrap();
    assert!(last.done && reports[..3].iter().all(|p| !p.done));
    assert_eq!(last.events, 250);
    assert_eq!(last.until, Some(t(250)));
    assert_eq!(last.fraction(t(0)), Some(1.0));
    assert!(last.events_per_sec() > 0.0);

    // `run` reports the rest, counted from its own start.
    let after = Arc::new(Mutex::new(Vec::<Progress>::new()));
    let log = after.clone();
    simu.set_progress(Duration::from_secs(3600), move |p| {
        log.lock().unwrap().push(*p)
    });
    simu.run().unwrap();
    let after = after.lock().unwrap();
    assert_eq!(after.len(), 1, "a long interval: only the final report");
    assert_eq!(
        (after[0].events, after[0].time, after[0].until),
        (50, t(300), None)
    );

    // Cleared: nothing more.
    simu.clear_progress();
    simu.step_until(t(400)).unwrap();
    assert_eq!(after.len(), 1);
}
