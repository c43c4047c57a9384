//! What a run reports, and the file it is kept in.
//!
//! Each run writes one JSON file, `run-000042.json`, holding the campaign's
//! name, the run's index, seed and parameter values, its metrics or its
//! error, and its wall time. One file per run is what a batch system needs:
//! runs write in parallel without sharing anything, a run killed half-way
//! leaves no result file (each is written to a temporary name of its own
//! and renamed; at most a hidden `.partial` file is left, which nothing
//! reads), and the merge reads whatever is there. JSON because it is what people open when
//! a run looks wrong; a campaign's result files are small next to what the
//! runs computed.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::campaign::{Campaign, RESERVED_COLUMNS};
use crate::error::CampaignError;
use crate::folder::write_atomically;
use crate::run::Run;

/// What a run measured: named numbers, in the order given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    /// Each metric's name and value.
    values: Vec<(String, f64)>,
}

impl Metrics {
    /// No metrics yet.
    pub fn new() -> Self {
        Metrics::default()
    }

    /// Adds (or replaces) metric `name`.
    pub fn with(mut self, name: impl Into<String>, value: f64) -> Self {
        self.insert(name, value);
        self
    }

    /// Adds (or replaces) metric `name`.
    pub fn insert(&mut self, name: impl Into<String>, value: f64) {
        let name = name.into();
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some((_, old)) => *old = value,
            None => self.values.push((name, value)),
        }
    }

    /// The value of metric `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// Every metric's name and value, in the order given.
    pub fn values(&self) -> &[(String, f64)] {
        &self.values
    }
}

/// A run's result file: who it was, and what it measured or why it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// The campaign's name.
    pub campaign: String,
    /// The run's index.
    pub index: usize,
    /// The run's seed.
    pub seed: u64,
    /// Each parameter's value, in the campaign's order.
    pub parameters: Vec<Named>,
    /// The bench settings of the campaign (see
    /// [`Campaign::setting`](crate::Campaign::setting)).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
    /// What the run measured (empty if it failed).
    pub metrics: Vec<Named>,
    /// Why the run failed: its error, with its causes, or its panic.
    pub error: Option<String>,
    /// How long the run took, wall-clock seconds (not in the merged table:
    /// it is the one thing that differs between two runs of an index).
    pub wall_seconds: f64,
}

/// A named number of a result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    /// The parameter's or metric's name.
    pub name: String,
    /// Its value; in the file, a JSON number, or `"NaN"`, `"inf"` or
    /// `"-inf"` (JSON has no such numbers, and a diverging run's metric
    /// is worth keeping).
    #[serde(with = "number")]
    pub value: f64,
}

impl RunRecord {
    /// The record of `run`, which measured `metrics` or failed with `error`.
    pub(crate) fn new(
        campaign: &Campaign,
        run: &Run,
        outcome: Result<Metrics, String>,
        wall_seconds: f64,
    ) -> Self {
        let (metrics, error) = match outcome.and_then(|m| checked_metrics(campaign, m)) {
            Ok(metrics) => (named(metrics.values()), None),
            Err(error) => (Vec::new(), Some(error)),
        };
        RunRecord {
            campaign: campaign.name().to_owned(),
            index: run.index(),
            seed: run.seed(),
            parameters: named(run.values()),
            settings: campaign.settings().clone(),
            metrics,
            error,
            wall_seconds,
        }
    }

