//! The queue's storage: a radix heap over event times, sixteen-way.
//!
//! Simulated time never goes backwards, and no event is scheduled before
//! the current time (zero-delay events, and events put back after a limit
//! of zero-delay rounds, are at it): the queue is *monotone*, and a monotone queue need not
//! keep a comparison heap. This one keeps a *base* — the time of the events
//! taken last, never after the clock — and files every event in a bucket by
//! the highest hexadecimal digit in which its time differs from the base,
//! and by its own value of that digit. Every event of a bucket is earlier
//! than every event of a later bucket, so the earliest event is in the
//! first non-empty bucket (a bit mask finds it), whose earliest time is
//! kept. Taking the events due next *splits* that bucket: the base moves
//! to its earliest time and each of its events is filed again, one digit
//! lower at least, so an event moves at most seventeen times in its life,
//! and about log₁₆ of the queue's size in practice. The events due at the
//! base land in bucket 0, and are sorted there by their full key, the same
//! `(time, origin, seq)` order as before. A first bucket holding a single
//! event hands it over without a split (the common case of a sparse
//! queue).
//!
//! Why not a binary heap: with 10⁶ events its pop walked ~20 levels of a
//! 48 MB array, each a cache miss, ~1.2–1.7 µs per event on the development
//! machine. Here a push appends to a vector and a split streams through
//! one; what is left per event is the few moves and the miss on its action
//! (see `docs/benchmarks.md`, "Event list").
//!
//! No scheduled event is before the clock, and the base is not after the
//! clock, except briefly: when the earliest events were all cancelled and
//! nothing else is due by a step's limit, the base has passed them while
//! the clock stays (until a step or `step_until` moves it on). An event
//! earlier than the base — one a `Scheduler` handle on another thread slips
//! into that window, or a test's hand-made queue — makes the queue refile
//! everything from its time: slow, rare, and the order holds for any
//! input.

use std::mem;

use super::Entry;
use crate::prefetch::prefetch;

/// Bits per digit.
const DIGIT_BITS: u32 = 4;

/// Values of a digit.
const DIGIT_VALUES: usize = 1 << DIGIT_BITS;

/// Digits in a time.
const DIGITS: usize = 64 / DIGIT_BITS as usize;

/// Buckets: one for the base's own time, then one per digit position and
/// digit value.
const BUCKETS: usize = 1 + DIGITS * DIGIT_VALUES;

/// Words of the mask of non-empty buckets.
const MASK_WORDS: usize = BUCKETS.div_ceil(64);

/// Scheduled events filed by time relative to a base.
pub(crate) struct RadixQueue {
    /// No queued event is earlier: the time of the last split.
    base: u64,
    /// Bucket 0 holds events at `base`; bucket `1 + 16 d + v` those whose
    /// highest digit differing from `base` is digit `d`, of value `v`.
    buckets: Box<[Vec<Entry>; BUCKETS]>,
    /// The earliest time in each bucket (`u64::MAX` when empty).
    earliest: Box<[u64; BUCKETS]>,
    /// The index of an event at that time in each bucket.
    earliest_at: Box<[u32; BUCKETS]>,
    /// Bit `b` is set if bucket `b` is not empty.
    occupied: [u64; MASK_WORDS],
    /// The number of queued events.
    len: usize,
}

impl Default for RadixQueue {
    fn default() -> Self {
        RadixQueue {
            base: 0,
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            earliest: Box::new([u64::MAX; BUCKETS]),
            earliest_at: Box::new([0; BUCKETS]),
            occupied: [0; MASK_WORDS],
            len: 0,
        }
    }
}

impl RadixQueue {
    /// The number of queued events.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bucket of an event at `time` (not before the base).
    #[inline]
    fn bucket_of(&self, time: u64) -> usize {
        let differ = time ^ self.base;
        if differ == 0 {
            return 0;
        }
        let digit = (63 - differ.leading_zeros()) / DIGIT_BITS;
        let value = (time >> (digit * DIGIT_BITS)) as usize & (DIGIT_VALUES - 1);
        1 + digit as usize * DIGIT_VALUES + value
    }

