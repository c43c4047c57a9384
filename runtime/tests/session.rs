//! Session logs: a live run's injected input, logged, written, read back
//! and replayed into a rebuilt bench, reproduces the run exactly; and a
//! damaged or mismatched log is refused with an error that says why.
//!
//! The benches: two mixers in a row, added flat or as a composite (whose
//! log names each model by its path), and a fan-in, where several models
//! send to one at the same time — exact on several threads only in the
//! deterministic message order, which it runs in, live on two threads
//! and replayed on one and two.

mod common;
use common::*;

use std::time::Duration;

use causim::model::PortKind;
use causim::ports::{InputRef, ReplierRef};
use causim::realtime::session::{LoggingInjector, Replay, SessionError, SessionLog};
use causim::realtime::ManualClock;

/// Mixes every input into its state, with its time, reports the state,
/// and passes a derived value on after a delay that depends on it: a
/// model whose outputs change if any input comes at another time or in
/// another order.
#[model]
struct Mixer {
    out: Output<u64>,
    report: Output<(SimTime, u64)>,
    state: u64,
}

#[model]
impl Mixer {
    #[input]
    async fn input(&mut self, x: u64, cx: &mut Context<Self>) {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(x ^ cx.time().as_nanos());
        self.report.send((cx.time(), self.state)).await;
        let delay = Duration::from_micros(100 + self.state % 3_000);
        cx.schedule(delay, Self::ports().later, self.state % 1_000)
            .unwrap();
    }

    #[input]
    async fn later(&mut self, x: u64) {
        self.out.send(x).await;
    }

    #[replier]
    fn peek(&mut self, salt: u64) -> u64 {
        self.state ^= salt;
        self.state
    }
}

/// A mixer in its initial state.
fn mixer(state: u64) -> Mixer {
    Mixer {
        out: Output::new(),
        report: Output::new(),
        state,
    }
}

/// The reports of a bench's mixers, one queue each.
type Reports = Vec<Vec<(SimTime, u64)>>;

/// A bench, its ports the session injects into, and its reports.
struct Bench {
    simu: Simulation,
    first: InputRef<Mixer, u64>,
    peek: ReplierRef<Mixer, u64, u64>,
    reports: Vec<EventQueue<(SimTime, u64)>>,
}

impl Bench {
    /// The reports so far.
    fn take_reports(&self) -> Reports {
        self.reports.iter().map(EventQueue::take_all).collect()
    }
}

/// Builds a bench from a builder that has the session's (or the
/// replay's) settings: the same function builds the live bench and the
/// replay's.
type Build = fn(SimInit) -> Bench;

/// Two mixers in a row, `a` feeding `b`, each reporting into its queue.
struct Pair {
    a: Mixer,
    a_mailbox: Mailbox<Mixer>,
    b: Mixer,
    b_mailbox: Mailbox<Mixer>,
    reports: Vec<EventQueue<(SimTime, u64)>>,
}

impl Pair {
    fn new() -> Self {
        let (a_mailbox, b_mailbox) = (Mailbox::new(), Mailbox::new());
        let reports = vec![EventQueue::new(), EventQueue::new()];
        let (mut a, mut b) = (mixer(1), mixer(2));
        a.out.connect(Mixer::ports().input, &b_mailbox);
        a.report.connect_sink(&reports[0]);
        b.report.connect_sink(&reports[1]);
        Pair {
            a,
            a_mailbox,
            b,
            b_mailbox,
            reports,
        }
    }

    /// `a`'s input and `b`'s replier.
    fn ports(&self) -> (InputRef<Mixer, u64>, ReplierRef<Mixer, u64, u64>) {
        (
            InputRef::new(Mixer::ports().input, &self.a_mailbox),
            ReplierRef::new(Mixer::ports().peek, &self.b_mailbox),
        )
    }
}

/// The pair as a subsystem: `a` is the on-board software, `b` a unit.
impl Composite for Pair {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.a, self.a_mailbox, "obsw")
            .add_model(self.b, self.b_mailbox, "unit");
    }
}

