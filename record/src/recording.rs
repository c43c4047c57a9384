//! A recording: the recorders of one bench, written out together.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;

use causim::{SimTime, TimeView};

use crate::recorder::{Recorder, Sample};
use crate::shared::Shared;
use crate::sync::Arc;
use crate::value::{Kind, Recordable};

/// The recorders of one bench, sharing its clock.
///
/// ```
/// use causim::prelude::*;
/// use causim_record::Recording;
///
/// let init = SimInit::new().with_threads(1);
/// let recording = Recording::new(init.time_view());
/// let mut out = Output::<f64>::new();
/// out.connect_sink(recording.record::<f64>("heater/power").sink());
/// ```
#[derive(Clone)]
pub struct Recording {
    /// The bench's clock.
    clock: TimeView,
    /// Its series, taps and the threads' lanes.
    shared: Arc<Shared>,
}

/// A copy of one recorded series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its name (a model path and a port, `/`-separated).
    pub name: String,
    /// The kind of its values.
    pub kind: Kind,
    /// Its samples, in the order they were sent.
    pub samples: Vec<Sample>,
}

impl Recording {
    /// An empty recording stamping samples with `clock`'s time (get it
    /// from `SimInit::time_view`).
    pub fn new(clock: TimeView) -> Self {
        Recording {
            clock,
            shared: Arc::new(Shared::new()),
        }
    }

    /// A recorder named `name` (a model path and a port, `/`-separated:
    /// the VCD writer makes one scope per level) of payloads of type `T`.
    pub fn record<T>(&self, name: impl Into<String>) -> Recorder<T>
    where
        T: Recordable + Send + 'static,
    {
        Recorder::new(
            self.shared.clone(),
            name.into(),
            T::KIND,
            self.clock.clone(),
            |v: &T| v.value(),
        )
    }

    /// A recorder of payloads of type `T` that keeps what `project`
    /// returns: a field of a struct, a quantity derived from it.
    pub fn record_map<T, V>(
        &self,
        name: impl Into<String>,
        project: impl Fn(&T) -> V + Send + Sync + 'static,
    ) -> Recorder<T>
    where
        T: Send + 'static,
        V: Recordable,
    {
        Recorder::new(
            self.shared.clone(),
            name.into(),
            V::KIND,
            self.clock.clone(),
            move |v: &T| project(v).value(),
        )
    }

    /// Maps memory for `samples` more samples of this recording's taps
    /// now, before the run, rather than while the bench runs.
    ///
    /// A tapped sample takes 24 bytes, in chunks of 65 536 samples (1.5
    /// MiB; `samples` is rounded up to whole chunks) that each thread
    /// running tapped outputs takes from this reserve, whole, before
    /// asking for more: on several threads, reserve a chunk more per
    /// thread. Without it, memory is mapped as samples come: a page fault
    /// per 170 samples, which costs microseconds on a virtual machine and
    /// is a stall a real-time run should not meet. What is not used stays
    /// with the recording until it is dropped. Like any allocation, one
    /// the system cannot give aborts the process.
    pub fn reserve(&self, samples: usize) {
        self.shared.reserve(samples);
    }

    /// A copy of every series, in the order the recorders were made.
    pub fn series(&self) -> Vec<Series> {
        self.shared
            .all_series()
            .into_iter()
            .map(|(entry, samples)| Series {
                name: entry.name.clone(),
                kind: entry.kind,
                samples,
            })
            .collect()
    }

    /// The series named `name`, if one was recorded (the first made, if
    /// two recorders share the name). Reads that series' samples only, not
    /// every series'.
    pub fn get(&self, name: &str) -> Option<Series> {
        let entry = self.shared.entry_named(name)?;
        Some(Series {
            name: entry.name.clone(),
            kind: entry.kind,
            samples: self.shared.samples_of(&entry),
        })
    }
}

impl fmt::Debug for Recording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The names only: a copy of every sample for a debug line would be
        // a surprise.
        f.debug_struct("Recording")
            .field("series", &self.shared.names())
            .finish()
    }
}

/// Every sample of `series` as `(series index, sample)`, in time order;
/// same-time samples keep the series order, then their own.
///
/// Each series is already in time order (values are sent as the clock
/// moves forward), so this merges them, with a heap of the series' next
/// samples, rather than sorting them all: O(n log k) for k series, and
/// nothing copied but the output.
pub(crate) fn merged(series: &[Series]) -> Vec<(usize, Sample)> {
    let total = series.iter().map(|s| s.samples.len()).sum();
    let mut all = Vec::with_capacity(total);
    // (time, series, position): the heap's order is the output's.
    let mut heads: BinaryHeap<Reverse<(SimTime, usize, usize)>> = series
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some(Reverse((s.samples.first()?.time, i, 0))))
        .collect();
    while let Some(Reverse((_, i, position))) = heads.pop() {
        let samples = &series[i].samples;
        all.push((i, samples[position]));
        if let Some(next) = samples.get(position + 1) {
            // A series out of time order (a user's) still comes out whole.
            heads.push(Reverse((
                next.time.max(samples[position].time),
                i,
                position + 1,
            )));
        }
    }
    all
}