    /// The first non-empty bucket.
    #[inline]
    fn first_occupied(&self) -> Option<usize> {
        let (word, bits) = self
            .occupied
            .iter()
            .enumerate()
            .find(|(_, bits)| **bits != 0)?;
        Some(word * 64 + bits.trailing_zeros() as usize)
    }

    /// Adds an event.
    #[inline]
    pub(crate) fn push(&mut self, entry: Entry) {
        let time = entry.order.time.as_nanos();
        if time < self.base {
            self.lower_base(time);
        }
        let bucket = self.bucket_of(time);
        self.file(bucket, time, entry);
        self.len += 1;
    }

    /// Puts `entry`, at `time`, in `bucket`.
    #[inline]
    fn file(&mut self, bucket: usize, time: u64, entry: Entry) {
        let entries = &mut self.buckets[bucket];
        entries.push(entry);
        if time < self.earliest[bucket] {
            self.earliest[bucket] = time;
            // A bucket holds fewer than 2³² events in practice; a wrapped
            // index would only make the prefetch below miss.
            self.earliest_at[bucket] = (entries.len() - 1) as u32;
        }
        self.occupied[bucket / 64] |= 1 << (bucket % 64);
    }

    /// Finds the earliest event of `bucket` again, after some were
    /// dropped; marks the bucket empty if none is left.
    fn recompute_earliest(&mut self, bucket: usize) {
        let earliest = self.buckets[bucket]
            .iter()
            .enumerate()
            .min_by_key(|(_, entry)| entry.order.time);
        match earliest {
            Some((index, entry)) => {
                self.earliest[bucket] = entry.order.time.as_nanos();
                self.earliest_at[bucket] = index as u32;
            }
            None => self.mark_empty(bucket),
        }
    }

    /// Starts loading the action of the next event to come (the earliest
    /// one queued), so that the miss on it overlaps with the work of the
    /// current step: with many events queued, that action was last touched
    /// long ago.
    #[inline]
    fn prefetch_next(&self) {
        if let Some(bucket) = self.first_occupied() {
            let at = self.earliest_at[bucket] as usize;
            if let Some(entry) = self.buckets[bucket].get(at) {
                prefetch(&*entry.action);
            }
        }
    }

    /// Empties `bucket`'s bookkeeping (not its vector).
    #[inline]
    fn mark_empty(&mut self, bucket: usize) {
        self.earliest[bucket] = u64::MAX;
        self.occupied[bucket / 64] &= !(1 << (bucket % 64));
    }

    /// Makes `time` the base and files every event again: for an event
    /// earlier than the base (rare; see the module notes).
    #[cold]
    #[inline(never)]
    fn lower_base(&mut self, time: u64) {
        let all = mem::take(self);
        self.base = time;
        for bucket in all.buckets.into_iter() {
            for entry in bucket {
                self.push(entry);
            }
        }
    }

    /// The time of the earliest event, cancelled or not.
    #[inline]
    pub(crate) fn peek_time(&self) -> Option<u64> {
        self.first_occupied().map(|bucket| self.earliest[bucket])
    }

    /// The time of the earliest event that is not cancelled, dropping the
    /// cancelled events of the buckets it looks through.
    pub(crate) fn next_live_time(&mut self) -> Option<u64> {
        loop {
            let bucket = self.first_occupied()?;
            let entries = &mut self.buckets[bucket];
            let before = entries.len();
            entries.retain(|entry| !entry.is_cancelled());
            self.len -= before - entries.len();
            self.recompute_earliest(bucket);
            if !self.buckets[bucket].is_empty() {
                return Some(self.earliest[bucket]);
            }
        }
    }

    /// If the earliest event is due no later than `limit`, moves it and
    /// every other event due at the same time into `due`, in order, and
    /// returns their time. Cancelled events are dropped on the way; a time
    /// whose events were all cancelled is passed.
    pub(crate) fn pop_due(&mut self, limit: u64, due: &mut Vec<Entry>) -> Option<u64> {
        loop {
            let bucket = self.first_occupied()?;
            let time = self.earliest[bucket];
            if time > limit {
                return None;
            }
            if self.buckets[bucket].len() == 1 {
                if self.take_lone(bucket, time, due) {
                    self.prefetch_next();
                    return Some(time);
                }
                continue;
            }
            if bucket != 0 {
                self.split(bucket, time);
            }
            if self.take_base_events(due) {
                self.prefetch_next();
                return Some(time);
            }
        }
    }