/// The pair added model by model, as `a` and `b`.
fn bench(init: SimInit) -> Bench {
    let pair = Pair::new();
    let (first, peek) = pair.ports();
    let simu = init
        .add_model(pair.a, pair.a_mailbox, "a")
        .add_model(pair.b, pair.b_mailbox, "b")
        .init(SimTime::ZERO)
        .expect("bench");
    Bench {
        simu,
        first,
        peek,
        reports: pair.reports,
    }
}

/// The pair added as a composite, `sat`: the models are `sat/obsw` and
/// `sat/unit`.
fn composite_bench(init: SimInit) -> Bench {
    let pair = Pair::new();
    let (first, peek) = pair.ports();
    let reports = pair.reports.clone();
    let simu = init
        .add_composite(pair, "sat")
        .init(SimTime::ZERO)
        .expect("bench");
    Bench {
        simu,
        first,
        peek,
        reports,
    }
}

/// Passes each input on at once, salted: relays fed at one time send to
/// their recipient at that time.
#[model]
struct Relay {
    out: Output<u64>,
    salt: u32,
}

#[model]
impl Relay {
    #[input]
    async fn input(&mut self, x: u64) {
        self.out
            .send(x.rotate_left(self.salt) ^ u64::from(self.salt))
            .await;
    }
}

/// The number of relays of the fan-in bench.
const RELAYS: u32 = 4;

/// Fan-in: a `head` mixer whose delayed output feeds [`RELAYS`] relays,
/// each sending to one `sink` mixer at the same time. The sink's state,
/// and so its reports, depend on the order in which the relays' messages
/// reach it, which on several threads only the deterministic message
/// order fixes; the bench runs in it.
fn fan_in_bench(init: SimInit) -> Bench {
    let (head_mailbox, sink_mailbox) = (Mailbox::new(), Mailbox::new());
    let reports = vec![EventQueue::new(), EventQueue::new()];
    let (mut head, mut sink) = (mixer(1), mixer(2));
    head.report.connect_sink(&reports[0]);
    sink.report.connect_sink(&reports[1]);
    let mut init = init.with_message_order(MessageOrder::Deterministic);
    for salt in 0..RELAYS {
        let mailbox = Mailbox::new();
        head.out.connect(Relay::ports().input, &mailbox);
        let mut relay = Relay {
            out: Output::new(),
            salt,
        };
        relay.out.connect(Mixer::ports().input, &sink_mailbox);
        init = init.add_model(relay, mailbox, format!("relay{salt}"));
    }
    let first = InputRef::new(Mixer::ports().input, &head_mailbox);
    let peek = ReplierRef::new(Mixer::ports().peek, &sink_mailbox);
    let simu = init
        .add_model(head, head_mailbox, "head")
        .add_model(sink, sink_mailbox, "sink")
        .init(SimTime::ZERO)
        .expect("bench");
    Bench {
        simu,
        first,
        peek,
        reports,
    }
}

