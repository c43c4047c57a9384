//! A hash map keyed by addresses (an event key's): the identities a save
//! looks up once per key a model's state holds.
//!
//! `std`'s SipHash resists keys an attacker chooses, which addresses are
//! not, at several times the cost: building a map of 10⁶ mailboxes with it
//! was a fifth of saving a bench of 10⁶ models (that map is gone: see
//! `topology/resolve.rs`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by addresses, or by types that hash as one `usize`.
pub(crate) type AddressMap<K, V> = HashMap<K, V, BuildHasherDefault<AddressHasher>>;

/// Hashes a mailbox's address: multiplied by an odd constant, so that the
/// aligned low bits do not all land in the same buckets (SipHash resists
/// chosen keys, which addresses are not, at several times the cost).
#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(byte));
        }
    }

    fn write_usize(&mut self, address: usize) {
        self.write_u64(address as u64);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(26);
    }
}
