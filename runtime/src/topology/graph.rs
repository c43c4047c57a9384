//! The bench's graph, resolved: what [`Topology`] holds and its renderers
//! read.

use crate::model::{PortKind, PortMetadata};
use crate::ports::Mapping;

/// The graph of a bench: its models, composites, sources and sinks, and
/// every connection between them.
///
/// Built by [`SimInit::topology`](crate::SimInit::topology) or
/// [`Simulation::topology`](crate::Simulation::topology). Items refer to
/// each other by their index in these lists; every list is in the order
/// the bench was built (models in the order they were added, connections
/// model by model, port by port, in connection order, then the sources'),
/// so that two builds of one bench give identical exports.
///
/// Render it with [`to_json`](Topology::to_json) (the schema is in
/// `docs/guide.md`, "Topology"), [`to_dot`](Topology::to_dot),
/// [`to_mermaid`](Topology::to_mermaid), or, with the `svg` feature,
/// `to_svg`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Topology {
    /// The composite models: clusters of models, nested by path.
    pub(crate) composites: Vec<CompositeNode>,
    /// The models.
    pub(crate) models: Vec<ModelNode>,
    /// The named event and query sources.
    pub(crate) sources: Vec<SourceNode>,
    /// The sinks: the named ones, then those connected but never named.
    pub(crate) sinks: Vec<SinkNode>,
    /// Every connection, once each.
    pub(crate) connections: Vec<Connection>,
}

/// The lists are read-only: their entries refer to each other by index,
/// so the renderers rely on them staying as the bench built them.
impl Topology {
    /// The composite models: clusters of models, nested by path.
    pub fn composites(&self) -> &[CompositeNode] {
        &self.composites
    }

    /// The models.
    pub fn models(&self) -> &[ModelNode] {
        &self.models
    }

    /// The named event and query sources.
    pub fn sources(&self) -> &[SourceNode] {
        &self.sources
    }

    /// The sinks: the named ones, then those connected but never named.
    pub fn sinks(&self) -> &[SinkNode] {
        &self.sinks
    }

    /// Every connection, once each.
    pub fn connections(&self) -> &[Connection] {
        &self.connections
    }
}

/// A composite model: a cluster in the diagrams.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompositeNode {
    /// Its path, e.g. `sat/power`.
    pub path: String,
    /// Its type name, e.g. `PowerSubsystem`.
    pub type_name: &'static str,
    /// The composite it is in (index in [`Topology::composites`]): the
    /// deepest one whose path is a prefix of its own.
    pub parent: Option<usize>,
}

/// A model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelNode {
    /// Its path, e.g. `sat/power/battery` (the name given to
    /// `SimInit::add_model`).
    pub path: String,
    /// Its type name, e.g. `Battery`.
    pub type_name: &'static str,
    /// Its inputs and repliers, in declaration order.
    pub inputs: &'static [PortMetadata],
    /// Its outputs and requestors, in declaration order.
    pub outputs: &'static [PortMetadata],
    /// The composite it is in (index in [`Topology::composites`]): the
    /// deepest one whose path is a prefix of its path, `/` by `/`.
    pub composite: Option<usize>,
}

impl ModelNode {
    /// The last segment of its path: `battery` for `sat/power/battery`.
    pub fn name(&self) -> &str {
        last_segment(&self.path)
    }

    /// Every port: receiving ports first, then sending ports.
    pub fn ports(&self) -> impl Iterator<Item = &'static PortMetadata> {
        self.inputs.iter().chain(self.outputs.iter())
    }
}

/// The kinds of bench source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// An [`EventSource`](crate::EventSource): events to inputs.
    Event,
    /// A [`QuerySource`](crate::QuerySource): requests to repliers.
    Query,
}

impl SourceKind {
    /// `event` or `query`, as in the exports.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Event => "event",
            SourceKind::Query => "query",
        }
    }
}

/// A named source of events or queries, driven by the bench.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceNode {
    /// The name it was registered under (unique in the export: a name
    /// given twice gets `#2`, `#3`, … after it).
    pub name: String,
    /// Event or query source.
    pub kind: SourceKind,
    /// The event or request type.
    pub payload: &'static str,
    /// The reply type, for a query source.
    pub reply: Option<&'static str>,
}

