//! The coffee machine visits the right states, and cancelled timeouts never
//! fire.

use causim::SimTime;
use causim_examples::coffee::{
    self, Action, BoilerSpec, Cause, State, Step, Timer, CANCELLED_PRESS_AT, MORNING,
};

#[test]
fn visits_the_expected_states() {
    let r = coffee::run(&MORNING, 1).expect("the bench runs");
    let path: Vec<(State, State, Cause)> = r
        .transitions
        .iter()
        .map(|t| (t.from, t.to, t.cause))
        .collect();
    use Cause::*;
    use State::*;
    assert_eq!(
        path,
        vec![
            (Off, Heating, PowerButton),
            (Heating, Ready, BoilerReady),
            (Ready, Grinding, BrewButton),
            (Grinding, Brewing, Timer(self::Timer::GrindDone)),
            (Brewing, Ready, Timer(self::Timer::BrewDone)),
            (Ready, Grinding, BrewButton),
            (Grinding, Brewing, Timer(self::Timer::GrindDone)),
            (Brewing, Ready, StopButton),
            (Ready, Grinding, BrewButton),
            (Grinding, Brewing, Timer(self::Timer::GrindDone)),
            (Brewing, Ready, Timer(self::Timer::BrewDone)),
            (Ready, Off, Timer(self::Timer::AutoOff)),
            (Off, Heating, PowerButton),
            (Heating, Fault, Timer(self::Timer::HeatTimeout)),
            (Fault, Off, PowerButton),
        ]
    );
    assert_eq!(r.stats.cups, 2);
    assert_eq!(r.stats.aborted, 1);
    assert_eq!(r.stats.ignored_presses, 1);
}

#[test]
fn cancelled_timeouts_never_fire() {
    let r = coffee::run(&MORNING, 1).expect("the bench runs");
    assert_eq!(r.stats.stale, 0);
    assert!(r.firings.iter().all(|f| f.armed), "{:?}", r.firings);
    // Cancelled: the first heating timeout, three auto-offs (each brew),
    // the pump stopped at 07:20.
    assert_eq!(r.stats.cancelled, 5);
    assert_eq!(r.stats.armed, r.stats.cancelled + r.stats.fired);
    let fired: Vec<(u64, Timer)> = r
        .firings
        .iter()
        .map(|f| (f.time.as_nanos() / 1_000_000_000, f.timer))
        .collect();
    assert_eq!(
        fired,
        vec![
            (308, Timer::GrindDone),
            (333, Timer::BrewDone),
            (428, Timer::GrindDone),
            (548, Timer::GrindDone),
            (573, Timer::BrewDone),
            (573 + 15 * 60, Timer::AutoOff),
            (2460 + 4 * 60, Timer::HeatTimeout),
        ]
    );
}

#[test]
fn boiler_is_ready_when_its_heating_curve_says() {
    let r = coffee::run(&MORNING, 1).expect("the bench runs");
    let spec = BoilerSpec::default();
    let tau = spec.capacity_j_per_k * spec.resistance_k_per_w;
    let t_inf = spec.ambient_c + spec.element_w * spec.resistance_k_per_w;
    let heating_s = tau * ((t_inf - spec.ambient_c) / (t_inf - spec.target_c)).ln();
    let ready = r
        .transitions
        .iter()
        .find(|t| t.cause == Cause::BoilerReady)
        .expect("the boiler gets ready");
    assert!((ready.time.as_secs_f64() - (10.0 + heating_s)).abs() < 1e-6);
}

#[test]
fn a_press_cancelled_by_the_bench_does_nothing() {
    let r = coffee::run(&MORNING, 1).expect("the bench runs");
    let at = SimTime::from_secs(CANCELLED_PRESS_AT);
    assert!(r.transitions.iter().all(|t| t.time != at));
    // Had it not been cancelled, it would have brewed a third cup.
    let mut with_press = MORNING.to_vec();
    with_press.push(Step {
        at: CANCELLED_PRESS_AT,
        action: Action::Brew,
    });
    let r = coffee::run(&with_press, 1).expect("the bench runs");
    assert_eq!(r.stats.cups, 3);
}

#[test]
fn same_story_on_several_threads() {
    let one = coffee::run(&MORNING, 1).expect("the bench runs");
    let two = coffee::run(&MORNING, 2).expect("the bench runs");
    assert_eq!(one.transitions, two.transitions);
    assert_eq!(one.firings, two.firings);
    assert_eq!(one.stats, two.stats);
}

#[test]
fn the_recorded_state_follows_the_transitions() {
    let r = coffee::run(&coffee::MORNING, 1).unwrap();
    let state = r
        .series
        .iter()
        .find(|s| s.name == "coffee machine/state")
        .expect("the state is recorded");
    let recorded: Vec<(causim::SimTime, causim_record::Value)> =
        state.samples.iter().map(|s| (s.time, s.value)).collect();
    let expected: Vec<(causim::SimTime, causim_record::Value)> = r
        .transitions
        .iter()
        .map(|t| (t.time, causim_record::Recordable::value(&t.to)))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(recorded, expected);
}
