//! The Mermaid export: a left-to-right `flowchart`.
//!
//! Mermaid has no ports, so a model is one box (its name over its type)
//! and each edge is labelled with the ports it joins (`voltage → set`); a
//! composite is a `subgraph`, nested as the composites are; sources are
//! flag shapes, sinks cylinders. Event connections are solid arrows,
//! request connections dotted. Node names are made from indices, and
//! labels escape what Mermaid would read as markup, so that any path or
//! type name renders as written.

use std::fmt::Write;

use super::dot::source_type;
use super::graph::{last_segment, Connection, ConnectionKind, Endpoint, Members, Topology};
use crate::ports::Mapping;

impl Topology {
    /// The topology as a Mermaid `flowchart` (GitHub and many documentation
    /// tools render it inside a ```` ```mermaid ```` block).
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        self.write_mermaid_cluster(&mut out, &Members::of(self), None, 1);
        for (i, source) in self.sources.iter().enumerate() {
            let _ = writeln!(
                out,
                "  source{i}>\"{}<br/>{}\"]",
                text(&source.name),
                text(&source_type(source.payload, source.reply)),
            );
        }
        for (i, sink) in self.sinks.iter().enumerate() {
            let _ = writeln!(
                out,
                "  sink{i}[(\"{}<br/>{}\")]",
                text(&sink.name),
                text(sink.payload)
            );
        }
        let unbound = self.unbound_models();
        for (i, type_name) in unbound.iter().enumerate() {
            let _ = writeln!(
                out,
                "  unbound{i}[\"{}<br/>(not in the bench)\"]",
                text(type_name)
            );
        }
        for connection in &self.connections {
            let from = self.mermaid_node(&unbound, connection.from);
            let to = self.mermaid_node(&unbound, connection.to);
            let label = text(&edge_label(connection));
            let _ = match connection.kind {
                ConnectionKind::Event => writeln!(out, "  {from} -- \"{label}\" --> {to}"),
                ConnectionKind::Request => writeln!(out, "  {from} -. \"{label}\" .-> {to}"),
            };
        }
        out
    }

    /// The composites in `parent` (recursively) and its models, at
    /// indentation `depth`.
    fn write_mermaid_cluster(
        &self,
        out: &mut String,
        members: &Members,
        parent: Option<usize>,
        depth: usize,
    ) {
        let pad = "  ".repeat(depth);
        for &c in members.composites(parent) {
            let composite = &self.composites[c];
            let _ = writeln!(
                out,
                "{pad}subgraph c{c}[\"{} ({})\"]",
                text(last_segment(&composite.path)),
                text(composite.type_name)
            );
            self.write_mermaid_cluster(out, members, Some(c), depth + 1);
            let _ = writeln!(out, "{pad}end");
        }
        for &m in members.models(parent) {
            let model = &self.models[m];
            let _ = writeln!(
                out,
                "{pad}m{m}[\"{}<br/>{}\"]",
                text(model.name()),
                text(model.type_name)
            );
        }
    }

    /// The Mermaid node of `endpoint` (`unbound`: the models not in the
    /// bench, as `unbound_models` lists them).
    fn mermaid_node(&self, unbound: &[&str], endpoint: Endpoint) -> String {
        match endpoint {
            Endpoint::Port { model, .. } => format!("m{model}"),
            Endpoint::Source(source) => format!("source{source}"),
            Endpoint::Sink(sink) => format!("sink{sink}"),
            Endpoint::Unbound { type_name, .. } => {
                let index = unbound
                    .iter()
                    .position(|&t| t == type_name)
                    .unwrap_or_default();
                format!("unbound{index}")
            }
        }
    }
}

/// `voltage → set`, `→ set` from a source, `voltage →` to a sink; then
/// ` (map)` or ` (filter_map)` for a mapped connection.
fn edge_label(connection: &Connection) -> String {
    let port = |endpoint: Endpoint| match endpoint {
        Endpoint::Port { port, .. } | Endpoint::Unbound { port, .. } => port,
        Endpoint::Source(_) | Endpoint::Sink(_) => "",
    };
    let label = format!("{} → {}", port(connection.from), port(connection.to));
    let label = label.trim().to_string();
    match connection.mapping {
        Mapping::Direct => label,
        mapping => format!("{label} ({mapping})"),
    }
}

/// `text` inside a quoted Mermaid label: quotes and angle brackets as
/// entity codes (a type's `<T>` would otherwise be read as HTML).
fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '#' => out.push_str("#35;"),
            c => out.push(c),
        }
    }
    out
}