/// A pseudo-random sequence from `seed`.
fn numbers(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// A live session of the bench `build` makes: a thread injects events
/// and queries while the bench ticks on a manual clock; returns the log
/// and the reports.
fn live_session(seed: u64, threads: usize, build: Build) -> (SessionLog, Reports) {
    let log = SessionLog::new();
    let mut live = build(
        SimInit::new()
            .with_threads(threads)
            .with_clock(ManualClock::new())
            .with_tick(Duration::from_micros(500))
            .with_input_log(log.recorder()),
    );
    let injector = LoggingInjector::new(live.simu.injector());
    let (first, peek) = (live.first.clone(), live.peek.clone());
    let sender = std::thread::spawn(move || {
        let mut next = numbers(seed);
        for _ in 0..200 {
            let x = next();
            if x.is_multiple_of(7) {
                // The reply is not awaited: the query's effect is logged.
                drop(injector.query(&peek, x).unwrap());
            } else {
                injector.send(&first, x).unwrap();
            }
            if x.is_multiple_of(3) {
                std::thread::yield_now();
            }
        }
    });
    // Run until the sender is done and its last input applied.
    while !sender.is_finished() {
        live.simu.step().unwrap();
    }
    sender.join().unwrap();
    let end = live.simu.time() + Duration::from_millis(10);
    live.simu.step_until(end).unwrap();
    (log, live.take_reports())
}

/// Replays `log` into a fresh bench that `build` makes, on `threads`
/// threads, without a clock, to `end`.
fn replay(log: &SessionLog, end: SimTime, threads: usize, build: Build) -> Reports {
    let mut again = build(SimInit::new().with_threads(threads));
    Replay::new(log)
        .input(&again.first)
        .replier(&again.peek)
        .schedule(&mut again.simu)
        .unwrap();
    again.simu.step_until(end).unwrap();
    again.take_reports()
}

/// The log written to a file and read back.
fn through_a_file(log: &SessionLog) -> SessionLog {
    let mut file = Vec::new();
    log.write_to(&mut file).unwrap();
    let read = SessionLog::read_from(file.as_slice()).unwrap();
    assert_eq!(read.entries(), log.entries());
    read
}

/// A time after the session's last report.
fn last_time(reports: &[Vec<(SimTime, u64)>]) -> SimTime {
    reports
        .iter()
        .filter_map(|r| r.last().map(|&(t, _)| t))
        .max()
        .unwrap_or(SimTime::ZERO)
        + Duration::from_millis(10)
}

#[test]
fn replaying_a_session_log_reproduces_the_session_on_one_and_two_threads() {
    for threads in [1, 2] {
        for seed in 1..=12 {
            let (log, session) = live_session(seed, threads, bench);
            assert_eq!(log.entries().len(), 200, "every input logged");
            let read = through_a_file(&log);
            let replayed = replay(&read, last_time(&session), 1, bench);
            assert_eq!(replayed, session, "seed {seed}, {threads} thread(s)");
        }
    }
}

#[test]
fn a_session_log_names_a_composites_models_by_path_and_replays() {
    for threads in [1, 2] {
        for seed in [3, 8] {
            let (log, session) = live_session(seed, threads, composite_bench);
            let entries = log.entries();
            assert_eq!(entries.len(), 200, "every input logged");
            let mut ports: Vec<(String, String, PortKind)> = entries
                .iter()
                .map(|entry| {
                    let record = entry.record.as_ref().expect("a logged payload");
                    (record.model.clone(), record.port.clone(), record.kind)
                })
                .collect();
            ports.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
            ports.dedup();
            assert_eq!(
                ports,
                [
                    ("sat/obsw".into(), "input".into(), PortKind::Input),
                    ("sat/unit".into(), "peek".into(), PortKind::Replier),
                ],
                "seed {seed}, {threads} thread(s)"
            );
            let read = through_a_file(&log);
            let replayed = replay(&read, last_time(&session), 1, composite_bench);
            assert_eq!(replayed, session, "seed {seed}, {threads} thread(s)");
        }
    }
    // The replay finds the ports by path: one it was not given is named so.
    let (log, _) = live_session(3, 1, composite_bench);
    let mut again = composite_bench(SimInit::new());
    assert_eq!(
        Replay::new(&log)
            .input(&again.first)
            .schedule(&mut again.simu),
        Err(SessionError::UnknownPort {
            model: "sat/unit".into(),
            port: "peek".into()
        })
    );
    // A flat bench has other paths: the log does not apply to it.
    let mut flat = bench(SimInit::new());
    let refused = Replay::new(&log)
        .input(&flat.first)
        .replier(&flat.peek)
        .schedule(&mut flat.simu);
    assert!(
        matches!(&refused, Err(SessionError::UnknownPort { model, .. }) if model.starts_with("sat/")),
        "{refused:?}"
    );
}

#[test]
fn a_fan_in_session_on_two_threads_in_the_deterministic_order_replays_exactly() {
    for seed in 1..=4 {
        let (log, session) = live_session(seed, 2, fan_in_bench);
        assert_eq!(log.entries().len(), 200, "every input logged");
        // The relays' messages did meet at the sink: it reported at least
        // once per relay at one time.
        let sink = &session[1];
        assert!(
            sink.iter()
                .any(|&(at, _)| sink.iter().filter(|&&(t, _)| t == at).count() >= RELAYS as usize),
            "seed {seed}: no fan-in"
        );
        let read = through_a_file(&log);
        let end = last_time(&session);
        for threads in [1, 2] {
            let replayed = replay(&read, end, threads, fan_in_bench);
            assert_eq!(
                replayed, session,
                "seed {seed}, replayed on {threads} thread(s)"
            );
        }
    }
}

#[test]
fn a_replay_checks_the_log_against_the_bench_before_applying_anything() {
    let (log, _) = live_session(99, 1, bench);
    let mut file = Vec::new();
    log.write_to(&mut file).unwrap();

    // A port the replay was not given.
    let mut again = bench(SimInit::new());
    let error = Replay::new(&log)
        .input(&again.first)
        .schedule(&mut again.simu)
        .unwrap_err();
    assert_eq!(
        error,
        SessionError::UnknownPort {
            model: "b".into(),
            port: "peek".into()
        }
    );
    assert_eq!(again.simu.injector().send(&again.first, 1), Ok(()));

    // Damaged bytes, a truncated body, no header, a newer version.
    let mut damaged = file.clone();
    let last = damaged.len() - 1;
    damaged.truncate(last - 3);
    assert!(matches!(
        SessionLog::read_from(damaged.as_slice()),
        Err(SessionError::Corrupt(_))
    ));
    assert_eq!(
        SessionLog::read_from(&b"not a log"[..]).unwrap_err(),
        SessionError::NotASessionLog
    );
    let mut newer = file.clone();
    newer[14] = 9;
    assert_eq!(
        SessionLog::read_from(newer.as_slice()).unwrap_err(),
        SessionError::UnsupportedVersion { found: 9 }
    );
    let truncated_header = &file[..15];
    assert!(matches!(
        SessionLog::read_from(truncated_header),
        Err(SessionError::Corrupt(_))
    ));
}

#[test]
fn trailing_or_reordered_bytes_are_refused() {
    let (log, _) = live_session(5, 1, bench);
    let mut file = Vec::new();
    log.write_to(&mut file).unwrap();
    let mut trailing = file.clone();
    trailing.extend_from_slice(&[0, 1, 2]);
    assert!(matches!(
        SessionLog::read_from(trailing.as_slice()),
        Err(SessionError::Corrupt(message)) if message.contains("3 bytes follow")
    ));
}

/// A payload whose serialisation always fails.
struct Opaque;

impl serde::Serialize for Opaque {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("opaque on purpose"))
    }
}

