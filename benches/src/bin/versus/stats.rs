//! Repetitions of one configuration, summarised.

use causim_benches::{Engine, Params, Threads, Workload};

/// One configuration: what runs, where, with what.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Config {
    pub workload: Workload,
    pub params: Params,
    pub engine: Engine,
    pub threads: Threads,
}

/// What a child process reported.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct Run {
    pub events: u64,
    pub elapsed_ns: u64,
    pub build_ns: Option<u64>,
    pub bytes_per_model: Option<f64>,
    #[serde(default)]
    pub bytes_per_model_after_event: Option<f64>,
}

impl Run {
    /// Nanoseconds per event.
    pub fn ns_per_event(&self) -> f64 {
        self.elapsed_ns as f64 / self.events.max(1) as f64
    }
}

/// Every repetition of one configuration, and why some are missing.
#[derive(Debug, Clone)]
pub struct Series {
    pub config: Config,
    pub runs: Vec<Run>,
    /// Why the configuration was skipped or stopped, if it was.
    pub note: Option<String>,
}

/// The summary of a series.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub median_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub events: u64,
    pub build_ns_per_model: Option<f64>,
    pub bytes_per_model: Option<f64>,
    pub bytes_per_model_after_event: Option<f64>,
}

impl Summary {
    /// Events per second at the median.
    pub fn events_per_s(&self) -> f64 {
        1e9 / self.median_ns
    }
}

impl Series {
    /// The summary, if any repetition completed.
    pub fn summary(&self) -> Option<Summary> {
        if self.runs.is_empty() {
            return None;
        }
        let ns: Vec<f64> = self.runs.iter().map(Run::ns_per_event).collect();
        let models = self.config.params.iter().find(|(k, _)| *k == "models");
        let build = self
            .runs
            .iter()
            .filter_map(|r| r.build_ns)
            .map(|b| b as f64 / models.map_or(1, |(_, m)| m) as f64)
            .collect::<Vec<_>>();
        let bytes = self
            .runs
            .iter()
            .filter_map(|r| r.bytes_per_model)
            .collect::<Vec<_>>();
        let after_event = self
            .runs
            .iter()
            .filter_map(|r| r.bytes_per_model_after_event)
            .collect::<Vec<_>>();
        Some(Summary {
            median_ns: median(&ns).unwrap_or(f64::NAN),
            min_ns: ns.iter().copied().fold(f64::INFINITY, f64::min),
            max_ns: ns.iter().copied().fold(0.0, f64::max),
            events: self.runs[0].events,
            build_ns_per_model: median(&build),
            bytes_per_model: median(&bytes),
            bytes_per_model_after_event: median(&after_event),
        })
    }
}

/// The median (mean of the middle two for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
