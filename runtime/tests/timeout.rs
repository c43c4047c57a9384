//! Wall-clock timeout: a bench that never settles (a zero-delay infinite
//! ping-pong) is interrupted with `SimulationError::Timeout` instead of
//! hanging, and the error is then sticky.

mod common;
use common::*;

use std::time::Instant;

/// Two forwarders connected in a loop; returns the simulation and the
/// address of the first.
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
        .add_model(ping, ping_mbox, "ping")
        .add_model(pong, pong_mbox, "pong")
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
    assert_eq!(
        error,
        SimulationError::Timeout {
            time: SimTime::ZERO,
            limit
        }
    );
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
fn endless_ping_pong_in_a_scheduled_step_times_out_at_that_time() {
    let (mut simu, addr) = ping_pong(Duration::from_millis(100));
    simu.scheduler()
        .schedule_event(t(5), Forwarder::ports().input, 0, &addr)
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
            .schedule(t(i + 1), source.event(i as u32))
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
    let token = std::sync::Arc::new(());
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
    assert_eq!(std::sync::Arc::strong_count(&token), 1);
}
