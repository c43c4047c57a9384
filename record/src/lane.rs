//! A lane: the samples one thread writes into a recording, without a
//! lock, while the bench may read them at any time.
//!
//! Each thread that runs a tapped output has a lane per recording (see
//! `threads.rs`), so a lane has exactly one writer, which needs no lock to
//! append. Readers (a `Recording` copying its series, from any thread,
//! between steps or during one) need only see a consistent prefix. What a
//! sample costs is the cache lines it touches (a bench records thousands
//! of outputs, which do not all stay in cache): a thread's lane is written
//! in sequence, so the line a sample goes to is the one the previous
//! sample went to, or the next:
//!
//! - samples sit in chunks that are never moved, each slot three `u64`
//!   atomics written once: the value and the tap's tag with `Relaxed`,
//!   then the time plus one with `Release` (all plain stores on the
//!   machines we run on). A slot whose time word is zero is not written
//!   yet; a reader loads the time with `Acquire`, so a slot it finds
//!   written has the rest;
//! - the writer holds its chunk's slots itself (an `Arc<[Slot]>`) and
//!   counts them itself: no length to publish, no header to touch;
//! - the list of chunks is under a mutex, taken once per chunk by the
//!   writer (when one fills) and once per read by a reader;
//! - a time of [`SimTime::MAX`](causim::SimTime::MAX) has no "plus one":
//!   the writer puts such samples (which can only be the last ones of a
//!   lane, times being in order) in a list under that mutex, and a reader
//!   that sees that list non-empty knows every slot sample came before it.
//!
//! All of it is safe code: slots of `UnsafeCell` would be written by the
//! same instructions. The loom model at the end checks that a reader
//! racing the writer across a chunk boundary sees a prefix of what was
//! written, in order.

use std::sync::Arc as StdArc;

use crate::store::{Raw, LARGEST_CHUNK};
use crate::sync::{lock, Arc, AtomicU64, Mutex, Ordering};

/// Slots in a lane's first chunk (6 KiB; a thread's lane then doubles).
const FIRST_CHUNK: usize = if cfg!(causim_loom) { 2 } else { 256 };

/// One sample's place: its time plus one (zero: not written yet), its
/// encoded value and the tag of the tap that wrote it.
type Slot = [AtomicU64; 3];

/// One sample in a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// Its time and encoded value.
    pub(crate) raw: Raw,
    /// Which tap wrote it, and its place among that tap's samples (see
    /// `tap.rs`).
    pub(crate) tag: u64,
}

/// What the writer and the readers of a lane change under its mutex.
#[derive(Debug, Default)]
struct Chunks {
    /// Every chunk, in order; the last is being filled.
    ///
    /// (`std`'s `Arc` even under loom, which has no `Arc` of a slice: the
    /// slots inside are loom's atomics, which is what the model checks.)
    chunks: Vec<StdArc<[Slot]>>,
    /// The samples sent at the end of time, after every slot's.
    at_end: Vec<Record>,
}

/// Chunks made before the run, which lanes take before making their own
/// (see `Recording::reserve`): their memory is mapped already, so that a
/// sample does not meet a page fault while the bench runs.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    /// Chunks never written, of the largest size.
    chunks: Mutex<Vec<StdArc<[Slot]>>>,
}

impl Spare {
    /// Makes chunks for `samples` samples more.
    pub(crate) fn reserve(&self, samples: usize) {
        let count = samples.div_ceil(LARGEST_CHUNK);
        let made: Vec<_> = (0..count).map(|_| mapped_chunk(LARGEST_CHUNK)).collect();
        lock(&self.chunks).extend(made);
    }

    /// A spare chunk, if one is left.
    pub(crate) fn take(&self) -> Option<StdArc<[Slot]>> {
        lock(&self.chunks).pop()
    }

    /// Frees the chunks not taken.
    pub(crate) fn clear(&self) {
        lock(&self.chunks).clear();
    }
}

/// A chunk of `capacity` slots, none written (its memory written once, as
/// zeros, which maps it).
fn fresh_chunk(capacity: usize) -> StdArc<[Slot]> {
    (0..capacity)
        .map(|_| [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)])
        .collect()
}

