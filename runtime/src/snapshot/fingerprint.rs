//! A checksum of each model's outgoing connections, so that `restore`
//! can tell that the bench was built as the saved one was.
//!
//! Connections are not saved (the user's code makes them); what is saved
//! is, per model, a CRC-32 of its outgoing connections as the topology
//! lists them (port, kind, mapping, and the recipient: a model by its
//! place in the add order and its port, a source or a sink by its place),
//! in order. Four bytes per model name the model whose wiring changed,
//! where a full list would grow a snapshot of 10⁶ models by tens of
//! megabytes; and places, not paths, keep it cheap to compute (the model
//! list itself is checked path by path).

use crate::topology::{Connection, Endpoint};

/// The checksum of each of `models` models' outgoing connections, in add
/// order, from the bench's wiring (see `Recorder::wiring`).
pub(crate) fn fingerprints(models: usize, wiring: &[Connection]) -> Vec<u32> {
    let mut hashers = vec![crc32fast::Hasher::new(); models];
    for connection in wiring {
        let Endpoint::Port { model, port } = connection.from else {
            continue;
        };
        let hasher = &mut hashers[model];
        hasher.update(port.as_bytes());
        hasher.update(&[0, connection.kind as u8, connection.mapping as u8]);
        match connection.to {
            Endpoint::Port { model, port } => {
                hasher.update(&[1]);
                hasher.update(&(model as u64).to_le_bytes());
                hasher.update(port.as_bytes());
            }
            Endpoint::Source(index) => {
                hasher.update(&[2]);
                hasher.update(&(index as u64).to_le_bytes());
            }
            Endpoint::Sink(index) => {
                hasher.update(&[3]);
                hasher.update(&(index as u64).to_le_bytes());
            }
            Endpoint::Unbound { type_name, port } => {
                hasher.update(&[4]);
                hasher.update(type_name.as_bytes());
                hasher.update(&[0]);
                hasher.update(port.as_bytes());
            }
        }
        hasher.update(&[0xFF]);
    }
    hashers
        .into_iter()
        .map(crc32fast::Hasher::finalize)
        .collect()
}
