//! The bench's graph: models, composites, sources, sinks and every
//! connection, for documentation, review and tools.
//!
//! # Why it is built this way
//!
//! Everything a diagram needs already exists on the cold path: `#[model]`
//! writes each model's static metadata (its ports with their names, kinds
//! and types), and each connection is a type-erased target that knows its
//! recipient. The topology reads both, and adds nothing to the message
//! path:
//!
//! - a model lists its sending ports' connections once, when it is added
//!   ([`Model::list_connections`](crate::Model::list_connections), written
//!   by `#[model]`); each connection answers with its recipient (a weak
//!   handle on its mailbox, or its sink's identity), from a method of the
//!   connection's trait object that only this listing calls, and whether
//!   it maps or filters, from its type (see `ports/adapt.rs`), so that no
//!   send path, mailbox or fan-out carries a byte more;
//! - recipients are resolved only when a [`Topology`] is asked for, since
//!   a recipient is often added after its sender: a mailbox gives the
//!   place its model was bound to when added, and the place its path (see
//!   `topology/resolve.rs`); building the bench pays for a small record
//!   per model (see `topology/record.rs`);
//! - sources and sinks are handles the bench keeps rather than parts added
//!   to it, so they appear when named
//!   ([`SimInit::add_event_source`](crate::SimInit::add_event_source),
//!   [`add_query_source`](crate::SimInit::add_query_source),
//!   [`add_sink`](crate::SimInit::add_sink)); a sink connected but never
//!   named appears under a made-up name, since the connection to it is
//!   known anyway;
//! - composites are clusters: a model belongs to the deepest composite
//!   whose path prefixes its own, `/` by `/`.
//!
//! The renderers are plain text writers: JSON with a documented, versioned
//! schema (written here rather than through serde, so that the core crate
//! takes no dependency and the field order is the schema's), Graphviz DOT
//! (records with one field per port, composites as `cluster` subgraphs),
//! Mermaid (a `flowchart` with `subgraph`s), and, with the `svg` feature,
//! an SVG drawn by a small layered layout of this crate's own that keeps
//! composites as nested boxes — no system Graphviz needed. The schema and
//! the choices are in `docs/guide.md`, "Topology".
//!
//! ```
//! # use causim::prelude::*;
//! # #[model] struct Relay { out: Output<u32> }
//! # #[model] impl Relay { #[input] async fn take(&mut self, x: u32) { self.out.send(x).await; } }
//! let (mut a, mut b) = (Relay { out: Output::new() }, Relay { out: Output::new() });
//! let (mailbox_a, mailbox_b) = (Mailbox::new(), Mailbox::new());
//! let seen = EventQueue::new();
//! a.out.connect(Relay::ports().take, &mailbox_b);
//! b.out.connect_sink(&seen);
//! let bench = SimInit::new()
//!     .add_model(a, mailbox_a, "a")
//!     .add_model(b, mailbox_b, "b")
//!     .add_sink(&seen, "seen");
//! let topology = bench.topology();
//! assert_eq!(topology.connections().len(), 2);
//! assert!(!topology.to_dot().contains("subgraph")); // no composite here
//! assert!(topology.to_mermaid().starts_with("flowchart LR"));
//! ```

mod bench;
mod dot;
mod graph;
mod json;
mod mermaid;
mod record;
mod resolve;
#[cfg(feature = "svg")]
mod svg;
#[cfg(test)]
mod tests;

pub use crate::ports::Mapping;
pub use graph::{
    CompositeNode, Connection, ConnectionKind, Endpoint, ModelNode, SinkNode, SourceKind,
    SourceNode, Topology,
};
pub(crate) use record::Recorder;

/// The version of the JSON schema [`Topology::to_json`] writes; it changes
/// only when a field is removed or changes meaning (fields may be added
/// within a version).
pub const JSON_SCHEMA_VERSION: u32 = 1;
