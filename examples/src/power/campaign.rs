//! A Monte-Carlo campaign of the power bench: how low does the battery go
//! when the hardware is not quite what the datasheets say?
//!
//! Each run draws the solar cells' efficiency, the battery's capacity, the
//! avionics' power and how long the payload is left on in the first
//! eclipse (an operator's choice, the load profile), runs the bench to the
//! end, and reports the battery's lowest and final state of charge and any
//! demand it could not supply.
//!
//! ```text
//!  campaign description ─▶ run i: values, seed ─▶ PowerBench ─▶ min SoC, final SoC, unmet Wh
//!                                                                    └─▶ run-00000i.json ─▶ merge ─▶ power.csv, histogram
//! ```
//!
//! **Forked** ([`Forked`]): every run shares the bench's first part, up to
//! the first eclipse, which depends only on hardware that a fork keeps
//! nominal. It is run once and saved; each run restores the snapshot into
//! its own bench and applies only what it disperses after the fork, the
//! payload's time in eclipse ([`forked_campaign`]).

use std::error::Error;
use std::path::Path;
use std::time::Duration;

use causim_campaign::{Campaign, CampaignError, Dispersion, Metrics, Run, RunResult, Table};

use super::fork::first_eclipse;
use super::{BatterySpec, PowerBench, PowerConfig, ECLIPSE};

/// The metric every run reports first: the battery's lowest state of
/// charge, 0 to 1.
pub const MIN_SOC: &str = "min_soc";

/// The bench settings every run of `base` shares, as a campaign records
/// them: results made with other settings are never resumed or merged
/// with these.
fn with_settings(campaign: Campaign, base: &PowerConfig) -> Campaign {
    campaign
        .setting("orbits", base.orbits)
        .setting("initial_soc", base.initial_soc)
}

/// The campaign of the module docs for the bench `base`: `runs` runs,
/// seeded by `base_seed`.
pub fn campaign(
    base: &PowerConfig,
    runs: usize,
    base_seed: u64,
) -> Result<Campaign, CampaignError> {
    let campaign = Campaign::new("power", base_seed, runs)?
        .parameter(
            "panel_efficiency",
            Dispersion::Normal {
                mean: 0.28,
                std_dev: 0.01,
            },
        )?
        .parameter(
            "battery_wh",
            Dispersion::Triangular {
                low: 255.0,
                mode: 300.0,
                high: 315.0,
            },
        )?
        .parameter(
            "avionics_w",
            Dispersion::Normal {
                mean: 60.0,
                std_dev: 4.0,
            },
        )?
        .parameter(
            "payload_eclipse_min",
            Dispersion::Uniform {
                low: 0.0,
                high: ECLIPSE.as_secs_f64() / 60.0,
            },
        )?;
    Ok(with_settings(campaign, base))
}

/// The campaign of a forked run: the hardware fixed at its nominal values
/// (the snapshot holds them; they are in the table all the same), the
/// payload's time in eclipse dispersed as in [`campaign`].
pub fn forked_campaign(
    base: &PowerConfig,
    runs: usize,
    base_seed: u64,
) -> Result<Campaign, CampaignError> {
    let nominal = PowerConfig::default();
    let campaign = Campaign::new("power-forked", base_seed, runs)?
        .parameter(
            "payload_eclipse_min",
            Dispersion::Uniform {
                low: 0.0,
                high: ECLIPSE.as_secs_f64() / 60.0,
            },
        )?
        .parameter(
            "panel_efficiency",
            Dispersion::Fixed {
                value: nominal.panel_efficiency,
            },
        )?
        .parameter(
            "battery_wh",
            Dispersion::Fixed {
                value: nominal.battery.capacity_wh,
            },
        )?
        .parameter(
            "avionics_w",
            Dispersion::Fixed {
                value: nominal.avionics_w,
            },
        )?;
    Ok(with_settings(campaign, base).setting("fork", "first eclipse"))
}

/// `base` with run `run`'s hardware.
pub fn configure(base: PowerConfig, run: &Run) -> Result<PowerConfig, CampaignError> {
    Ok(PowerConfig {
        panel_efficiency: run.get("panel_efficiency")?,
        avionics_w: run.get("avionics_w")?,
        battery: BatterySpec {
            capacity_wh: run.get("battery_wh")?,
            ..base.battery
        },
        ..base
    })
}

/// Makes run `run` from the start: `base`, with the run's values.
pub fn run(base: PowerConfig, run: &Run) -> RunResult {
    let config = configure(base, run)?;
    let mut bench = PowerBench::new(config)?;
    bench.run_until(first_eclipse())?;
    finish(bench, config, run)
}

