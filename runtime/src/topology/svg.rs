//! The SVG export (feature `svg`): the bench drawn without Graphviz.
//!
//! `layout-rs`, the pure-Rust Graphviz-style layout crate, was the first
//! candidate: it builds quickly (no dependency, ~5 s) and draws records,
//! but it flattens subgraphs, so composites would not be drawn as
//! clusters, which is the point of a hierarchical bench's diagram. The
//! layout here is this crate's own (see `svg/layout.rs`): small, with no
//! dependency, and it keeps each composite as a box holding its members.
//! A model is drawn like a DOT record turned upright: its name and type,
//! then one row per port, inputs on the left edge, outputs and requestors
//! on the right, where the connections attach. Event connections are
//! solid, request connections dashed, mapped ones labelled.

mod layout;

use std::fmt::Write;

pub(crate) use layout::{layout, Item, Layout, Rect};

use super::dot::source_type;
use super::graph::{
    last_segment, Connection, ConnectionKind, Endpoint, Members, ModelNode, Topology,
};
use crate::model::PortMetadata;
use crate::ports::Mapping;
use layout::{item_of, FONT_SIZE, HEADER, ROW};

/// The fills of composites, by depth (cycled).
const CLUSTER_FILLS: [&str; 3] = ["#eef2f8", "#e1e8f2", "#d4deec"];

impl Topology {
    /// The topology as an SVG picture, laid out by this crate (no system
    /// Graphviz): composites as nested boxes, models with their ports,
    /// sources, sinks and every connection. Requires the `svg` feature.
    pub fn to_svg(&self) -> String {
        let layout = layout(self);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
             viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"monospace\" font-size=\"{FONT_SIZE}\">",
            w = layout.width.ceil(),
            h = layout.height.ceil(),
        );
        out.push_str(concat!(
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" ",
            "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">",
            "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#444\"/></marker></defs>\n",
        ));
        let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
        self.draw_clusters(&mut out, &layout, &Members::of(self), None, 0);
        let unbound = self.unbound_models();
        for connection in &self.connections {
            self.draw_connection(&mut out, &layout, &unbound, connection);
        }
        for (m, model) in self.models.iter().enumerate() {
            if let Some(rect) = layout.boxes.get(&Item::Model(m)) {
                draw_model(&mut out, rect, model);
            }
        }
        for (s, source) in self.sources.iter().enumerate() {
            if let Some(rect) = layout.boxes.get(&Item::Source(s)) {
                let kind = source_type(source.payload, source.reply);
                draw_source(&mut out, rect, &source.name, &kind);
            }
        }
        for (s, sink) in self.sinks.iter().enumerate() {
            if let Some(rect) = layout.boxes.get(&Item::Sink(s)) {
                draw_leaf(
                    &mut out,
                    rect,
                    &sink.name,
                    sink.payload,
                    "sink",
                    "rx=\"12\"",
                );
            }
        }
        for (u, type_name) in unbound.iter().enumerate() {
            if let Some(rect) = layout.boxes.get(&Item::Unbound(u)) {
                let style = "stroke-dasharray=\"4,3\"";
                draw_leaf(
                    &mut out,
                    rect,
                    type_name,
                    "(not in the bench)",
                    "unbound",
                    style,
                );
            }
        }
        out.push_str("</svg>\n");
        out
    }

    /// The boxes of the composites in `parent`, outermost first.
    fn draw_clusters(
        &self,
        out: &mut String,
        layout: &Layout,
        members: &Members,
        parent: Option<usize>,
        depth: usize,
    ) {
        for &c in members.composites(parent) {
            let Some(rect) = layout.boxes.get(&Item::Composite(c)) else {
                continue;
            };
            let composite = &self.composites[c];
            let _ = writeln!(
                out,
                "<g class=\"cluster\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
                 rx=\"8\" fill=\"{}\" stroke=\"#8a9bb5\"/><text x=\"{:.1}\" y=\"{:.1}\" \
                 font-weight=\"bold\">{} ({})</text></g>",
                rect.x,
                rect.y,
                rect.w,
                rect.h,
                CLUSTER_FILLS[depth % CLUSTER_FILLS.len()],
                rect.x + 8.0,
                rect.y + 15.0,
                xml(last_segment(&composite.path)),
                xml(composite.type_name),
            );
            self.draw_clusters(out, layout, members, Some(c), depth + 1);
        }
    }

    /// One connection: a curve from the sending anchor to the receiving
    /// one, dashed for requests, labelled when mapped.
    fn draw_connection(
        &self,
        out: &mut String,
        layout: &Layout,
        unbound: &[&str],
        connection: &Connection,
    ) {
        let (Some(from), Some(to)) = (
            self.anchor(layout, unbound, connection.from, Side::Out),
            self.anchor(layout, unbound, connection.to, Side::In),
        ) else {
            return;
        };
        let dash = match connection.kind {
            ConnectionKind::Request => " stroke-dasharray=\"5,3\"",
            ConnectionKind::Event => "",
        };
        let middle = (from.0 + to.0) / 2.0;
        let (path, label_at) = if to.0 > from.0 + 20.0 {
            (
                forward_curve(from, to),
                (middle, (from.1 + to.1) / 2.0 - 4.0),
            )
        } else {
            // Backwards (a cycle, or within a column): around, below both
            // boxes.
            let bottom = |endpoint| {
                layout
                    .boxes
                    .get(&item_of(unbound, endpoint))
                    .map_or(0.0, |r| r.y + r.h)
            };
            let below = bottom(connection.from).max(bottom(connection.to)) + 10.0;
            (loop_below(from, to, below), (middle, below - 3.0))
        };
        let _ = writeln!(
            out,
            "<path class=\"connection\" d=\"{path}\" fill=\"none\" stroke=\"#444\"{dash} \
             marker-end=\"url(#arrow)\"/>"
        );
        if connection.mapping != Mapping::Direct {
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\" \
                 font-size=\"9\">{}</text>",
                label_at.0, label_at.1, connection.mapping,
            );
        }
    }

    /// Where a connection attaches to `endpoint`.
    fn anchor(
        &self,
        layout: &Layout,
        unbound: &[&str],
        endpoint: Endpoint,
        side: Side,
    ) -> Option<(f64, f64)> {
        let rect = layout.boxes.get(&item_of(unbound, endpoint))?;
        let x = match side {
            Side::In => rect.x,
            Side::Out => rect.x + rect.w,
        };
        let y = match endpoint {
            Endpoint::Port { model, port } => {
                let node = &self.models[model];
                let ports = match side {
                    Side::In => node.inputs,
                    Side::Out => node.outputs,
                };
                match ports.iter().position(|p| p.name == port) {
                    Some(row) => rect.y + HEADER + row as f64 * ROW + ROW / 2.0,
                    None => rect.y + HEADER / 2.0,
                }
            }
            _ => rect.y + rect.h / 2.0,
        };
        Some((x, y))
    }
}

