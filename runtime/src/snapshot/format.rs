//! The bytes of a snapshot.
//!
//! ```text
//! magic     16 bytes   "causim snapshot\n"
//! format     4 bytes   little-endian u32, FORMAT
//! length     8 bytes   little-endian u64, the body's length
//! body       length    postcard of `Body`
//! checksum   4 bytes   little-endian CRC-32 of the body
//! ```
//!
//! The body is postcard (serde's compact binary format: varints, no field
//! names, no padding): small and fast to write and read, and strict — a
//! value of the wrong shape is an error, not a guess. Postcard is not
//! self-describing, so what must be matched by name is written as names:
//! model paths and types, the names of each type's saved fields, the
//! input each pending event is for. The magic and the format number
//! refuse what is not a snapshot, or one from a newer causim; the length
//! and the checksum refuse a truncated or corrupted file before anything
//! is decoded.

use serde::{Deserialize, Serialize};

use super::error::RestoreError;

mod records;

/// What every snapshot starts with.
const MAGIC: &[u8; 16] = b"causim snapshot\n";

/// The format this causim writes and the newest it reads.
pub(crate) const FORMAT: u32 = 1;

/// The bytes before the body.
const HEADER: usize = 16 + 4 + 8;

/// A saved bench. Its strings and byte strings borrow: from the bench
/// and the models' saved states when saving, from the snapshot's bytes
/// when restoring (no allocation per model or event for them).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Body<'a> {
    /// The simulation time, in nanoseconds.
    pub(crate) time: u64,
    /// The bench origin's next sequence number.
    pub(crate) bench_seq: u64,
    /// The model types, each once.
    #[serde(borrow)]
    pub(crate) types: Vec<TypeRecord<'a>>,
    /// The models, in the order they were added.
    #[serde(borrow)]
    pub(crate) models: Vec<ModelRecord<'a>>,
    /// The pending events that were not cancelled, in queue order.
    #[serde(borrow)]
    pub(crate) events: Vec<EventRecord<'a>>,
}

/// A saved bench as it is written: [`Body`]'s fields, with its models and
/// events made one by one as they are written (a sequence is its length
/// and its items, whatever holds them), not collected into vectors first —
/// at 10⁶ models and events those vectors were over 100 MB written once and
/// read once.
pub(crate) struct SavedBody<'a, M, E> {
    /// As in [`Body`].
    pub(crate) time: u64,
    /// As in [`Body`].
    pub(crate) bench_seq: u64,
    /// As in [`Body`].
    pub(crate) types: &'a [TypeRecord<'a>],
    /// [`ModelRecord`]s.
    pub(crate) models: M,
    /// [`EventRecord`]s.
    pub(crate) events: E,
}

/// A model type.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct TypeRecord<'a> {
    /// Its name, e.g. `Battery`.
    pub(crate) name: &'a str,
    /// The version of its state's format.
    pub(crate) version: u32,
    /// Its saved fields, in order.
    #[serde(borrow)]
    pub(crate) fields: Vec<&'a str>,
}

/// A model.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ModelRecord<'a> {
    /// Its path.
    pub(crate) path: &'a str,
    /// Its type (index in `Body::types`).
    pub(crate) type_index: u32,
    /// Its next event sequence number.
    pub(crate) seq: u64,
    /// A checksum of its outgoing connections (see `fingerprint.rs`).
    pub(crate) connections: u32,
    /// Its state, as its type's `save` hook wrote it.
    #[serde(borrow)]
    pub(crate) state: Bytes<'a>,
}

/// A pending event.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct EventRecord<'a> {
    /// When it is due, in nanoseconds.
    pub(crate) time: u64,
    /// Who scheduled it: 0 for the bench, `n` for the `n`-th model.
    pub(crate) origin: u32,
    /// Its origin's sequence number.
    pub(crate) seq: u64,
    /// The recipient (index in `Body::models`).
    pub(crate) model: u32,
    /// The input.
    pub(crate) port: &'a str,
    /// Its period in nanoseconds, if periodic.
    pub(crate) period: Option<u64>,
    /// Its key's number (see `keys.rs`), 0 if it has none.
    pub(crate) key: u32,
    /// Its payload.
    #[serde(borrow)]
    pub(crate) payload: Bytes<'a>,
}

/// A byte string, written whole (serde writes a `[u8]` byte by byte) and
/// read without a copy.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bytes<'a>(pub(crate) &'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Bytes<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Accepts borrowed bytes only: the snapshot is in memory.
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Bytes<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_borrowed_bytes<E: serde::de::Error>(
                self,
                bytes: &'de [u8],
            ) -> Result<Self::Value, E> {
                Ok(Bytes(bytes))
            }
        }
        deserializer.deserialize_bytes(Visitor)
    }
}

