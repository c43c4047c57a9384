//! The bench's side: naming sources and sinks while building, and asking
//! for the topology before or after `init`.
//!
//! Sources and sinks are handles the bench keeps, never added to it like
//! models, so they have no name of their own; naming one records it (and,
//! for a source, its connections as they are then) in the bench's record.
//! Nothing here touches a handle's send path.

use crate::__private::short_type_name;
use crate::ports::{sink_key, EventSource, QuerySource, Sink};
use crate::simulation::{SimInit, Simulation};

use super::graph::{SourceKind, Topology};

impl SimInit {
    /// Names an event source, for the bench's [topology](Self::topology):
    /// it appears under `name`, with each connection it has *now* (connect
    /// it first, as a model is connected before it is added).
    ///
    /// Naming is optional: a source drives the bench whether it is named
    /// or not, but only a named one appears in the topology.
    pub fn add_event_source<T: Clone + Send + 'static>(
        mut self,
        source: &EventSource<T>,
        name: impl Into<String>,
    ) -> Self {
        self.topology.record_source(
            name.into(),
            SourceKind::Event,
            (short_type_name::<T>(), None),
            |list| source.list_links(list),
        );
        self
    }

    /// Names a query source, for the bench's [topology](Self::topology),
    /// like [`add_event_source`](Self::add_event_source).
    pub fn add_query_source<T: Clone + Send + 'static, R: Send + 'static>(
        mut self,
        source: &QuerySource<T, R>,
        name: impl Into<String>,
    ) -> Self {
        self.topology.record_source(
            name.into(),
            SourceKind::Query,
            (short_type_name::<T>(), Some(short_type_name::<R>())),
            |list| source.list_links(list),
        );
        self
    }

    /// Names a sink ([`EventSlot`](crate::EventSlot) or
    /// [`EventQueue`](crate::EventQueue), or any clone of one), for the
    /// bench's [topology](Self::topology). Outputs may be connected to it
    /// before or after.
    ///
    /// A sink that is connected but never named still appears, called
    /// after the first port connected to it (`path.port`).
    pub fn add_sink<T: Send + 'static>(
        mut self,
        sink: &impl Sink<T>,
        name: impl Into<String>,
    ) -> Self {
        self.topology
            .record_sink(sink_key(sink), name.into(), short_type_name::<T>());
        self
    }

    /// The graph of the bench as built so far: its models (with their
    /// paths, types and ports), composites, named sources, sinks and every
    /// connection. See [`Topology`] for what it holds and how to render it.
    ///
    /// A connection to a mailbox not added yet shows as
    /// [`Endpoint::Unbound`](crate::topology::Endpoint::Unbound).
    pub fn topology(&self) -> Topology {
        self.topology.resolve(self.bench())
    }
}

impl Simulation {
    /// The graph of the bench, as it was built (see
    /// [`SimInit::topology`]).
    pub fn topology(&self) -> Topology {
        self.topology.resolve(self.bench())
    }
}
