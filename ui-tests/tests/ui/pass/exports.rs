//! The names a first bench reaches for are in the prelude or at the crate
//! root, and `SimTime` is built from any unit.
#![deny(warnings)]

use causim::prelude::*;
use causim::{BlockedModel, MissingConnection, WaitingFor};

/// Says what a failed schedule was, using only prelude names.
fn describe(error: &SchedulingError) -> String {
    error.to_string()
}

/// Says what a blocked model waits for, using root names.
fn waiting(model: &BlockedModel) -> &WaitingFor {
    &model.waiting_for
}

fn main() {
    const START: SimTime = SimTime::from_millis(1500);
    assert_eq!(START, SimTime::from_micros(1_500_000));
    assert_eq!(SimTime::from_secs_f64(1.5), Ok(START));
    let error: SimTimeError = SimTime::from_secs_f64(f64::NAN).unwrap_err();
    assert_eq!(error.to_string(), "NaN is not a simulation time");
    let _ = (describe, waiting, |m: &MissingConnection| m.clone());
    // The third kind of deadline is in the prelude too.
    fn is_deadline(_: impl causim::Deadline) {}
    is_deadline(ZeroDelay);
}