/// A curve from `from` rightwards to `to`, leaving and entering
/// horizontally.
fn forward_curve(from: (f64, f64), to: (f64, f64)) -> String {
    let reach = ((to.0 - from.0) / 2.0).max(20.0);
    format!(
        "M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
        from.0,
        from.1,
        from.0 + reach,
        from.1,
        to.0 - reach,
        to.1,
        to.0,
        to.1
    )
}

/// A path from `from` (leaving rightwards) to `to` (entering rightwards)
/// that turns down to `below`, runs back left there and comes up again.
fn loop_below(from: (f64, f64), to: (f64, f64), below: f64) -> String {
    format!(
        "M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} L{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
        from.0,
        from.1,
        from.0 + 24.0,
        from.1,
        from.0 + 24.0,
        below,
        from.0,
        below,
        to.0,
        below,
        to.0 - 24.0,
        below,
        to.0 - 24.0,
        to.1,
        to.0,
        to.1
    )
}

/// The side of a box a connection attaches to.
#[derive(Clone, Copy)]
enum Side {
    /// The left edge: receiving.
    In,
    /// The right edge: sending.
    Out,
}

/// A model: its header, a rule, then its ports in two columns.
fn draw_model(out: &mut String, rect: &Rect, model: &ModelNode) {
    let _ = writeln!(
        out,
        "<g class=\"model\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
         fill=\"white\" stroke=\"#333\"/>",
        rect.x, rect.y, rect.w, rect.h
    );
    let middle = rect.x + rect.w / 2.0;
    let _ = writeln!(
        out,
        "<text x=\"{middle:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>\
         <text x=\"{middle:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
        rect.y + 15.0,
        xml(model.name()),
        rect.y + 29.0,
        xml(model.type_name),
    );
    if !model.inputs.is_empty() || !model.outputs.is_empty() {
        let _ = writeln!(
            out,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\"/>",
            rect.x,
            rect.y + HEADER,
            rect.x + rect.w,
            rect.y + HEADER
        );
    }
    for (row, port) in model.inputs.iter().enumerate() {
        let y = rect.y + HEADER + row as f64 * ROW + ROW / 2.0 + 4.0;
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{y:.1}\">{}</text>",
            rect.x + 6.0,
            xml(&port_label(port))
        );
    }
    for (row, port) in model.outputs.iter().enumerate() {
        let y = rect.y + HEADER + row as f64 * ROW + ROW / 2.0 + 4.0;
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"end\">{}</text>",
            rect.x + rect.w - 6.0,
            xml(&port_label(port))
        );
    }
    out.push_str("</g>\n");
}

/// A source: a flag pointing at what it drives.
fn draw_source(out: &mut String, rect: &Rect, name: &str, kind: &str) {
    let (x, y, w, h) = (rect.x, rect.y, rect.w, rect.h);
    let _ = writeln!(
        out,
        "<g class=\"source\"><polygon points=\"{x:.1},{y:.1} {:.1},{y:.1} {:.1},{:.1} {:.1},{:.1} \
         {x:.1},{:.1}\" fill=\"#fff8e6\" stroke=\"#333\"/>",
        x + w - 12.0,
        x + w,
        y + h / 2.0,
        x + w - 12.0,
        y + h,
        y + h,
    );
    write_two_lines(out, x + (w - 12.0) / 2.0, y, name, kind);
    out.push_str("</g>\n");
}

/// A sink or a model not in the bench: a box with `style`.
fn draw_leaf(out: &mut String, rect: &Rect, name: &str, kind: &str, class: &str, style: &str) {
    let _ = writeln!(
        out,
        "<g class=\"{class}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
         {style} fill=\"#eef8ee\" stroke=\"#333\"/>",
        rect.x, rect.y, rect.w, rect.h
    );
    write_two_lines(out, rect.x + rect.w / 2.0, rect.y, name, kind);
    out.push_str("</g>\n");
}

/// A name over a type, centred on `x`, from `top`.
fn write_two_lines(out: &mut String, x: f64, top: f64, name: &str, kind: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
         <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
        top + 15.0,
        xml(name),
        top + 29.0,
        xml(kind),
    );
}

/// `name: T`, or `name: T → R` for a port with a reply.
fn port_label(port: &PortMetadata) -> String {
    match port.reply {
        Some(reply) => format!("{}: {} → {}", port.name, port.payload, reply),
        None => format!("{}: {}", port.name, port.payload),
    }
}

/// `text` as XML character data.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
