//! CSV files of recorded series.
//!
//! Two layouts, because two readers want them:
//!
//! - **long** (`time_s,series,value`): one line per sample, lossless, easy
//!   to filter or pivot;
//! - **wide** (`time_s,<series 1>,<series 2>,…`): one line per time at
//!   which anything was recorded, each column holding its series' latest
//!   value (sample and hold; empty before its first sample). It is what a
//!   spreadsheet plots directly. Of several samples of one series at one
//!   time it keeps the last.
//!
//! Times are written exactly, in seconds with nine decimals (the
//! simulation's nanoseconds), so files of two runs compare byte for byte.

use std::io::{self, Write};

use causim::SimTime;

use crate::recording::{merged, Series};
use crate::value::Value;

/// Writes `series` in the long layout.
pub fn write_csv_long(series: &[Series], mut out: impl Write) -> io::Result<()> {
    writeln!(out, "time_s,series,value")?;
    // Each name's cell, quoted if it must be, once: `,name,`.
    let names: Vec<String> = series
        .iter()
        .map(|s| format!(",{},", Cell(&s.name)))
        .collect();
    for (i, sample) in merged(series) {
        write_time(&mut out, sample.time)?;
        out.write_all(names[i].as_bytes())?;
        write_value(&mut out, &sample.value)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Writes `series` in the wide layout.
pub fn write_csv_wide(series: &[Series], mut out: impl Write) -> io::Result<()> {
    write!(out, "time_s")?;
    for s in series {
        write!(out, ",{}", Cell(&s.name))?;
    }
    writeln!(out)?;
    let mut latest: Vec<Option<Value>> = vec![None; series.len()];
    let samples = merged(series);
    let mut rest = samples.as_slice();
    while let Some(&(_, first)) = rest.first() {
        // Every sample at this time, then one line.
        let at_time = rest
            .iter()
            .take_while(|(_, s)| s.time == first.time)
            .count();
        for (i, sample) in &rest[..at_time] {
            latest[*i] = Some(sample.value);
        }
        rest = &rest[at_time..];
        write_time(&mut out, first.time)?;
        for value in &latest {
            out.write_all(b",")?;
            if let Some(value) = value {
                write_value(&mut out, value)?;
            }
        }
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Writes `time` in seconds, exactly.
fn write_time(out: &mut impl Write, time: SimTime) -> io::Result<()> {
    let nanos = time.as_nanos();
    write!(
        out,
        "{}.{:09}",
        nanos / 1_000_000_000,
        nanos % 1_000_000_000
    )
}

/// Writes one value as a cell.
fn write_value(out: &mut impl Write, value: &Value) -> io::Result<()> {
    match value {
        Value::Bool(v) => out.write_all(if *v { b"1" } else { b"0" }),
        Value::Label(label) => write!(out, "{}", Cell(label)),
        other => write!(out, "{other}"),
    }
}

/// A text cell, quoted when it holds a comma, a quote or a line break.
struct Cell<'a>(&'a str);

impl std::fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.contains([',', '"', '\n', '\r']) {
            write!(f, "\"{}\"", self.0.replace('"', "\"\""))
        } else {
            f.write_str(self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_exactly() {
        let text = |nanos| {
            let mut out = Vec::new();
            write_time(&mut out, SimTime::from_nanos(nanos)).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(text(0), "0.000000000");
        assert_eq!(text(1_500_000_007), "1.500000007");
        assert_eq!(text(u64::MAX), "18446744073.709551615");
    }
}
