//! A checksum of each model's outgoing connections, so that `restore`
//! can tell that the bench was built as the saved one was.
//!
//! Connections are not saved (the user's code makes them); what is saved
//! is, per model, a CRC-32 of its outgoing connections as the topology
//! lists them (port, kind, mapping, recipient's path and port), in order.
//! Four bytes per model name the model whose wiring changed, where a
//! full list would grow a snapshot of 10⁶ models by tens of megabytes.

use std::collections::HashMap;

use crate::topology::{Endpoint, Topology};

/// The checksum of each model's outgoing connections, by path.
pub(crate) fn fingerprints(topology: &Topology) -> HashMap<&str, u32> {
    let mut hashers = vec![crc32fast::Hasher::new(); topology.models().len()];
    for connection in topology.connections() {
        let Endpoint::Port { model, port } = connection.from else {
            continue;
        };
        let hasher = &mut hashers[model];
        hasher.update(port.as_bytes());
        hasher.update(&[0]);
        hasher.update(connection.kind.as_str().as_bytes());
        hasher.update(&[0]);
        hasher.update(connection.mapping.as_str().as_bytes());
        hasher.update(&[0]);
        hasher.update(topology.endpoint_name(connection.to).as_bytes());
        hasher.update(&[0]);
    }
    topology
        .models()
        .iter()
        .zip(hashers)
        .map(|(model, hasher)| (model.path.as_str(), hasher.finalize()))
        .collect()
}
