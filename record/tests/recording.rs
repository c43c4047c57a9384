//! A known bench recorded: its CSV and VCD files compared with expected
//! ones, the VCD parsed back, and the same series on 1, 2 and 4 threads,
//! through sinks and through taps.

use std::time::Duration;

use causim::prelude::*;
use causim_record::{
    write_csv_long, write_csv_wide, write_vcd, Decimation, Kind, Recordable, Recording, Series,
    Value,
};

/// What the lamp does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Dark.
    Off,
    /// Lit.
    On,
}

impl Recordable for Mode {
    const KIND: Kind = Kind::Label;
    fn value(&self) -> Value {
        Value::Label(match self {
            Mode::Off => "off",
            Mode::On => "on",
        })
    }
}

/// Ticks every 250 ms: sends its tick count, a level and whether it is lit.
#[model]
struct Blinker {
    /// Ticks so far.
    ticks: u32,
    count: Output<u32>,
    level: Output<f64>,
    lit: Output<bool>,
}

#[model]
impl Blinker {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        let period = Duration::from_millis(250);
        cx.schedule_periodic(period, period, Self::ports().tick, ())
            .unwrap();
    }

    #[input]
    async fn tick(&mut self) {
        self.ticks += 1;
        self.count.send(self.ticks).await;
        self.level.send(f64::from(self.ticks) * 0.5 - 1.0).await;
        self.lit.send(self.ticks.is_multiple_of(3)).await;
    }
}

/// Turns the lamp on when lit, and reports its mode.
#[model]
struct Lamp {
    mode: Output<Mode>,
}

#[model]
impl Lamp {
    #[input]
    async fn lit(&mut self, lit: bool) {
        self.mode.send(if lit { Mode::On } else { Mode::Off }).await;
    }
}

/// How the recorders are attached to the outputs.
#[derive(Debug, Clone, Copy)]
enum Attach {
    /// `output.connect_sink(recorder.sink())`.
    Sinks,
    /// `output.tap(recorder.tap())`.
    Taps,
}

/// Attaches `recorder` to `output` as `attach` says.
fn attach<T: Clone + Send + 'static>(
    output: &mut Output<T>,
    recorder: causim_record::Recorder<T>,
    attach: Attach,
) {
    match attach {
        Attach::Sinks => output.connect_sink(recorder.sink()),
        Attach::Taps => output.tap(recorder.tap()),
    }
}

/// Runs the bench for 2 s on `threads` threads and returns its series.
fn run(threads: usize) -> Vec<Series> {
    run_attached(threads, Attach::Sinks)
}

/// [`run`], with the recorders attached as `how` says.
fn run_attached(threads: usize, how: Attach) -> Vec<Series> {
    let init = SimInit::new().with_threads(threads);
    let recording = Recording::new(init.time_view());
    let lamp_mb = Mailbox::new();
    let mut blinker = Blinker {
        ticks: 0,
        count: Output::new(),
        level: Output::new(),
        lit: Output::new(),
    };
    let count = recording.record::<u32>("panel/blinker/count");
    attach(&mut blinker.count, count, how);
    let level = recording.record::<f64>("panel/blinker/level");
    attach(&mut blinker.level, level, how);
    let lit = recording
        .record::<bool>("panel/blinker/lit")
        .decimate(Decimation::OnChange);
    attach(&mut blinker.lit, lit, how);
    blinker.lit.connect(Lamp::ports().lit, &lamp_mb);
    let mut lamp = Lamp {
        mode: Output::new(),
    };
    let mode = recording.record::<Mode>("panel/lamp/mode");
    attach(&mut lamp.mode, mode, how);
    let mut simu = init
        .add_model(blinker, Mailbox::new(), "blinker")
        .add_model(lamp, lamp_mb, "lamp")
        .init(SimTime::ZERO)
        .unwrap();
    simu.step_until(SimTime::from_secs(2)).unwrap();
    recording.series()
}

