//! One recorded series: the samples, how they are thinned, and the handle
//! an output is connected to.
//!
//! A recorder is a [`CallbackSink`]: connecting it is the ordinary
//! `output.connect_sink(recorder.sink())`. The callback runs on the
//! sending model's thread, inside its time step, so it reads the bench's
//! clock through a [`TimeView`] and gets the time at which the value was
//! sent. Its samples sit behind a mutex: uncontended unless two models on
//! two threads feed the same recorder at once, which is allowed (the
//! series then holds their samples in lock order; same-time samples of two
//! senders have no order of their own on several threads).

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use causim::{CallbackSink, SimTime, TimeView};

use crate::store::{Raw, Store};
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

/// Which of the sent values a recorder keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Decimation {
    /// Every value (the default).
    #[default]
    All,
    /// The first value, then every `n`-th one after it (`0` and `1`: all).
    EveryNth(u64),
    /// At most one value per interval: a value is kept if it was sent at
    /// least this long after the last kept one.
    MinInterval(Duration),
    /// Only a value that differs from the last kept one (a waveform's
    /// natural encoding).
    OnChange,
}

/// A series' samples and the state its decimation needs.
#[derive(Debug)]
pub(crate) struct SeriesData {
    /// The kept samples, in the order they were sent.
    pub(crate) store: Store,
    /// Which values are kept.
    decimation: Decimation,
    /// Values offered so far, kept or not.
    offered: u64,
}

impl SeriesData {
    /// An empty series of `kind` values.
    fn new(kind: Kind) -> Self {
        SeriesData {
            store: Store::new(kind),
            decimation: Decimation::All,
            offered: 0,
        }
    }

    /// Keeps `value` sent at `time` if the decimation says so.
    #[inline]
    fn offer(&mut self, time: SimTime, value: Value) {
        let index = self.offered;
        self.offered += 1;
        let raw = Raw {
            nanos: time.as_nanos(),
            bits: self.store.encode(value),
        };
        if self.keeps(index, raw) {
            self.store.push(raw);
        }
    }

    /// Whether `raw`, the `index`-th value offered, is kept.
    #[inline]
    fn keeps(&self, index: u64, raw: Raw) -> bool {
        // The common case first, as one predictable branch.
        if self.decimation == Decimation::All {
            return true;
        }
        match self.decimation {
            Decimation::All => true,
            Decimation::EveryNth(n) => n <= 1 || index.is_multiple_of(n),
            Decimation::MinInterval(interval) => self.store.last().is_none_or(|last| {
                let since = Duration::from_nanos(raw.nanos.saturating_sub(last.nanos));
                raw.nanos >= last.nanos && since >= interval
            }),
            Decimation::OnChange => self.store.last().is_none_or(|last| last.bits != raw.bits),
        }
    }
}

/// The lock of a series; a panic while it was held (in a user's
/// [`Recordable`](crate::Recordable) impl, say) leaves the samples usable.
pub(crate) fn lock(data: &Mutex<SeriesData>) -> MutexGuard<'_, SeriesData> {
    data.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The shared part of a recorder: what a [`Recording`](crate::Recording)
/// keeps to write the series out.
#[derive(Debug)]
pub(crate) struct SeriesEntry {
    /// The series' name: a model path and a port, `sat/power/battery/soc`.
    pub(crate) name: String,
    /// The kind of its values.
    pub(crate) kind: Kind,
    /// Its samples.
    pub(crate) data: Arc<Mutex<SeriesData>>,
}

/// A recorder of values of type `T`: connect its [`sink`](Self::sink) to
/// an output.
pub struct Recorder<T> {
    /// The series it feeds (shared with its recording).
    entry: Arc<SeriesEntry>,
    /// The connection outputs push into.
    sink: CallbackSink<T>,
}

impl<T: Send + 'static> Recorder<T> {
    /// A recorder named `name` of values of kind `kind`, each turned into a
    /// value by `convert` and stamped with `clock`'s time.
    pub(crate) fn new(
        name: String,
        kind: Kind,
        clock: TimeView,
        convert: impl Fn(&T) -> Value + Send + Sync + 'static,
    ) -> Self {
        let data = Arc::new(Mutex::new(SeriesData::new(kind)));
        let sink_data = data.clone();
        let sink = CallbackSink::new(move |payload: T| {
            let value = convert(&payload);
            lock(&sink_data).offer(clock.now(), value);
        });
        Recorder {
            entry: Arc::new(SeriesEntry { name, kind, data }),
            sink,
        }
    }

    /// What an output connects to: `output.connect_sink(recorder.sink())`.
    pub fn sink(&self) -> &CallbackSink<T> {
        &self.sink
    }

    /// Keeps only the values `decimation` selects, from now on.
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
        lock(&self.entry.data).store.samples()
    }

    /// The number of samples kept so far.
    pub fn len(&self) -> usize {
        lock(&self.entry.data).store.len()
    }

    /// True if no sample was kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shared part, for the recording.
    pub(crate) fn entry(&self) -> &Arc<SeriesEntry> {
        &self.entry
    }
}

impl<T> Clone for Recorder<T> {
    fn clone(&self) -> Self {
        Recorder {
            entry: self.entry.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(decimation: Decimation, values: &[(u64, f64)]) -> Vec<(u64, f64)> {
        let mut data = SeriesData::new(Kind::Real);
        data.decimation = decimation;
        for &(t, v) in values {
            data.offer(SimTime::from_nanos(t), Value::Real(v));
        }
        data.store
            .samples()
            .iter()
            .map(|s| (s.time.as_nanos(), s.value.as_f64().unwrap()))
            .collect()
    }

    #[test]
    fn a_stored_sample_takes_16_bytes() {
        // `docs/recording.md` gives the memory of a recording from it.
        assert_eq!(std::mem::size_of::<Raw>(), 16);
    }

    const VALUES: [(u64, f64); 6] = [(0, 1.0), (1, 1.0), (2, 2.0), (5, 2.0), (6, 3.0), (9, 3.0)];

    #[test]
    fn decimations_keep_what_they_say() {
        assert_eq!(offered(Decimation::All, &VALUES), VALUES.to_vec());
        assert_eq!(
            offered(Decimation::EveryNth(2), &VALUES),
            vec![(0, 1.0), (2, 2.0), (6, 3.0)]
        );
        assert_eq!(offered(Decimation::EveryNth(0), &VALUES), VALUES.to_vec());
        assert_eq!(
            offered(Decimation::MinInterval(Duration::from_nanos(4)), &VALUES),
            vec![(0, 1.0), (5, 2.0), (9, 3.0)]
        );
        assert_eq!(
            offered(Decimation::OnChange, &VALUES),
            vec![(0, 1.0), (2, 2.0), (6, 3.0)]
        );
    }
}
