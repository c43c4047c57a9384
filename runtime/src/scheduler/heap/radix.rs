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
//! A bucket holds its events in a vector while they are few (up to
//! [`FROM_POOL`], a small request to the allocator); past that, in blocks
//! of [`BLOCK`]: the block being filled, and a linked stack of full ones.
//! A split hands each block it empties to a pool, from which the buckets
//! it files into take their next blocks: blocks are made as the queue
//! grows, and a few more while it first settles, but a queue that stays
//! under the largest size it held finds its blocks in the pool (a drain of
//! 5·10⁴ events, a unit test, makes none). Vectors grown by doubling were
//! reallocated whenever a split filed more events into a bucket than it
//! had held before. Such a reallocation is a large
//! request to the allocator, and glibc's answer to one is to first coalesce
//! every small block freed since the last — the boxes of the events fired
//! meanwhile: a third of the time of draining 10⁶ events went there.
//! Bucket 0 stays one vector, sorted where it lies, and keeps its
//! capacity from step to step.
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

/// Entries of a full block (1.5 KiB of 48-byte entries; fewer under
/// Miri, so that its short tests fill several).
const BLOCK: usize = if cfg!(miri) { 8 } else { 32 };

/// The size from which a bucket's block being filled grows into a block
/// of the pool rather than by reallocation: 768 bytes of entries, the
/// largest vector of doubled capacity that glibc still serves as a small
/// request.
const FROM_POOL: usize = if cfg!(miri) { 4 } else { 16 };

/// The queue length from which the actions of the next two events are
/// loaded ahead, not only the next one's: 16 384 events hold ~1.3 MB of
/// entries and actions, past a core's L2 cache on the development machine.
const PREFETCH_TWO_FROM: usize = 1 << 14;

/// A block of a bucket, or one of the pool: its entries, and the next
/// block of its list.
struct Block {
    /// The entries; none in the pool.
    entries: Vec<Entry>,
    /// The block under this one.
    next: Option<Box<Block>>,
}

/// A stack of blocks: a bucket's full blocks, or the pool. A linked list,
/// so that moving a block from one to the other allocates nothing.
#[derive(Default)]
struct Blocks {
    /// The block on top.
    head: Option<Box<Block>>,
}

impl Blocks {
    /// True if the stack holds no block.
    #[inline]
    fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// Puts `block` on top.
    #[inline]
    fn push(&mut self, mut block: Box<Block>) {
        block.next = self.head.take();
        self.head = Some(block);
    }

    /// Takes the block on top.
    #[inline]
    fn pop(&mut self) -> Option<Box<Block>> {
        let mut block = self.head.take()?;
        self.head = block.next.take();
        Some(block)
    }

    /// Starts loading what the next [`pop`](Blocks::pop)s take: the
    /// entries of the block on top, and the block under it. Called as
    /// each block is taken, so that a split of a large bucket streams
    /// through its blocks instead of stalling at each one on two
    /// dependent loads (the block, then its entries); the block on top was
    /// itself loaded by the call before.
    #[inline]
    fn prefetch_top(&self) {
        let Some(top) = self.head.as_deref() else {
            return;
        };
        let entries = top.entries.as_ptr_range();
        let start = entries.start.cast::<u8>();
        // From the start of the first cache line, so as to reach the last.
        let mut line = start.wrapping_sub(start.addr() % 64);
        while line < entries.end.cast::<u8>() {
            prefetch(line);
            line = line.wrapping_add(64);
        }
        if let Some(next) = top.next.as_deref() {
            prefetch(next);
        }
    }

    /// The entries of every block, top first.
    fn iter(&self) -> impl Iterator<Item = &Vec<Entry>> {
        std::iter::successors(self.head.as_deref(), |block| block.next.as_deref())
            .map(|block| &block.entries)
    }
}

impl Drop for Blocks {
    /// Drops the blocks one by one: the default drop would recurse once
    /// per block.
    fn drop(&mut self) {
        while self.pop().is_some() {}
    }
}

