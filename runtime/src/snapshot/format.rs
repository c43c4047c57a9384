//! The bytes of a snapshot.
//!
//! ```text
//! magic     16 bytes   "causim snapshot\n"
//! format     4 bytes   little-endian u32, FORMAT
//! length     8 bytes   little-endian u64, the body's length
//! body       length    postcard's encoding of a `Body`
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
//! is decoded. Postcard writes and reads the body's head, the models'
//! states and the payloads; the models' and the events' records, millions
//! in a large snapshot, are written and read by hand in postcard's
//! encoding (`format/records.rs`, `format/read.rs`).

use serde::{Deserialize, Serialize};

use super::error::RestoreError;

mod read;
mod records;

pub(crate) use read::{EventRecords, EventsMark};

/// What every snapshot starts with.
const MAGIC: &[u8; 16] = b"causim snapshot\n";

/// The format this causim writes and the newest it reads.
pub(crate) const FORMAT: u32 = 1;

/// The bytes before the body.
const HEADER: usize = 16 + 4 + 8;

/// A saved bench, as a restore reads it. Its strings and byte strings
/// borrow from the snapshot's bytes (no allocation per model or event for
/// them); its pending events are read where they lie.
#[derive(Debug)]
pub(crate) struct Body<'a> {
    /// The simulation time, in nanoseconds.
    pub(crate) time: u64,
    /// The bench origin's next sequence number.
    pub(crate) bench_seq: u64,
    /// The model types, each once.
    pub(crate) types: Vec<TypeRecord<'a>>,
    /// The models, in the order they were added.
    pub(crate) models: Vec<ModelRecord<'a>>,
    /// The pending events that were not cancelled, in queue order.
    pub(crate) events: EventRecords<'a>,
}

/// What a body starts with, read by postcard.
#[derive(Deserialize)]
struct Head<'a> {
    /// As in [`Body`].
    time: u64,
    /// As in [`Body`].
    bench_seq: u64,
    /// As in [`Body`].
    #[serde(borrow)]
    types: Vec<TypeRecord<'a>>,
}

/// A saved bench as it is written: a [`Body`]'s fields, with its models and
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
#[derive(Debug)]
#[cfg_attr(test, derive(Serialize))]
pub(crate) struct ModelRecord<'a> {
    /// Its path, UTF-8 as written; read as bytes, compared byte for byte
    /// with the bench's (a path equal to one is as valid; one equal to
    /// none is an error).
    pub(crate) path: &'a [u8],
    /// Its type (index in `Body::types`).
    pub(crate) type_index: u32,
    /// Its next event sequence number.
    pub(crate) seq: u64,
    /// A checksum of its outgoing connections (see `fingerprint.rs`).
    pub(crate) connections: u32,
    /// Its state, as its type's `save` hook wrote it.
    pub(crate) state: Bytes<'a>,
}

/// A pending event.
#[derive(Debug)]
#[cfg_attr(test, derive(Serialize))]
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
    pub(crate) payload: Bytes<'a>,
}

/// A byte string (a model's state, an event's payload).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bytes<'a>(pub(crate) &'a [u8]);

/// As postcard writes a byte string (serde would write a `[u8]` byte by
/// byte): to compare the records with postcard's bytes.
#[cfg(test)]
impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
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

/// The body of snapshot `bytes`, its format, length and checksum checked
/// before it is decoded, and all but its pending events read (those are
/// read, and checked, as the restore goes through them).
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
    decode_body(body).map_err(RestoreError::Malformed)
}

/// The body `bytes`, read whole: its head by postcard, its records by
/// `read.rs`.
fn decode_body(bytes: &[u8]) -> Result<Body<'_>, String> {
    let (head, rest) = postcard::take_from_bytes::<Head<'_>>(bytes).map_err(|e| e.to_string())?;
    let mut reader = read::Reader::new(rest);
    let models = read::read_models(&mut reader)?;
    // The events are the rest: whoever reads them reads to the end.
    let events = EventRecords::read(&mut reader)?;
    let Head {
        time,
        bench_seq,
        types,
    } = head;
    Ok(Body {
        time,
        bench_seq,
        types,
        models,
        events,
    })
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

    fn model(path: &'static [u8], state: &'static [u8]) -> ModelRecord<'static> {
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
        let models = [model(b"a", b"\x01\x02"), model(b"b/c", b"")];
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
            (&b"b/c"[..], &b"\x01\x02"[..])
        );
        let read: Vec<EventRecord<'_>> = body.events.iter().map(Result::unwrap).collect();
        assert_eq!((read[0].port, read[0].payload.0), ("set", &b"\x2a"[..]));
        // The bytes postcard writes for the body's fields.
        let whole = (9u64, 4u64, &types, &models[..], &events[..]);
        assert_eq!(
            postcard::to_allocvec(&whole).unwrap(),
            bytes[HEADER..bytes.len() - 4],
            "the same bytes as postcard's"
        );
    }
}
