//! # causim-record
//!
//! Seeing what a causim bench did: recorders of model outputs, and the
//! files an engineer opens to look at them.
//!
//! - [`Recording`] makes [`Recorder`]s, one per series. A recorder is an
//!   ordinary sink: `output.connect_sink(recording.record::<f64>("room/t").sink())`.
//!   It keeps `(simulation time, value)` samples of numbers, booleans and
//!   labels ([`Recordable`], which a user implements for an enum), every
//!   value or a [`Decimation`] of them.
//! - Writers: CSV ([`write_csv_long`], [`write_csv_wide`]), VCD waveforms
//!   with one scope per model path ([`write_vcd`], feature `vcd`, on by
//!   default), SVG plots ([`plot_svg`], feature `plot`).
//! - [`SimTimer`] (feature `tracing`): a `tracing-subscriber` timer that
//!   prints simulation time; pair it with `causim`'s own `tracing` feature,
//!   which opens a span per model and per handled message.
//!
//! Why a crate of its own: the kernel stays lean. It gives this crate two
//! narrow interfaces — [`causim::CallbackSink`] (a sink that calls a
//! function) and [`causim::TimeView`] (a read-only clock) — and knows
//! nothing of files, formats or their dependencies.
//!
//! ## Why no Arrow or Parquet writer
//!
//! The issue asked for one "if a well-kept crate serves without heavy
//! build cost". `arrow-ipc` (the lightest way to write Arrow files, no
//! default features) takes about a minute of CPU to build in release on
//! the project's machine, more than the rest of the workspace's
//! dependencies together (figures in `docs/benchmarks.md`); the CSV and
//! VCD writers already reach the disk's speed on 10⁷ samples. A user who
//! needs Arrow converts [`Recording::series`] with the crate of their
//! choice in a few lines.

mod csv;
#[cfg(feature = "plot")]
mod plot;
mod recorder;
mod recording;
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
#[cfg(feature = "tracing")]
pub use timer::SimTimer;
pub use value::{Kind, Recordable, Value};
#[cfg(feature = "vcd")]
pub use vcd::write_vcd;