/// Scheduled events filed by time relative to a base.
pub(crate) struct RadixQueue {
    /// No queued event is earlier: the time of the last split.
    base: u64,
    /// The block being filled of each bucket. Bucket 0 holds events at
    /// `base`; bucket `1 + 16 d + v` those whose highest digit differing
    /// from `base` is digit `d`, of value `v`.
    buckets: Box<[Vec<Entry>; BUCKETS]>,
    /// The blocks filled before the one being filled, of each bucket (none
    /// for most; a `retain` may have left some partly empty).
    full: Box<[Blocks; BUCKETS]>,
    /// Empty blocks, with room for [`BLOCK`] entries at least.
    free_blocks: Blocks,
    /// The earliest time in each bucket (`u64::MAX` when empty).
    earliest: Box<[u64; BUCKETS]>,
    /// The address of the action of an event at that time in each bucket:
    /// where the next event's action is, for the prefetch, wherever its
    /// entry moves within the bucket (only ever used as a hint).
    earliest_action: Box<[usize; BUCKETS]>,
    /// Bit `b` is set if bucket `b` is not empty.
    occupied: [u64; MASK_WORDS],
    /// Bit `b` is set if bucket `b` has blocks in `full`.
    spilled: [u64; MASK_WORDS],
    /// The number of queued events.
    len: usize,
    /// The number of blocks made (for the tests).
    #[cfg(test)]
    blocks_made: usize,
}

