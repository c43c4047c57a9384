//! The power bench forked at its first eclipse: every scenario starts from
//! the saved state, and more load ends lower.

use causim_examples::power::fork::{self, first_eclipse, SCENARIOS};
use causim_examples::power::{PowerBench, PowerConfig};

fn config() -> PowerConfig {
    PowerConfig {
        orbits: 2,
        ..PowerConfig::default()
    }
}

#[test]
fn scenarios_start_from_the_saved_state_and_differ_by_their_load() {
    let fork = fork::fork(config(), &SCENARIOS).expect("the fork runs");
    assert_eq!(fork.time, first_eclipse());
    assert_eq!(fork.outcomes.len(), 3);
    // The same state at the fork: each restored bench reads exactly the
    // saved bench's state of charge.
    for outcome in &fork.outcomes {
        assert_eq!(outcome.soc_at_fork, fork.soc_at_fork, "{outcome:?}");
    }
    // Nominal, then 15 min, then 35 min of payload in eclipse: each more
    // load ends lower, and by about the energy it drew.
    let [nominal, short, long] = [0, 1, 2].map(|i| fork.outcomes[i]);
    assert!(nominal.min_soc > short.min_soc, "{nominal:?} {short:?}");
    assert!(short.min_soc > long.min_soc, "{short:?} {long:?}");
    // 150 W for 20 more minutes is 50 Wh drawn from 300 Wh, a sixth,
    // more with the discharge losses and the lower voltage.
    let extra = short.min_soc - long.min_soc;
    assert!((0.16..0.20).contains(&extra), "{extra}");
    assert!(fork.outcomes.iter().all(|o| o.unmet_wh == 0.0));
}

#[test]
fn the_nominal_scenario_is_the_run_that_was_never_forked() {
    let fork = fork::fork(config(), &SCENARIOS[..1]).expect("the fork runs");
    let mut whole = PowerBench::new(config()).expect("the bench builds");
    while whole.remaining() > 0 {
        whole.run_orbit().expect("the bench runs");
    }
    let summary = whole.finish().expect("the bench finishes").summary;
    assert_eq!(fork.outcomes[0].min_soc, summary.battery.min_soc);
    assert_eq!(
        fork.outcomes[0].final_soc,
        summary.battery.stored_wh / config().battery.capacity_wh
    );
}
