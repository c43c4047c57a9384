//! Every example bench, saved at T1 and restored into a freshly built
//! bench, reaches T2 with exactly the outputs of a run that was never
//! interrupted: on 1, 2 and 4 threads, and saved on 4 threads but
//! restored on 1.
//!
//! What is compared: every recorded series (one per output, in the order
//! its output sent) and every sink queue (one output each), the part
//! recorded before the save followed by the restored bench's; and the
//! models' own ledgers and counters, which a restored model carries over.
//! Each output's order is the same on any number of threads for these
//! benches (their docs say why), so the comparison is exact.

use causim::SimTime;
use causim_record::Series;

/// (threads of the saved run, threads of the restored run).
const THREADS: [(usize, usize); 4] = [(1, 1), (2, 2), (4, 4), (4, 1)];

/// `before`'s series followed by `after`'s, series by series.
fn joined(before: Vec<Series>, after: Vec<Series>) -> Vec<Series> {
    let names = |s: &[Series]| s.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&before), names(&after), "the same recorders");
    before
        .into_iter()
        .zip(after)
        .map(|(mut first, second)| {
            first.samples.extend(second.samples);
            first
        })
        .collect()
}

/// Fails unless some series recorded something both before `t1` and
/// after it: the comparison is not vacuous.
fn assert_spans(series: &[Series], t1: SimTime) {
    assert!(
        series.iter().any(|s| {
            s.samples.iter().any(|x| x.time < t1) && s.samples.iter().any(|x| x.time > t1)
        }),
        "nothing recorded on both sides of {t1}"
    );
}

mod power {
    use super::*;
    use causim_examples::power::{
        BatteryReport, BusLedger, BusSample, PowerBench, PowerConfig, ECLIPSE, ORBIT_PERIOD,
    };
    use std::time::Duration;

    /// What a run to T2 recorded.
    #[derive(Debug, PartialEq)]
    struct Recorded {
        samples: Vec<BusSample>,
        series: Vec<Series>,
        bus: BusLedger,
        battery: BatteryReport,
    }

    fn config(threads: usize) -> PowerConfig {
        PowerConfig {
            orbits: 2,
            threads,
            ..PowerConfig::default()
        }
    }

    fn t2() -> SimTime {
        SimTime::ZERO + ORBIT_PERIOD * 2
    }

    fn uninterrupted(threads: usize) -> Recorded {
        let mut bench = PowerBench::new(config(threads)).unwrap();
        bench.run_until(t2()).unwrap();
        let run = bench.finish().unwrap();
        Recorded {
            samples: run.samples,
            series: run.series,
            bus: run.summary.bus,
            battery: run.summary.battery,
        }
    }

    fn saved_and_restored(t1: SimTime, threads: (usize, usize)) -> Recorded {
        let mut bench = PowerBench::new(config(threads.0)).unwrap();
        bench.run_until(t1).unwrap();
        let before = bench.take_outputs();
        let mut snapshot = Vec::new();
        bench.save(&mut snapshot).unwrap();
        drop(bench);

        let mut bench = PowerBench::restore(config(threads.1), snapshot.as_slice()).unwrap();
        assert_eq!(bench.time(), t1);
        bench.run_until(t2()).unwrap();
        let run = bench.finish().unwrap();
        Recorded {
            samples: [before.samples, run.samples].concat(),
            series: joined(before.series, run.series),
            bus: run.summary.bus,
            battery: run.summary.battery,
        }
    }

    #[test]
    fn a_restored_power_bench_continues_exactly() {
        // At the first eclipse's entry (events due then included), between
        // two bus samples, and at the end of an orbit.
        let cuts = [
            SimTime::ZERO + (ORBIT_PERIOD - ECLIPSE),
            SimTime::ZERO + ORBIT_PERIOD + Duration::from_secs(7),
            SimTime::ZERO + ORBIT_PERIOD,
        ];
        for threads in THREADS {
            let expected = uninterrupted(threads.0);
            for t1 in cuts {
                assert_spans(&expected.series, t1);
                let restored = saved_and_restored(t1, threads);
                assert!(
                    restored == expected,
                    "saved at {t1} on {threads:?} threads: the outputs differ"
                );
            }
        }
    }
}

mod thermostat {
    use super::*;
    use causim_examples::thermostat::{RoomEnergy, ThermoBench, ThermoConfig, ThermoSample};

    #[derive(Debug, PartialEq)]
    struct Recorded {
        samples: Vec<ThermoSample>,
        series: Vec<Series>,
        energy: RoomEnergy,
        heater_starts: u32,
    }

    fn config(threads: usize) -> ThermoConfig {
        ThermoConfig {
            days: 1,
            threads,
            ..ThermoConfig::default()
        }
    }

    const T2_HOURS: u32 = 24;

    fn uninterrupted(threads: usize) -> Recorded {
        let mut bench = ThermoBench::new(config(threads)).unwrap();
        bench.run_until_hour(T2_HOURS).unwrap();
        let run = bench.finish().unwrap();
        Recorded {
            samples: run.samples,
            series: run.series,
            energy: run.summary.energy,
            heater_starts: run.summary.heater_starts,
        }
    }