    /// The value of metric `name`, if the run measured it.
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.value)
    }

    /// Writes the record to `path`, whole or not at all.
    pub(crate) fn write(&self, path: &Path) -> Result<(), CampaignError> {
        let json = serde_json::to_vec_pretty(self).expect("a run record is plain data");
        write_atomically(path, &json)
    }

    /// Reads the record at `path`; `Ok(None)` if there is none.
    pub(crate) fn read(path: &Path) -> Result<Option<Self>, CampaignError> {
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(CampaignError::Io {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| CampaignError::ResultFile {
                path: path.to_owned(),
                reason: error.to_string(),
            })
    }

    /// Checks that the record is `expected`'s, of `campaign`: a file left
    /// by another description must not be merged or resumed.
    ///
    /// Values are compared to a relative 10⁻⁹, not bit for bit: a draw that
    /// goes through `exp` or `ln` (log-normal, the normal's rare tail) may
    /// differ in its last bits between two builds' math libraries, while
    /// another dispersion moves it far more.
    pub(crate) fn check(
        &self,
        campaign: &Campaign,
        expected: &Run,
        path: &Path,
    ) -> Result<(), CampaignError> {
        let stale = |reason: String| {
            Err(CampaignError::StaleResult {
                path: path.to_owned(),
                reason,
            })
        };
        if self.campaign != campaign.name() {
            return stale(format!(
                "campaign `{}`, not `{}`",
                self.campaign,
                campaign.name()
            ));
        }
        if self.index != expected.index() {
            return stale(format!("run {}, not run {}", self.index, expected.index()));
        }
        if self.seed != expected.seed() {
            return stale(format!(
                "seed {}, not {}: another base seed",
                self.seed,
                expected.seed()
            ));
        }
        if &self.settings != campaign.settings() {
            return stale(format!(
                "settings {:?}, not {:?}",
                self.settings,
                campaign.settings()
            ));
        }
        let saved: Vec<&str> = self.parameters.iter().map(|p| p.name.as_str()).collect();
        let drawn: Vec<&str> = expected.values().iter().map(|(n, _)| n.as_str()).collect();
        if saved != drawn {
            return stale(format!(
                "parameters ({}), not ({})",
                saved.join(", "),
                drawn.join(", ")
            ));
        }
        let moved = self
            .parameters
            .iter()
            .zip(expected.values())
            .find(|(saved, (_, value))| !close(saved.value, *value));
        if let Some((saved, (name, value))) = moved {
            return stale(format!(
                "`{name}` = {}, not {value}: another dispersion",
                saved.value
            ));
        }
        check_metric_names(campaign, self.metrics.iter().map(|m| m.name.as_str())).map_err(
            |reason| CampaignError::ResultFile {
                path: path.to_owned(),
                reason,
            },
        )
    }
}

/// True if `a` and `b` are equal to a relative 10⁻⁹.
fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// A run's result file in `dir`.
pub(crate) fn result_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("run-{index:06}.json"))
}

/// `metrics`, unless a name cannot be a column of the merged table.
fn checked_metrics(campaign: &Campaign, metrics: Metrics) -> Result<Metrics, String> {
    check_metric_names(campaign, metrics.values().iter().map(|(n, _)| n.as_str()))?;
    Ok(metrics)
}

/// Refuses a metric name that cannot be a column: empty, reserved, a
/// parameter's, or given twice.
fn check_metric_names<'a>(
    campaign: &Campaign,
    names: impl Iterator<Item = &'a str>,
) -> Result<(), String> {
    let parameters = campaign.parameter_name_set();
    let mut seen = std::collections::HashSet::new();
    for name in names {
        let reason = if name.is_empty() {
            "a metric needs a name"
        } else if RESERVED_COLUMNS.contains(&name) {
            "this name is a column of every merged table (run, seed, error)"
        } else if parameters.contains(name) {
            "this name is a parameter's"
        } else if !seen.insert(name) {
            "this name is given to two metrics"
        } else {
            continue;
        };
        return Err(format!("metric `{name}`: {reason}"));
    }
    Ok(())
}

fn named(values: &[(String, f64)]) -> Vec<Named> {
    values
        .iter()
        .map(|(name, value)| Named {
            name: name.clone(),
            value: *value,
        })
        .collect()
}

/// `f64` in JSON, with the non-finite values as text.
mod number {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if value.is_finite() {
            serializer.serialize_f64(*value)
        } else {
            serializer.collect_str(value)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Number {
            Finite(f64),
            Text(String),
        }
        match Number::deserialize(deserializer)? {
            Number::Finite(value) => Ok(value),
            Number::Text(text) if matches!(text.as_str(), "NaN" | "inf" | "-inf") => {
                Ok(text.parse().expect("Rust's own spelling"))
            }
            Number::Text(text) => Err(serde::de::Error::custom(format!(
                "`{text}` is not a number (only \"NaN\", \"inf\" and \"-inf\" are written as text)"
            ))),
        }
    }
}
