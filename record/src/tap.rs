//! A recorder's tap: records every value an output sends, without a lock
//! and without a connection.
//!
//! `output.tap(recorder.tap())` records an output without a lock: the
//! kernel shows the tap each value by reference when the model sends it
//! (`causim::Tap`), before the output's connections get it as they would
//! without the tap, and the tap appends the sample, tagged with its tap
//! number and count, to its thread's lane of the recording (`threads.rs`,
//! `lane.rs`), which the bench reads without stopping it. A sink
//! (`output.connect_sink(recorder.sink())`) is a connection, with a clone
//! of each value and a lock per sample; it is what shows the recorder in
//! the bench's topology.

use std::fmt;

use causim::{SimTime, Tap, TimeView};

use crate::decimation::{Decimation, Thinning};
use crate::lane::Record;
use crate::shared::{tag, Shared};
use crate::store::{Encoder, Raw};
use crate::sync::Arc;
use crate::threads;
use crate::value::{Kind, Value};

/// A function turning a payload into the value recorded.
pub(crate) type Convert<T> = std::sync::Arc<dyn Fn(&T) -> Value + Send + Sync>;

/// Records the values an output sends into a [`Recorder`]'s series: give
/// it to [`Output::tap`](causim::Output::tap).
///
/// Made by [`Recorder::tap`]; the series merges its taps' samples, and its
/// sink's, by time when read. A tap can also be kept in a model and called
/// directly with [`Tap::observe`], to record a quantity no output sends.
///
/// [`Recorder`]: crate::Recorder
/// [`Recorder::tap`]: crate::Recorder::tap
pub struct RecorderTap<T> {
    /// Its number among the recording's taps (the high half of its
    /// samples' tags).
    tap: u32,
    /// The samples it wrote so far (wrapping).
    count: u32,
    /// True if every value is kept (no decimation to consult).
    keeps_all: bool,
    /// The kind of the series.
    kind: Kind,
    /// Its recording's id, which finds this thread's lane of it.
    recording: u64,
    /// The bench's clock.
    clock: TimeView,
    /// The payload to value conversion of the recorder.
    convert: Convert<T>,
    /// What the common case does not need, out of line: a sample then
    /// touches one line of the tap (see `threads.rs` on why lines count).
    rest: Box<Rest>,
}

/// The part of a tap that labels, conversions, decimations and a thread's
/// first sample use.
#[derive(Debug)]
struct Rest {
    /// The recording, to add a lane or publish labels.
    shared: Arc<Shared>,
    /// Which values are kept (the recorder's when the tap was made).
    decimation: Decimation,
    /// What the decimation remembers.
    thinning: Thinning,
    /// The label table and the conversions between kinds.
    encoder: Encoder,
    /// How many of the encoder's labels the readers were given: a label
    /// seen in a value the decimation dropped is published with the first
    /// kept sample that uses it.
    published: usize,
}

impl<T> RecorderTap<T> {
    /// Tap number `tap` of the recording `shared` belongs to, of `kind`
    /// values, stamping samples with `clock`'s time.
    pub(crate) fn new(
        shared: Arc<Shared>,
        tap: u32,
        clock: TimeView,
        convert: Convert<T>,
        kind: Kind,
        decimation: Decimation,
    ) -> Self {
        RecorderTap {
            tap,
            count: 0,
            keeps_all: decimation == Decimation::All,
            kind,
            recording: shared.id(),
            clock,
            convert,
            rest: Box::new(Rest {
                shared,
                decimation,
                thinning: Thinning::default(),
                encoder: Encoder::new(kind),
                published: 0,
            }),
        }
    }

    /// Keeps `value`, sent at `time`: a number, boolean or integer of the
    /// series' own kind, with every value kept, goes straight to this
    /// thread's lane.
    #[inline]
    fn offer(&mut self, time: SimTime, value: Value) {
        match (self.keeps_all, encode_plain(self.kind, value)) {
            (true, Some(bits)) => self.push(Raw {
                nanos: time.as_nanos(),
                bits,
            }),
            _ => self.offer_slow(time, value),
        }
    }

    /// [`offer`](Self::offer) for a label, a value of another kind, or a
    /// decimated series.
    #[cold]
    #[inline(never)]
    fn offer_slow(&mut self, time: SimTime, value: Value) {
        let rest = &mut *self.rest;
        let raw = Raw {
            nanos: time.as_nanos(),
            bits: rest.encoder.encode(value),
        };
        if !rest.thinning.keeps(rest.decimation, raw) {
            return;
        }
        // Before the sample: a reader that sees it sees its label.
        if rest.encoder.labels().len() != rest.published {
            rest.shared.publish_labels(self.tap, rest.encoder.labels());
            rest.published = rest.encoder.labels().len();
        }
        self.push(raw);
    }

    /// Appends `raw` to this thread's lane, tagged.
    #[inline]
    fn push(&mut self, raw: Raw) {
        let record = Record {
            raw,
            tag: tag(self.tap, self.count),
        };
        self.count = self.count.wrapping_add(1);
        let shared = &self.rest.shared;
        threads::push(self.recording, record, &|| shared.new_lane());
    }
}

/// `value` encoded for `kind` if it is of that kind and not a label (which
/// needs the label table).
#[inline]
fn encode_plain(kind: Kind, value: Value) -> Option<u64> {
    match (kind, value) {
        (Kind::Real, Value::Real(v)) => Some(v.to_bits()),
        (Kind::Int, Value::Int(v)) => Some(v as u64),
        (Kind::Bool, Value::Bool(v)) => Some(u64::from(v)),
        _ => None,
    }
}

impl<T: 'static> Tap<T> for RecorderTap<T> {
    #[inline]
    fn observe(&mut self, value: &T) {
        let value = (self.convert)(value);
        self.offer(self.clock.now(), value);
    }
}

impl<T> fmt::Debug for RecorderTap<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecorderTap")
            .field("payload", &std::any::type_name::<T>())
            .field("kind", &self.kind)
            .field("decimation", &self.rest.decimation)
            .finish()
    }
}
