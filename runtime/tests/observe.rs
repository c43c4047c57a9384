//! Observing a bench from outside: a `CallbackSink` with the `TimeView`
//! and an output's `Tap` (what recorders are built on), and the progress
//! callback of long calls.

mod common;
use common::*;

use std::sync::{Arc, Mutex};

use causim::{CallbackSink, Progress, Tap, TimeView};

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

/// What taps saw: the tap's name, the bench's time and the value.
type Seen = Arc<Mutex<Vec<(&'static str, SimTime, u32)>>>;

/// A tap that logs what it sees, with its name and the bench's time.
struct Logging {
    name: &'static str,
    clock: TimeView,
    log: Seen,
}

/// A tap named `name` logging into `seen` with the time of `init`'s bench.
fn logging(name: &'static str, init: &SimInit, seen: &Seen) -> Logging {
    Logging {
        name,
        clock: init.time_view(),
        log: seen.clone(),
    }
}

impl Tap<u32> for Logging {
    fn observe(&mut self, value: &u32) {
        let entry = (self.name, self.clock.now(), *value);
        self.log.lock().unwrap().push(entry);
    }
}

/// An emitter `emitter` whose one output goes to a recorder `rec` (unless
/// `connected` is false) and is tapped by `taps` named taps logging into
/// the returned log; `emit` is scheduled at 2 s with `script`.
fn tapped_bench(
    taps: &[&'static str],
    connected: bool,
    script: Vec<(usize, u32)>,
) -> (Simulation, Log<u32>, Seen) {
    let log = Log::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let init = sim_init();
    let mut emitter = Emitter::<u32>::new(1);
    let rec = Mailbox::new();
    if connected {
        emitter.outs[0].connect(Recorder::ports().input, &rec);
    }
    for &name in taps {
        emitter.outs[0].tap(logging(name, &init, &seen));
    }
    assert_eq!(emitter.outs[0].connection_count(), usize::from(connected));
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let simu = start(init.add_model(emitter, mbox, "emitter").add_model(
        Recorder::new(&log),
        rec,
        "rec",
    ));
    simu.scheduler()
        .schedule(t(2), Emitter::ports().emit, script, &addr)
        .unwrap();
    (simu, log, seen)
}

#[test]
fn a_tap_sees_each_value_when_it_is_sent_and_the_connection_still_gets_it() {
    let script = vec![(0, 1), (0, 2), (0, 3)];
    let (mut simu, log, seen) = tapped_bench(&["tap"], true, script);
    simu.step_until(t(5)).unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [("tap", t(2), 1), ("tap", t(2), 2), ("tap", t(2), 3)]
    );
    assert_eq!(log.values_of("rec"), vec![1, 2, 3]);
}

#[test]
fn a_tap_is_not_a_connection_in_the_topology() {
    struct Ignore;
    impl Tap<u64> for Ignore {
        fn observe(&mut self, _: &u64) {}
    }
    let topology_with = |tapped: bool| {
        let mut ticker = Ticker {
            ticks: 0,
            out: Output::new(),
        };
        let queue = EventQueue::new();
        ticker.out.connect_sink(&queue);
        if tapped {
            ticker.out.tap(Ignore);
        }
        assert_eq!(ticker.out.connection_count(), 1);
        let init = sim_init().add_model(ticker, Mailbox::new(), "ticker");
        init.topology()
    };
    let tapped = topology_with(true);
    assert_eq!(tapped.connections().len(), 1);
    assert_eq!(tapped, topology_with(false));
}

#[test]
fn taps_see_values_in_the_order_they_were_added() {
    let (mut simu, log, seen) = tapped_bench(&["first", "second"], true, vec![(0, 7), (0, 8)]);
    simu.step().unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("first", t(2), 7),
            ("second", t(2), 7),
            ("first", t(2), 8),
            ("second", t(2), 8)
        ]
    );
    assert_eq!(log.values_of("rec"), vec![7, 8]);
}

#[test]
fn a_tap_on_an_unconnected_output_sees_every_value() {
    let (mut simu, log, seen) = tapped_bench(&["alone"], false, vec![(0, 4), (0, 5)]);
    simu.step().unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [("alone", t(2), 4), ("alone", t(2), 5)]
    );
    assert_eq!(log.values_of("rec"), Vec::<u32>::new());
}