/// [`fresh_chunk`], with a word of each page written again: zeroed memory
/// may come from the system unmapped (`calloc`), to be mapped at its first
/// write, which is what a reserve does ahead of time.
fn mapped_chunk(capacity: usize) -> StdArc<[Slot]> {
    const SLOTS_PER_PAGE: usize = 4096 / std::mem::size_of::<Slot>();
    let chunk = fresh_chunk(capacity);
    for [stamp, _, _] in chunk.iter().step_by(SLOTS_PER_PAGE) {
        stamp.store(0, Ordering::Relaxed);
    }
    chunk
}

/// What a lane's readers share with its writer.
#[derive(Debug)]
pub(crate) struct Lane {
    /// Its chunks and last samples.
    chunks: Mutex<Chunks>,
    /// Where it takes its chunks from first.
    spare: Arc<Spare>,
}

impl Lane {
    /// An empty lane taking chunks from `spare` first, and its only
    /// writer.
    pub(crate) fn new(spare: Arc<Spare>) -> (Arc<Lane>, LaneWriter) {
        let lane = Arc::new(Lane {
            chunks: Mutex::new(Chunks::default()),
            spare,
        });
        let writer = LaneWriter {
            chunk: StdArc::new([]),
            index: 0,
            lane: lane.clone(),
        };
        (lane, writer)
    }

    /// The samples written so far, in the order they were written.
    #[cfg(test)]
    pub(crate) fn records(&self) -> Vec<Record> {
        self.records_where(|_| true)
    }

    /// Frees the samples, once no writer will add any (its recording is
    /// gone): a thread's writer, which lives as long as the thread, keeps
    /// only the chunk it was filling.
    pub(crate) fn clear(&self) {
        let mut all = lock(&self.chunks);
        all.chunks.clear();
        all.at_end.clear();
    }

    /// The samples written so far whose tag `keep` accepts, in the order
    /// they were written.
    pub(crate) fn records_where(&self, keep: impl Fn(u64) -> bool) -> Vec<Record> {
        let mut records = Vec::new();
        self.for_each_where(keep, |record| records.push(record));
        records
    }

    /// Hands `take` every record written so far whose tag `keep` accepts,
    /// in the order written, without collecting them first.
    pub(crate) fn for_each_where(&self, keep: impl Fn(u64) -> bool, mut take: impl FnMut(Record)) {
        let (chunks, at_end) = {
            let all = lock(&self.chunks);
            (all.chunks.clone(), all.at_end.clone())
        };
        'chunks: for chunk in &chunks {
            for [stamp, bits, tag] in chunk.iter() {
                // Synchronises with the writer's `Release` store of the
                // time: the rest is written.
                let stamp = stamp.load(Ordering::Acquire);
                if stamp == 0 {
                    break 'chunks;
                }
                let raw = Raw {
                    nanos: stamp - 1,
                    bits: bits.load(Ordering::Relaxed),
                };
                let tag = tag.load(Ordering::Relaxed);
                if keep(tag) {
                    take(Record { raw, tag });
                }
            }
        }
        // Samples at the end of time were written after every slot, all
        // of which this read saw (the mutex orders them).
        at_end.into_iter().filter(|r| keep(r.tag)).for_each(take);
    }
}

/// The one writer of a lane.
#[derive(Debug)]
pub(crate) struct LaneWriter {
    /// The slots of the chunk being filled (none before the first sample).
    chunk: StdArc<[Slot]>,
    /// The slots of it written.
    index: usize,
    /// The lane, for a new chunk.
    lane: Arc<Lane>,
}

impl LaneWriter {
    /// The lane written.
    pub(crate) fn lane(&self) -> &Arc<Lane> {
        &self.lane
    }

    /// Appends `record`.
    #[inline]
    pub(crate) fn push(&mut self, record: Record) {
        match (self.chunk.get(self.index), record.raw.nanos.checked_add(1)) {
            (Some([stamp, bits, tag]), Some(stamped)) => {
                bits.store(record.raw.bits, Ordering::Relaxed);
                tag.store(record.tag, Ordering::Relaxed);
                // Publishes the slot to readers (see the module docs).
                stamp.store(stamped, Ordering::Release);
                self.index += 1;
            }
            _ => self.push_slow(record),
        }
    }

