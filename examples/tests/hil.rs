//! The hardware-in-the-loop bench: a short session at ten times real time,
//! over UDP on the loopback interface, replays identically.

use causim_examples::hil::{self, HilConfig, Telecommand};

#[test]
fn a_session_commanded_over_udp_replays_identically() {
    let run = hil::run(HilConfig {
        speed: 10.0,
        duration_s: 6,
    })
    .expect("the session runs");
    // One frame a second.
    assert_eq!(run.telemetry.len(), 6);
    // Every telecommand the ground sent was applied and logged (the
    // datagrams stay on the loopback interface).
    assert_eq!(run.sent, 4);
    assert_eq!(run.logged, 4);
    assert!(run.received > 0, "the ground received telemetry");
    assert!(run.identical(), "{:?}\n{:?}", run.telemetry, run.replayed);
    // The commands took effect: safe mode was seen, the last setpoint too.
    assert!(run.telemetry.iter().any(|frame| frame.safe));
    assert_eq!(run.telemetry.last().map(|f| f.setpoint), Some(10.5));
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
