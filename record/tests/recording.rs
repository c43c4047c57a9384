//! A known bench recorded: its CSV and VCD files compared with expected
//! ones, the VCD parsed back, and the same series on 1, 2 and 4 threads.

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

/// Runs the bench for 2 s on `threads` threads and returns its series.
fn run(threads: usize) -> Vec<Series> {
    let init = SimInit::new().with_threads(threads);
    let recording = Recording::new(init.time_view());
    let lamp_mb = Mailbox::new();
    let mut blinker = Blinker {
        ticks: 0,
        count: Output::new(),
        level: Output::new(),
        lit: Output::new(),
    };
    blinker
        .count
        .connect_sink(recording.record::<u32>("panel/blinker/count").sink());
    blinker
        .level
        .connect_sink(recording.record::<f64>("panel/blinker/level").sink());
    blinker.lit.connect_sink(
        recording
            .record::<bool>("panel/blinker/lit")
            .decimate(Decimation::OnChange)
            .sink(),
    );
    blinker.lit.connect(Lamp::ports().lit, &lamp_mb);
    let mut lamp = Lamp {
        mode: Output::new(),
    };
    lamp.mode
        .connect_sink(recording.record::<Mode>("panel/lamp/mode").sink());
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
