//! The thermostat bench's key numbers.

use causim_examples::thermostat::{
    self, ThermoConfig, ThermoRun, BAND, DAY_SETPOINT, NIGHT_SETPOINT, SAMPLE_PERIOD,
};

fn run(days: u32, threads: usize) -> ThermoRun {
    let config = ThermoConfig {
        days,
        threads,
        ..ThermoConfig::default()
    };
    thermostat::run(config, |_| {}).expect("the bench runs")
}

/// The sampling overshoot allowed beyond the band: the heater's full
/// power (or the largest loss) acting for one sample period, rounded up.
const OVERSHOOT: f64 = 0.1;

#[test]
fn temperature_stays_in_band_after_settling() {
    let r = run(2, 1);
    for phase in &r.summary.phases {
        let settling = phase.settling_s.expect("every phase reaches its band");
        assert!(settling < 3.0 * 3600.0, "slow settling: {phase:?}");
        assert!(
            phase.min_c >= phase.setpoint_c - BAND - OVERSHOOT,
            "{phase:?}"
        );
        assert!(
            phase.max_c <= phase.setpoint_c + BAND + OVERSHOOT,
            "{phase:?}"
        );
        assert!((phase.mean_c - phase.setpoint_c).abs() < 0.2, "{phase:?}");
    }
}

#[test]
fn setpoint_schedule_is_followed() {
    let r = run(2, 1);
    let phases = &r.summary.phases;
    let starts: Vec<f64> = phases.iter().map(|p| p.start_s / 3600.0).collect();
    assert_eq!(starts, vec![0.0, 6.5, 22.0, 30.5, 46.0]);
    let setpoints: Vec<f64> = phases.iter().map(|p| p.setpoint_c).collect();
    assert_eq!(
        setpoints,
        vec![
            NIGHT_SETPOINT,
            DAY_SETPOINT,
            NIGHT_SETPOINT,
            DAY_SETPOINT,
            NIGHT_SETPOINT
        ]
    );
    // One sample every period, from time zero.
    let period = SAMPLE_PERIOD.as_secs_f64();
    assert!(r
        .samples
        .windows(2)
        .all(|w| (w[1].time_s - w[0].time_s - period).abs() < 1e-9));
}

#[test]
fn energy_balance_closes() {
    let s = run(2, 1).summary;
    assert!(s.balance_error_kwh().abs() < 1e-9, "{s}");
    // Heat lost matches a UA of 100 W/K over roughly 15 K for two days.
    let lost_kwh = s.energy.lost_j / 3.6e6;
    assert!((50.0..100.0).contains(&lost_kwh), "{lost_kwh} kWh lost");
}

#[test]
fn heater_cycles_with_hysteresis() {
    let r = run(2, 1);
    let s = &r.summary;
    assert!(
        s.heater_starts >= 40,
        "{} starts in two days",
        s.heater_starts
    );
    // Switching happens only outside the band: on below, off above.
    for w in r.samples.windows(2) {
        let (before, after) = (w[0], w[1]);
        if after.heating && !before.heating {
            assert!(after.temperature_c < after.setpoint_c - BAND, "{after:?}");
        }
        if !after.heating && before.heating {
            assert!(after.temperature_c > after.setpoint_c + BAND, "{after:?}");
        }
    }
}

#[test]
fn same_numbers_on_several_threads() {
    let one = run(1, 1);
    let two = run(1, 2);
    assert_eq!(one.summary, two.summary);
    assert_eq!(one.samples, two.samples);
}
