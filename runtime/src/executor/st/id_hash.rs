//! A hasher for task ids, the keys of the executor's map of waiting tasks.
//!
//! Every task that waits on a full mailbox or a reply is entered in that
//! map, and leaves it at its next poll: a burst of ten thousand senders
//! into a small mailbox makes twenty thousand entries and removals, where
//! `std`'s SipHash (built to resist chosen keys, which task ids are not)
//! and the scattered buckets it gives (a cache miss per access once the
//! map outgrows the cache) cost more than the rest of the bookkeeping.
//!
//! Ids are small, dense integers, and tasks tend to wait and run again in
//! id order (they were woken in the order they were added). The hash is
//! the id itself in its low bits, which pick the bucket, so neighbouring
//! ids share cache lines; its top 7 bits, which the table keeps as a tag
//! to compare before the key, come from a multiplication by an odd
//! constant (Fibonacci hashing), so that the tags differ within a group.

use std::hash::{BuildHasherDefault, Hasher};

/// The map's hasher builder.
pub(crate) type IdHash = BuildHasherDefault<IdHasher>;

/// Hashes one `usize`: itself, tagged in the top bits.
#[derive(Debug, Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    /// Only ids are hashed; any other key still gets a valid hash.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(byte));
        }
    }

    #[inline]
    fn write_usize(&mut self, id: usize) {
        self.write_u64(id as u64);
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        /// The bits the table takes its tags from.
        const TAG: u64 = 0xFE00_0000_0000_0000;
        // 2^64 divided by the golden ratio, made odd.
        let mixed = value.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = (value & !TAG) | (mixed & TAG);
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