    /// Makes `time`, the earliest of `bucket`, the base, and files the
    /// bucket's events again: those at `time` in bucket 0, the others
    /// lower than `bucket`.
    fn split(&mut self, bucket: usize, time: u64) {
        let mut entries = mem::take(&mut self.buckets[bucket]);
        self.mark_empty(bucket);
        self.base = time;
        // Popped, not drained: a `Drain` costs ~40 instructions to set up
        // and drop, a share of a one-event split. The order in a bucket
        // does not matter (bucket 0 is sorted).
        while let Some(entry) = entries.pop() {
            let time = entry.order.time.as_nanos();
            let lower = self.bucket_of(time);
            debug_assert!(lower < bucket);
            self.file(lower, time, entry);
        }
        // Kept for the next events filed there: freeing and growing it
        // again cost more (page clearing, the allocator's consolidation).
        self.buckets[bucket] = entries;
    }

    /// Takes the only event of `bucket`, at `time`, into `due` unless it
    /// was cancelled (true if it was taken), and makes `time` the base.
    /// Every later bucket stays as filed: its events differ from `time` in
    /// the same digit as from the old base, since `time` agrees with the
    /// old base above its own bucket's digit.
    #[inline]
    fn take_lone(&mut self, bucket: usize, time: u64, due: &mut Vec<Entry>) -> bool {
        let entry = self.buckets[bucket].pop();
        self.mark_empty(bucket);
        self.len -= 1;
        self.base = time;
        match entry {
            Some(entry) if !entry.is_cancelled() => {
                due.push(entry);
                true
            }
            _ => false,
        }
    }

    /// Moves the events of bucket 0 (all at the base) into `due` in key
    /// order, dropping cancelled ones; true if any was moved.
    fn take_base_events(&mut self, due: &mut Vec<Entry>) -> bool {
        let mut entries = mem::take(&mut self.buckets[0]);
        self.mark_empty(0);
        self.len -= entries.len();
        if entries.len() > 1 {
            // Latest first, to be popped earliest first. A set filed in key
            // order (the periodic events put back) arrives here in order or
            // reversed (each split reverses), which the sort finishes in
            // one pass.
            entries.sort_unstable_by_key(|entry| std::cmp::Reverse(entry.order));
        }
        let before = due.len();
        while let Some(entry) = entries.pop() {
            if !entry.is_cancelled() {
                due.push(entry);
            }
        }
        self.buckets[0] = entries;
        due.len() > before
    }

    /// Sorts the events of each bucket with `sort`. Every event of a
    /// bucket is earlier than every event of a later one, so if `sort`
    /// orders a bucket by key, [`entries`](RadixQueue::entries) then reads
    /// the whole queue in key order: a sort of each bucket where it lies,
    /// rather than of all the events taken out (with times spread evenly,
    /// the largest buckets hold about a sixteenth of the queue each).
    #[cfg(feature = "save")]
    pub(crate) fn sort_each_bucket(&mut self, mut sort: impl FnMut(&mut [Entry])) {
        for bucket in 0..BUCKETS {
            if self.buckets[bucket].len() > 1 {
                sort(&mut self.buckets[bucket]);
                self.recompute_earliest(bucket);
            }
        }
    }

    /// Every queued event, bucket by bucket.
    #[cfg(feature = "save")]
    pub(crate) fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.buckets.iter().flatten()
    }

    /// Adds every event of `other`.
    #[cfg(feature = "save")]
    pub(crate) fn append(&mut self, other: RadixQueue) {
        for bucket in other.buckets.into_iter() {
            for entry in bucket {
                self.push(entry);
            }
        }
    }

    /// Keeps only the events for which `keep` is true.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Entry) -> bool) {
        for bucket in 0..BUCKETS {
            let entries = &mut self.buckets[bucket];
            if entries.is_empty() {
                continue;
            }
            let before = entries.len();
            entries.retain(&mut keep);
            self.len -= before - entries.len();
            self.recompute_earliest(bucket);
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