    fn saved_and_restored(t1_hours: u32, threads: (usize, usize)) -> Recorded {
        let mut bench = ThermoBench::new(config(threads.0)).unwrap();
        bench.run_until_hour(t1_hours).unwrap();
        let before = bench.take_outputs();
        let mut snapshot = Vec::new();
        bench.save(&mut snapshot).unwrap();
        drop(bench);

        let mut bench = ThermoBench::restore(config(threads.1), snapshot.as_slice()).unwrap();
        bench.run_until_hour(T2_HOURS).unwrap();
        let run = bench.finish().unwrap();
        Recorded {
            samples: [before.samples, run.samples].concat(),
            series: joined(before.series, run.series),
            energy: run.summary.energy,
            heater_starts: run.summary.heater_starts,
        }
    }

    #[test]
    fn a_restored_thermostat_bench_continues_exactly() {
        // Before the morning setpoint (its periodic event pending), and in
        // the evening, after it fired.
        for threads in THREADS {
            let expected = uninterrupted(threads.0);
            for t1_hours in [5, 19] {
                assert_spans(
                    &expected.series,
                    SimTime::from_secs(u64::from(t1_hours) * 3600),
                );
                let restored = saved_and_restored(t1_hours, threads);
                assert!(
                    restored == expected,
                    "saved at hour {t1_hours} on {threads:?} threads: the outputs differ"
                );
            }
        }
    }
}

mod coffee {
    use super::*;
    use causim_examples::coffee::{
        CoffeeBench, Firing, MachineStats, Transition, MORNING, RUN_LENGTH,
    };

    #[derive(Debug, PartialEq)]
    struct Recorded {
        transitions: Vec<Transition>,
        firings: Vec<Firing>,
        series: Vec<Series>,
        stats: MachineStats,
    }

    fn t2() -> SimTime {
        SimTime::from_secs(RUN_LENGTH)
    }

    fn uninterrupted(threads: usize) -> Recorded {
        let mut bench = CoffeeBench::new(&MORNING, threads).unwrap();
        bench.run_until(t2()).unwrap();
        let stats = bench.stats().unwrap();
        let outputs = bench.take_outputs();
        Recorded {
            transitions: outputs.transitions,
            firings: outputs.firings,
            series: outputs.series,
            stats,
        }
    }

    fn saved_and_restored(t1: SimTime, threads: (usize, usize)) -> Recorded {
        let mut bench = CoffeeBench::new(&MORNING, threads.0).unwrap();
        bench.run_until(t1).unwrap();
        let before = bench.take_outputs();
        let mut snapshot = Vec::new();
        bench.save(&mut snapshot).unwrap();
        drop(bench);

        let mut bench = CoffeeBench::restore(threads.1, snapshot.as_slice()).unwrap();
        bench.run_until(t2()).unwrap();
        let stats = bench.stats().unwrap();
        let after = bench.take_outputs();
        Recorded {
            transitions: [before.transitions, after.transitions].concat(),
            firings: [before.firings, after.firings].concat(),
            series: joined(before.series, after.series),
            stats,
        }
    }

    #[test]
    fn a_restored_coffee_machine_continues_exactly() {
        // Ready and idle, the auto-off pending (its key in the machine's
        // state) and the press the bench cancelled not saved; later in the
        // same wait; heating the second time, the heating timeout pending
        // and the boiler's "reached" event cancelled with its element.
        // (Not before `CANCEL_AT`: see `CoffeeBench::save`.)
        for threads in THREADS {
            let expected = uninterrupted(threads.0);
            for t1 in [650, 1000, 2500].map(SimTime::from_secs) {
                assert_spans(&expected.series, t1);
                let restored = saved_and_restored(t1, threads);
                assert!(
                    restored == expected,
                    "saved at {t1} on {threads:?} threads: the outputs differ"
                );
            }
        }
    }
}

mod hil {
    use super::*;
    use causim_examples::hil::{Housekeeping, OfflineBench};

    const DURATION_S: u64 = 10;

    fn t2() -> SimTime {
        SimTime::from_secs(DURATION_S)
    }

    fn uninterrupted(threads: usize) -> Vec<Housekeeping> {
        let mut bench = OfflineBench::new(DURATION_S, threads).unwrap();
        bench.run_until(t2()).unwrap();
        bench.take_telemetry()
    }

    fn saved_and_restored(t1: SimTime, threads: (usize, usize)) -> Vec<Housekeeping> {
        let mut bench = OfflineBench::new(DURATION_S, threads.0).unwrap();
        bench.run_until(t1).unwrap();
        let before = bench.take_telemetry();
        let mut snapshot = Vec::new();
        bench.save(&mut snapshot).unwrap();
        drop(bench);

        let mut bench = OfflineBench::restore(threads.1, snapshot.as_slice()).unwrap();
        bench.run_until(t2()).unwrap();
        [before, bench.take_telemetry()].concat()
    }

    #[test]
    fn a_restored_hil_spacecraft_continues_exactly() {
        // Before safe mode (three telecommands pending), during it, and
        // after the last telecommand; the panel's temperature, advanced
        // exactly between messages, carries over to the last digit.
        for threads in THREADS {
            let expected = uninterrupted(threads.0);
            assert!(expected.iter().any(|frame| frame.safe));
            for t1 in [2_300, 4_000, 7_250].map(SimTime::from_millis) {
                assert_eq!(
                    saved_and_restored(t1, threads),
                    expected,
                    "saved at {t1} on {threads:?} threads"
                );
            }
        }
    }
}
