//! The markdown table and the JSON lines.

use std::fmt::Write;

use causim_benches::Engine;
use serde_json::{json, Map, Value};

use crate::stats::{Series, Summary};

/// NeXosim's median over this series' median (> 1: faster than NeXosim),
/// on the same workload, parameters and thread count.
pub fn ratio_vs_nexosim(series: &Series, all: &[Series]) -> Option<f64> {
    let mine = series.summary()?;
    let theirs = find(all, series, Engine::Nexosim, series.config.threads)?;
    Some(theirs.median_ns / mine.median_ns)
}

/// The summary of `engine` on `threads` for the same workload and params.
pub fn find(all: &[Series], like: &Series, engine: Engine, threads: usize) -> Option<Summary> {
    all.iter()
        .find(|s| {
            s.config.workload == like.config.workload
                && s.config.params == like.config.params
                && s.config.engine == engine
                && s.config.threads == threads
        })
        .and_then(Series::summary)
}

/// The markdown table.
pub fn table(all: &[Series]) -> String {
    let mut out = String::new();
    out.push_str("| workload | params | engine | threads | median ns/event | min..max ns/event | events/s | × NeXosim | build ns/model | bytes/model | bytes/model after 1 event |\n");
    out.push_str("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for series in all {
        let c = &series.config;
        let cells = match series.summary() {
            Some(s) => summary_cells(&s, ratio_vs_nexosim(series, all)),
            None => format!(
                "— | — | — | — | — | — | — ({})",
                series.note.as_deref().unwrap_or("no run")
            ),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            c.workload, c.params, c.engine, c.threads, cells
        );
    }
    out.push_str("\n× NeXosim: NeXosim's median time per event ÷ this engine's, same workload and thread count (> 1 is faster than NeXosim). scheduler-hold: one event per hold, and the bytes/model column holds the resident bytes per pending event.\n");
    out
}

/// The measured cells of one row.
fn summary_cells(s: &Summary, ratio: Option<f64>) -> String {
    format!(
        "{} | {}..{} | {} | {} | {} | {} | {}",
        ns(s.median_ns),
        ns(s.min_ns),
        ns(s.max_ns),
        rate(s.events_per_s()),
        ratio.map_or("—".into(), |r| format!("{r:.2}")),
        s.build_ns_per_model.map_or("—".into(), ns),
        s.bytes_per_model.map_or("—".into(), |b| format!("{b:.0}")),
        s.bytes_per_model_after_event
            .map_or("—".into(), |b| format!("{b:.0}")),
    )
}

/// Nanoseconds, with sensible precision.
fn ns(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else if v < 1000.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// Events per second, in M or k.
pub fn rate(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else {
        format!("{:.1} k", v / 1e3)
    }
}

/// One JSON object per workload × params × engine × threads.
pub fn json_lines(all: &[Series]) -> String {
    all.iter()
        .map(|series| json_line(series, all).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The JSON object of one series.
fn json_line(series: &Series, all: &[Series]) -> Value {
    let c = &series.config;
    let params: Map<String, Value> = c
        .params
        .iter()
        .map(|(k, v)| (k.to_owned(), json!(v)))
        .collect();
    let summary = series.summary();
    json!({
        "workload": c.workload.name(),
        "params": params,
        "engine": c.engine.name(),
        "threads": c.threads,
        "repetitions": series.runs.len(),
        "events": summary.map(|s| s.events),
        "median_ns_per_event": summary.map(|s| s.median_ns),
        "min_ns_per_event": summary.map(|s| s.min_ns),
        "max_ns_per_event": summary.map(|s| s.max_ns),
        "events_per_s": summary.map(|s| s.events_per_s()),
        "build_ns_per_model": summary.and_then(|s| s.build_ns_per_model),
        "bytes_per_model": summary.and_then(|s| s.bytes_per_model),
        "bytes_per_model_after_event": summary.and_then(|s| s.bytes_per_model_after_event),
        "ratio_vs_nexosim": ratio_vs_nexosim(series, all),
        "note": series.note,
    })
}
