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

/// What every snapshot starts with.
const MAGIC: &[u8; 16] = b"causim snapshot\n";

/// The format this causim writes and the newest it reads.
pub(crate) const FORMAT: u32 = 1;

/// The bytes before the body.
const HEADER: usize = 16 + 4 + 8;

/// A saved bench.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Body {
    /// The simulation time, in nanoseconds.
    pub(crate) time: u64,
    /// The bench origin's next sequence number.
    pub(crate) bench_seq: u64,
    /// The model types, each once.
    pub(crate) types: Vec<TypeRecord>,
    /// The models, in the order they were added.
    pub(crate) models: Vec<ModelRecord>,
    /// The pending events that were not cancelled, in queue order.
    pub(crate) events: Vec<EventRecord>,
}

/// A model type.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct TypeRecord {
    /// Its name, e.g. `Battery`.
    pub(crate) name: String,
    /// The version of its state's format.
    pub(crate) version: u32,
    /// Its saved fields, in order.
    pub(crate) fields: Vec<String>,
}

/// A model.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ModelRecord {
    /// Its path.
    pub(crate) path: String,
    /// Its type (index in `Body::types`).
    pub(crate) type_index: u32,
    /// Its next event sequence number.
    pub(crate) seq: u64,
    /// A checksum of its outgoing connections (see `fingerprint.rs`).
    pub(crate) connections: u32,
    /// Its state, as its type's `save` hook wrote it.
    pub(crate) state: Vec<u8>,
}

/// A pending event.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct EventRecord {
    /// When it is due, in nanoseconds.
    pub(crate) time: u64,
    /// Who scheduled it: 0 for the bench, `n` for the `n`-th model.
    pub(crate) origin: u32,
    /// Its origin's sequence number.
    pub(crate) seq: u64,
    /// The recipient (index in `Body::models`).
    pub(crate) model: u32,
    /// The input.
    pub(crate) port: String,
    /// Its period in nanoseconds, if periodic.
    pub(crate) period: Option<u64>,
    /// Its key's number (see `keys.rs`), 0 if it has none.
    pub(crate) key: u32,
    /// Its payload.
    pub(crate) payload: Vec<u8>,
}

/// The snapshot of `body`.
pub(crate) fn encode(body: &Body) -> Result<Vec<u8>, postcard::Error> {
    let mut bytes = Vec::with_capacity(HEADER + 4 + body.models.len() * 32);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    let mut bytes = postcard::to_extend(body, bytes)?;
    let length = (bytes.len() - HEADER) as u64;
    bytes[HEADER - 8..HEADER].copy_from_slice(&length.to_le_bytes());
    let checksum = crc32fast::hash(&bytes[HEADER..]);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    Ok(bytes)
}

/// The body of snapshot `bytes`, checked whole before it is decoded.
pub(crate) fn decode(bytes: &[u8]) -> Result<Body, RestoreError> {
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