#[test]
fn a_tapped_output_to_a_mailbox_never_added_still_reports_no_recipient() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let init = sim_init();
    let mut emitter = Emitter::<u32>::new(1);
    let stray = Mailbox::<Recorder<u32>>::new();
    emitter.outs[0].connect(Recorder::ports().input, &stray);
    emitter.outs[0].tap(logging("tap", &init, &seen));
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(init.add_model(emitter, mbox, "emitter"));
    let error = simu
        .process_event(Emitter::ports().emit, vec![(0, 6)], &addr)
        .unwrap_err();
    assert!(
        matches!(&error, SimulationError::NoRecipient { sender: Some(s), .. } if s == "emitter"),
        "{error}"
    );
    assert_eq!(*seen.lock().unwrap(), [("tap", t(0), 6)]);
}

#[test]
fn a_connection_made_after_the_tap_is_served_and_the_tap_still_sees() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let init = sim_init();
    let mut emitter = Emitter::<u32>::new(1);
    emitter.outs[0].tap(logging("early", &init, &seen));
    let queue = EventQueue::new();
    emitter.outs[0].connect_sink(&queue);
    let log = Log::new();
    let rec = Mailbox::new();
    emitter.outs[0].connect(Recorder::ports().input, &rec);
    assert_eq!(emitter.outs[0].connection_count(), 2);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(init.add_model(emitter, mbox, "emitter").add_model(
        Recorder::new(&log),
        rec,
        "rec",
    ));
    simu.process_event(Emitter::ports().emit, vec![(0, 3), (0, 4)], &addr)
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [("early", t(0), 3), ("early", t(0), 4)]
    );
    assert_eq!(queue.take_all(), [3, 4]);
    assert_eq!(log.values_of("rec"), vec![3, 4]);
}

#[test]
fn a_tapped_send_that_waits_for_a_full_mailbox_is_seen_once() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let init = sim_init();
    let mut emitter = Emitter::<u32>::new(1);
    // One slot: each value after the first waits for the recorder.
    let rec = Mailbox::with_capacity(1);
    emitter.outs[0].connect(Recorder::ports().input, &rec);
    emitter.outs[0].tap(logging("tap", &init, &seen));
    let log = Log::new();
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(init.add_model(emitter, mbox, "emitter").add_model(
        Recorder::new(&log),
        rec,
        "rec",
    ));
    let script: Vec<(usize, u32)> = (1..=5).map(|v| (0, v)).collect();
    simu.process_event(Emitter::ports().emit, script, &addr)
        .unwrap();
    let values: Vec<u32> = seen.lock().unwrap().iter().map(|e| e.2).collect();
    assert_eq!(values, [1, 2, 3, 4, 5]);
    assert_eq!(log.values_of("rec"), vec![1, 2, 3, 4, 5]);
}

#[test]
fn a_tapped_output_in_the_deterministic_order_is_staged_and_seen() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let init = sim_init().with_message_order(MessageOrder::Deterministic);
    let log = Log::new();
    // Two emitters send to one recorder at the same time: the order is
    // the senders' (by name), on any number of threads, with the taps.
    let rec = Mailbox::new();
    let mut init = init;
    let mut addresses = Vec::new();
    for (name, base) in [("a", 10), ("b", 20)] {
        let mut emitter = Emitter::<u32>::new(1);
        emitter.outs[0].connect(Recorder::ports().input, &rec);
        emitter.outs[0].tap(logging(name, &init, &seen));
        let mbox = Mailbox::new();
        addresses.push((mbox.address(), base));
        init = init.add_model(emitter, mbox, name);
    }
    let mut simu = start(init.add_model(Recorder::new(&log), rec, "rec"));
    for (address, base) in addresses.iter().rev() {
        let script = vec![(0, base + 1), (0, base + 2)];
        simu.scheduler()
            .schedule(t(1), Emitter::ports().emit, script, address)
            .unwrap();
    }
    simu.step().unwrap();
    assert_eq!(log.values_of("rec"), vec![11, 12, 21, 22]);
    let mut taps = seen.lock().unwrap().clone();
    taps.sort();
    assert_eq!(
        taps,
        [
            ("a", t(1), 11),
            ("a", t(1), 12),
            ("b", t(1), 21),
            ("b", t(1), 22)
        ]
    );
}
