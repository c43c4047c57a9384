//! causim against what a user would pick instead, on the same workloads.
//!
//! Every workload is written once per engine — causim (with the
//! macro-generated dispatch, and for the dispatch workload also with a
//! hand-written `Model` impl), NeXosim 1.0 and plain Tokio tasks with
//! `tokio::sync::mpsc` — with the same model logic, the same message counts
//! and the same random numbers, and every run checks its event count
//! against the expected total, so a fast-but-wrong engine cannot win.
//!
//! The `versus` binary runs them all in separate processes and prints the
//! comparison; `cargo bench` runs the same code under criterion for
//! profiling; the unit tests run each workload at a tiny size on every
//! engine.

// The models here are benchmark fixtures, not an API: a `Debug` impl on
// each (and on NeXosim's, whose fields have none) would be noise.
#![allow(missing_debug_implementations)]

pub mod engine;
pub mod measure;
pub mod rng;
pub mod soak;
pub mod workloads;

pub use engine::{Engine, Threads};
pub use measure::Sample;
pub use workloads::{Params, Workload};