fn text(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn csv_of_a_known_bench() {
    let series = run(1);
    insta::assert_snapshot!("long", text(|o| write_csv_long(&series, o)));
    insta::assert_snapshot!("wide", text(|o| write_csv_wide(&series, o)));
}

#[test]
fn vcd_of_a_known_bench() {
    let series = run(1);
    insta::assert_snapshot!("vcd", text(|o| write_vcd(&series, o)));
}

#[test]
fn every_sample_carries_the_time_it_was_sent() {
    let series = run(1);
    let count = &series[0];
    assert_eq!(count.samples.len(), 8);
    for (i, sample) in count.samples.iter().enumerate() {
        let tick = i as u64 + 1;
        assert_eq!(sample.time, SimTime::from_nanos(tick * 250_000_000));
        assert_eq!(sample.value, Value::Int(tick as i64));
    }
    // On change: false at the first tick, true at 3 and 6, false after.
    let lit: Vec<(u64, Value)> = series[2]
        .samples
        .iter()
        .map(|s| (s.time.as_nanos() / 250_000_000, s.value))
        .collect();
    assert_eq!(
        lit,
        [
            (1, Value::Bool(false)),
            (3, Value::Bool(true)),
            (4, Value::Bool(false)),
            (6, Value::Bool(true)),
            (7, Value::Bool(false)),
        ]
    );
}

#[test]
fn the_vcd_parses_back_with_its_scopes_and_values() {
    let series = run(1);
    let file = text(|o| write_vcd(&series, o));
    let mut parser = vcd::Parser::new(file.as_bytes());
    let header = parser.parse_header().unwrap();
    assert_eq!(header.timescale, Some((1, vcd::TimescaleUnit::NS)));
    let level = header
        .find_var(&["panel", "blinker", "level"])
        .expect("level in scope panel/blinker");
    let mode = header
        .find_var(&["panel", "lamp", "mode"])
        .expect("mode in scope panel/lamp");
    assert_eq!(level.var_type, vcd::VarType::Real);
    assert_eq!(mode.var_type, vcd::VarType::String);
    let (mut time, mut levels, mut modes) = (0, Vec::new(), Vec::new());
    for command in parser {
        match command.unwrap() {
            vcd::Command::Timestamp(t) => time = t,
            vcd::Command::ChangeReal(id, v) if id == level.code => levels.push((time, v)),
            vcd::Command::ChangeString(id, v) if id == mode.code => modes.push((time, v)),
            _ => {}
        }
    }
    let expected: Vec<(u64, f64)> = (1..=8)
        .map(|tick| (tick * 250_000_000, tick as f64 * 0.5 - 1.0))
        .collect();
    assert_eq!(levels, expected);
    assert_eq!(modes.len(), 8);
    assert_eq!(modes[2], (750_000_000, "on".to_string()));
}

#[test]
fn series_are_identical_on_1_2_and_4_threads() {
    let one = run(1);
    assert!(one.iter().all(|s| !s.samples.is_empty()));
    for threads in [2, 4] {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

#[test]
fn taps_record_the_series_sinks_record_on_1_2_and_4_threads() {
    let sinks = run(1);
    for threads in [1, 2, 4] {
        assert_eq!(
            run_attached(threads, Attach::Taps),
            sinks,
            "{threads} threads"
        );
    }
}

/// Sends `n` on `a` and `10 n` on `b` at its `n`-th tick, and `100 n` on
/// `c` at even ticks.
#[model]
struct Three {
    n: u32,
    a: Output<u32>,
    b: Output<u32>,
    c: Output<u32>,
}

#[model]
impl Three {
    #[input]
    async fn tick(&mut self) {
        self.n += 1;
        self.a.send(self.n).await;
        self.b.send(10 * self.n).await;
        if self.n.is_multiple_of(2) {
            self.c.send(100 * self.n).await;
        }
    }
}

/// A bench of one `Three` ticking at 1, 2, 3 and 4 s, its outputs wired
/// by `wire`.
fn three_ticking(init: SimInit, wire: impl FnOnce(&mut Three)) -> Simulation {
    let mut model = Three {
        n: 0,
        a: Output::new(),
        b: Output::new(),
        c: Output::new(),
    };
    wire(&mut model);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let simu = init
        .add_model(model, mailbox, "three")
        .init(SimTime::ZERO)
        .unwrap();
    for s in 1..=4 {
        simu.scheduler()
            .schedule(SimTime::from_secs(s), Three::ports().tick, (), &address)
            .unwrap();
    }
    simu
}

/// [`three_ticking`] with its three outputs recorded by one recorder: `a`
/// and `b` tapped, `c` through the sink.
fn three(init: SimInit) -> (Simulation, Recording, causim_record::Recorder<u32>) {
    let recording = Recording::new(init.time_view());
    let recorder = recording.record::<u32>("three/all");
    let simu = three_ticking(init, |model| {
        model.c.connect_sink(recorder.sink());
        model.a.tap(recorder.tap());
        model.b.tap(recorder.tap());
    });
    (simu, recording, recorder)
}

/// `(seconds, value)` of each sample.
fn points(series: &[causim_record::Sample]) -> Vec<(u64, i64)> {
    series
        .iter()
        .map(|s| {
            (
                s.time.as_nanos() / 1_000_000_000,
                s.value.as_f64().unwrap() as i64,
            )
        })
        .collect()
}

#[test]
fn a_recorder_fed_by_taps_and_a_sink_merges_them_by_time() {
    for threads in [1, 2, 4] {
        let (mut simu, recording, recorder) = three(SimInit::new().with_threads(threads));
        simu.step_until(SimTime::from_secs(10)).unwrap();
        // Same-time samples: the sink's first, then the taps' in the order
        // they were made.
        let expected = vec![
            (1, 1),
            (1, 10),
            (2, 200),
            (2, 2),
            (2, 20),
            (3, 3),
            (3, 30),
            (4, 400),
            (4, 4),
            (4, 40),
        ];
        assert_eq!(points(&recorder.samples()), expected, "{threads} threads");
        assert_eq!(recorder.len(), expected.len());
        let series = recording.get("three/all").unwrap();
        assert_eq!(points(&series.samples), expected);
        assert!(recording.get("three/none").is_none());
    }
}

#[test]
fn a_tapped_series_can_be_read_between_steps() {
    let (mut simu, _recording, recorder) = three(SimInit::new().with_threads(1));
    assert!(recorder.is_empty());
    simu.step().unwrap();
    assert_eq!(points(&recorder.samples()), vec![(1, 1), (1, 10)]);
    simu.step().unwrap();
    assert_eq!(recorder.len(), 5);
}

#[test]
fn a_tap_keeps_the_decimation_of_its_recorder_when_made() {
    let init = SimInit::new().with_threads(1);
    let recording = Recording::new(init.time_view());
    let every_other = recording
        .record::<u32>("three/a")
        .decimate(Decimation::EveryNth(2));
    let mut simu = three_ticking(init, |model| {
        model.a.tap(every_other.tap());
        let all = every_other.clone().decimate(Decimation::All);
        model.b.tap(all.tap());
    });
    simu.step_until(SimTime::from_secs(10)).unwrap();
    // `a`'s tap keeps every other value; `b`'s, made after, all of them.
    assert_eq!(
        points(&every_other.samples()),
        vec![(1, 1), (1, 10), (2, 20), (3, 3), (3, 30), (4, 40)]
    );
}

/// The lamp's mode, as a label (`Kind::Label`) recorded from a `bool`.
fn mode_label(lit: &bool) -> Mode {
    if *lit {
        Mode::On
    } else {
        Mode::Off
    }
}

#[test]
fn a_decimated_tap_publishes_a_label_first_seen_in_a_dropped_value() {
    // Labels off, on, on at 1, 2 and 3 s: `EveryNth(2)` drops the first
    // `on`, and keeps the second, whose label the reader must know.
    let init = SimInit::new().with_threads(1);
    let recording = Recording::new(init.time_view());
    let modes = recording
        .record_map("three/mode", |n: &u32| mode_label(&(*n > 1)))
        .decimate(Decimation::EveryNth(2));
    let mut simu = three_ticking(init, |model| model.a.tap(modes.tap()));
    simu.step_until(SimTime::from_secs(3)).unwrap();
    let labels: Vec<(u64, Value)> = modes
        .samples()
        .iter()
        .map(|s| (s.time.as_nanos() / 1_000_000_000, s.value))
        .collect();
    assert_eq!(labels, [(1, Value::Label("off")), (3, Value::Label("on"))]);
}

#[test]
fn recordings_one_after_another_and_side_by_side_on_one_thread() {
    // Each bench runs on this thread (one thread): the thread's writers
    // serve a recording dropped, a new one, then two in turn.
    let counts = |init: SimInit| {
        let (mut simu, recording, recorder) = three(init);
        simu.step_until(SimTime::from_secs(10)).unwrap();
        (points(&recorder.samples()), recording)
    };
    let (first, recording) = counts(SimInit::new().with_threads(1));
    drop(recording);
    let (again, _kept) = counts(SimInit::new().with_threads(1));
    assert_eq!(again, first);

    let (mut one, _r1, rec1) = three(SimInit::new().with_threads(1));
    let (mut two, _r2, rec2) = three(SimInit::new().with_threads(1));
    for s in 1..=4 {
        one.step_until(SimTime::from_secs(s)).unwrap();
        two.step_until(SimTime::from_secs(s)).unwrap();
    }
    assert_eq!(points(&rec1.samples()), first);
    assert_eq!(points(&rec2.samples()), first);
}

#[test]
fn a_reserved_recording_records_the_same_series() {
    for threads in [1, 2] {
        let init = SimInit::new().with_threads(threads);
        let (mut simu, recording, recorder) = three(init);
        recording.reserve(10);
        simu.step_until(SimTime::from_secs(10)).unwrap();
        assert_eq!(recorder.len(), 10, "{threads} threads");
        assert_eq!(
            points(&recorder.samples())[..3],
            [(1, 1), (1, 10), (2, 200)]
        );
    }
}

/// Keeps a tap and records its count with it at every tick, without an
/// output.
#[model]
struct Probed {
    n: u32,
    probe: causim_record::RecorderTap<u32>,
}

#[model]
impl Probed {
    #[input]
    async fn tick(&mut self) {
        self.n += 1;
        causim::Tap::observe(&mut self.probe, &(self.n * 7));
    }
}

#[test]
fn a_tap_kept_in_a_model_records_what_it_is_given_at_the_model_time() {
    for threads in [1, 2] {
        let init = SimInit::new().with_threads(threads);
        let recording = Recording::new(init.time_view());
        let recorder = recording.record::<u32>("probed/n");
        let model = Probed {
            n: 0,
            probe: recorder.tap(),
        };
        let mailbox = Mailbox::new();
        let address = mailbox.address();
        let mut simu = init
            .add_model(model, mailbox, "probed")
            .init(SimTime::ZERO)
            .unwrap();
        for s in [2, 5] {
            simu.scheduler()
                .schedule(SimTime::from_secs(s), Probed::ports().tick, (), &address)
                .unwrap();
        }
        simu.step_until(SimTime::from_secs(9)).unwrap();
        assert_eq!(
            points(&recorder.samples()),
            [(2, 7), (5, 14)],
            "{threads} threads"
        );
    }
}