/// The first part of every run, made once: the bench of `config` run to
/// the first eclipse and saved.
#[derive(Debug, Clone)]
pub struct Forked {
    /// The configuration the snapshot was made with.
    config: PowerConfig,
    /// The bench at the first eclipse.
    snapshot: Vec<u8>,
}

impl Forked {
    /// Runs `config` to the first eclipse and saves it.
    pub fn new(config: PowerConfig) -> Result<Self, Box<dyn Error + Send + Sync>> {
        let mut bench = PowerBench::new(config)?;
        bench.run_until(first_eclipse())?;
        let mut snapshot = Vec::new();
        bench.save(&mut snapshot)?;
        Ok(Forked { config, snapshot })
    }

    /// The snapshot's size, bytes.
    pub fn snapshot_len(&self) -> usize {
        self.snapshot.len()
    }

    /// Makes run `run` from the snapshot: only its payload time differs.
    /// A run whose hardware is not the snapshot's fails, saying so: the
    /// snapshot holds the hardware, and a table claiming other values
    /// would lie.
    pub fn run(&self, run: &Run) -> RunResult {
        if configure(self.config, run)? != self.config {
            return Err(format!(
                "a forked run starts from the snapshot's hardware: panel_efficiency {}, \
                 battery_wh {}, avionics_w {} must be fixed at those values",
                self.config.panel_efficiency,
                self.config.battery.capacity_wh,
                self.config.avionics_w
            )
            .into());
        }
        let bench = PowerBench::restore(self.config, self.snapshot.as_slice())?;
        finish(bench, self.config, run)
    }
}

/// The part after the first eclipse's start: the payload on for the run's
/// minutes, then the bench to its end; the run's metrics.
fn finish(mut bench: PowerBench, config: PowerConfig, run: &Run) -> RunResult {
    let minutes = run.get("payload_eclipse_min")?;
    // Whole seconds: the bus samples on 10 s marks, so a command to the
    // nanosecond would only move the same energy by a sample. Under half a
    // second rounds to nothing: the payload is not switched at all.
    let on_for = Duration::from_secs((minutes * 60.0).round() as u64);
    if !on_for.is_zero() {
        bench.switch_payload(true)?;
        bench.schedule_payload(bench.time() + on_for, false)?;
    }
    while bench.remaining() > 0 {
        bench.run_orbit()?;
    }
    let summary = bench.finish()?.summary;
    Ok(Metrics::new()
        .with(MIN_SOC, summary.battery.min_soc)
        .with(
            "final_soc",
            summary.battery.stored_wh / config.battery.capacity_wh,
        )
        .with("unmet_wh", summary.bus.unmet_wh))
}

/// The lowest states of charge of the runs that reported one, sorted.
pub fn min_socs(table: &Table) -> Vec<f64> {
    let mut values: Vec<f64> = table
        .column(MIN_SOC)
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect();
    values.sort_by(f64::total_cmp);
    values
}

/// The `q`-quantile (0 to 1) of sorted `values`, nearest rank.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    Some(sorted[((last as f64) * q).round() as usize])
}

/// Draws a histogram of the runs' lowest state of charge to `path` (SVG).
pub fn plot_min_soc(table: &Table, path: &Path) -> Result<(), Box<dyn Error + Send + Sync>> {
    use plotters::prelude::*;

    let socs = min_socs(table);
    let (Some(&low), Some(&high)) = (socs.first(), socs.last()) else {
        return Err("no run reported a lowest state of charge: nothing to plot".into());
    };
    const BINS: usize = 24;
    let (low, high) = (100.0 * low, 100.0 * high + 1e-9);
    let width = (high - low) / BINS as f64;
    let mut counts = [0u32; BINS];
    for soc in &socs {
        let bin = ((100.0 * soc - low) / width) as usize;
        counts[bin.min(BINS - 1)] += 1;
    }
    let tallest = counts.iter().copied().max().unwrap_or(1);

    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let caption = format!(
        "Lowest battery state of charge, {} runs (5th percentile {:.1} %)",
        socs.len(),
        100.0 * quantile(&socs, 0.05).unwrap_or(f64::NAN)
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(low..high, 0u32..tallest + tallest / 10 + 1)?;
    chart
        .configure_mesh()
        .x_desc("lowest state of charge (%)")
        .y_desc("runs")
        .draw()?;
    let bar = RGBColor(0x1f, 0x5f, 0xbf);
    chart.draw_series(counts.iter().enumerate().map(|(i, &count)| {
        let left = low + i as f64 * width;
        Rectangle::new([(left, 0), (left + width, count)], bar.mix(0.8).filled())
    }))?;
    root.present()?;
    Ok(())
}
