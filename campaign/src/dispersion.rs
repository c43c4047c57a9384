//! How a parameter varies from run to run.
//!
//! A dispersion is a distribution over `f64` values, drawn once per run.
//! The distributions are those of `rand_distr`; this module only names
//! them in a form a campaign file can hold and checks their parameters
//! before any run starts, so that a bad description fails at once, with
//! the parameter's name, instead of in run 417 of a batch job.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, LogNormal, Normal, Triangular, Uniform};
use serde::{Deserialize, Serialize};

use crate::error::CampaignError;

/// A distribution a parameter's value is drawn from, once per run.
///
/// In a campaign file (JSON) each is an object tagged by `kind`:
/// `{"kind": "normal", "mean": 0.28, "std_dev": 0.01}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dispersion {
    /// Always `value`: a parameter kept in the table without varying.
    Fixed {
        /// The value of every run.
        value: f64,
    },
    /// Uniform on `[low, high)`.
    Uniform {
        /// Smallest value.
        low: f64,
        /// Upper bound, excluded; greater than `low`.
        high: f64,
    },
    /// Gaussian.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation, zero or more.
        std_dev: f64,
    },
    /// Log-normal: `median · e^(sigma · N(0, 1))`, for positive
    /// quantities known to a factor (a resistance, a degradation rate).
    LogNormal {
        /// The median, greater than zero.
        median: f64,
        /// The standard deviation of the logarithm, zero or more.
        sigma: f64,
    },
    /// Triangular on `[low, high]`, most likely at `mode`: a tolerance
    /// given as a minimum, a nominal value and a maximum.
    Triangular {
        /// Smallest value.
        low: f64,
        /// Most likely value, between `low` and `high`.
        mode: f64,
        /// Largest value, greater than `low`.
        high: f64,
    },
    /// One of `values`, each equally likely: a discrete choice (a load
    /// profile's index, a number of cells).
    Choice {
        /// The values; at least one.
        values: Vec<f64>,
    },
}

impl Dispersion {
    /// Checks the distribution's parameters; `parameter` names it in the
    /// error.
    pub fn validate(&self, parameter: &str) -> Result<(), CampaignError> {
        let invalid = |reason: String| {
            Err(CampaignError::Dispersion {
                parameter: parameter.to_owned(),
                reason,
            })
        };
        if let Some(value) = self.numbers().into_iter().find(|v| !v.is_finite()) {
            return invalid(format!("{value} is not a finite number"));
        }
        match *self {
            Dispersion::Uniform { low, high } | Dispersion::Triangular { low, high, .. }
                if !(high - low).is_finite() =>
            {
                invalid(format!(
                    "the range from {low} to {high} is wider than a finite number"
                ))
            }
            Dispersion::Uniform { low, high } if low >= high => invalid(format!(
                "uniform needs low < high, got low {low}, high {high}"
            )),
            Dispersion::Normal { std_dev, .. } if std_dev < 0.0 => {
                invalid(format!("normal needs std_dev >= 0, got {std_dev}"))
            }
            Dispersion::LogNormal { median, .. } if median <= 0.0 => {
                invalid(format!("log_normal needs median > 0, got {median}"))
            }
            Dispersion::LogNormal { sigma, .. } if sigma < 0.0 => {
                invalid(format!("log_normal needs sigma >= 0, got {sigma}"))
            }
            Dispersion::Triangular { low, mode, high }
                if !(low < high && low <= mode && mode <= high) =>
            {
                invalid(format!(
                    "triangular needs low <= mode <= high and low < high, got {low}, {mode}, {high}"
                ))
            }
            Dispersion::Choice { ref values } if values.is_empty() => {
                invalid("choice needs at least one value".to_owned())
            }
            _ => Ok(()),
        }
    }

    /// Draws one value. The dispersion must have passed
    /// [`validate`](Self::validate) (a campaign checks every parameter
    /// when it is made or read).
    pub(crate) fn sample(&self, rng: &mut impl Rng) -> f64 {
        const CHECKED: &str = "the campaign validated its dispersions";
        match *self {
            Dispersion::Fixed { value } => value,
            Dispersion::Uniform { low, high } => {
                Uniform::new(low, high).expect(CHECKED).sample(rng)
            }
            Dispersion::Normal { mean, std_dev } => {
                Normal::new(mean, std_dev).expect(CHECKED).sample(rng)
            }
            Dispersion::LogNormal { median, sigma } => LogNormal::new(median.ln(), sigma)
                .expect(CHECKED)
                .sample(rng),
            Dispersion::Triangular { low, mode, high } => {
                Triangular::new(low, high, mode).expect(CHECKED).sample(rng)
            }
            Dispersion::Choice { ref values } => values[rng.random_range(0..values.len())],
        }
    }

    /// Every number the description holds, to check that each is finite.
    fn numbers(&self) -> Vec<f64> {
        match self {
            Dispersion::Fixed { value } => vec![*value],
            Dispersion::Uniform { low, high } => vec![*low, *high],
            Dispersion::Normal { mean, std_dev } => vec![*mean, *std_dev],
            Dispersion::LogNormal { median, sigma } => vec![*median, *sigma],
            Dispersion::Triangular { low, mode, high } => vec![*low, *mode, *high],
            Dispersion::Choice { values } => values.clone(),
        }
    }
}
