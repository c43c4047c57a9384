use std::panic::AssertUnwindSafe;

use super::*;

fn error(why: &str) -> RestoreError {
    RestoreError::Malformed(why.to_string())
}

fn thread_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_helper_runs_on_a_thread_of_its_own() {
    let caller = thread_name();
    let (helped, main) = both(|| Ok(thread_name()), || Ok(thread_name())).unwrap();
    assert_eq!(helped, "causim-restore");
    assert_eq!(main, caller);
}

#[test]
fn of_two_failed_parts_the_earlier_steps_error_is_reported() {
    let failed = Failed::new();
    let helper = || failed.noting(Rank::of(Step::States), || Err::<(), _>(error("a state")));
    let main = || failed.noting(Rank::of(Step::Events), || Err::<(), _>(error("an event")));
    assert_eq!(both(helper, main).unwrap_err().1, error("an event"));
    let failed = Failed::new();
    let helper = || failed.noting(Rank::of(Step::Wiring), || Err::<(), _>(error("the wiring")));
    let main = || failed.noting(Rank::of(Step::States), || Err::<(), _>(error("a state")));
    assert_eq!(both(helper, main).unwrap_err().1, error("the wiring"));
}

#[test]
fn a_part_that_alone_failed_is_reported() {
    let failed = Failed::new();
    let main = || failed.noting(Rank::of(Step::States), || Err::<(), _>(error("a state")));
    assert_eq!(both(|| Ok(()), main).unwrap_err().1, error("a state"));
    let helper =
        || Failed::new().noting(Rank::of(Step::Events), || Err::<(), _>(error("an event")));
    assert_eq!(both(helper, || Ok(())).unwrap_err().1, error("an event"));
}

#[test]
fn a_step_stops_only_after_an_earlier_one_failed() {
    let failed = Failed::new();
    assert!(failed.stop_before(Rank::of(Step::Wiring)).is_ok());
    assert!(failed.stop_before(Rank::of(Step::States)).is_ok());
    let _ = failed.noting(Rank::of(Step::Events), || Err::<(), _>(error("an event")));
    assert!(
        failed.stop_before(Rank::of(Step::Events)).is_ok(),
        "not before itself"
    );
    let (rank, _) = failed.stop_before(Rank::of(Step::States)).unwrap_err();
    assert_eq!(rank, Rank::of(Step::Stopped));
    // A later failure does not move the earliest one.
    let _ = failed.noting(Rank::of(Step::States), || Err::<(), _>(error("a state")));
    assert!(failed.stop_before(Rank::of(Step::Events)).is_ok());
}

#[test]
fn a_stopped_step_yields_to_the_error_that_stopped_it() {
    let failed = Failed::new();
    let stopped = std::sync::Barrier::new(2);
    // The helper fails first; the main part, told so, stops.
    let helper = || {
        let result = failed.noting(Rank::of(Step::Wiring), || Err::<(), _>(error("the wiring")));
        stopped.wait();
        result
    };
    let main = || {
        stopped.wait();
        failed.stop_before(Rank::of(Step::States))
    };
    assert_eq!(both(helper, main).unwrap_err().1, error("the wiring"));
}

#[test]
fn a_panic_on_the_helper_goes_on_in_the_caller() {
    let outcome = std::panic::catch_unwind(|| {
        let _ = both(|| -> Staged<()> { panic!("in a payload") }, || Ok(()));
    });
    let payload = outcome.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"in a payload"));
}

#[test]
fn a_caught_panic_goes_on_only_if_no_earlier_error_was_met() {
    let panicking = |failed: &Failed, index: usize| {
        failed.catching(
            || Rank::event(index),
            || -> Staged<()> { panic!("event {index}") },
        )
    };
    // An earlier error: reported, the panic dropped.
    let failed = Failed::new();
    let helper = || failed.noting(Rank::event(3), || Err::<(), _>(error("event 3")));
    let main = || panicking(&failed, 4);
    assert_eq!(
        failed.finish(both(helper, main)).unwrap_err(),
        error("event 3")
    );
    // A later error: the panic goes on.
    let failed = Failed::new();
    let helper = || failed.noting(Rank::of(Step::States), || Err::<(), _>(error("a state")));
    let main = || panicking(&failed, 4);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| failed.finish(both(helper, main))));
    let payload = outcome.unwrap_err();
    assert_eq!(
        payload.downcast_ref::<String>().map(String::as_str),
        Some("event 4")
    );
}
