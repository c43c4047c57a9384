//! The targets, checked against the medians of this run, and the
//! memory guard that skips a scale run that would not fit.

use std::fmt::Write;

use causim_benches::{Engine, Workload};

use crate::report::find;
use crate::stats::{Config, Series};

/// Runs whose estimated memory exceeds this share of available memory are
/// skipped.
const MEMORY_SHARE: f64 = 0.7;

/// Head-room over the measured bytes per model: allocator slack and the
/// peaks of growing vectors while building.
const MEMORY_HEADROOM: f64 = 1.3;

/// Why `config` must not run, if it would not fit in memory: estimated
/// from the bytes per model of the same engine at the largest size
/// already measured.
pub fn memory_guard(config: &Config, done: &[Series]) -> Option<String> {
    if config.workload != Workload::Scale {
        return None;
    }
    let models = config.params.get("models") as f64;
    let per_model = done
        .iter()
        .filter(|s| s.config.workload == Workload::Scale && s.config.engine == config.engine)
        .filter_map(|s| Some((s.config.params.get("models"), s.summary()?.bytes_per_model?)))
        .max_by_key(|&(m, _)| m)
        .map(|(_, b)| b)?;
    let needed = per_model * models * MEMORY_HEADROOM;
    let available = available_bytes()?;
    (needed > available * MEMORY_SHARE).then(|| {
        format!(
            "skipped: ~{:.1} GiB estimated ({per_model:.0} B/model × {MEMORY_HEADROOM}), {:.1} GiB available",
            needed / 1_073_741_824.0,
            available / 1_073_741_824.0
        )
    })
}

/// `MemAvailable` from /proc/meminfo, in bytes.
fn available_bytes() -> Option<f64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// The targets section: each target with the figures of this run.
pub fn check(all: &[Series]) -> String {
    let mut out = String::from("## Targets (medians of this run)\n\n");
    for line in pinball(all)
        .into_iter()
        .chain(recording(all))
        .chain(ordered(all))
        .chain(ring(all))
        .chain(chain(all))
        .chain(dispatch(all))
        .chain(fanin(all))
        .chain(memory(all))
        .chain(event_list(all))
    {
        let _ = writeln!(out, "- {line}");
    }
    out
}

/// `met`/`MISSED` for a figure against a bound.
fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

/// The causim series of `workload`.
fn causim_series(
    all: &[Series],
    workload: Workload,
    threads: usize,
) -> impl Iterator<Item = &Series> {
    all.iter().filter(move |s| {
        s.config.workload == workload
            && s.config.engine == Engine::Causim
            && s.config.threads == threads
    })
}

/// Pinball speed-ups over NeXosim (1 and 2 threads) and Tokio (2 threads).
fn pinball(all: &[Series]) -> Vec<String> {
    let mut lines = Vec::new();
    for (threads, engine, bound) in [
        (1, Engine::Nexosim, 4.0),
        (2, Engine::Nexosim, 2.0),
        (2, Engine::Tokio, 1.5),
    ] {
        for s in causim_series(all, Workload::Pinball, threads) {
            let (Some(mine), Some(theirs)) = (s.summary(), find(all, s, engine, threads)) else {
                continue;
            };
            let r = theirs.median_ns / mine.median_ns;
            lines.push(format!(
                "pinball {} on {threads} thread(s): {r:.2}× {engine} (target ≥ {bound}×): {}",
                s.config.params,
                verdict(r >= bound)
            ));
        }
    }
    lines
}

/// The cost of recording one sample per pinball hop (`causim-recorded`
/// against `causim`, same parameters and threads), as a share of the hop.
fn recording(all: &[Series]) -> Vec<String> {
    let mut lines = Vec::new();
    for threads in [1, 2] {
        for s in causim_series(all, Workload::Pinball, threads) {
            let (Some(plain), Some(recorded)) =
                (s.summary(), find(all, s, Engine::CausimRecorded, threads))
            else {
                continue;
            };
            let extra = recorded.median_ns / plain.median_ns - 1.0;
            lines.push(format!(
                "pinball {} on {threads} thread(s), recording every hop: +{:.1} ns/hop = {:.0} % of the hop ({:.1} → {:.1} ns; target ≤ 20 %): {}",
                s.config.params,
                recorded.median_ns - plain.median_ns,
                100.0 * extra,
                plain.median_ns,
                recorded.median_ns,
                verdict(extra <= 0.20)
            ));
        }
    }
    lines
}

/// The cost of the deterministic message order (`causim-ordered` against
/// `causim`, same parameters and threads) on pinball and the scheduler
/// workloads.
fn ordered(all: &[Series]) -> Vec<String> {
    let workloads = [
        Workload::Pinball,
        Workload::SchedChain,
        Workload::SchedDrain,
        Workload::SchedAligned,
        Workload::SchedStaggered,
    ];
    let mut lines = Vec::new();
    for workload in workloads {
        for threads in [1, 2] {
            for s in causim_series(all, workload, threads) {
                let (Some(causal), Some(ordered)) =
                    (s.summary(), find(all, s, Engine::CausimOrdered, threads))
                else {
                    continue;
                };
                let r = ordered.median_ns / causal.median_ns;
                lines.push(format!(
                    "{workload} {} on {threads} thread(s), deterministic message order: {r:.2}× the causal order ({:.1} → {:.1} ns/event; target ≤ 1.3×): {}",
                    s.config.params,
                    causal.median_ns,
                    ordered.median_ns,
                    verdict(r <= 1.3)
                ));
            }
        }
    }
    lines
}

