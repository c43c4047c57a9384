//! From the record to the graph: mailboxes become models, identities
//! become names, models and composites find their clusters.
//!
//! Done when a topology is asked for, not while the bench is built, so
//! that building pays only for the record. A connection's recipient model
//! is its mailbox's place in the bench (the place it was bound to when
//! its model was added, which is also its place in the record), read
//! through the mailbox: no map of the bench's mailboxes is built. Every
//! other lookup is a hash map or a walk up a path, so a bench of millions
//! of models resolves in time linear in its size.

use std::collections::{HashMap, HashSet};

use crate::bench::BenchId;
use crate::model::PortKind;
use crate::ports::link::{Link, Recipient, SinkKey};

use super::graph::{
    CompositeNode, Connection, ConnectionKind, Endpoint, ModelNode, SinkNode, SourceNode, Topology,
};
use super::record::Recorder;

impl Recorder {
    /// The graph of what was recorded in `bench`.
    pub(crate) fn resolve(&self, bench: BenchId) -> Topology {
        let composites = self.composite_nodes();
        let clusters = Clusters::of(&composites);
        let models: Vec<ModelNode> = self
            .models
            .iter()
            .map(|record| {
                let metadata = (record.metadata)();
                let path = record.path().to_string();
                ModelNode {
                    composite: clusters.deepest_holding(&path),
                    path,
                    type_name: metadata.type_name,
                    inputs: metadata.inputs,
                    outputs: metadata.outputs,
                }
            })
            .collect();
        let mut resolver = Resolver::new(self, bench, true, self.links.len());
        for (i, (_, links)) in self.models_with_links().enumerate() {
            for link in links {
                resolver.model_link(i, link, |port| {
                    let node = &models[i];
                    let payload = node.outputs.iter().find(|p| p.name == port);
                    (
                        format!("{}.{port}", node.path),
                        payload.map_or("?", |p| p.payload),
                    )
                });
            }
        }
        let sources = self.source_nodes();
        resolver.source_links(self);
        Topology {
            composites,
            models,
            sources,
            sinks: resolver.sinks,
            connections: resolver.connections,
        }
    }

    /// Calls `each` with every connection, numbered as
    /// [`resolve`](Self::resolve) numbers them (models, sources and sinks
    /// by index), model after model, then the sources': what a checksum of
    /// the bench's wiring needs, at a fraction of the cost (no names, no
    /// clusters, and no list of the whole bench's connections: at 10⁶
    /// models of two connections each, that list was 144 MB written once
    /// and read once).
    #[cfg_attr(not(feature = "save"), allow(dead_code))]
    pub(crate) fn for_each_connection(&self, bench: BenchId, mut each: impl FnMut(&Connection)) {
        // A model's connections at a time: a few, whatever the bench's size.
        let mut resolver = Resolver::new(self, bench, false, 16);
        for (i, (_, links)) in self.models_with_links().enumerate() {
            for link in links {
                resolver.model_link(i, link, |_| (String::new(), "?"));
            }
            resolver.connections.drain(..).for_each(|c| each(&c));
        }
        resolver.source_links(self);
        resolver.connections.drain(..).for_each(|c| each(&c));
    }

    /// The composites, each with its parent.
    fn composite_nodes(&self) -> Vec<CompositeNode> {
        let mut nodes: Vec<CompositeNode> = self
            .composites
            .iter()
            .map(|record| CompositeNode {
                path: record.path.clone(),
                type_name: record.type_name,
                parent: None,
            })
            .collect();
        let parents: Vec<Option<usize>> = {
            let clusters = Clusters::of(&nodes);
            nodes
                .iter()
                .map(|node| clusters.deepest_holding(&node.path))
                .collect()
        };
        for (node, parent) in nodes.iter_mut().zip(parents) {
            node.parent = parent;
        }
        nodes
    }

    /// The sources, their names made unique.
    fn source_nodes(&self) -> Vec<SourceNode> {
        let mut names = HashSet::new();
        self.sources
            .iter()
            .map(|source| SourceNode {
                name: unique(&source.name, &mut names),
                kind: source.kind,
                payload: source.payload,
                reply: source.reply,
            })
            .collect()
    }
}

/// The composites by path, to find the one holding a path.
struct Clusters<'a> {
    /// Index of each composite, by path.
    by_path: HashMap<&'a str, usize>,
}

impl<'a> Clusters<'a> {
    /// The index of `composites`.
    fn of(composites: &'a [CompositeNode]) -> Self {
        Clusters {
            by_path: composites
                .iter()
                .enumerate()
                .map(|(i, c)| (c.path.as_str(), i))
                .collect(),
        }
    }

    /// The deepest composite whose path is a proper prefix of `path`, `/`
    /// by `/` (`sat/power` holds `sat/power/battery`, not `sat/powerline`).
    fn deepest_holding(&self, path: &str) -> Option<usize> {
        let mut prefix = path;
        while let Some(cut) = prefix.rfind('/') {
            prefix = &prefix[..cut];
            if let Some(&index) = self.by_path.get(prefix) {
                return Some(index);
            }
        }
        None
    }
}

