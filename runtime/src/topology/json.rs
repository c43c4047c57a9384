//! The JSON export: a documented schema, written by hand.
//!
//! The schema (version [`JSON_SCHEMA_VERSION`]) is documented in
//! `docs/guide.md`, "Topology"; this file is its only writer. It is built
//! as a small tree of values and printed with two-space indentation,
//! objects' keys in the schema's order, so that the output is stable and
//! diffs well. Writing it here rather than through serde keeps the core
//! crate free of dependencies for forty lines of printing.

use std::fmt::Write;

use super::graph::{Endpoint, Topology};
use super::JSON_SCHEMA_VERSION;
use crate::model::PortMetadata;

/// A JSON value.
enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A non-negative integer.
    Number(u64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, keys in order.
    Object(Vec<(&'static str, Value)>),
}

impl Topology {
    /// The topology as JSON, in the schema documented in `docs/guide.md`
    /// ("Topology"), version [`JSON_SCHEMA_VERSION`].
    ///
    /// Models, composites and connections refer to models and composites
    /// by path, and to sources and sinks by name; every list is in the
    /// order of [`Topology`]'s, so that two builds of one bench give
    /// identical output.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, &self.json_value(), 0);
        out.push('\n');
        out
    }

    /// The whole document.
    fn json_value(&self) -> Value {
        Value::Object(vec![
            ("schema", str("causim-topology")),
            ("version", Value::Number(JSON_SCHEMA_VERSION.into())),
            (
                "composites",
                array(self.composites.iter().map(|c| {
                    Value::Object(vec![
                        ("path", str(&c.path)),
                        ("type", str(c.type_name)),
                        ("parent", self.composite_path(c.parent)),
                    ])
                })),
            ),
            (
                "models",
                array(self.models.iter().map(|m| {
                    Value::Object(vec![
                        ("path", str(&m.path)),
                        ("type", str(m.type_name)),
                        ("composite", self.composite_path(m.composite)),
                        ("ports", array(m.ports().map(port_value))),
                    ])
                })),
            ),
            (
                "sources",
                array(self.sources.iter().map(|s| {
                    Value::Object(vec![
                        ("name", str(&s.name)),
                        ("kind", str(s.kind.as_str())),
                        ("payload", str(s.payload)),
                        ("reply", s.reply.map_or(Value::Null, str)),
                    ])
                })),
            ),
            (
                "sinks",
                array(self.sinks.iter().map(|s| {
                    Value::Object(vec![
                        ("name", str(&s.name)),
                        ("payload", str(s.payload)),
                        ("named", Value::Bool(s.named)),
                    ])
                })),
            ),
            (
                "connections",
                array(self.connections.iter().map(|c| {
                    Value::Object(vec![
                        ("from", self.endpoint_value(c.from)),
                        ("to", self.endpoint_value(c.to)),
                        ("kind", str(c.kind.as_str())),
                        ("mapping", str(c.mapping.as_str())),
                    ])
                })),
            ),
        ])
    }

    /// A composite's path, or `null`.
    fn composite_path(&self, composite: Option<usize>) -> Value {
        composite.map_or(Value::Null, |c| str(&self.composites[c].path))
    }

    /// One end of a connection: `{"model", "port"}`, `{"source"}`,
    /// `{"sink"}` or `{"unbound", "port"}`.
    fn endpoint_value(&self, endpoint: Endpoint) -> Value {
        Value::Object(match endpoint {
            Endpoint::Port { model, port } => vec![
                ("model", str(&self.models[model].path)),
                ("port", str(port)),
            ],
            Endpoint::Source(source) => vec![("source", str(&self.sources[source].name))],
            Endpoint::Sink(sink) => vec![("sink", str(&self.sinks[sink].name))],
            Endpoint::Unbound { type_name, port } => {
                vec![("unbound", str(type_name)), ("port", str(port))]
            }
        })
    }
}

/// One port of a model.
fn port_value(port: &PortMetadata) -> Value {
    Value::Object(vec![
        ("name", str(port.name)),
        ("kind", str(&port.kind.to_string())),
        ("payload", str(port.payload)),
        ("reply", port.reply.map_or(Value::Null, str)),
        ("required", Value::Bool(port.required)),
    ])
}

/// A string value.
fn str(s: &str) -> Value {
    Value::Str(s.to_string())
}

/// An array of `items`.
fn array(items: impl Iterator<Item = Value>) -> Value {
    Value::Array(items.collect())
}

/// Prints `value` at indentation `depth`: a scalar, an empty container or
/// an object of scalars on one line, anything else over several.
fn write_value(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Str(s) => write_string(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(out, depth + 1);
                write_value(out, item, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push(']');
        }
        Value::Object(fields) if fields.iter().all(|(_, v)| is_flat(v)) => {
            out.push('{');
            for (i, (key, field)) in fields.iter().enumerate() {
                out.push_str(if i == 0 { "" } else { ", " });
                write_string(out, key);
                out.push_str(": ");
                write_value(out, field, depth);
            }
            out.push('}');
        }
        Value::Object(fields) => {
            out.push('{');
            for (i, (key, field)) in fields.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(out, depth + 1);
                write_string(out, key);
                out.push_str(": ");
                write_value(out, field, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push('}');
        }
    }
}

/// True for a value printed on one line inside an object: a scalar, or
/// an object of scalars (a connection's ends).
fn is_flat(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.iter().all(|(_, v)| is_scalar(v)),
        _ => true,
    }
}

/// True for a value that is neither an array nor an object.
fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// Two spaces per level.
fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// `s` as a JSON string: quotes, backslashes and control characters
/// escaped.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
