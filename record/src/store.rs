//! How a series keeps its sink's samples while the bench runs: 16 bytes
//! each, in chunks that are never moved. A sink's samples are in a [`Store`],
//! under the series' lock; a tap's are in a lane (`lane.rs`), without
//! one; both encode values with an [`Encoder`].
//!
//! Two choices keep recording cheap on the sender's path (measured on the
//! pinball workload, `docs/benchmarks.md`, "Recording"):
//!
//! - **Raw samples.** A [`Value`] is 24 bytes (a label is a `&str`); a
//!   series has one kind, so a sample is stored as the time's nanoseconds
//!   and 64 bits of value (a real's bits, an integer, 0 or 1, or a label's
//!   index in the series' table of labels), and decoded when read.
//! - **Chunks.** A `Vec` that doubles copies every sample it holds each
//!   time it grows (a third of the recording cost in the first version);
//!   chunks of doubling size, up to 64 Ki samples (1 MiB), are only ever
//!   appended to.

use causim::SimTime;

use crate::recorder::Sample;
use crate::value::{Kind, Value};

/// One stored sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw {
    /// The time, in nanoseconds.
    pub(crate) nanos: u64,
    /// The value, encoded for the series' kind.
    pub(crate) bits: u64,
}

/// Samples in the first chunk.
const FIRST_CHUNK: usize = 256;
/// Samples in the largest chunks.
pub(crate) const LARGEST_CHUNK: usize = if cfg!(causim_loom) { 4 } else { 1 << 16 };

/// How the values of one kind are stored in 64 bits, and read back.
#[derive(Debug, Clone)]
pub(crate) struct Encoder {
    /// The kind every value is stored as.
    kind: Kind,
    /// The distinct labels seen, indexed by a label sample's bits.
    labels: Vec<&'static str>,
}

impl Encoder {
    /// An encoder of `kind` values that has seen no label.
    pub(crate) fn new(kind: Kind) -> Self {
        Encoder {
            kind,
            labels: Vec::new(),
        }
    }

    /// An encoder of `kind` values that knows `labels`, to decode.
    pub(crate) fn with_labels(kind: Kind, labels: Vec<&'static str>) -> Self {
        Encoder { kind, labels }
    }

    /// The labels seen, in the order of their indexes.
    pub(crate) fn labels(&self) -> &[&'static str] {
        &self.labels
    }

    /// `value` encoded for this encoder's kind; a value of another kind
    /// is converted (a number to a boolean is "not zero", anything to a
    /// label is its text if it is one, else `?`).
    #[inline]
    pub(crate) fn encode(&mut self, value: Value) -> u64 {
        match (self.kind, value) {
            (Kind::Real, Value::Real(v)) => v.to_bits(),
            (Kind::Int, Value::Int(v)) => v as u64,
            (Kind::Bool, Value::Bool(v)) => u64::from(v),
            (Kind::Label, Value::Label(v)) => self.label_index(v),
            (kind, value) => self.convert(kind, value),
        }
    }

    /// A value of another kind than the encoder's, converted.
    #[cold]
    fn convert(&mut self, kind: Kind, value: Value) -> u64 {
        let number = value.as_f64();
        match kind {
            Kind::Real => number.unwrap_or(f64::NAN).to_bits(),
            Kind::Int => number.map_or(0, |v| v as i64) as u64,
            Kind::Bool => u64::from(number.is_some_and(|v| v != 0.0)),
            Kind::Label => self.label_index("?"),
        }
    }

    /// The index of `label` in the table, added if new (a label type has
    /// a few values: a scan is cheaper than a hash).
    #[inline]
    fn label_index(&mut self, label: &'static str) -> u64 {
        let known = self
            .labels
            .iter()
            .position(|l| std::ptr::eq(*l, label) || *l == label);
        let index = known.unwrap_or_else(|| {
            self.labels.push(label);
            self.labels.len() - 1
        });
        index as u64
    }