impl Default for RadixQueue {
    fn default() -> Self {
        RadixQueue {
            base: 0,
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            full: Box::new(std::array::from_fn(|_| Blocks::default())),
            free_blocks: Blocks::default(),
            earliest: Box::new([u64::MAX; BUCKETS]),
            earliest_action: Box::new([0; BUCKETS]),
            occupied: [0; MASK_WORDS],
            spilled: [0; MASK_WORDS],
            len: 0,
            #[cfg(test)]
            blocks_made: 0,
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

    /// True if `bucket` holds events.
    #[inline]
    fn is_occupied(&self, bucket: usize) -> bool {
        self.occupied[bucket / 64] & (1 << (bucket % 64)) != 0
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
        let filling = &self.buckets[bucket];
        if filling.len() == filling.capacity() {
            self.make_room(bucket);
        }
        if time < self.earliest[bucket] {
            self.earliest[bucket] = time;
            self.earliest_action[bucket] = action_address(&entry);
        }
        self.buckets[bucket].push(entry);
        self.occupied[bucket / 64] |= 1 << (bucket % 64);
    }

    /// Makes room for one more event in the block being filled of
    /// `bucket`, which is full: a block of fewer than [`FROM_POOL`] entries,
    /// and bucket 0's, grow as vectors do; a larger one is replaced by a
    /// block of the pool (or a new one). A block of [`BLOCK`] entries or
    /// more goes to the bucket's full blocks; a smaller one, filled while
    /// the bucket was first growing, is moved into the new block, and
    /// freed with the pool's box of that block.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, bucket: usize) {
        let filling = &mut self.buckets[bucket];
        if filling.len() < FROM_POOL || bucket == 0 {
            // Bucket 0 stays one vector: its events are sorted where they
            // lie, and it keeps its capacity from step to step.
            filling.reserve(1);
            return;
        }
        let mut block = self.free_blocks.pop().unwrap_or_else(|| {
            #[cfg(test)]
            {
                self.blocks_made += 1;
            }
            Box::new(Block {
                entries: Vec::with_capacity(BLOCK),
                next: None,
            })
        });
        let filling = &mut self.buckets[bucket];
        if filling.len() < BLOCK {
            block.entries.append(filling);
            mem::swap(&mut block.entries, filling);
            return;
        }
        mem::swap(&mut block.entries, filling);
        self.spill(bucket, block);
    }

    /// Adds `block` to the full blocks of `bucket`.
    fn spill(&mut self, bucket: usize, block: Box<Block>) {
        self.full[bucket].push(block);
        self.spilled[bucket / 64] |= 1 << (bucket % 64);
    }

    /// True if `bucket` has full blocks.
    #[inline]
    fn is_spilled(&self, bucket: usize) -> bool {
        let spilled = self.spilled[bucket / 64] & (1 << (bucket % 64)) != 0;
        debug_assert_eq!(spilled, !self.full[bucket].is_empty());
        spilled
    }

    /// Takes the full blocks of `bucket`, leaving it none.
    #[inline]
    fn take_full(&mut self, bucket: usize) -> Blocks {
        self.spilled[bucket / 64] &= !(1 << (bucket % 64));
        mem::take(&mut self.full[bucket])
    }

    /// Every event of `bucket`.
    #[cfg(any(feature = "save", test))]
    fn bucket_entries(&self, bucket: usize) -> impl Iterator<Item = &Entry> {
        self.full[bucket]
            .iter()
            .flatten()
            .chain(&self.buckets[bucket])
    }

    /// Finds the earliest event of `bucket` again, after some were
    /// dropped; marks the bucket empty if none is left.
    fn recompute_earliest(&mut self, bucket: usize) {
        let in_full = self.full[bucket].iter().flatten();
        let earliest = in_full
            .chain(&self.buckets[bucket])
            .min_by_key(|entry| entry.order.time);
        match earliest {
            Some(entry) => {
                self.earliest[bucket] = entry.order.time.as_nanos();
                self.earliest_action[bucket] = action_address(entry);
            }
            None => self.mark_empty(bucket),
        }
    }

    /// Starts loading the action of the next event to come (the earliest
    /// one queued), so that the miss on it overlaps with the work of the
    /// current step: with many events queued, that action was last touched
    /// long ago.
    ///
    /// In a large queue, when that event is alone in its bucket, the event
    /// after it is the earliest of the next bucket: its action is loaded
    /// too, two steps ahead, as a step can be shorter than the miss. (A
    /// small queue's actions stay in the caches, and the look for the
    /// next bucket would only cost.)
    #[inline]
    fn prefetch_next(&self) {
        let Some(first) = self.first_occupied() else {
            return;
        };
        self.prefetch_earliest(first);
        if self.len >= PREFETCH_TWO_FROM
            && self.buckets[first].len() == 1
            && !self.is_spilled(first)
        {
            if let Some(second) = self.occupied_after(first) {
                self.prefetch_earliest(second);
            }
        }
    }

    /// Starts loading the action of the earliest event of `bucket`.
    #[inline]
    fn prefetch_earliest(&self, bucket: usize) {
        prefetch(std::ptr::without_provenance::<u8>(
            self.earliest_action[bucket],
        ));
    }

    /// The first non-empty bucket after `bucket`.
    #[inline]
    fn occupied_after(&self, bucket: usize) -> Option<usize> {
        let next = bucket + 1;
        let word = next / 64;
        let first_bits = self.occupied.get(word)? & (!0 << (next % 64));
        if first_bits != 0 {
            return Some(word * 64 + first_bits.trailing_zeros() as usize);
        }
        let (later, bits) = self.occupied[word + 1..]
            .iter()
            .enumerate()
            .find(|(_, bits)| **bits != 0)?;
        Some((word + 1 + later) * 64 + bits.trailing_zeros() as usize)
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
        let mut all = mem::take(self);
        self.base = time;
        self.free_blocks = mem::take(&mut all.free_blocks);
        #[cfg(test)]
        {
            self.blocks_made = all.blocks_made;
        }
        self.file_all(all);
    }

    /// Files every event of `other` here. Each block of `other` goes to
    /// this queue's pool as soon as it is emptied, where the filing finds
    /// it: kept until the end, the filing made new blocks meanwhile (a
    /// lowered base made one for each, 210 in a test's first seed).
    fn file_all(&mut self, mut other: RadixQueue) {
        for bucket in 0..BUCKETS {
            let mut full = other.take_full(bucket);
            while let Some(mut block) = full.pop() {
                block.entries.drain(..).for_each(|entry| self.push(entry));
                self.free_blocks.push(block);
            }
            other.buckets[bucket]
                .drain(..)
                .for_each(|entry| self.push(entry));
        }
        while let Some(block) = other.free_blocks.pop() {
            self.free_blocks.push(block);
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
            self.retain_in(bucket, &mut |entry| !entry.is_cancelled());
            if self.is_occupied(bucket) {
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
            if self.buckets[bucket].len() == 1 && !self.is_spilled(bucket) {
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
        let mut filling = mem::take(&mut self.buckets[bucket]);
        let mut full = self.take_full(bucket);
        self.mark_empty(bucket);
        self.base = time;
        // Latest filed first, so that the bucket's events are filed again
        // in the reverse of their order (which bucket 0's sort finishes in
        // one pass when they were filed in key order).
        self.refile(bucket, &mut filling);
        full.prefetch_top();
        while let Some(mut block) = full.pop() {
            full.prefetch_top();
            self.refile(bucket, &mut block.entries);
            self.free_blocks.push(block);
        }
        // Kept for the next events filed there.
        self.buckets[bucket] = filling;
    }

    /// Files the events of `entries`, taken from `bucket`, again (lower).
    #[inline]
    fn refile(&mut self, bucket: usize, entries: &mut Vec<Entry>) {
        // Popped, not drained: a `Drain` costs ~40 instructions to set up
        // and drop, a share of a one-event split; and popped is latest
        // first.
        while let Some(entry) = entries.pop() {
            let time = entry.order.time.as_nanos();
            let lower = self.bucket_of(time);
            debug_assert!(lower < bucket);
            self.file(lower, time, entry);
        }
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
        debug_assert!(!self.is_spilled(0));
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

    /// The queued events, bucket by bucket: every event of a bucket is
    /// earlier than every event of a later one, so sorting each bucket's
    /// events by key sorts them all (with times spread evenly, the largest
    /// buckets hold about a sixteenth of the queue each).
    #[cfg(any(feature = "save", test))]
    pub(crate) fn buckets(&self) -> impl Iterator<Item = impl Iterator<Item = &Entry>> {
        (0..BUCKETS).map(|bucket| self.bucket_entries(bucket))
    }

    /// Every queued event, bucket by bucket.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.buckets().flatten()
    }

    /// Adds every event of `other`.
    #[cfg(feature = "save")]
    pub(crate) fn append(&mut self, other: RadixQueue) {
        self.file_all(other);
    }

    /// Keeps only the events for which `keep` is true.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Entry) -> bool) {
        for bucket in 0..BUCKETS {
            if !self.buckets[bucket].is_empty() || self.is_spilled(bucket) {
                self.retain_in(bucket, &mut keep);
            }
        }
    }

    /// Keeps only the events of `bucket` for which `keep` is true; hands
    /// the full blocks left empty to the pool.
    fn retain_in(&mut self, bucket: usize, keep: &mut impl FnMut(&Entry) -> bool) {
        let mut full = self.take_full(bucket);
        let mut kept = Blocks::default();
        while let Some(mut block) = full.pop() {
            self.len -= retain_counted(&mut block.entries, &mut *keep);
            if block.entries.is_empty() {
                self.free_blocks.push(block);
            } else {
                kept.push(block);
            }
        }
        // Back in their order (`kept` reversed it), for the next split.
        while let Some(block) = kept.pop() {
            self.spill(bucket, block);
        }
        self.len -= retain_counted(&mut self.buckets[bucket], keep);
        self.recompute_earliest(bucket);
    }
}

/// The address of `entry`'s action, which stays where it is while the
/// entry moves.
#[inline]
fn action_address(entry: &Entry) -> usize {
    let action: *const dyn crate::ports::event::Action = &*entry.action;
    action.addr()
}

/// Keeps only the entries of `entries` for which `keep` is true; returns
/// how many were dropped.
fn retain_counted(entries: &mut Vec<Entry>, keep: &mut impl FnMut(&Entry) -> bool) -> usize {
    let before = entries.len();
    entries.retain(keep);
    before - entries.len()
}

// Not under Miri: the radix heap is safe code throughout (no `unsafe`;
// its only raw pointers are prefetch hints, never read through), so Miri
// would check only what the plain run checks, and these tests were half
// of Miri's time on the unit tests. The heap itself still runs under
// Miri in every other test that schedules events.
#[cfg(all(test, not(causim_loom), not(miri)))]
mod tests;
