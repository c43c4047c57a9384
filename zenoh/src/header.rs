//! The header of a partition's snapshot, before the simulation's own.
//!
//! It says which bench, deployment and process the snapshot belongs to,
//! and carries the links' sequences; a CRC-32 covers it (the simulation's
//! snapshot has its own). Layout, little-endian:
//!
//! ```text
//! magic "causimPS" | format u16 | bench digest u64 | process u32
//! | length u32 | link sequences (postcard, `length` bytes) | CRC-32 u32
//! ```

use std::io::Read;

use crate::error::PartitionError;
use crate::plan::Plan;

/// The first bytes of a partition's snapshot.
const MAGIC: &[u8; 8] = b"causimPS";

/// The format of the header.
const FORMAT: u16 = 1;

/// The fixed part's length: magic, format, digest, process, length.
const FIXED: usize = 8 + 2 + 8 + 4 + 4;

/// The header of process `group`'s snapshot, with its links' `sequences`.
pub(crate) fn write_header(plan: &Plan, group: usize, sequences: &[u64]) -> Vec<u8> {
    let sequences = postcard::to_allocvec(sequences).expect("a list of integers always encodes");
    let mut header = Vec::with_capacity(FIXED + sequences.len() + 4);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT.to_le_bytes());
    header.extend_from_slice(&plan.digest().to_le_bytes());
    header.extend_from_slice(&(group as u32).to_le_bytes());
    header.extend_from_slice(&(sequences.len() as u32).to_le_bytes());
    header.extend_from_slice(&sequences);
    let crc = crc32fast::hash(&header);
    header.extend_from_slice(&crc.to_le_bytes());
    header
}

/// Reads and checks the header written by [`write_header`] for process
/// `group` of `plan`, leaving `reader` at the simulation's snapshot;
/// returns the links' sequences.
pub(crate) fn read_header(
    plan: &Plan,
    group: usize,
    reader: &mut impl Read,
) -> Result<Vec<u64>, PartitionError> {
    let mut fixed = [0u8; FIXED];
    reader.read_exact(&mut fixed).map_err(truncated)?;
    if &fixed[0..8] != MAGIC {
        return Err(problem("not a partition's snapshot"));
    }
    let format = u16::from_le_bytes([fixed[8], fixed[9]]);
    if format != FORMAT {
        return Err(problem(&format!(
            "snapshot format {format}, this version reads {FORMAT}"
        )));
    }
    let length = u32::from_le_bytes(fixed[22..26].try_into().expect("4 bytes")) as usize;
    if length > 16 + 10 * plan.links.len() {
        return Err(problem("damaged: the link sequences are too long"));
    }
    let mut rest = vec![0; length + 4];
    reader.read_exact(&mut rest).map_err(truncated)?;
    let (sequences, crc) = rest.split_at(length);
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&fixed);
    hasher.update(sequences);
    if hasher.finalize().to_le_bytes() != crc {
        return Err(problem("damaged: the header's checksum does not match"));
    }
    let digest = u64::from_le_bytes(fixed[10..18].try_into().expect("8 bytes"));
    if digest != plan.digest() {
        return Err(problem(
            "saved from another bench or deployment (partitions, links or lookaheads differ)",
        ));
    }
    let saved = u32::from_le_bytes(fixed[18..22].try_into().expect("4 bytes"));
    if saved as usize != group {
        return Err(problem(&format!(
            "saved by process {saved}, restored as process {group}"
        )));
    }
    let sequences: Vec<u64> = postcard::from_bytes(sequences)
        .map_err(|error| problem(&format!("link sequences unreadable: {error}")))?;
    if sequences.len() != plan.links.len() {
        return Err(problem("the link sequences do not match the links"));
    }
    Ok(sequences)
}

/// A header cut short.
fn truncated(error: std::io::Error) -> PartitionError {
    problem(&format!("truncated header: {error}"))
}

/// A header that is wrong.
fn problem(what: &str) -> PartitionError {
    PartitionError::Snapshot(what.to_owned())
}
