//! Session logs: a live run's injected input, logged, written, read back
//! and replayed into a rebuilt bench, reproduces the run exactly; and a
//! damaged or mismatched log is refused with an error that says why.

mod common;
use common::*;

use std::time::Duration;

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

/// Two mixers in a row; their reports, in one queue per mixer.
struct Bench {
    simu: Simulation,
    first: InputRef<Mixer, u64>,
    peek: ReplierRef<Mixer, u64, u64>,
    reports: [EventQueue<(SimTime, u64)>; 2],
}

fn bench(init: SimInit) -> Bench {
    let (a_mb, b_mb) = (Mailbox::new(), Mailbox::new());
    let reports = [EventQueue::new(), EventQueue::new()];
    let mut a = Mixer {
        out: Output::new(),
        report: Output::new(),
        state: 1,
    };
    a.out.connect(Mixer::ports().input, &b_mb);
    a.report.connect_sink(&reports[0]);
    let mut b = Mixer {
        out: Output::new(),
        report: Output::new(),
        state: 2,
    };
    b.report.connect_sink(&reports[1]);
    let first = InputRef::new(Mixer::ports().input, &a_mb);
    let peek = ReplierRef::new(Mixer::ports().peek, &b_mb);
    let simu = init
        .add_model(a, a_mb, "a")
        .add_model(b, b_mb, "b")
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

/// A live session: a thread injects events and queries while the bench
/// ticks on a manual clock; returns the log and both mixers' reports.
fn live_session(seed: u64, threads: usize) -> (SessionLog, Vec<Vec<(SimTime, u64)>>) {
    let log = SessionLog::new();
    let mut live = bench(
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
    let reports = live.reports.iter().map(EventQueue::take_all).collect();
    (log, reports)
}

/// Replays `log` into a fresh bench on one thread, without a clock, to
/// the same end as the session's last report.
fn replay(log: &SessionLog, end: SimTime) -> Vec<Vec<(SimTime, u64)>> {
    let mut again = bench(SimInit::new().with_threads(1));
    Replay::new(log)
        .input(&again.first)
        .replier(&again.peek)
        .schedule(&mut again.simu)
        .unwrap();
    again.simu.step_until(end).unwrap();
    again.reports.iter().map(EventQueue::take_all).collect()
}

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
            let (log, session) = live_session(seed, threads);
            assert_eq!(log.entries().len(), 200, "every input logged");
            // Through the file format and back.
            let mut file = Vec::new();
            log.write_to(&mut file).unwrap();
            let read = SessionLog::read_from(file.as_slice()).unwrap();
            assert_eq!(read.entries(), log.entries());
            let replayed = replay(&read, last_time(&session));
            assert_eq!(replayed, session, "seed {seed}, {threads} thread(s)");
        }
    }
}

#[test]
fn a_replay_checks_the_log_against_the_bench_before_applying_anything() {
    let (log, _) = live_session(99, 1);
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
    let (log, _) = live_session(5, 1);
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