/// A sink, read by the bench.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SinkNode {
    /// The name it was registered under or, for a sink never named, the
    /// sending port of its first connection, `path.port` (unique in the
    /// export: a name taken already gets `#2`, `#3`, … after it).
    pub name: String,
    /// The value type.
    pub payload: &'static str,
    /// True if named with `SimInit::add_sink`, false if the name was made.
    pub named: bool,
}

/// One end of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// A port of a model (index in [`Topology::models`]).
    Port {
        /// The model.
        model: usize,
        /// The port's name.
        port: &'static str,
    },
    /// A source (index in [`Topology::sources`]).
    Source(usize),
    /// A sink (index in [`Topology::sinks`]).
    Sink(usize),
    /// A port of a model whose mailbox was not added to the bench (yet):
    /// a wiring error if anything is sent to it.
    Unbound {
        /// The model's type name.
        type_name: &'static str,
        /// The port's name.
        port: &'static str,
    },
}

/// What a connection carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectionKind {
    /// Events, from an output or event source to an input or sink.
    Event,
    /// Requests and their replies, from a requestor or query source to a
    /// replier.
    Request,
}

impl ConnectionKind {
    /// `event` or `request`, as in the exports.
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectionKind::Event => "event",
            ConnectionKind::Request => "request",
        }
    }

    /// The kind of connection a sending port of kind `kind` makes.
    pub(crate) fn of(kind: PortKind) -> Self {
        match kind {
            PortKind::Requestor | PortKind::Replier => ConnectionKind::Request,
            PortKind::Output | PortKind::Input => ConnectionKind::Event,
        }
    }
}

/// One connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Connection {
    /// The sending end: a model's output or requestor, or a source.
    pub from: Endpoint,
    /// The receiving end: a model's input or replier, or a sink.
    pub to: Endpoint,
    /// Events or requests.
    pub kind: ConnectionKind,
    /// How the value is adapted on the way (a request connection is
    /// [`Mapping::Map`] if its request or its reply is converted).
    pub mapping: Mapping,
}

impl Topology {
    /// The name of `endpoint` as the exports show it: a model's
    /// `path.port`, a source's or sink's name, an unbound model's
    /// `Type.port`.
    pub fn endpoint_name(&self, endpoint: Endpoint) -> String {
        match endpoint {
            Endpoint::Port { model, port } => format!("{}.{port}", self.models[model].path),
            Endpoint::Source(source) => self.sources[source].name.clone(),
            Endpoint::Sink(sink) => self.sinks[sink].name.clone(),
            Endpoint::Unbound { type_name, port } => format!("{type_name}.{port}"),
        }
    }

    /// The distinct unbound recipients, in order of first appearance.
    pub(crate) fn unbound_models(&self) -> Vec<&'static str> {
        let mut types = Vec::new();
        for connection in &self.connections {
            if let Endpoint::Unbound { type_name, .. } = connection.to {
                if !types.contains(&type_name) {
                    types.push(type_name);
                }
            }
        }
        types
    }
}

/// What each cluster holds directly, listed once, so that drawing a bench
/// takes time linear in its size.
pub(crate) struct Members {
    /// The composites in each cluster: the top level first, then
    /// composite `c` at `c + 1`.
    composites: Vec<Vec<usize>>,
    /// The models in each cluster, indexed like `composites`.
    models: Vec<Vec<usize>>,
}

impl Members {
    /// The members of every cluster of `topology`, in order.
    pub(crate) fn of(topology: &Topology) -> Self {
        let slot = |cluster: Option<usize>| cluster.map_or(0, |c| c + 1);
        let clusters = topology.composites.len() + 1;
        let mut members = Members {
            composites: vec![Vec::new(); clusters],
            models: vec![Vec::new(); clusters],
        };
        for (c, composite) in topology.composites.iter().enumerate() {
            members.composites[slot(composite.parent)].push(c);
        }
        for (m, model) in topology.models.iter().enumerate() {
            members.models[slot(model.composite)].push(m);
        }
        members
    }

    /// The composites directly in `cluster` (`None`: the top level).
    pub(crate) fn composites(&self, cluster: Option<usize>) -> &[usize] {
        &self.composites[cluster.map_or(0, |c| c + 1)]
    }

    /// The models directly in `cluster` (`None`: the top level).
    pub(crate) fn models(&self, cluster: Option<usize>) -> &[usize] {
        &self.models[cluster.map_or(0, |c| c + 1)]
    }
}

/// The last `/`-separated segment of `path`.
pub(crate) fn last_segment(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
