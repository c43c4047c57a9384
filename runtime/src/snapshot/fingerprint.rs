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
//!
//! The topology lists the connections model after model
//! (`Recorder::for_each_connection`), so a model's connections are
//! written to one small buffer and checksummed at once when the next
//! model's begin: a CRC-32 of the buffer is the CRC-32 of its pieces fed
//! one by one, without a hasher per model (10⁶ of them) and a call per
//! piece.

use crate::topology::{Connection, Endpoint};

/// The checksum of each of `models` models' outgoing connections, in add
/// order, from the connections `list` gives to the function it is passed
/// (model after model, as `Recorder::for_each_connection` lists them).
pub(crate) fn fingerprints(
    models: usize,
    list: impl FnOnce(&mut dyn FnMut(&Connection)),
) -> Vec<u32> {
    let mut sums = Fingerprints::new(models);
    list(&mut |connection| sums.add(connection));
    sums.finish()
}

/// The checksums of a bench's models, made from its connections as they
/// are listed.
struct Fingerprints {
    /// Each model's checksum, in add order (0, the checksum of nothing,
    /// for a model without connections).
    sums: Vec<u32>,
    /// The model whose connections are in `bytes`.
    model: usize,
    /// That model's connections so far, as checksummed.
    bytes: Vec<u8>,
}

impl Fingerprints {
    /// The checksums of a bench of `models` models, before its
    /// connections are added.
    fn new(models: usize) -> Self {
        Fingerprints {
            sums: vec![0; models],
            model: 0,
            bytes: Vec::with_capacity(256),
        }
    }

    /// Adds `connection`; those of a source are not checksummed. A
    /// model's connections come one after the other, models in add order
    /// (as `Recorder::for_each_connection` lists them).
    fn add(&mut self, connection: &Connection) {
        let Endpoint::Port { model, port } = connection.from else {
            return;
        };
        debug_assert!(
            model >= self.model && model < self.sums.len(),
            "connections listed model after model"
        );
        if model != self.model {
            self.close();
            self.model = model;
        }
        let bytes = &mut self.bytes;
        bytes.extend_from_slice(port.as_bytes());
        bytes.extend_from_slice(&[0, connection.kind as u8, connection.mapping as u8]);
        match connection.to {
            Endpoint::Port { model, port } => {
                bytes.push(1);
                bytes.extend_from_slice(&(model as u64).to_le_bytes());
                bytes.extend_from_slice(port.as_bytes());
            }
            Endpoint::Source(index) => {
                bytes.push(2);
                bytes.extend_from_slice(&(index as u64).to_le_bytes());
            }
            Endpoint::Sink(index) => {
                bytes.push(3);
                bytes.extend_from_slice(&(index as u64).to_le_bytes());
            }
            Endpoint::Unbound { type_name, port } => {
                bytes.push(4);
                bytes.extend_from_slice(type_name.as_bytes());
                bytes.push(0);
                bytes.extend_from_slice(port.as_bytes());
            }
        }
        bytes.push(0xFF);
    }

    /// Each model's checksum, in add order.
    fn finish(mut self) -> Vec<u32> {
        self.close();
        self.sums
    }

    /// Checksums the current model's connections.
    fn close(&mut self) {
        if self.bytes.is_empty() {
            return;
        }
        // A model listed apart twice (never, as the topology lists them)
        // would get the checksum of its last run: still the same for the
        // same bench.
        if let Some(sum) = self.sums.get_mut(self.model) {
            *sum = crc32fast::hash(&self.bytes);
        }
        self.bytes.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{ConnectionKind, Mapping};

    /// An event connection, sent as is, from port `port` of model `from`.
    fn connection(from: usize, port: &'static str, to: Endpoint) -> Connection {
        Connection {
            from: Endpoint::Port { model: from, port },
            to,
            kind: ConnectionKind::Event,
            mapping: Mapping::Direct,
        }
    }

    /// The checksums of `connections`, a hasher per model fed piece by
    /// piece (the first design, whose checksums snapshots hold).
    fn piece_by_piece(models: usize, connections: &[Connection]) -> Vec<u32> {
        let mut hashers = vec![crc32fast::Hasher::new(); models];
        for c in connections {
            let Endpoint::Port { model, port } = c.from else {
                continue;
            };
            let hasher = &mut hashers[model];
            hasher.update(port.as_bytes());
            hasher.update(&[0, c.kind as u8, c.mapping as u8]);
            match c.to {
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
        hashers.into_iter().map(|h| h.finalize()).collect()
    }

    #[test]
    fn a_model_s_connections_checksummed_at_once_as_piece_by_piece() {
        let connections = [
            connection(
                0,
                "out",
                Endpoint::Port {
                    model: 2,
                    port: "in",
                },
            ),
            connection(0, "out", Endpoint::Sink(0)),
            Connection {
                kind: ConnectionKind::Request,
                mapping: Mapping::Map,
                ..connection(
                    0,
                    "ask",
                    Endpoint::Port {
                        model: 3,
                        port: "level",
                    },
                )
            },
            Connection {
                mapping: Mapping::FilterMap,
                ..connection(2, "odd", Endpoint::Source(1))
            },
            connection(
                2,
                "ask",
                Endpoint::Unbound {
                    type_name: "Far",
                    port: "reply",
                },
            ),
            Connection {
                from: Endpoint::Source(0),
                ..connection(
                    0,
                    "",
                    Endpoint::Port {
                        model: 1,
                        port: "in",
                    },
                )
            },
        ];
        let sums = fingerprints(4, |each| connections.iter().for_each(each));
        assert_eq!(sums, piece_by_piece(4, &connections));
        assert_eq!((sums[1], sums[3]), (0, 0), "no connections");
        assert_ne!(sums[0], sums[2]);
    }
}
