//! Wall-clock timeout: a bench that never settles (a zero-delay infinite
//! ping-pong) is interrupted with `SimulationError::Timeout` instead of
//! hanging, and the error is then sticky.

mod common;
use common::*;

use causim::BusyModel;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// Two forwarders connected in a loop, each in a composite (`a/ping`,
/// `b/pong`); returns the simulation and the address of the first.
fn ping_pong(timeout: Duration) -> (Simulation, Address<Forwarder<u64>>) {
    let (ping_mbox, pong_mbox) = (Mailbox::new(), Mailbox::new());
    let mut ping = Forwarder::<u64>::new();
    let mut pong = Forwarder::<u64>::new();
    ping.out
        .map_connect(|n: u64| n + 1, Forwarder::ports().input, &pong_mbox);
    pong.out
        .map_connect(|n: u64| n + 1, Forwarder::ports().input, &ping_mbox);
    let addr = ping_mbox.address();
    let simu = sim_init()
        .with_timeout(timeout)
        .add_composite(Wrap::with_mailbox(ping, ping_mbox, "ping"), "a")
        .add_composite(Wrap::with_mailbox(pong, pong_mbox, "pong"), "b")
        .init(SimTime::ZERO)
        .unwrap();
    (simu, addr)
}

#[test]
fn endless_zero_delay_ping_pong_times_out() {
    let limit = Duration::from_millis(200);
    let (mut simu, addr) = ping_pong(limit);
    let started = Instant::now();
    let error = simu
        .process_event(Forwarder::ports().input, 0, &addr)
        .unwrap_err();
    let elapsed = started.elapsed();
    let SimulationError::Timeout {
        time,
        limit: l,
        busy,
    } = &error
    else {
        panic!("expected a timeout, got {error:?}");
    };
    assert_eq!((*time, *l), (SimTime::ZERO, limit));
    // The message in flight is in a method or a mailbox of one of the two
    // (of both, while one sends to the other), named by path.
    assert!(!busy.is_empty() && busy.len() <= 2, "{busy:?}");
    for model in busy {
        assert!(
            ["a/ping", "b/pong"].contains(&model.model.as_str()),
            "{model:?}"
        );
        assert_eq!(model.model_type, "Forwarder<u64>");
    }
    assert!(error.to_string().contains("still busy: `"), "{error}");
    assert!(error.is_fatal());
    assert!(elapsed >= limit, "returned before the limit: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");

    // Sticky: later calls fail at once.
    let started = Instant::now();
    assert_eq!(simu.step().as_ref(), Err(&error));
    assert_eq!(
        simu.process_event(Forwarder::ports().input, 0, &addr),
        Err(error)
    );
    assert!(started.elapsed() < limit);
}

#[test]
fn a_timeout_in_the_deterministic_order_names_the_models_whose_sends_wait() {
    // The loop's message waits between rounds, staged by its sender: the
    // report names that model, whichever moment the limit is seen at.
    let (ping_mbox, pong_mbox) = (Mailbox::new(), Mailbox::new());
    let (mut ping, mut pong) = (Forwarder::<u64>::new(), Forwarder::<u64>::new());
    ping.out.connect(Forwarder::ports().input, &pong_mbox);
    pong.out.connect(Forwarder::ports().input, &ping_mbox);
    let addr = ping_mbox.address();
    let mut simu = sim_init()
        .with_message_order(MessageOrder::Deterministic)
        .with_timeout(Duration::from_millis(100))
        .add_composite(Wrap::with_mailbox(ping, ping_mbox, "ping"), "a")
        .add_composite(Wrap::with_mailbox(pong, pong_mbox, "pong"), "b")
        .init(SimTime::ZERO)
        .unwrap();
    let error = simu
        .process_event(Forwarder::ports().input, 0, &addr)
        .unwrap_err();
    let SimulationError::Timeout { busy, .. } = &error else {
        panic!("expected a timeout, got {error:?}");
    };
    assert!(!busy.is_empty() && busy.len() <= 2, "{busy:?}");
    for model in busy {
        assert!(
            ["a/ping", "b/pong"].contains(&model.model.as_str()),
            "{model:?}"
        );
    }
    if threads() == 1 {
        // Seen between two rounds: the message is staged, not delivered.
        assert_eq!(busy.len(), 1, "{busy:?}");
        assert_eq!((busy[0].pending_messages, busy[0].staged_messages), (0, 1));
        assert!(
            error
                .to_string()
                .contains("with 1 message(s) sent for the next round"),
            "{error}"
        );
    }
}

#[test]
fn endless_ping_pong_in_a_scheduled_step_times_out_at_that_time() {
    let (mut simu, addr) = ping_pong(Duration::from_millis(100));
    simu.scheduler()
        .schedule(t(5), Forwarder::ports().input, 0, &addr)
        .unwrap();
    let error = simu.run().unwrap_err();
    assert!(
        matches!(error, SimulationError::Timeout { time, .. } if time == t(5)),
        "{error:?}"
    );
}

