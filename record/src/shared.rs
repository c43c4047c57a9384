//! What the recorders and taps of one recording share, and how a series is
//! put back together from its sink and its taps.
//!
//! A series' samples come from two places: its sink's store (`store.rs`,
//! under the series' lock, in the order they were sent) and the threads'
//! lanes (`lane.rs`), where every tap of the recording writes, tagged with
//! its tap number and its own count. Reading a series copies its sink's
//! samples and every lane's records of its taps, then orders them by
//! time; same-time samples come sink first, then tap by tap in the order
//! the taps were made, each tap's in the order it sent them. The order
//! depends on nothing a thread decides, so a series is the same on any
//! number of threads.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::lane::{Lane, LaneWriter, Record, Spare};
use crate::recorder::{Sample, SeriesEntry};
use crate::store::Encoder;
use crate::sync::{lock, Arc, Mutex};

/// The next recording's id (ids are never reused: a thread's writer found
/// by id is never one of an earlier recording).
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// One tap of a recording.
#[derive(Debug, Clone)]
struct TapEntry {
    /// The index of its series among the recording's.
    series: usize,
    /// The labels its encoder has seen, by index.
    labels: Vec<&'static str>,
}

/// The part of a recording shared by its recorders and taps.
#[derive(Debug)]
pub(crate) struct Shared {
    /// This recording's id, for the threads' writers.
    id: u64,
    /// Every series, in the order they were made.
    entries: Mutex<Vec<std::sync::Arc<SeriesEntry>>>,
    /// Every thread's lane.
    lanes: Mutex<Vec<Arc<Lane>>>,
    /// Every tap, by tap number.
    taps: Mutex<Vec<TapEntry>>,
    /// Chunks made before the run, for the lanes.
    spare: Arc<Spare>,
}

impl Shared {
    /// An empty recording's shared part.
    pub(crate) fn new() -> Self {
        Shared {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            entries: Mutex::new(Vec::new()),
            lanes: Mutex::new(Vec::new()),
            taps: Mutex::new(Vec::new()),
            spare: Arc::default(),
        }
    }

    /// Maps memory for `samples` more tapped samples now.
    pub(crate) fn reserve(&self, samples: usize) {
        self.spare.reserve(samples);
    }

    /// The recording's id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Adds a series made by `make` with its index.
    pub(crate) fn add_series(
        &self,
        make: impl FnOnce(usize) -> SeriesEntry,
    ) -> std::sync::Arc<SeriesEntry> {
        let mut entries = lock(&self.entries);
        let entry = std::sync::Arc::new(make(entries.len()));
        entries.push(entry.clone());
        entry
    }

    /// Adds a tap of series `series`; returns its tap number.
    pub(crate) fn add_tap(&self, series: usize) -> u32 {
        let mut taps = lock(&self.taps);
        taps.push(TapEntry {
            series,
            labels: Vec::new(),
        });
        // More than 2³² taps in one recording would not fit in memory.
        u32::try_from(taps.len() - 1).unwrap_or(u32::MAX)
    }

