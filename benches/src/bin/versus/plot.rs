//! The throughput plot: hand-written SVG, one group of bars per workload
//! and parameter set, one bar per engine and thread count, log scale.
//!
//! Hand-written rather than a plotting crate: it is a few rectangles and
//! labels, and it keeps the benches' dependencies to the engines compared.

use std::fmt::Write;

use causim_benches::Engine;

use crate::stats::Series;

const WIDTH: f64 = 960.0;
const LABEL: f64 = 300.0;
const BAR: f64 = 13.0;
const GAP: f64 = 12.0;
const TOP: f64 = 50.0;

/// The colour of an engine's bars.
fn colour(engine: Engine) -> &'static str {
    match engine {
        Engine::Causim => "#1f77b4",
        Engine::CausimHand => "#17becf",
        Engine::Nexosim => "#ff7f0e",
        Engine::Tokio => "#2ca02c",
    }
}

/// The plot of every measured series.
pub fn svg(all: &[Series]) -> String {
    let rows: Vec<(&Series, f64)> = all
        .iter()
        .filter_map(|s| Some((s, s.summary()?.events_per_s())))
        .collect();
    let (lo, hi) = decades(rows.iter().map(|&(_, v)| v));
    let x = |v: f64| LABEL + (v.log10() - lo) / (hi - lo) * (WIDTH - LABEL - 90.0);
    let mut body = String::new();
    let mut y = TOP;
    let mut previous: Option<(&str, String)> = None;
    for &(series, value) in &rows {
        let c = &series.config;
        let group = (c.workload.name(), c.params.to_string());
        if previous.as_ref() != Some(&group) {
            y += GAP;
            let _ = write!(
                body,
                r#"<text x="4" y="{:.1}" font-weight="bold">{} {}</text>"#,
                y + BAR - 2.0,
                group.0,
                group.1
            );
            previous = Some(group);
        }
        bar(&mut body, y, x(value), series, value);
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
fn bar(out: &mut String, y: f64, end: f64, series: &Series, value: f64) {
    let c = &series.config;
    let opacity = if c.threads == 1 { 1.0 } else { 0.55 };
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{} ×{}</text><rect x="{LABEL}" y="{y:.1}" width="{:.1}" height="{BAR}" fill="{}" fill-opacity="{opacity}"/><text x="{:.1}" y="{:.1}">{:.3e}</text>"#,
        LABEL - 4.0,
        y + BAR - 2.0,
        c.engine,
        c.threads,
        (end - LABEL).max(1.0),
        colour(c.engine),
        end + 4.0,
        y + BAR - 2.0,
        value
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
    out.push_str(r#"<text x="620" y="40">pale bars: 2 threads</text>"#);
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