#[test]
fn a_bench_that_settles_is_not_affected_by_the_timeout() {
    let log = Log::new();
    let mut source = EventSource::<u32>::new();
    let mbox = Mailbox::new();
    source.connect(Recorder::ports().input, &mbox);
    let mut simu = sim_init()
        .with_timeout(Duration::from_secs(30))
        .add_model(Recorder::new(&log), mbox, "r")
        .init(SimTime::ZERO)
        .unwrap();
    for i in 0..100 {
        simu.scheduler()
            .schedule_event(t(i + 1), source.event(i as u32))
            .unwrap();
    }
    simu.run().unwrap();
    assert_eq!(log.len(), 100);
}

#[test]
fn set_timeout_applies_to_later_calls() {
    let (mut simu, addr) = ping_pong(Duration::from_secs(3600));
    simu.set_timeout(Some(Duration::from_millis(50)));
    let started = Instant::now();
    let error = simu
        .process_event(Forwarder::ports().input, 0, &addr)
        .unwrap_err();
    assert!(matches!(error, SimulationError::Timeout { .. }));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_timed_out_bench_still_frees_its_models() {
    // The models hold this token (in a connection's closure) until they
    // are dropped.
    let token = Arc::new(());
    let (ping_mbox, pong_mbox) = (Mailbox::new(), Mailbox::new());
    let (mut ping, mut pong) = (Forwarder::<u64>::new(), Forwarder::<u64>::new());
    let held = token.clone();
    ping.out.map_connect(
        move |n: u64| {
            let _ = &held;
            n + 1
        },
        Forwarder::ports().input,
        &pong_mbox,
    );
    pong.out
        .map_connect(|n: u64| n + 1, Forwarder::ports().input, &ping_mbox);
    let addr = ping_mbox.address();
    let mut simu = sim_init()
        .with_timeout(Duration::from_millis(50))
        .add_model(ping, ping_mbox, "ping")
        .add_model(pong, pong_mbox, "pong")
        .init(SimTime::ZERO)
        .unwrap();
    let error = simu
        .process_event(Forwarder::ports().input, 0, &addr)
        .unwrap_err();
    assert!(
        matches!(error, SimulationError::Timeout { .. }),
        "{error:?}"
    );
    drop(simu);
    // Every worker came back from its model after the timeout: the
    // teardown dropped the models rather than leaving them behind.
    assert_eq!(Arc::strong_count(&token), 1);
}

// ---------------------------------------------------------------------------
// A model method that does not return
// ---------------------------------------------------------------------------

/// A model whose methods do not return until the test releases them: to
/// the executor, a method that never returns (the release only lets the
/// test end without leaving a thread spinning).
#[model]
struct Runaway {
    /// Set by the test when the methods may return.
    released: Arc<AtomicBool>,
    /// Set when a method has started.
    started: Arc<AtomicBool>,
}

#[model]
impl Runaway {
    /// A synchronous busy loop inside the method.
    #[input]
    async fn spin(&mut self, _: (), _cx: &mut Context<Self>) {
        self.started.store(true, Ordering::Release);
        while !self.released.load(Ordering::Acquire) {
            std::hint::spin_loop();
            std::thread::yield_now();
        }
    }

    /// An `async` loop on a future that is always ready: it never yields
    /// to the executor either.
    #[input]
    async fn spin_async(&mut self, _: (), _cx: &mut Context<Self>) {
        self.started.store(true, Ordering::Release);
        while !self.released.load(Ordering::Acquire) {
            std::future::ready(()).await;
            std::thread::yield_now();
        }
    }
}

/// A bench of one `Runaway` with `limit` as timeout, its address and its
/// release and started flags.
fn runaway_bench(
    limit: Duration,
) -> (
    Simulation,
    Address<Runaway>,
    Arc<AtomicBool>,
    Arc<AtomicBool>,
) {
    let released = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicBool::new(false));
    let model = Runaway {
        released: released.clone(),
        started: started.clone(),
    };
    let runaway = Wrap::new(model, "runaway");
    let addr = runaway.address();
    let simu = sim_init()
        .with_timeout(limit)
        .add_composite(runaway, "rig")
        .init(SimTime::ZERO)
        .unwrap();
    (simu, addr, released, started)
}

/// Drops `simu` on another thread and returns how long the drop took, or
/// `None` if it did not return within `bound` (the thread is then left
/// behind, so that a regression fails instead of hanging the suite).
fn timed_drop<T: Send + 'static>(simu: T, bound: Duration) -> Option<Duration> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        drop(simu);
        let _ = done.send(started.elapsed());
    });
    finished.recv_timeout(bound).ok()
}

