//! The throughput plot: hand-written SVG, one group of bars per workload
//! and parameter set, one bar per engine and thread count, log scale.
//!
//! Hand-written rather than a plotting crate: it is a few rectangles and
//! labels, and it keeps the benches' dependencies to the engines compared.

use std::fmt::Write;

use causim_benches::{Engine, Threads};
use serde_json::Value;

use crate::stats::Series;

/// One bar: a median throughput.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Workload and parameters, e.g. `ring models=100,hops=…`.
    pub group: String,
    pub engine: Engine,
    pub threads: Threads,
    /// Events per second.
    pub value: f64,
}

/// The bars of every measured series.
pub fn bars(all: &[Series]) -> Vec<Bar> {
    all.iter()
        .filter_map(|s| {
            Some(Bar {
                group: format!("{} {}", s.config.workload, s.config.params),
                engine: s.config.engine,
                threads: s.config.threads,
                value: s.summary()?.events_per_s(),
            })
        })
        .collect()
}

/// The bars of the JSON lines `versus --json` wrote.
pub fn bars_from_json(lines: &str) -> Result<Vec<Bar>, String> {
    let mut bars = Vec::new();
    for line in lines.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let Some(value) = v["events_per_s"].as_f64() else {
            continue; // skipped configuration
        };
        let params = v["params"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default();
        bars.push(Bar {
            group: format!("{} {params}", v["workload"].as_str().unwrap_or("?")),
            engine: v["engine"].as_str().unwrap_or("?").parse()?,
            threads: v["threads"].as_u64().unwrap_or(1) as Threads,
            value,
        });
    }
    Ok(bars)
}

const WIDTH: f64 = 960.0;
const LABEL: f64 = 160.0;
const BAR: f64 = 13.0;
const GAP: f64 = 12.0;
const TOP: f64 = 50.0;

/// The colour of an engine's bars.
fn colour(engine: Engine) -> &'static str {
    match engine {
        Engine::Causim => "#1f77b4",
        Engine::CausimHand => "#17becf",
        Engine::CausimComposite => "#9467bd",
        Engine::CausimRecorded => "#8c564b",
        Engine::CausimOrdered => "#9467bd",
        Engine::Nexosim => "#ff7f0e",
        Engine::Tokio => "#2ca02c",
    }
}

/// The plot of `bars`, grouped in order.
pub fn svg(bars: &[Bar]) -> String {
    let (lo, hi) = decades(bars.iter().map(|b| b.value));
    let x = |v: f64| LABEL + (v.log10() - lo) / (hi - lo) * (WIDTH - LABEL - 90.0);
    let mut body = String::new();
    let mut y = TOP;
    let mut previous: Option<&str> = None;
    for bar in bars {
        if previous != Some(&bar.group) {
            y += GAP;
            let _ = write!(
                body,
                r#"<text x="4" y="{:.1}" font-weight="bold">{}</text>"#,
                y + BAR - 2.0,
                bar.group
            );
            y += BAR + 2.0;
            previous = Some(&bar.group);
        }
        draw(&mut body, y, x(bar.value), bar);
        y += BAR + 2.0;
    }
    axis(&mut body, lo, hi, y, &x);
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{:.0}" font-family="sans-serif" font-size="11"><rect width="100%" height="100%" fill="white"/><text x="4" y="20" font-size="15" font-weight="bold">Throughput (events/s, log scale; longer is faster) — median of the repetitions</text>{}{body}</svg>"#,
        y + 40.0,
        legend()
    )
}

/// One bar with its label and value.
fn draw(out: &mut String, y: f64, end: f64, bar: &Bar) {
    let opacity = if bar.threads == 1 { 1.0 } else { 0.55 };
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}, {} thr</text><rect x="{LABEL}" y="{y:.1}" width="{:.1}" height="{BAR}" fill="{}" fill-opacity="{opacity}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
        LABEL - 4.0,
        y + BAR - 2.0,
        bar.engine,
        bar.threads,
        (end - LABEL).max(1.0),
        colour(bar.engine),
        end + 4.0,
        y + BAR - 2.0,
        crate::report::rate(bar.value)
    );
}

/// The legend under the title.
fn legend() -> String {
    let mut out = String::new();
    for (i, engine) in Engine::ALL.into_iter().enumerate() {
        let x = 4.0 + i as f64 * 150.0;
        let _ = write!(
            out,
            r#"<rect x="{x}" y="30" width="12" height="12" fill="{}"/><text x="{:.0}" y="40">{engine}</text>"#,
            colour(engine),
            x + 16.0
        );
    }
    out.push_str(r#"<text x="620" y="40">pale bars: 2 threads (thr)</text>"#);
    out
}

/// Decade grid lines and labels.
fn axis(out: &mut String, lo: f64, hi: f64, bottom: f64, x: &impl Fn(f64) -> f64) {
    let mut decade = lo;
    while decade <= hi {
        let px = x(10f64.powf(decade));
        let _ = write!(
            out,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{bottom:.1}" stroke="#ccc"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">1e{decade}</text>"##,
            bottom + 14.0
        );
        decade += 1.0;
    }
}

/// The decades that span `values` (log10 bounds).
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| *v > 0.0)
        .fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let (lo, hi) = (lo.log10().floor(), hi.log10().ceil());
    (lo, hi.max(lo + 1.0))
}