/// The snapshot of `body`, whose models and events are written in
/// `estimate` bytes or about: postcard's encoding of the [`Body`] it
/// lists, its records written by `records.rs`.
pub(crate) fn encode<'a, M, E>(
    body: SavedBody<'_, M, E>,
    estimate: usize,
) -> Result<Vec<u8>, postcard::Error>
where
    M: ExactSizeIterator<Item = ModelRecord<'a>>,
    E: ExactSizeIterator<Item = EventRecord<'a>>,
{
    let mut bytes = Vec::with_capacity(HEADER + 64 + estimate);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    super::append::append(&(body.time, body.bench_seq, body.types), &mut bytes)?;
    records::write_seq(&mut bytes, body.models, ModelRecord::write);
    records::write_seq(&mut bytes, body.events, EventRecord::write);
    let length = (bytes.len() - HEADER) as u64;
    bytes[HEADER - 8..HEADER].copy_from_slice(&length.to_le_bytes());
    let checksum = crc32fast::hash(&bytes[HEADER..]);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    Ok(bytes)
}

/// The body of snapshot `bytes`, checked whole before it is decoded.
pub(crate) fn decode(bytes: &[u8]) -> Result<Body<'_>, RestoreError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(RestoreError::NotASnapshot);
    }
    let format = read_u32(bytes, 16).ok_or(RestoreError::Truncated)?;
    if format > FORMAT {
        return Err(RestoreError::NewerFormat {
            found: format,
            supported: FORMAT,
        });
    }
    let length = read_u64(bytes, 20).ok_or(RestoreError::Truncated)?;
    let end = usize::try_from(length)
        .ok()
        .and_then(|length| length.checked_add(HEADER))
        .ok_or(RestoreError::Truncated)?;
    let body = bytes.get(HEADER..end).ok_or(RestoreError::Truncated)?;
    let checksum = read_u32(bytes, end).ok_or(RestoreError::Truncated)?;
    if bytes.len() > end + 4 {
        return Err(RestoreError::Malformed(format!(
            "{} bytes after the snapshot's end",
            bytes.len() - end - 4
        )));
    }
    if crc32fast::hash(body) != checksum {
        return Err(RestoreError::Corrupted);
    }
    match postcard::take_from_bytes(body) {
        Ok((body, [])) => Ok(body),
        Ok((_, rest)) => Err(RestoreError::Malformed(format!(
            "{} bytes left after the body",
            rest.len()
        ))),
        Err(error) => Err(RestoreError::Malformed(error.to_string())),
    }
}

/// The little-endian u32 at `at`, if the bytes reach that far.
fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(word.try_into().ok()?))
}

/// The little-endian u64 at `at`, if the bytes reach that far.
fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let word = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(word.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(path: &'static str, state: &'static [u8]) -> ModelRecord<'static> {
        let (type_index, seq, connections) = (0, 7, 0xC0FFEE);
        let state = Bytes(state);
        ModelRecord {
            path,
            type_index,
            seq,
            connections,
            state,
        }
    }

    fn event(port: &'static str, payload: &'static [u8]) -> EventRecord<'static> {
        let (time, origin, seq, model, period, key) = (5, 1, 2, 1, Some(3), 1);
        let payload = Bytes(payload);
        EventRecord {
            time,
            origin,
            seq,
            model,
            port,
            period,
            key,
            payload,
        }
    }

    #[test]
    fn a_saved_body_is_written_as_its_body_would_be() {
        let types = vec![TypeRecord {
            name: "Cell",
            version: 2,
            fields: vec!["level", "mark"],
        }];
        let models = [model("a", b"\x01\x02"), model("b/c", b"")];
        let events = [event("set", b"\x2a")];
        let saved = SavedBody {
            time: 9,
            bench_seq: 4,
            types: &types,
            models: models.iter().map(|m| ModelRecord { ..*m }),
            events: events.iter().map(|e| EventRecord { ..*e }),
        };
        let bytes = encode(saved, 0).unwrap();
        let body = decode(&bytes).unwrap();
        assert_eq!((body.time, body.bench_seq), (9, 4));
        assert_eq!(body.types[0].fields, ["level", "mark"]);
        assert_eq!(body.models.len(), 2);
        assert_eq!(
            (body.models[1].path, body.models[0].state.0),
            ("b/c", &b"\x01\x02"[..])
        );
        assert_eq!(
            (body.events[0].port, body.events[0].payload.0),
            ("set", &b"\x2a"[..])
        );
        let whole = postcard::to_allocvec(&body).unwrap();
        assert_eq!(
            whole,
            bytes[HEADER..bytes.len() - 4],
            "the same bytes as `Body`'s"
        );
    }
}
