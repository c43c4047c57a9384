//! The models' and the pending events' records, written as postcard
//! writes them, without serde.
//!
//! A snapshot of 10⁶ models and 10⁶ events holds two million of these
//! records. Through serde, postcard wrote each field on its own: a varint
//! into a small buffer, then that buffer copied onto the snapshot by a call
//! to `memcpy`, a capacity check for each: most of the cost of writing a
//! large save's records (docs/benchmarks.md, "Measurements behind code
//! decisions").
//! The records' fields are all of four kinds — an unsigned integer, a byte
//! string, an optional integer, a string — whose postcard encodings are
//! short to state:
//!
//! - an unsigned integer (`u32`, `u64`, a length) is a varint: seven bits
//!   per byte, least significant first, the high bit set on every byte but
//!   the last;
//! - a string or a byte string is its length, then its bytes;
//! - an `Option` is a byte, 0 for `None`, 1 for `Some` followed by the
//!   value;
//! - a struct is its fields in order, a sequence its length then its items.
//!
//! Here each record reserves room for its longest encoding once, then
//! writes its bytes straight into the snapshot. Postcard still writes
//! everything else (the type table, the models' states, the payloads);
//! `read.rs` reads the records back. The format is postcard's, and the
//! tests pin these bytes to the ones postcard writes for the same
//! records.

use super::{EventRecord, ModelRecord};

/// The longest varint of a `u64`.
const VARINT_MAX: usize = 10;

/// Writes `value` as a postcard varint.
#[inline]
fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Writes `bytes` as a postcard string or byte string: its length, then
/// itself.
#[inline]
fn byte_string(out: &mut Vec<u8>, bytes: &[u8]) {
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Writes `value` as a postcard `Option<u64>`.
#[inline]
fn option(out: &mut Vec<u8>, value: Option<u64>) {
    match value {
        None => out.push(0),
        Some(value) => {
            out.push(1);
            varint(out, value);
        }
    }
}

impl ModelRecord<'_> {
    /// Appends this record to `out`, as postcard would.
    #[inline]
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.reserve(5 * VARINT_MAX + self.path.len() + self.state.0.len());
        byte_string(out, self.path);
        varint(out, u64::from(self.type_index));
        varint(out, self.seq);
        varint(out, u64::from(self.connections));
        byte_string(out, self.state.0);
    }
}

impl EventRecord<'_> {
    /// Appends this record to `out`, as postcard would.
    #[inline]
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.reserve(9 * VARINT_MAX + self.port.len() + self.payload.0.len());
        varint(out, self.time);
        varint(out, u64::from(self.origin));
        varint(out, self.seq);
        varint(out, u64::from(self.model));
        byte_string(out, self.port.as_bytes());
        option(out, self.period);
        varint(out, u64::from(self.key));
        byte_string(out, self.payload.0);
    }
}

/// Appends `records`, as postcard writes a sequence of them: their number,
/// then each, `write` appending one.
pub(crate) fn write_seq<R>(
    out: &mut Vec<u8>,
    records: impl ExactSizeIterator<Item = R>,
    write: impl Fn(&R, &mut Vec<u8>),
) {
    varint(out, records.len() as u64);
    for record in records {
        write(&record, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Bytes;
    use super::*;

    /// Values at the edges of each varint length, and between.
    fn numbers() -> Vec<u64> {
        let mut all = vec![0, 1, u64::MAX];
        for bits in (7..64).step_by(7) {
            let edge = 1u64 << bits;
            all.extend([edge - 1, edge, edge + 1]);
        }
        all.push(0x1234_5678_9abc_def0);
        all
    }

    /// Strings of lengths around the one- and two-byte length prefixes.
    fn strings() -> Vec<String> {
        // (Under Miri, no 16 KiB string: it adds nothing but time.)
        let longest = if cfg!(miri) { 300 } else { 16_384 };
        [0, 1, 127, 128, 300, longest]
            .iter()
            .map(|&n| (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect())
            .collect()
    }

    #[test]
    fn a_varint_is_written_as_postcard_writes_it() {
        for n in numbers() {
            let mut out = Vec::new();
            varint(&mut out, n);
            assert_eq!(out, postcard::to_allocvec(&n).unwrap(), "{n:#x}");
            if let Ok(small) = u32::try_from(n) {
                assert_eq!(out, postcard::to_allocvec(&small).unwrap(), "{n:#x}");
            }
        }
    }

    #[test]
    fn event_records_are_written_as_postcard_writes_them() {
        let (numbers, strings) = (numbers(), strings());
        for (i, &n) in numbers.iter().enumerate() {
            for (j, text) in strings.iter().enumerate() {
                let small = (n >> (i % 33)) as u32;
                let record = EventRecord {
                    time: n,
                    origin: small,
                    seq: n.rotate_left(j as u32 * 9),
                    model: small.rotate_left(5),
                    port: text,
                    period: (i % 3 != 0).then_some(n / 3),
                    key: small ^ 0x5a5a,
                    payload: Bytes(&text.as_bytes()[..text.len() / 2]),
                };
                let mut out = vec![0xee];
                record.write(&mut out);
                let mut expected = vec![0xee];
                expected.extend(postcard::to_allocvec(&record).unwrap());
                assert_eq!(out, expected, "{record:?}");
            }
        }
    }

    #[test]
    fn model_records_and_their_sequence_are_written_as_postcard_writes_them() {
        let (numbers, strings) = (numbers(), strings());
        let records: Vec<ModelRecord<'_>> = numbers
            .iter()
            .zip(strings.iter().cycle())
            .map(|(&n, text)| ModelRecord {
                path: text.as_bytes(),
                type_index: (n >> 40) as u32,
                seq: n,
                connections: n as u32,
                state: Bytes(&text.as_bytes()[text.len() / 3..]),
            })
            .collect();
        let mut out = Vec::new();
        write_seq(&mut out, records.iter(), |record, out| record.write(out));
        assert_eq!(out, postcard::to_allocvec(&records).unwrap());
    }
}