    /// The value `bits` stands for.
    pub(crate) fn decode(&self, bits: u64) -> Value {
        match self.kind {
            Kind::Real => Value::Real(f64::from_bits(bits)),
            Kind::Int => Value::Int(bits as i64),
            Kind::Bool => Value::Bool(bits != 0),
            Kind::Label => Value::Label(self.labels.get(bits as usize).copied().unwrap_or("?")),
        }
    }

    /// `raw`, decoded.
    pub(crate) fn sample(&self, raw: Raw) -> Sample {
        Sample {
            time: SimTime::from_nanos(raw.nanos),
            value: self.decode(raw.bits),
        }
    }
}

/// The samples of one series that a sink feeds, under its lock.
#[derive(Debug)]
pub(crate) struct Store {
    /// How values are stored.
    encoder: Encoder,
    /// Full chunks, then the one being filled (none before the first
    /// sample).
    chunks: Vec<Vec<Raw>>,
}

impl Store {
    /// An empty store of `kind` values.
    pub(crate) fn new(kind: Kind) -> Self {
        Store {
            encoder: Encoder::new(kind),
            chunks: Vec::new(),
        }
    }

    /// `value` encoded for this store's kind (see [`Encoder::encode`]).
    #[inline]
    pub(crate) fn encode(&mut self, value: Value) -> u64 {
        self.encoder.encode(value)
    }

    /// Appends one sample.
    #[inline]
    pub(crate) fn push(&mut self, raw: Raw) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < chunk.capacity() => chunk.push(raw),
            _ => self.push_in_new_chunk(raw),
        }
    }

    /// Appends one sample in a new chunk, twice as large as the last.
    #[cold]
    fn push_in_new_chunk(&mut self, raw: Raw) {
        let size = self.chunks.last().map_or(FIRST_CHUNK, |chunk| {
            (chunk.capacity() * 2).min(LARGEST_CHUNK)
        });
        let mut chunk = Vec::with_capacity(size);
        chunk.push(raw);
        self.chunks.push(chunk);
    }

    /// The number of samples.
    pub(crate) fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Every sample, decoded, in the order they were stored.
    pub(crate) fn samples(&self) -> Vec<Sample> {
        let mut samples = Vec::with_capacity(self.len());
        for raw in self.chunks.iter().flatten() {
            samples.push(self.encoder.sample(*raw));
        }
        samples
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_chunks() {
        let mut store = Store::new(Kind::Label);
        for n in 0..(FIRST_CHUNK as u64 * 5) {
            let bits = store.encode(Value::Label(["a", "b", "c"][n as usize % 3]));
            store.push(Raw { nanos: n, bits });
        }
        // 256 + 512 + 512 of the next 1024.
        assert_eq!(store.chunks.len(), 3);
        let samples = store.samples();
        assert_eq!(samples.len(), FIRST_CHUNK * 5);
        assert_eq!(samples[1000].value, Value::Label("b"));
        assert_eq!(samples[1000].time, SimTime::from_nanos(1000));
        assert_eq!(store.encoder.labels(), ["a", "b", "c"]);
    }

    #[test]
    fn each_kind_decodes_what_it_encoded_and_converts_others() {
        let cases = [
            (Kind::Real, Value::Real(-0.25), Value::Real(-0.25)),
            (Kind::Int, Value::Int(-7), Value::Int(-7)),
            (Kind::Bool, Value::Bool(true), Value::Bool(true)),
            (Kind::Real, Value::Int(3), Value::Real(3.0)),
            (Kind::Bool, Value::Real(0.0), Value::Bool(false)),
            (Kind::Label, Value::Int(1), Value::Label("?")),
        ];
        for (kind, value, decoded) in cases {
            let mut encoder = Encoder::new(kind);
            let bits = encoder.encode(value);
            assert_eq!(encoder.decode(bits), decoded, "{kind:?} {value:?}");
        }
    }
}
