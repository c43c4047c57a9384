//! One recorded series: the samples its sink gives, how they are thinned,
//! and the handle an output is tapped with or connected to.
//!
//! A recorder reaches an output two ways. Its taps (`tap.rs`) write
//! without a lock into the threads' lanes of the recording. Its sink is a
//! [`CallbackSink`], connected the ordinary way
//! (`output.connect_sink(recorder.sink())`), whose samples sit behind a
//! mutex: uncontended unless two models on two threads feed the same sink
//! at once, which is allowed (its samples are then in lock order;
//! same-time samples of two senders have no order of their own on several
//! threads). Both run on the sending model's thread, inside its time step,
//! so they read the bench's clock through a [`TimeView`] and get the time
//! at which the value was sent.

use std::fmt;
use std::sync::Arc;

use causim::{CallbackSink, SimTime, TimeView};

pub use crate::decimation::Decimation;
use crate::decimation::Thinning;
use crate::shared::Shared;
use crate::store::{Raw, Store};
use crate::sync::{self, lock, Mutex};
use crate::tap::{Convert, RecorderTap};
use crate::value::{Kind, Value};

/// One sample: the simulation time at which a value was sent, and what
/// was kept of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// When the value was sent.
    pub time: SimTime,
    /// What was recorded.
    pub value: Value,
}

/// The samples its sinks give a series, and the state its decimation
/// needs.
#[derive(Debug)]
pub(crate) struct SeriesData {
    /// The kept samples, in the order they were sent.
    store: Store,
    /// Which values are kept (also given to each tap when made).
    decimation: Decimation,
    /// What the decimation remembers of the sinks' values.
    thinning: Thinning,
}

impl SeriesData {
    /// An empty series of `kind` values.
    fn new(kind: Kind) -> Self {
        SeriesData {
            store: Store::new(kind),
            decimation: Decimation::All,
            thinning: Thinning::default(),
        }
    }

    /// Keeps `value` sent at `time` if the decimation says so.
    #[inline]
    fn offer(&mut self, time: SimTime, value: Value) {
        let raw = Raw {
            nanos: time.as_nanos(),
            bits: self.store.encode(value),
        };
        if self.thinning.keeps(self.decimation, raw) {
            self.store.push(raw);
        }
    }
}

/// One series of a recording: its name and kind, and its sink's samples.
#[derive(Debug)]
pub(crate) struct SeriesEntry {
    /// The series' name: a model path and a port, `sat/power/battery/soc`.
    pub(crate) name: String,
    /// The kind of its values.
    pub(crate) kind: Kind,
    /// Its place among the recording's series.
    pub(crate) index: usize,
    /// The samples its sink gave.
    data: Mutex<SeriesData>,
}

impl SeriesEntry {
    /// A series with no sample yet.
    pub(crate) fn new(name: String, kind: Kind, index: usize) -> Self {
        SeriesEntry {
            name,
            kind,
            index,
            data: Mutex::new(SeriesData::new(kind)),
        }
    }

    /// The number of samples the sink gave.
    pub(crate) fn sink_len(&self) -> usize {
        lock(&self.data).store.len()
    }

    /// The sink's samples and `from_taps` (in time order), merged by time:
    /// same-time samples of the sink first.
    pub(crate) fn with_sink_samples(&self, from_taps: Vec<Sample>) -> Vec<Sample> {
        let mut samples = lock(&self.data).store.samples();
        if samples.is_empty() {
            return from_taps;
        }
        if !from_taps.is_empty() {
            samples.extend(from_taps);
            // Stable: each part is in time order already.
            samples.sort_by_key(|sample| sample.time);
        }
        samples
    }
}

/// A recorder of values of type `T`: connect it to an output with
/// `output.tap(recorder.tap())` (no clone, no lock, not a connection) or
/// `output.connect_sink(recorder.sink())` (a connection).
pub struct Recorder<T> {
    /// The series it feeds.
    entry: Arc<SeriesEntry>,
    /// What the recording's recorders and taps share.
    shared: sync::Arc<Shared>,
    /// The bench's clock.
    clock: TimeView,
    /// How a payload becomes the recorded value.
    convert: Convert<T>,
    /// The connection outputs push into.
    sink: CallbackSink<T>,
}

impl<T: Send + 'static> Recorder<T> {
    /// A recorder named `name` of values of kind `kind` in the recording
    /// that `shared` belongs to, each turned into a value by `convert` and
    /// stamped with `clock`'s time.
    pub(crate) fn new(
        shared: sync::Arc<Shared>,
        name: String,
        kind: Kind,
        clock: TimeView,
        convert: impl Fn(&T) -> Value + Send + Sync + 'static,
    ) -> Self {
        let convert: Convert<T> = Arc::new(convert);
        let entry = shared.add_series(|index| SeriesEntry::new(name, kind, index));
        let sink = {
            let (entry, clock, convert) = (entry.clone(), clock.clone(), convert.clone());
            CallbackSink::new(move |payload: T| {
                let value = convert(&payload);
                lock(&entry.data).offer(clock.now(), value);
            })
        };
        Recorder {
            entry,
            shared,
            clock,
            convert,
            sink,
        }
    }

    /// What an output is tapped with: `output.tap(recorder.tap())`.
    ///
    /// Each call makes a new tap: tap several outputs into one recorder
    /// and its series merges them by time (same-time samples tap by tap,
    /// in the order the taps were made). A tap takes the recorder's
    /// decimation as it is when the tap is made.
    pub fn tap(&self) -> RecorderTap<T> {
        let tap = self.shared.add_tap(self.entry.index);
        let decimation = lock(&self.entry.data).decimation;
        RecorderTap::new(
            self.shared.clone(),
            tap,
            self.clock.clone(),
            self.convert.clone(),
            self.entry.kind,
            decimation,
        )
    }

    /// What an output connects to: `output.connect_sink(recorder.sink())`.
    pub fn sink(&self) -> &CallbackSink<T> {
        &self.sink
    }

    /// Keeps only the values `decimation` selects, from now on for its
    /// sink, and for the taps made after this call.
    pub fn decimate(self, decimation: Decimation) -> Self {
        lock(&self.entry.data).decimation = decimation;
        self
    }

    /// The series' name.
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    /// A copy of the samples kept so far.
    pub fn samples(&self) -> Vec<Sample> {
        self.shared.samples_of(&self.entry)
    }

    /// The number of samples kept so far.
    pub fn len(&self) -> usize {
        self.shared.len_of(&self.entry)
    }

    /// True if no sample was kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Clone for Recorder<T> {
    fn clone(&self) -> Self {
        Recorder {
            entry: self.entry.clone(),
            shared: self.shared.clone(),
            clock: self.clock.clone(),
            convert: self.convert.clone(),
            sink: self.sink.clone(),
        }
    }
}

impl<T> fmt::Debug for Recorder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("name", &self.entry.name)
            .field("kind", &self.entry.kind)
            .finish()
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_stored_sample_takes_16_bytes() {
        // `docs/recording.md` gives the memory of a recording from it.
        assert_eq!(std::mem::size_of::<Raw>(), 16);
    }
}
