//! One run of a campaign: what it is given.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::error::CampaignError;

/// One run: its index, its seed and its value of every parameter.
///
/// Made by [`Campaign::run`](crate::Campaign::run); the same index of the
/// same description always gives the same run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Its place in the campaign, `0..runs`.
    index: usize,
    /// Its own seed, for the bench's random models.
    seed: u64,
    /// Each parameter's name and value, in the campaign's order.
    values: Vec<(String, f64)>,
}

impl Run {
    pub(crate) fn new(index: usize, seed: u64, values: Vec<(String, f64)>) -> Self {
        Run {
            index,
            seed,
            values,
        }
    }

    /// Its place in the campaign.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Its own seed: give it to the bench's random models (sensor noise,
    /// failures), so that they differ from run to run and a run can be
    /// made again alone. Independent of the parameters' draws: adding a
    /// parameter does not change it.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A generator seeded with [`seed`](Self::seed), for a bench that
    /// takes one.
    pub fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.seed)
    }

    /// The value of parameter `name`.
    pub fn get(&self, name: &str) -> Result<f64, CampaignError> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, value)| value)
            .ok_or_else(|| CampaignError::UnknownParameter {
                name: name.to_owned(),
                known: self.values.iter().map(|(n, _)| n.clone()).collect(),
            })
    }

    /// Every parameter's name and value, in the campaign's order.
    pub fn values(&self) -> &[(String, f64)] {
        &self.values
    }
}
