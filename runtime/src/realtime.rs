//! Real time, hardware in the loop, and injected input.
//!
//! By default a simulation runs as fast as it can. A verification bench
//! often runs paced to the wall clock instead, with real equipment or
//! flight software on the other side of a socket. This module gives it:
//!
//! - a [`Clock`] to follow ([`SystemClock`], or [`ManualClock`] in
//!   tests), set with `SimInit::with_clock`, at a speed factor, with a
//!   [`Lateness`] policy for steps the simulation reaches too late;
//! - an optional ticker (`SimInit::with_tick`): steps at a fixed period of
//!   simulated time even when nothing is scheduled, so that injected input
//!   is taken promptly; `run` then goes on until halted;
//! - an [`Injector`]: input from any thread while the simulation runs;
//! - a record of every input applied (`SimInit::with_input_log`), which
//!   the `session` feature writes as a session log and replays offline.
//!
//! # Design notes
//!
//! Pacing and injection live outside the step loop that the benchmarks
//! measure: a simulation with neither keeps its loops unchanged, and the
//! one test a call makes (is this simulation live?) is per call, not per
//! step. A live simulation runs its steps through a loop of its own
//! (`simulation/live.rs`) that waits for each step's wall deadline and
//! applies injected input.
//!
//! **When injected input is applied.** At the start of the next time
//! step, after that step's scheduled events and before any model runs at
//! that time, in the order it was injected. A step here is the moment the
//! simulation moves its clock to a new time: an event's time, a tick, or
//! the end of a `step_until`. Each time applies its input once, even if a
//! call stops inside its step and the next call resumes it, so the
//! (time, order) pair that a log records places an input exactly, and a
//! replay that applies it at the same pair reproduces the session.
//!
//! **Why the ticker.** Without it a paced simulation sleeps until its next
//! event, and input injected meanwhile waits for that event; with a 1 ms
//! tick it waits at most a millisecond of simulated time.

mod clock;
mod injector;
mod pacer;
#[cfg(feature = "session")]
pub mod session;

pub(crate) use clock::checked_speed;
pub use clock::{Clock, InvalidSpeed, ManualClock, SystemClock};
pub use injector::{AppliedInput, InjectError, Injector, InputRecord, PendingReply, ReplyError};
pub use pacer::Lateness;

pub(crate) use injector::{InjectQueue, Injected};

#[cfg(all(test, causim_loom))]
mod loom_tests;
pub(crate) use pacer::{next_tick, Pacer};
