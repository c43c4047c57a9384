//! The power bench's key numbers, on a shorter run than the example's.

use causim_examples::power::{self, PowerConfig, PowerRun, BUS_PERIOD, ECLIPSE, ORBIT_PERIOD};

fn run(orbits: u32, threads: usize) -> PowerRun {
    let config = PowerConfig {
        orbits,
        threads,
        ..PowerConfig::default()
    };
    power::run(config, || {}).expect("the bench runs")
}

#[test]
fn energy_balance_closes() {
    let s = run(3, 1).summary;
    let error = s.balance_error_wh();
    assert!(
        error.abs() < 1e-9 * s.bus.solar_wh,
        "{error} Wh unaccounted for\n{s}"
    );
    assert_eq!(s.bus.unmet_wh, 0.0, "no brown-out\n{s}");
    // The battery's own ledger agrees with what it stored.
    let b = s.battery;
    let stored = b.charged_wh - b.discharged_wh - b.losses_wh;
    assert!((b.initial_wh + stored - b.stored_wh).abs() < 1e-9);
    // Something happened in every direction.
    assert!(s.bus.shunt_wh > 0.0 && b.charged_wh > 0.0 && b.discharged_wh > 0.0);
}

#[test]
fn one_eclipse_per_orbit() {
    let orbits = 4;
    let s = run(orbits, 1).summary;
    assert_eq!(s.eclipses, orbits as usize);
    // Eclipse time seen on the bus: 35 min per orbit, to one bus sample.
    let expected = ECLIPSE.as_secs_f64() * f64::from(orbits);
    assert!(
        (s.eclipse_time_s - expected).abs() <= BUS_PERIOD.as_secs_f64(),
        "{} s in eclipse, expected {expected} s",
        s.eclipse_time_s
    );
}

#[test]
fn solar_energy_matches_sunlit_time() {
    let orbits = 2;
    let r = run(orbits, 1);
    // Two wings of 0.4 m², 28 % cells, 1361 W/m².
    let rated_w = 2.0 * 1361.0 * 0.4 * 0.28;
    let sunlit_h = (ORBIT_PERIOD - ECLIPSE).as_secs_f64() * f64::from(orbits) / 3600.0;
    let expected = rated_w * sunlit_h;
    let tolerance = rated_w * BUS_PERIOD.as_secs_f64() / 3600.0 * f64::from(orbits);
    assert!(
        (r.summary.bus.solar_wh - expected).abs() <= tolerance,
        "{} Wh from the array, expected {expected} Wh",
        r.summary.bus.solar_wh
    );
    assert!(r
        .samples
        .iter()
        .all(|s| s.solar_w == 0.0 || (s.solar_w - rated_w).abs() < 1e-9));
}

#[test]
fn state_of_charge_stays_in_bounds() {
    let r = run(3, 1);
    let s = r.summary;
    // Eclipse loads of about 105 W for 35 min take about a fifth of 300 Wh.
    assert!(
        (0.70..0.80).contains(&s.battery.min_soc),
        "minimum state of charge {}",
        s.battery.min_soc
    );
    assert!(r.samples.iter().all(|x| (0.0..=1.0).contains(&x.soc)));
    // The array refills the battery before every eclipse.
    let orbit_s = ORBIT_PERIOD.as_secs_f64();
    let eclipse_entry = orbit_s - ECLIPSE.as_secs_f64();
    for orbit in 0..3 {
        let start = orbit_s * f64::from(orbit);
        let before_eclipse = r
            .samples
            .iter()
            .rfind(|x| x.time_s < start + eclipse_entry)
            .expect("samples before each eclipse");
        assert!(
            before_eclipse.soc > 0.999,
            "orbit {orbit}: {before_eclipse:?}"
        );
    }
    // The bus voltage follows the state of charge: 24 V empty, 32.8 V full.
    assert!(s.bus.min_volts > 24.0 + 8.8 * 0.70 && s.bus.max_volts <= 32.8 + 1e-9);
}

#[test]
fn telemetry_has_one_sample_per_bus_period() {
    let orbits = 1;
    let r = run(orbits, 1);
    // At 0 s, every 10 s from 5 s, and a last one at the end.
    let periods = ORBIT_PERIOD.as_secs() / BUS_PERIOD.as_secs();
    assert_eq!(r.samples.len() as u64, 1 + periods + 1);
    assert_eq!(r.samples[0].time_s, 0.0);
    assert_eq!(r.samples[1].time_s, 5.0);
    assert_eq!(
        r.samples.last().map(|s| s.time_s),
        Some(ORBIT_PERIOD.as_secs_f64())
    );
}

#[test]
fn same_numbers_on_several_threads() {
    // No two models act on the same thing at one instant, so the parallel
    // executor must give exactly the deterministic run's numbers.
    let one = run(2, 1);
    let two = run(2, 2);
    assert_eq!(one.summary, two.summary);
    assert_eq!(one.samples, two.samples);
}

#[test]
fn the_diagram_shows_every_model_and_connection() {
    let topology = run(1, 1).topology;
    assert_eq!(topology.models().len(), 10);
    // The orbit's sunlight to the two wings, the battery heater (mapped),
    // the sequencer (filter-mapped) and a sink; the sequencer's payload
    // switch; the bus's requests to two wings and four loads, its two
    // uni-requests to the battery and its telemetry sink; the recorders
    // (four quantities of the telemetry, the orbit's light).
    let sinks: Vec<&str> = topology.sinks().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        sinks,
        [
            "sat/power/bus/volts",
            "sat/power/bus/solar_w",
            "sat/power/bus/load_w",
            "sat/power/bus/soc_percent",
            "orbit/sunlit",
            "sun transitions",
            "bus telemetry",
        ]
    );
    assert_eq!(topology.connections().len(), 20);
}

/// The README shows `docs/power-topology.svg`: it must be this bench's.
#[test]
fn the_readme_diagram_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/power-topology.svg");
    let shown = std::fs::read_to_string(path).expect("docs/power-topology.svg");
    assert!(
        shown == run(1, 1).topology.to_svg(),
        "docs/power-topology.svg is not the power bench's diagram: regenerate it with \
         `cargo run --release --example power -- --out /tmp/power` and copy \
         /tmp/power/power-topology.svg to docs/"
    );
}

#[test]
fn recorded_series_follow_the_telemetry() {
    let r = run(1, 1);
    let volts = r
        .series
        .iter()
        .find(|s| s.name == "sat/power/bus/volts")
        .expect("the bus voltage is recorded");
    // The recorder and the bench's queue are two sinks of one output: they
    // see the same samples (the last one taken by `finish` included), and
    // the recorder stamps each with the time it was sent.
    assert_eq!(volts.samples.len(), r.samples.len());
    for (recorded, sample) in volts.samples.iter().zip(&r.samples) {
        assert_eq!(recorded.time.as_secs_f64(), sample.time_s);
        assert_eq!(recorded.value.as_f64(), Some(sample.volts));
    }
    let sunlit = r.series.iter().find(|s| s.name == "orbit/sunlit").unwrap();
    assert!(!sunlit.samples.is_empty());
    // The same series on two threads.
    assert_eq!(run(1, 2).series, r.series);
}