/// The state of the resolution of connections.
struct Resolver {
    /// Whether sinks get names (not for
    /// [`Recorder::for_each_connection`]).
    names: bool,
    /// The bench recorded, to which a recipient's mailbox must have been
    /// added for the recipient to be one of its models.
    bench: BenchId,
    /// The number of models recorded.
    models: usize,
    /// Each sink's index, by identity.
    sink_index: HashMap<SinkKey, usize>,
    /// The sinks so far.
    sinks: Vec<SinkNode>,
    /// The sinks' names so far.
    sink_names: HashSet<String>,
    /// The connections resolved and not yet taken.
    connections: Vec<Connection>,
}

impl Resolver {
    /// The resolver of `recorder`'s connections, its named sinks first (so
    /// that they keep their place whichever connection reaches them), with
    /// room for `capacity` connections.
    fn new(recorder: &Recorder, bench: BenchId, names: bool, capacity: usize) -> Self {
        let mut resolver = Resolver {
            names,
            bench,
            models: recorder.models.len(),
            sink_index: HashMap::new(),
            sinks: Vec::new(),
            sink_names: HashSet::new(),
            connections: Vec::with_capacity(capacity),
        };
        for sink in &recorder.sinks {
            resolver.named_sink(sink.sink, &sink.name, sink.payload);
        }
        resolver
    }

    /// Adds a sink named by the bench.
    fn named_sink(&mut self, sink: SinkKey, name: &str, payload: &'static str) {
        if self.sink_index.contains_key(&sink) {
            // Named twice: the first name stands.
            return;
        }
        self.sink_index.insert(sink, self.sinks.len());
        let name = self.unique(name);
        self.sinks.push(SinkNode {
            name,
            payload,
            named: true,
        });
    }

    /// Adds a connection of port `link.from_port` of model `model`; a sink
    /// it reaches for the first time, never named, takes the name and
    /// payload type that `new_sink` gives for the port.
    fn model_link(
        &mut self,
        model: usize,
        link: &Link,
        new_sink: impl FnOnce(&'static str) -> (String, &'static str),
    ) {
        let from = Endpoint::Port {
            model,
            port: link.from_port,
        };
        self.link_with_sink_name(from, link, || new_sink(link.from_port));
    }

    /// Adds the connections of `recorder`'s sources (which reach models
    /// only, never a sink).
    fn source_links(&mut self, recorder: &Recorder) {
        for (i, source) in recorder.sources.iter().enumerate() {
            for link in &source.links {
                self.link_with_sink_name(Endpoint::Source(i), link, || (String::new(), "?"));
            }
        }
    }

    /// Adds a connection from `from`; a sink reached for the first time
    /// and never named takes the name and payload type `new_sink` gives.
    fn link_with_sink_name(
        &mut self,
        from: Endpoint,
        link: &Link,
        new_sink: impl FnOnce() -> (String, &'static str),
    ) {
        let (to, kind) = match &link.to {
            Recipient::Model {
                mailbox,
                port,
                kind,
                metadata,
                ..
            } => {
                let place = mailbox.place_in(self.bench);
                let to = match place.filter(|&place| place < self.models) {
                    Some(model) => Endpoint::Port { model, port },
                    None => Endpoint::Unbound {
                        type_name: metadata().type_name,
                        port,
                    },
                };
                (to, ConnectionKind::of(*kind))
            }
            Recipient::Sink(sink) => (
                Endpoint::Sink(self.sink(*sink, new_sink)),
                ConnectionKind::of(PortKind::Input),
            ),
            Recipient::Refused => return,
        };
        self.connections.push(Connection {
            from,
            to,
            kind,
            mapping: link.mapping(),
        });
    }

    /// The index of `sink`, adding it as `new_sink` says if it was never
    /// named.
    fn sink(&mut self, sink: SinkKey, new_sink: impl FnOnce() -> (String, &'static str)) -> usize {
        if let Some(&index) = self.sink_index.get(&sink) {
            return index;
        }
        let index = self.sinks.len();
        self.sink_index.insert(sink, index);
        let (name, payload) = new_sink();
        let name = self.unique(&name);
        self.sinks.push(SinkNode {
            name,
            payload,
            named: false,
        });
        index
    }

    /// `name` made unique among the sinks' (nothing without names).
    fn unique(&mut self, name: &str) -> String {
        if self.names {
            unique(name, &mut self.sink_names)
        } else {
            String::new()
        }
    }
}

/// `name`, or `name#2`, `name#3`, … if taken; marked as taken.
fn unique(name: &str, taken: &mut HashSet<String>) -> String {
    let mut candidate = name.to_string();
    let mut n = 1;
    while taken.contains(&candidate) {
        n += 1;
        candidate = format!("{name}#{n}");
    }
    taken.insert(candidate.clone());
    candidate
}
