//! VCD (value change dump, IEEE 1364) waveforms of recorded series, for
//! GTKWave, Surfer and other viewers. Written with the `vcd` crate.
//!
//! Each series name is a path: `sat/power/battery/soc` becomes the
//! variable `soc` in scope `battery` inside `power` inside `sat`, so a
//! viewer shows the bench's model tree. A name without `/` goes into the
//! top scope `bench`. The timescale is 1 ns, the simulation's resolution.
//! Reals are `real`, integers 64-bit `integer`, booleans 1-bit `wire`,
//! labels `string` (an extension GTKWave and Surfer read). Whitespace in a
//! name or a label is written as `_`, since it would end the token.

use std::io::{self, Write};

use ::vcd::{IdCode, TimescaleUnit, VarType, Writer};

use crate::recording::{merged, Series};
use crate::value::{Kind, Value};

/// The scope of names that have no `/`.
const TOP_SCOPE: &str = "bench";

/// The variable of a series whose name is empty (or only `/`).
const UNNAMED: &str = "unnamed";

/// A level of the scope tree: its subscopes and variables, in first-seen
/// order (a map would sort them; the series order is the user's).
#[derive(Default)]
struct Scope {
    /// Name and content of each subscope.
    scopes: Vec<(String, Scope)>,
    /// Reference and series index of each variable.
    vars: Vec<(String, usize)>,
}

impl Scope {
    /// Files series `index`, named by `path`, at its place in the tree.
    fn insert(&mut self, path: &[&str], index: usize) {
        match path {
            [] => {}
            [var] => self.vars.push((var.to_string(), index)),
            [scope, rest @ ..] => {
                let position = self.scopes.iter().position(|(n, _)| n == scope);
                let position = position.unwrap_or_else(|| {
                    self.scopes.push((scope.to_string(), Scope::default()));
                    self.scopes.len() - 1
                });
                self.scopes[position].1.insert(rest, index);
            }
        }
    }

    /// Writes this level's definitions; `ids[i]` gets series `i`'s code.
    fn define<W: Write>(
        &self,
        writer: &mut Writer<W>,
        series: &[Series],
        ids: &mut [Option<IdCode>],
    ) -> io::Result<()> {
        for (reference, index) in &self.vars {
            let (var_type, width) = match series[*index].kind {
                Kind::Real => (VarType::Real, 64),
                Kind::Int => (VarType::Integer, 64),
                Kind::Bool => (VarType::Wire, 1),
                Kind::Label => (VarType::String, 1),
            };
            ids[*index] = Some(writer.add_var(var_type, width, &identifier(reference), None)?);
        }
        for (name, scope) in &self.scopes {
            writer.add_module(&identifier(name))?;
            scope.define(writer, series, ids)?;
            writer.upscope()?;
        }
        Ok(())
    }
}

/// `name` as a VCD identifier: whitespace, which would end it, becomes `_`
/// (a model named `coffee machine` is scope `coffee_machine`).
fn identifier(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

/// Writes `series` as a VCD file.
pub fn write_vcd(series: &[Series], out: impl Write) -> io::Result<()> {
    let mut tree = Scope::default();
    for (index, s) in series.iter().enumerate() {
        let mut path: Vec<&str> = s.name.split('/').filter(|p| !p.is_empty()).collect();
        if path.is_empty() {
            // A variable needs a name and a scope.
            path.push(UNNAMED);
        }
        if path.len() < 2 {
            path.insert(0, TOP_SCOPE);
        }
        tree.insert(&path, index);
    }
    let mut writer = Writer::new(out);
    writer.version("causim-record")?;
    writer.timescale(1, TimescaleUnit::NS)?;
    let mut ids = vec![None; series.len()];
    tree.define(&mut writer, series, &mut ids)?;
    writer.enddefinitions()?;
    let mut current = None;
    for (index, sample) in merged(series) {
        let time = sample.time.as_nanos();
        if current != Some(time) {
            writer.timestamp(time)?;
            current = Some(time);
        }
        // Every series was given a code by `define`.
        let Some(id) = ids[index] else { continue };
        write_change(&mut writer, id, &sample.value)?;
    }
    writer.flush()
}

/// Writes one value change.
fn write_change<W: Write>(writer: &mut Writer<W>, id: IdCode, value: &Value) -> io::Result<()> {
    match *value {
        Value::Real(v) => writer.change_real(id, v),
        Value::Int(v) => {
            // Two's complement, most significant bit first, without the
            // leading zeros (a viewer extends a shorter vector with 0).
            let width = if v < 0 {
                64
            } else {
                (64 - v.leading_zeros()).max(1)
            };
            let bits = (0..width).rev().map(|bit| {
                if (v >> bit) & 1 == 1 {
                    ::vcd::Value::V1
                } else {
                    ::vcd::Value::V0
                }
            });
            writer.change_vector(id, bits)
        }
        Value::Bool(v) => writer.change_scalar(id, v),
        Value::Label(label) => writer.change_string(id, &identifier(label)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::Sample;
    use causim::SimTime;

    fn series(name: &str) -> Series {
        Series {
            name: name.to_string(),
            kind: Kind::Bool,
            samples: vec![Sample {
                time: SimTime::from_nanos(5),
                value: Value::Bool(true),
            }],
        }
    }

    #[test]
    fn every_variable_gets_a_scope_whatever_its_name() {
        let all = [series(""), series("/"), series("flat"), series("a b/c d")];
        let mut out = Vec::new();
        write_vcd(&all, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let header = ::vcd::Parser::new(text.as_bytes()).parse_header().unwrap();
        assert!(header.find_var(&["bench", "unnamed"]).is_some(), "{text}");
        assert!(header.find_var(&["bench", "flat"]).is_some(), "{text}");
        assert!(header.find_var(&["a_b", "c_d"]).is_some(), "{text}");
    }
}
