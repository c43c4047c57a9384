//! The Graphviz DOT export.
//!
//! A model is a `record` node with its inputs and repliers on the left,
//! its name and type in the middle and its outputs and requestors on the
//! right, each port a record field that edges attach to; a composite is a
//! `cluster` subgraph, nested as the composites are; sources are `cds`
//! shapes, sinks `cylinder`s. Event connections are solid, request
//! connections dashed; a mapped connection is labelled `map` or
//! `filter_map`. Node names are made from indices (`m0`, `source0`,
//! `sink0`), never from paths, so that no name needs quoting rules.

use std::fmt::Write;

use super::graph::{ConnectionKind, Endpoint, Members, ModelNode, Topology};
use crate::ports::Mapping;

impl Topology {
    /// The topology as a Graphviz `digraph` (render it with
    /// `dot -Tsvg`).
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph causim {\n");
        out.push_str("  rankdir=LR;\n");
        out.push_str("  graph [fontname=\"Helvetica\", fontsize=11];\n");
        out.push_str("  node [shape=record, fontname=\"Helvetica\", fontsize=10];\n");
        out.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
        self.write_dot_cluster(&mut out, &Members::of(self), None, 1);
        for (i, source) in self.sources.iter().enumerate() {
            let _ = writeln!(
                out,
                "  source{i} [shape=cds, label=\"{}\\n{}\"];",
                quoted(&source.name),
                quoted(&source_type(source.payload, source.reply)),
            );
        }
        for (i, sink) in self.sinks.iter().enumerate() {
            let _ = writeln!(
                out,
                "  sink{i} [shape=cylinder, label=\"{}\\n{}\"];",
                quoted(&sink.name),
                quoted(sink.payload),
            );
        }
        let unbound = self.unbound_models();
        for (i, type_name) in unbound.iter().enumerate() {
            let _ = writeln!(
                out,
                "  unbound{i} [shape=box, style=dashed, label=\"{}\\n(not in the bench)\"];",
                quoted(type_name),
            );
        }
        for connection in &self.connections {
            let from = self.dot_endpoint(&unbound, connection.from, 'o');
            let to = self.dot_endpoint(&unbound, connection.to, 'i');
            let attributes = edge_attributes(connection.kind, connection.mapping);
            let _ = writeln!(out, "  {from} -> {to}{attributes};");
        }
        out.push_str("}\n");
        out
    }

    /// The composites in `parent` (recursively) and its models, at
    /// indentation `depth`.
    fn write_dot_cluster(
        &self,
        out: &mut String,
        members: &Members,
        parent: Option<usize>,
        depth: usize,
    ) {
        let pad = "  ".repeat(depth);
        for &c in members.composites(parent) {
            let composite = &self.composites[c];
            let _ = writeln!(out, "{pad}subgraph cluster_{c} {{");
            let _ = writeln!(
                out,
                "{pad}  label=\"{} ({})\";",
                quoted(super::graph::last_segment(&composite.path)),
                quoted(composite.type_name),
            );
            let _ = writeln!(out, "{pad}  style=rounded;");
            self.write_dot_cluster(out, members, Some(c), depth + 1);
            let _ = writeln!(out, "{pad}}}");
        }
        for &m in members.models(parent) {
            let _ = writeln!(
                out,
                "{pad}m{m} [label=\"{}\"];",
                record_label(&self.models[m])
            );
        }
    }

    /// The DOT name of `endpoint`: `m3:i0` for input 0 of model 3 (`side`
    /// is `i` for a receiving end, `o` for a sending one; `unbound`: the
    /// models not in the bench, as `unbound_models` lists them).
    fn dot_endpoint(&self, unbound: &[&str], endpoint: Endpoint, side: char) -> String {
        match endpoint {
            Endpoint::Port { model, port } => {
                let node = &self.models[model];
                let ports = if side == 'i' {
                    node.inputs
                } else {
                    node.outputs
                };
                match ports.iter().position(|p| p.name == port) {
                    Some(index) => format!("m{model}:{side}{index}"),
                    None => format!("m{model}"),
                }
            }
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

/// ` [style=dashed, label="map"]` and the like; empty for a direct event
/// connection.
fn edge_attributes(kind: ConnectionKind, mapping: Mapping) -> String {
    let mut attributes = Vec::new();
    if kind == ConnectionKind::Request {
        attributes.push("style=dashed".to_string());
    }
    if mapping != Mapping::Direct {
        attributes.push(format!("label=\"{mapping}\""));
    }
    if attributes.is_empty() {
        String::new()
    } else {
        format!(" [{}]", attributes.join(", "))
    }
}

/// A model's record: `{{<i0> in: T|…}|name\nType|{<o0> out: T|…}}`.
fn record_label(model: &ModelNode) -> String {
    let mut fields = Vec::new();
    if !model.inputs.is_empty() {
        fields.push(port_fields('i', model.inputs));
    }
    fields.push(format!(
        "{}\\n{}",
        record_text(model.name()),
        record_text(model.type_name)
    ));
    if !model.outputs.is_empty() {
        fields.push(port_fields('o', model.outputs));
    }
    format!("{{{}}}", fields.join("|"))
}

/// A column of port fields: `{<i0> set: f64|<i1> read: () → f64}`.
fn port_fields(side: char, ports: &[crate::model::PortMetadata]) -> String {
    let fields: Vec<String> = ports
        .iter()
        .enumerate()
        .map(|(i, port)| {
            let signature = match port.reply {
                Some(reply) => format!("{}: {} → {}", port.name, port.payload, reply),
                None => format!("{}: {}", port.name, port.payload),
            };
            format!("<{side}{i}> {}", record_text(&signature))
        })
        .collect();
    format!("{{{}}}", fields.join("|"))
}

/// A source's type: `T`, or `T → R` for a query source.
pub(super) fn source_type(payload: &str, reply: Option<&str>) -> String {
    match reply {
        Some(reply) => format!("{payload} → {reply}"),
        None => payload.to_string(),
    }
}

/// `text` inside a quoted record label: the record syntax's characters and
/// the string's own escaped.
fn record_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '{' | '}' | '|' | '<' | '>') {
            out.push('\\');
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out
}

/// `text` inside a quoted DOT string.
fn quoted(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
