//! The hardware-in-the-loop bench: a short session at three times real
//! time, over UDP on the loopback interface, replays identically.
//!
//! The live session depends on the wall clock and the machine's load:
//! when each telecommand arrives is not fixed. The checks are the ones
//! that hold whenever they arrive — the replay reproduces the session,
//! and each frame shows the effect of the telecommands its log says were
//! applied before it — and counts with a wide margin of wall time.

use causim::realtime::session::SessionLog;
use causim::SimTime;
use causim_examples::hil::{self, HilConfig, Housekeeping, Telecommand};

/// The telecommands of a session log, with the times they were applied.
fn applied(log_bytes: &[u8]) -> Vec<(SimTime, Telecommand)> {
    let log = SessionLog::read_from(log_bytes).expect("a session log");
    log.entries()
        .into_iter()
        .map(|entry| {
            let record = entry.record.expect("logged with its payload");
            assert_eq!(
                (record.model.as_str(), record.port.as_str()),
                ("sat/obsw", "telecommand")
            );
            let tc = postcard::from_bytes(&record.payload).expect("a telecommand");
            (entry.time, tc)
        })
        .collect()
}

/// The setpoint and mode `frame` must show: the initial ones (15 °C,
/// nominal), changed by the telecommands applied before the frame's
/// time. One applied at that very time comes after the frame, as input
/// is applied after its step's scheduled events.
fn expected(applied: &[(SimTime, Telecommand)], frame: &Housekeeping) -> (f64, bool) {
    let (mut setpoint, mut safe) = (15.0, false);
    for (_, tc) in applied
        .iter()
        .filter(|(time, _)| time.as_secs_f64() < frame.time_s)
    {
        match *tc {
            Telecommand::SetSetpoint(celsius) => setpoint = celsius,
            Telecommand::SafeMode(on) => safe = on,
        }
    }
    (setpoint, safe)
}

#[test]
fn a_session_commanded_over_udp_replays_identically() {
    // 6 s at three times real time, 2 s of wall time: the last
    // telecommand falls due at 3.6 s, 0.8 s of wall time before the end.
    let run = hil::run(HilConfig {
        speed: 3.0,
        duration_s: 6,
    })
    .expect("the session runs");
    // The main check: the replay reproduces the session, frame for frame.
    assert!(run.identical(), "{:?}\n{:?}", run.telemetry, run.replayed);
    // One frame a second, each naming the model it comes from.
    assert_eq!(run.telemetry.len(), 6);
    assert!(
        run.telemetry.iter().all(|frame| frame.source == "sat/obsw"),
        "{:?}",
        run.telemetry
    );
    // Every telecommand the ground sent was applied and logged, in order
    // (the datagrams stay on the loopback interface).
    let applied = applied(&run.log_bytes);
    assert_eq!(run.sent, 4);
    assert_eq!(run.logged, 4);
    let commands: Vec<Telecommand> = applied.iter().map(|&(_, tc)| tc).collect();
    assert_eq!(
        commands,
        [
            Telecommand::SetSetpoint(20.0),
            Telecommand::SafeMode(true),
            Telecommand::SafeMode(false),
            Telecommand::SetSetpoint(10.5),
        ]
    );
    assert!(run.received > 0, "the ground received telemetry");
    // The commands took effect when they were applied, whenever that was.
    for frame in &run.telemetry {
        let (setpoint, safe) = expected(&applied, frame);
        assert_eq!((frame.setpoint, frame.safe), (setpoint, safe), "{frame}");
    }
}

#[test]
fn telecommands_survive_the_wire_format() {
    for tc in [
        Telecommand::SetSetpoint(-3.25),
        Telecommand::SafeMode(true),
        Telecommand::SafeMode(false),
    ] {
        assert_eq!(Telecommand::decode(&tc.encode()), Some(tc));
    }
    assert_eq!(Telecommand::decode("REBOOT now"), None);
}

/// A replay saved half-way continues after a restore, the log's inputs
/// still to come given again to the rebuilt bench (a snapshot holds no
/// injected input that was not applied yet): `Replay::resume` queues the
/// entries after the restored time.
#[test]
fn a_replay_saved_half_way_continues_after_a_restore() {
    use causim::SimTime;
    use causim_examples::hil::OfflineBench;

    let run = hil::run(HilConfig {
        speed: 10.0,
        duration_s: 6,
    })
    .expect("the session runs");
    let (t1, t2) = (SimTime::from_secs(2), SimTime::from_secs(6));
    let mut bench = OfflineBench::replay(&run.log_bytes, 1).expect("the replay starts");
    bench.run_until(t1).expect("the replay runs");
    let mut telemetry = bench.take_telemetry();
    let mut snapshot = Vec::new();
    bench.save(&mut snapshot).expect("the replay saves");
    drop(bench);

    let mut bench = OfflineBench::restore_replay(&run.log_bytes, 1, snapshot.as_slice())
        .expect("the rest of the log is replayed into the restored bench");
    bench.run_until(t2).expect("the restored replay runs");
    telemetry.extend(bench.take_telemetry());
    assert_eq!(telemetry, run.replayed);
}