/// Ring time per hop, single-threaded.
fn ring(all: &[Series]) -> Vec<String> {
    causim_series(all, Workload::Ring, 1)
        .filter_map(|s| {
            let m = s.summary()?.median_ns;
            Some(format!(
                "ring {}: {m:.1} ns/hop (target ≤ 50): {}",
                s.config.params,
                verdict(m <= 50.0)
            ))
        })
        .collect()
}

/// One-event scheduler step, 1 and 2 threads.
fn chain(all: &[Series]) -> Vec<String> {
    [(1, 50.0), (2, 1000.0)]
        .into_iter()
        .flat_map(|(threads, bound)| {
            causim_series(all, Workload::SchedChain, threads).filter_map(move |s| {
                let m = s.summary()?.median_ns;
                Some(format!(
                    "one-event scheduler step on {threads} thread(s): {m:.1} ns (target ≤ {bound}): {}",
                    verdict(m <= bound)
                ))
            })
        })
        .collect()
}

/// Generated ÷ hand-written dispatch, by medians and by minimums (the
/// same code in two processes differs by placement noise only, which the
/// minimum filters best).
fn dispatch(all: &[Series]) -> Vec<String> {
    causim_series(all, Workload::Dispatch, 1)
        .filter_map(|s| {
            let generated = s.summary()?;
            let hand = find(all, s, Engine::CausimHand, 1)?;
            let r = generated.median_ns / hand.median_ns;
            let r_min = generated.min_ns / hand.min_ns;
            Some(format!(
                "generated ÷ hand-written dispatch: {r:.3} by medians ({:.1} / {:.1} ns), {r_min:.3} by minimums (target ≤ 1.02): {}",
                generated.median_ns,
                hand.median_ns,
                verdict(r <= 1.02)
            ))
        })
        .collect()
}

/// Fan-in into a 16-slot mailbox ÷ the same burst into a mailbox with a
/// slot per sender, per message, on 1 and 2 threads.
fn fanin(all: &[Series]) -> Vec<String> {
    let mut lines = Vec::new();
    for threads in [1, 2] {
        for s in causim_series(all, Workload::Fanin, threads) {
            if s.config.params.get("capacity") == 0 {
                continue;
            }
            let unbounded = all.iter().find(|u| {
                u.config.workload == Workload::Fanin
                    && u.config.engine == Engine::Causim
                    && u.config.threads == threads
                    && u.config.params.get("capacity") == 0
                    && u.config.params.get("senders") == s.config.params.get("senders")
            });
            let (Some(small), Some(unbounded)) = (s.summary(), unbounded.and_then(Series::summary))
            else {
                continue;
            };
            let r = small.median_ns / unbounded.median_ns;
            lines.push(format!(
                "fanin {} on {threads} thread(s): {:.1} ns/message, {r:.2}× the mailbox nobody waits on ({:.1} ns) (target ≤ 2×): {}",
                s.config.params,
                small.median_ns,
                unbounded.median_ns,
                verdict(r <= 2.0)
            ));
        }
    }
    lines
}

/// Resident bytes per idle model.
fn memory(all: &[Series]) -> Vec<String> {
    all.iter()
        .filter(|s| {
            s.config.workload == Workload::Scale
                && s.config.engine == Engine::Causim
                && s.config.threads == 1
        })
        .filter_map(|s| {
            let summary = s.summary()?;
            let b = summary.bytes_per_model?;
            let after = summary
                .bytes_per_model_after_event
                .map_or(String::new(), |a| format!("; {a:.0} once it got a message"));
            Some(format!(
                "bytes per idle model, {}: {b:.0}{after} (target ≤ 200): {}",
                s.config.params,
                verdict(b <= 200.0)
            ))
        })
        .collect()
}

/// The event list on one thread: ns per hold (≤ 100 up to 10⁵ pending
/// events, ≤ 250 beyond), bytes per pending event (≤ 48), and ns per
/// drained event (≤ 250).
fn event_list(all: &[Series]) -> Vec<String> {
    let holds = causim_series(all, Workload::SchedHold, 1).filter_map(|s| {
        let summary = s.summary()?;
        let (m, pending) = (summary.median_ns, s.config.params.get("pending"));
        let bound = if pending <= 100_000 { 100.0 } else { 250.0 };
        let bytes = summary.bytes_per_model.unwrap_or(f64::NAN);
        Some(format!(
            "hold, {}: {m:.1} ns per hold (target ≤ {bound}): {}; {bytes:.0} bytes per pending event (target ≤ 48): {}",
            s.config.params,
            verdict(m <= bound),
            verdict(bytes <= 48.0)
        ))
    });
    let drain = causim_series(all, Workload::SchedDrain, 1).filter_map(|s| {
        let m = s.summary()?.median_ns;
        Some(format!(
            "drain, {}: {m:.1} ns per event (target ≤ 250): {}",
            s.config.params,
            verdict(m <= 250.0)
        ))
    });
    holds.chain(drain).collect()
}
