//! Runnable causim benches of real systems.
//!
//! Each bench lives in this library so that two things can drive it: the
//! example binary in `examples/` (`cargo run --release --example NAME`),
//! which prints a summary and writes its time series, and the tests in
//! `tests/`, which run the same bench, shorter, and check its key numbers.
//! Keeping the models out of the binaries is what lets the tests assert on
//! exactly the code a newcomer runs.
//!
//! - [`power`]: the flagship, a spacecraft power subsystem over a few
//!   orbits: solar array, battery, loads on a request/reply power line.
//!   [`power::fork`] saves it at the first eclipse and runs three load
//!   scenarios from the snapshot in parallel (example `power_fork`).
//! - [`thermostat`]: a room, a heater and a thermostat with hysteresis and
//!   a daily setpoint schedule.
//! - [`coffee`]: a coffee machine as a state machine driven by keyed,
//!   cancellable timeouts.
//! - [`hil`]: hardware in the loop: on-board software and a spacecraft
//!   paced to the wall clock, commanded over UDP by a ground station
//!   thread, the session logged and replayed exactly.
//! - [`output`]: what the binaries share: command-line options, where
//!   files go, CSV, SVG plots and the progress bar.
//!
//! Every bench can be saved between two steps and restored into the same
//! bench built again (`PowerBench::save` and `restore`, and likewise for
//! the thermostat and the coffee machine): its models are all
//! `#[model(save)]`. `tests/save_restore.rs` checks that a restored bench
//! records exactly what the uninterrupted one does, on 1, 2 and 4 threads.

pub mod coffee;
pub mod hil;
pub mod output;
pub mod power;
pub mod thermostat;
