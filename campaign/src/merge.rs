//! The merge: every run's result file into one table.
//!
//! The table has a row per run found, in index order, and the columns
//! `run`, `seed`, each parameter, each metric and `error`. It is written as
//! CSV, which every analysis tool reads; the writer is the few lines of
//! RFC 4180 quoting the one text column needs (the error), rather than a
//! dependency.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use crate::campaign::Campaign;
use crate::error::CampaignError;
use crate::folder;
use crate::record::{result_path, RunRecord};

/// The merged results of a campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// A row per run with a result file.
    pub table: Table,
    /// The runs without one: not made yet, or still running.
    pub missing: Vec<usize>,
    /// Result files in the folder past the campaign's runs (made with a
    /// larger `--runs`), not in the table.
    pub beyond: Vec<usize>,
}

/// Every run's parameters, metrics and error, a row per run.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The parameters' names, in the campaign's order.
    pub parameters: Vec<String>,
    /// The metrics' names, in the order the runs first report them.
    pub metrics: Vec<String>,
    /// The rows, by run index.
    pub rows: Vec<Row>,
}

/// One run's line of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The run's index.
    pub run: usize,
    /// The run's seed.
    pub seed: u64,
    /// Its value of each parameter, in the table's order.
    pub parameters: Vec<f64>,
    /// Its value of each metric, in the table's order (`None`: it did not
    /// report that metric, or it failed).
    pub metrics: Vec<Option<f64>>,
    /// Why it failed.
    pub error: Option<String>,
}

/// The most runs [`merge`] reads into one table: ten million rows, a CSV
/// of gigabytes, is more than one table serves; a larger campaign is
/// merged a part at a time (`--runs`).
pub const MAX_MERGED_RUNS: usize = 10_000_000;

/// Reads the result files of `campaign` in `dir` into a table. A folder
/// or a file of another description (another name, seed, dispersion or
/// setting) is an error naming it, never a row.
pub fn merge(campaign: &Campaign, dir: &Path) -> Result<Merged, CampaignError> {
    if campaign.runs() > MAX_MERGED_RUNS {
        return Err(CampaignError::TooManyToMerge {
            runs: campaign.runs(),
        });
    }
    folder::check(dir, campaign)?;
    let mut records = Vec::new();
    let mut missing = Vec::new();
    for index in 0..campaign.runs() {
        let path = result_path(dir, index);
        match RunRecord::read(&path)? {
            Some(record) => {
                record.check(campaign, &campaign.run(index)?, &path)?;
                records.push(record);
            }
            None => missing.push(index),
        }
    }
    Ok(Merged {
        table: Table::new(campaign, &records),
        missing,
        beyond: indices_beyond(dir, campaign.runs())?,
    })
}

/// The indices of the result files in `dir` at or past `runs`, in order.
fn indices_beyond(dir: &Path, runs: usize) -> Result<Vec<usize>, CampaignError> {
    let entries = fs::read_dir(dir).map_err(|source| CampaignError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut beyond: Vec<usize> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|name| {
            name.strip_prefix("run-")?
                .strip_suffix(".json")?
                .parse()
                .ok()
        })
        .filter(|&index| index >= runs)
        .collect();
    beyond.sort_unstable();
    Ok(beyond)
}

impl Table {
    /// The table of `records`, in their order.
    fn new(campaign: &Campaign, records: &[RunRecord]) -> Self {
        let mut metrics: Vec<String> = Vec::new();
        for metric in records.iter().flat_map(|r| &r.metrics) {
            if !metrics.contains(&metric.name) {
                metrics.push(metric.name.clone());
            }
        }
        let rows = records
            .iter()
            .map(|record| Row {
                run: record.index,
                seed: record.seed,
                parameters: record.parameters.iter().map(|p| p.value).collect(),
                metrics: metrics.iter().map(|name| record.metric(name)).collect(),
                error: record.error.clone(),
            })
            .collect();
        Table {
            parameters: campaign.parameter_names(),
            metrics,
            rows,
        }
    }

    /// Every value of parameter or metric `name`, a row's value or `None`,
    /// by run; `None` if the table has no such column.
    pub fn column(&self, name: &str) -> Option<Vec<Option<f64>>> {
        if let Some(i) = self.parameters.iter().position(|p| p == name) {
            return Some(
                self.rows
                    .iter()
                    .map(|row| Some(row.parameters[i]))
                    .collect(),
            );
        }
        let i = self.metrics.iter().position(|m| m == name)?;
        Some(self.rows.iter().map(|row| row.metrics[i]).collect())
    }

    /// The rows of the runs that failed.
    pub fn failed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|row| row.error.is_some())
    }

    /// Writes the table as CSV: a header line, then a line per run.
    /// Numbers are written exactly (the shortest text that reads back to
    /// the same `f64`); a missing metric is an empty cell.
    pub fn write_csv(&self, mut out: impl Write) -> io::Result<()> {
        write!(out, "run,seed")?;
        for name in self.parameters.iter().chain(&self.metrics) {
            write!(out, ",{}", Cell(name))?;
        }
        writeln!(out, ",error")?;
        for row in &self.rows {
            write!(out, "{},{}", row.run, row.seed)?;
            for value in &row.parameters {
                write!(out, ",{value}")?;
            }
            for value in &row.metrics {
                match value {
                    Some(value) => write!(out, ",{value}")?,
                    None => write!(out, ",")?,
                }
            }
            writeln!(out, ",{}", Cell(row.error.as_deref().unwrap_or("")))?;
        }
        out.flush()
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