    /// Publishes the labels tap `tap` has seen (before it writes a sample
    /// that uses the last of them).
    pub(crate) fn publish_labels(&self, tap: u32, labels: &[&'static str]) {
        if let Some(entry) = lock(&self.taps).get_mut(tap as usize) {
            entry.labels = labels.to_vec();
        }
    }

    /// A lane for the calling thread, listed for the readers.
    pub(crate) fn new_lane(&self) -> LaneWriter {
        let (lane, writer) = Lane::new(self.spare.clone());
        lock(&self.lanes).push(lane);
        writer
    }

    /// The names of the series, in the order they were made.
    pub(crate) fn names(&self) -> Vec<String> {
        lock(&self.entries).iter().map(|e| e.name.clone()).collect()
    }

    /// Every series, in the order they were made, with its samples.
    pub(crate) fn all_series(&self) -> Vec<(std::sync::Arc<SeriesEntry>, Vec<Sample>)> {
        let entries = lock(&self.entries).clone();
        let mut tapped = self.tapped_samples(|_| true);
        entries
            .into_iter()
            .map(|entry| {
                let from_taps = take_series(&mut tapped, entry.index);
                let samples = entry.with_sink_samples(from_taps);
                (entry, samples)
            })
            .collect()
    }

    /// The first series named `name`, if any.
    pub(crate) fn entry_named(&self, name: &str) -> Option<std::sync::Arc<SeriesEntry>> {
        lock(&self.entries).iter().find(|e| e.name == name).cloned()
    }

    /// The number of samples of `entry`: its sink's, and its taps' records
    /// (counted, not decoded nor ordered).
    pub(crate) fn len_of(&self, entry: &SeriesEntry) -> usize {
        let series = self.tap_series();
        let lanes = lock(&self.lanes).clone();
        let tapped: usize = lanes
            .iter()
            .map(|lane| {
                let of_entry = |tag| series.get(tap_of(tag)) == Some(&entry.index);
                lane.records_where(of_entry).len()
            })
            .sum();
        entry.sink_len() + tapped
    }

    /// The samples of `entry`.
    pub(crate) fn samples_of(&self, entry: &SeriesEntry) -> Vec<Sample> {
        let mut tapped = self.tapped_samples(|series| series == entry.index);
        let from_taps = take_series(&mut tapped, entry.index);
        entry.with_sink_samples(from_taps)
    }

    /// The taps' samples of the series `wanted` picks, by series index
    /// (none for the others), each in time order, then tap, then the tap's
    /// own order.
    ///
    /// Records are grouped in a list indexed by series, not a map: series
    /// are numbered from 0 as they are made, and a hash per record (SipHash
    /// on the series) was a third of reading a large recording.
    fn tapped_samples(&self, wanted: impl Fn(usize) -> bool) -> Vec<Vec<Sample>> {
        // Which series each tap feeds, to copy only the records wanted;
        // then the records; then the taps' labels: every label a record
        // uses was published before it was written. (A tap made after the
        // first look is not read: the read is of the recording as it was.)
        let series = self.tap_series();
        let keep = |tag| series.get(tap_of(tag)).is_some_and(|&s| wanted(s));
        // Each record goes straight to its series' list as the lanes are
        // read (collected per lane first, every record was copied twice).
        let series_count = series.iter().map(|&s| s + 1).max().unwrap_or(0);
        let mut by_series: Vec<Vec<Record>> = std::iter::repeat_with(Vec::new)
            .take(series_count)
            .collect();
        let lanes = lock(&self.lanes).clone();
        for lane in &lanes {
            lane.for_each_where(keep, |record| {
                // `keep` accepted it: its tap is in `series`.
                by_series[series[tap_of(record.tag)]].push(record);
            });
        }
        let taps = lock(&self.taps).clone();
        let decoders: Vec<Encoder> = {
            let entries = lock(&self.entries);
            let kind = |series: usize| entries[series].kind;
            taps.iter()
                .map(|tap| Encoder::with_labels(kind(tap.series), tap.labels.clone()))
                .collect()
        };
        by_series
            .into_iter()
            .map(|mut records| {
                records.sort_unstable_by_key(|r| (r.raw.nanos, r.tag));
                records
                    .into_iter()
                    .map(|r| decoders[tap_of(r.tag)].sample(r.raw))
                    .collect()
            })
            .collect()
    }
}

impl Shared {
    /// The series of each tap, by tap number.
    fn tap_series(&self) -> Vec<usize> {
        lock(&self.taps).iter().map(|tap| tap.series).collect()
    }
}

impl Drop for Shared {
    /// Frees the samples of the recording's taps and its reserve: the
    /// threads' writers, which outlive it, would hold them until their
    /// thread records into another recording. (No tap writes any more: each
    /// holds the recording.)
    fn drop(&mut self) {
        for lane in lock(&self.lanes).iter() {
            lane.clear();
        }
        self.spare.clear();
    }
}

/// The samples of series `index` in `tapped` (by series index), taken out;
/// none if no tap of it was read.
fn take_series(tapped: &mut [Vec<Sample>], index: usize) -> Vec<Sample> {
    tapped
        .get_mut(index)
        .map(std::mem::take)
        .unwrap_or_default()
}

/// The tap number in a record's tag.
fn tap_of(tag: u64) -> usize {
    (tag >> 32) as usize
}

/// The tag of the `count`-th sample of tap `tap` (counts wrap after 2³²
/// samples; only same-time samples of one tap are ordered by it).
#[inline]
pub(crate) fn tag(tap: u32, count: u32) -> u64 {
    (u64::from(tap) << 32) | u64::from(count)
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;
    use crate::store::Raw;

    #[test]
    fn a_dropped_recording_frees_what_its_lanes_and_reserve_hold() {
        let shared = Shared::new();
        shared.reserve(1);
        let mut writer = shared.new_lane();
        for n in 0..1000 {
            let raw = Raw { nanos: n, bits: n };
            writer.push(Record { raw, tag: n });
        }
        let lane = writer.lane().clone();
        assert_eq!(lane.records_where(|_| true).len(), 1000);
        let spare = shared.spare.clone();
        drop(shared);
        // The writer (a thread's, which outlives the recording) still holds
        // the lane, now empty, and the reserve is gone.
        assert!(lane.records_where(|_| true).is_empty());
        assert!(spare.take().is_none());
    }

    #[test]
    fn each_series_reads_its_own_taps_samples_in_time_order() {
        use crate::recorder::SeriesEntry;
        use crate::value::{Kind, Value};
        let shared = Shared::new();
        let series: Vec<_> = ["a", "b", "c"]
            .into_iter()
            .map(|name| shared.add_series(|i| SeriesEntry::new(name.into(), Kind::Int, i)))
            .collect();
        // Taps on the first and last series only, in the reverse order.
        let last = shared.add_tap(2);
        let first = shared.add_tap(0);
        let mut writer = shared.new_lane();
        let mut write = |tap: u32, count: u32, nanos: u64| {
            let raw = Raw { nanos, bits: nanos };
            writer.push(Record {
                raw,
                tag: tag(tap, count),
            });
        };
        write(last, 0, 30);
        write(first, 0, 20);
        write(last, 1, 10);
        write(first, 1, 40);
        let values = |samples: Vec<crate::Sample>| -> Vec<(u64, Value)> {
            samples
                .iter()
                .map(|s| (s.time.as_nanos(), s.value))
                .collect()
        };
        let all: Vec<_> = shared
            .all_series()
            .into_iter()
            .map(|(_, s)| values(s))
            .collect();
        assert_eq!(
            all,
            [
                vec![(20, Value::Int(20)), (40, Value::Int(40))],
                vec![],
                vec![(10, Value::Int(10)), (30, Value::Int(30))],
            ]
        );
        assert_eq!(values(shared.samples_of(&series[2])), all[2]);
        assert!(shared.samples_of(&series[1]).is_empty());
    }

    #[test]
    fn ids_are_never_reused() {
        let first = Shared::new().id();
        let second = Shared::new().id();
        assert_ne!(first, second);
    }
}