    /// Appends `record` in a new chunk, twice as large as the last, or at
    /// the end of time.
    #[cold]
    #[inline(never)]
    fn push_slow(&mut self, record: Record) {
        let mut all = lock(&self.lane.chunks);
        if record.raw.nanos == u64::MAX || !all.at_end.is_empty() {
            all.at_end.push(record);
            return;
        }
        let capacity = match self.chunk.len() {
            0 => FIRST_CHUNK,
            full => (full * 2).min(LARGEST_CHUNK),
        };
        self.chunk = match self.lane.spare.take() {
            Some(spare) => spare,
            None => fresh_chunk(capacity),
        };
        self.index = 0;
        all.chunks.push(self.chunk.clone());
        drop(all);
        self.push(record);
    }
}

/// A record of `nanos`, with `n` as its value and tag.
#[cfg(test)]
fn record(nanos: u64, n: u64) -> Record {
    Record {
        raw: Raw { nanos, bits: n },
        tag: n,
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_in_order_across_chunks() {
        let (lane, mut writer) = Lane::new(Arc::default());
        let count = FIRST_CHUNK as u64 * 5;
        for n in 0..count {
            writer.push(record(n / 3, n));
        }
        let records = lane.records();
        assert_eq!(records.len() as u64, count);
        assert!(records
            .iter()
            .enumerate()
            .all(|(n, r)| *r == record(n as u64 / 3, n as u64)));
        // 256 + 512 + 1024 slots.
        assert_eq!(lock(&lane.chunks).chunks.len(), 3);
    }

    #[test]
    fn a_lane_takes_spare_chunks_first() {
        let spare = Arc::new(Spare::default());
        spare.reserve(LARGEST_CHUNK + 1);
        assert_eq!(lock(&spare.chunks).len(), 2);
        let (lane, mut writer) = Lane::new(spare.clone());
        for n in 0..(LARGEST_CHUNK as u64 + 10) {
            writer.push(record(n, n));
        }
        // Both spare chunks taken, no chunk of the first size made.
        assert!(lock(&spare.chunks).is_empty());
        let sizes: Vec<usize> = lock(&lane.chunks).chunks.iter().map(|c| c.len()).collect();
        assert_eq!(sizes, [LARGEST_CHUNK, LARGEST_CHUNK]);
        assert_eq!(lane.records().len(), LARGEST_CHUNK + 10);
    }

    #[test]
    fn an_empty_lane_has_no_records() {
        let (lane, writer) = Lane::new(Arc::default());
        assert!(lane.records().is_empty());
        drop(writer);
        assert!(lane.records().is_empty());
    }

    #[test]
    fn records_at_the_end_of_time_come_last_and_whole() {
        let (lane, mut writer) = Lane::new(Arc::default());
        let times = [0, 5, u64::MAX - 1, u64::MAX, u64::MAX];
        for (n, &nanos) in times.iter().enumerate() {
            writer.push(record(nanos, n as u64));
        }
        let expected: Vec<Record> = times
            .iter()
            .enumerate()
            .map(|(n, &nanos)| record(nanos, n as u64))
            .collect();
        assert_eq!(lane.records(), expected);
    }
}

#[cfg(all(test, causim_loom))]
mod loom_tests {
    use super::*;

    /// A writer crossing a chunk boundary (chunks of 2 then 4 slots under
    /// loom) while a reader copies the lane twice: each copy is a prefix
    /// of what was written, the second no shorter than the first, and a
    /// copy after the writer is done is all of it.
    #[test]
    fn loom_a_reader_racing_the_writer_sees_a_growing_prefix() {
        loom::model(|| {
            let (lane, mut writer) = Lane::new(Arc::default());
            let written = 4u64;
            let reader = {
                let lane = lane.clone();
                loom::thread::spawn(move || (lane.records(), lane.records()))
            };
            for n in 0..written {
                writer.push(record(n, n * 10));
            }
            let (first, second) = reader.join().unwrap();
            let is_prefix = |records: &[Record]| {
                records
                    .iter()
                    .enumerate()
                    .all(|(n, r)| *r == record(n as u64, n as u64 * 10))
            };
            assert!(is_prefix(&first) && is_prefix(&second));
            assert!(first.len() <= second.len());
            assert_eq!(lane.records().len(), written as usize);
        });
    }
}
