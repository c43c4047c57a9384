//! From the record to the graph: identities become paths and names,
//! models and composites find their clusters.
//!
//! Done when a topology is asked for, not while the bench is built, so
//! that building pays only for the record. Every lookup is a hash map or
//! a walk up a path, so a bench of millions of models resolves in time
//! linear in its size.

use std::collections::{HashMap, HashSet};

use crate::model::PortKind;
use crate::ports::link::{Link, MailboxKey, Recipient, SinkKey};

use super::graph::{
    CompositeNode, Connection, ConnectionKind, Endpoint, ModelNode, SinkNode, SourceNode, Topology,
};
use super::record::Recorder;

impl Recorder {
    /// The graph of what was recorded.
    pub(crate) fn resolve(&self) -> Topology {
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
        let mut resolver = Resolver {
            mailboxes: self
                .models
                .iter()
                .enumerate()
                .map(|(i, record)| (record.key(), i))
                .collect(),
            sink_index: HashMap::new(),
            sinks: Vec::new(),
            sink_names: HashSet::new(),
            connections: Vec::with_capacity(self.links.len()),
        };
        for sink in &self.sinks {
            resolver.named_sink(sink.sink, &sink.name, sink.payload);
        }
        for (i, (_, links)) in self.models_with_links().enumerate() {
            for link in links {
                resolver.model_link(&models, i, link);
            }
        }
        let sources = self.source_nodes();
        for (i, source) in self.sources.iter().enumerate() {
            for link in &source.links {
                resolver.source_link(i, link);
            }
        }
        Topology {
            composites,
            models,
            sources,
            sinks: resolver.sinks,
            connections: resolver.connections,
        }
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
    /// Each model's index, by mailbox.
    mailboxes: HashMap<MailboxKey, usize>,
    /// Each sink's index, by identity.
    sink_index: HashMap<SinkKey, usize>,
    /// The sinks so far.
    sinks: Vec<SinkNode>,
    /// The sinks' names so far.
    sink_names: HashSet<String>,
    /// The connections so far.
    connections: Vec<Connection>,
}

impl Resolver {
    /// Adds a sink named by the bench.
    fn named_sink(&mut self, sink: SinkKey, name: &str, payload: &'static str) {
        if self.sink_index.contains_key(&sink) {
            // Named twice: the first name stands.
            return;
        }
        self.sink_index.insert(sink, self.sinks.len());
        self.sinks.push(SinkNode {
            name: unique(name, &mut self.sink_names),
            payload,
            named: true,
        });
    }

    /// Adds a connection of port `link.from_port` of model `model`.
    fn model_link(&mut self, models: &[ModelNode], model: usize, link: &Link) {
        let node = &models[model];
        let payload = node
            .outputs
            .iter()
            .find(|port| port.name == link.from_port)
            .map_or("?", |port| port.payload);
        let from = Endpoint::Port {
            model,
            port: link.from_port,
        };
        // A sink never named is called after the first port sending to it.
        let sink_name = format!("{}.{}", node.path, link.from_port);
        self.link_with_sink_name(from, link, &sink_name, payload);
    }

    /// Adds a connection of source `source` (which reaches models only,
    /// never a sink).
    fn source_link(&mut self, source: usize, link: &Link) {
        self.link_with_sink_name(Endpoint::Source(source), link, "", "?");
    }

    /// Adds a connection from `from`; a sink reached for the first time
    /// and never named is called `sink_name` and carries `payload`.
    fn link_with_sink_name(
        &mut self,
        from: Endpoint,
        link: &Link,
        sink_name: &str,
        payload: &'static str,
    ) {
        let (to, kind) = match link.to {
            Recipient::Model {
                mailbox,
                port,
                kind,
                metadata,
            } => {
                let to = match self.mailboxes.get(&mailbox) {
                    Some(&model) => Endpoint::Port { model, port },
                    None => Endpoint::Unbound {
                        type_name: metadata().type_name,
                        port,
                    },
                };
                (to, ConnectionKind::of(kind))
            }
            Recipient::Sink(sink) => (
                Endpoint::Sink(self.sink(sink, sink_name, payload)),
                ConnectionKind::of(PortKind::Input),
            ),
            Recipient::Refused => return,
        };
        self.connections.push(Connection {
            from,
            to,
            kind,
            mapping: link.mapping,
        });
    }

    /// The index of `sink`, adding it under `name` if it was never named.
    fn sink(&mut self, sink: SinkKey, name: &str, payload: &'static str) -> usize {
        if let Some(&index) = self.sink_index.get(&sink) {
            return index;
        }
        let index = self.sinks.len();
        self.sink_index.insert(sink, index);
        self.sinks.push(SinkNode {
            name: unique(name, &mut self.sink_names),
            payload,
            named: false,
        });
        index
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