/// Takes opaque payloads.
#[model]
struct Sink {}

#[model]
impl Sink {
    #[input]
    fn take(&mut self, _: Opaque) {}
}

#[test]
fn input_the_log_cannot_hold_is_refused_or_makes_the_log_unreplayable() {
    let log = SessionLog::new();
    let mailbox = Mailbox::new();
    let take = InputRef::new(Sink::ports().take, &mailbox);
    let mut simu = SimInit::new()
        .with_input_log(log.recorder())
        .add_model(Sink {}, mailbox, "sink")
        .init(SimTime::ZERO)
        .unwrap();
    let injector = simu.injector();
    // A payload that cannot be serialised is not injected.
    let error = LoggingInjector::new(injector.clone())
        .send(&take, Opaque)
        .unwrap_err();
    assert!(
        matches!(
            &error,
            causim::realtime::InjectError::Unloggable { port: "take", .. }
        ),
        "{error:?}"
    );
    // One injected without a record is logged as such, and a replay of the
    // log is refused.
    injector.send(&take, Opaque).unwrap();
    simu.step_until(SimTime::from_secs(1)).unwrap();
    let entries = log.entries();
    assert_eq!(entries.len(), 1);
    assert!(entries[0].record.is_none());
    let mut file = Vec::new();
    log.write_to(&mut file).unwrap();
    let read = SessionLog::read_from(file.as_slice()).unwrap();
    let mut again = bench(SimInit::new());
    assert_eq!(
        Replay::new(&read).schedule(&mut again.simu),
        Err(SessionError::Unrecorded {
            time: SimTime::from_secs(1),
            order: 0
        })
    );
}