/// Runs `port` of a `Runaway` with a timeout. On several threads, the timeout fires while a model method is still
/// running (the calling thread only watches), and dropping the simulation
/// returns within the documented bound. On one thread the method runs on
/// the calling thread, which cannot be interrupted: the timeout fires at
/// the first check after the method returns (documented).
fn check_runaway(port: InputPort<Runaway, ()>) {
    let limit = Duration::from_millis(100);
    let (mut simu, addr, released, started) = runaway_bench(limit);
    let clock = Instant::now();
    if threads() == 1 {
        // Released from another thread after a while: the call cannot
        // return before.
        let release = released.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            release.store(true, Ordering::Release);
        });
    }
    let error = simu.process_event(port, (), &addr).unwrap_err();
    let elapsed = clock.elapsed();
    assert!(
        matches!(error, SimulationError::Timeout { limit: l, .. } if l == limit),
        "{error:?}"
    );
    assert!(started.load(Ordering::Acquire));
    assert!(elapsed >= limit, "returned before the limit: {elapsed:?}");
    let SimulationError::Timeout { busy, .. } = &error else {
        unreachable!()
    };
    if threads() == 1 {
        // The method returned first, then the timeout was seen: nothing is
        // left busy.
        assert_eq!(busy, &[]);
        assert!(released.load(Ordering::Acquire));
        assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
        assert!(timed_drop(simu, Duration::from_secs(10)).is_some());
        return;
    }
    // The method is still running: the watchdog fired on its own, and
    // names the model it interrupted.
    assert!(!released.load(Ordering::Acquire));
    assert_eq!(
        busy,
        &[BusyModel {
            model: "rig/runaway".into(),
            model_type: "Runaway",
            pending_messages: 0,
            staged_messages: 0,
        }]
    );
    assert!(
        error.to_string().ends_with(
            "; still busy: `rig/runaway` (Runaway) in one of its methods, or not started yet"
        ),
        "{error}"
    );
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    let dropped = timed_drop(simu, Duration::from_secs(10));
    released.store(true, Ordering::Release);
    let dropped = dropped.expect("dropping the simulation hung");
    // 200 ms of grace, with room for a loaded machine.
    assert!(dropped < Duration::from_secs(3), "drop took {dropped:?}");
}

#[test]
fn a_method_that_never_returns_times_out() {
    check_runaway(Runaway::ports().spin);
}

#[test]
fn an_async_method_that_never_yields_times_out() {
    check_runaway(Runaway::ports().spin_async);
}

/// Counts its ticks.
#[model]
struct Ticker {
    /// Ticks received.
    ticks: u64,
}

#[model]
impl Ticker {
    #[input]
    async fn tick(&mut self, _: (), _cx: &mut Context<Self>) {
        self.ticks += 1;
    }
}

#[test]
fn a_call_made_of_many_short_steps_times_out() {
    // A periodic event and `run`: every step is one short poll, so the
    // limit is only ever passed between steps.
    let limit = Duration::from_millis(100);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = sim_init()
        .with_timeout(limit)
        .add_model(Ticker { ticks: 0 }, mbox, "ticker")
        .init(SimTime::ZERO)
        .unwrap();
    simu.scheduler()
        .schedule_periodic(t(1), secs(1), Ticker::ports().tick, (), &addr)
        .unwrap();
    let clock = Instant::now();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let error = simu.run().unwrap_err();
        let _ = done.send((error, simu.time()));
    });
    let (error, time) = finished
        .recv_timeout(Duration::from_secs(30))
        .expect("`run` did not time out");
    assert!(clock.elapsed() >= limit);
    let SimulationError::Timeout {
        time: at,
        limit: l,
        busy,
    } = &error
    else {
        panic!("expected a timeout, got {error:?}");
    };
    assert_eq!((*at, *l), (time, limit));
    // On one thread the limit is only seen between two steps, when the
    // ticker is done; on several, the watching thread may see it while
    // the ticker has its tick waiting or in hand.
    if threads() == 1 {
        assert_eq!(busy, &[]);
    } else {
        assert!(
            busy.iter()
                .all(|m| m.model == "ticker" && m.pending_messages <= 1),
            "{busy:?}"
        );
    }
    assert!(time > t(1), "{time:?}");
}

#[test]
fn a_limit_too_far_to_be_a_point_in_time_is_no_limit() {
    let log = Log::new();
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let mut simu = start(sim_init().with_timeout(Duration::MAX).add_model(
        Recorder::new(&log),
        mailbox,
        "rec",
    ));
    simu.process_event(Recorder::ports().input, 1u32, &address)
        .unwrap();
    simu.set_timeout(Some(Duration::MAX));
    let scheduler = simu.scheduler();
    scheduler
        .schedule(t(1), Recorder::ports().input, 2u32, &address)
        .unwrap();
    simu.run().unwrap();
    assert_eq!(log.values_of("rec"), vec![1, 2]);
}
