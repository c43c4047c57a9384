//! # causim-record
//!
//! Seeing what a causim bench did: recorders of model outputs, and the
//! files an engineer opens to look at them.
//!
//! - [`Recording`] makes [`Recorder`]s, one per series. A recorder taps an
//!   output (`output.tap(recorder.tap())`: no clone, no lock, not a
//!   connection) or is connected as a sink
//!   (`output.connect_sink(recorder.sink())`). It keeps `(simulation time,
//!   value)` samples of numbers, booleans and labels ([`Recordable`], which
//!   a user implements for an enum), every value or a [`Decimation`] of
//!   them; a tapped series is in an order no thread decides.
//! - Writers: CSV ([`write_csv_long`], [`write_csv_wide`]), VCD waveforms
//!   with one scope per model path ([`write_vcd`], feature `vcd`, on by
//!   default), SVG plots ([`plot_svg`], feature `plot`).
//! - [`SimTimer`] (feature `tracing`): a `tracing-subscriber` timer that
//!   prints simulation time; pair it with `causim`'s own `tracing` feature,
//!   which opens a span per model and per handled message.
//!
//! Why a crate of its own: the kernel stays lean. It gives this crate three
//! narrow interfaces — [`causim::Tap`] (what an output shows each value it
//! sends), [`causim::CallbackSink`] (a sink that calls a function) and
//! [`causim::TimeView`] (a read-only clock) — and knows nothing of files,
//! formats or their dependencies.
//!
//! The page `docs/recording.md` of the repository has the whole story,
//! including why there is no Arrow or Parquet writer (its build cost).

mod csv;
mod decimation;
mod lane;
#[cfg(feature = "plot")]
mod plot;
mod recorder;
mod recording;
mod shared;
mod store;
mod sync;
mod tap;
mod threads;
#[cfg(feature = "tracing")]
mod timer;
mod value;
#[cfg(feature = "vcd")]
mod vcd;

pub use csv::{write_csv_long, write_csv_wide};
#[cfg(feature = "plot")]
pub use plot::{plot_svg, Figure, Panel, PlotError};
pub use recorder::{Decimation, Recorder, Sample};
pub use recording::{Recording, Series};
pub use tap::RecorderTap;
#[cfg(feature = "tracing")]
pub use timer::SimTimer;
pub use value::{Kind, Recordable, Value};
#[cfg(feature = "vcd")]
pub use vcd::write_vcd;

/// The page `docs/recording.md`, whose code blocks are compiled and run as
/// doctests so that it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../docs/recording.md")]
pub struct RecordingDoctests;
