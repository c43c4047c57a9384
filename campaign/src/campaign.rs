//! A campaign's description: its parameters, its base seed, its number of
//! runs — and the rule that makes each run's values from them.

use std::collections::{BTreeMap, HashSet};
use std::io::Read;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::dispersion::Dispersion;
use crate::error::CampaignError;
use crate::run::Run;

/// Column names of the merged table that parameters and metrics cannot
/// take.
pub(crate) const RESERVED_COLUMNS: [&str; 3] = ["run", "seed", "error"];

/// A Monte-Carlo campaign: `runs` runs of one bench, each with its own
/// draw of every parameter.
///
/// Made in code with [`new`](Self::new) and [`parameter`](Self::parameter),
/// or read from a JSON file with [`from_json`](Self::from_json):
///
/// ```json
/// {
///   "name": "power",
///   "base_seed": 2026,
///   "runs": 1000,
///   "parameters": [
///     {"name": "panel_efficiency", "dispersion": {"kind": "normal", "mean": 0.28, "std_dev": 0.01}},
///     {"name": "battery_wh", "dispersion": {"kind": "uniform", "low": 270, "high": 330}}
///   ]
/// }
/// ```
///
/// Run *i*'s values depend on the base seed, *i* and the parameter list
/// only — not on how many runs there are, which process runs it or in
/// what order — so any run can be made again alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "CampaignFile")]
pub struct Campaign {
    /// What the campaign is called; written in every result file, so that
    /// results of another campaign are never merged into this one.
    name: String,
    /// The seed every run's seed is derived from.
    base_seed: u64,
    /// How many runs: indices `0..runs`.
    runs: usize,
    /// The dispersed parameters, drawn in this order.
    parameters: Vec<Parameter>,
    /// The bench's settings that are the same for every run (orbits,
    /// initial state of charge, code version): not drawn, but part of the
    /// description, so that results made with other settings are never
    /// resumed or merged as these.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    settings: BTreeMap<String, String>,
}

/// A campaign as a file holds it, before it is checked: deserializing a
/// [`Campaign`] goes through it, so that an invalid description is an
/// error however it is read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CampaignFile {
    name: String,
    base_seed: u64,
    runs: usize,
    parameters: Vec<Parameter>,
    #[serde(default)]
    settings: BTreeMap<String, String>,
}

impl TryFrom<CampaignFile> for Campaign {
    type Error = CampaignError;

    fn try_from(file: CampaignFile) -> Result<Self, CampaignError> {
        let campaign = Campaign {
            name: file.name,
            base_seed: file.base_seed,
            runs: file.runs,
            parameters: file.parameters,
            settings: file.settings,
        };
        campaign.validate()?;
        Ok(campaign)
    }
}

/// The most runs a campaign can have: each run uses two of the generator's
/// 2⁶⁴ streams.
pub const MAX_RUNS: usize = if usize::BITS >= 64 {
    (1u64 << 62) as usize
} else {
    usize::MAX
};

/// One dispersed parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Its name: a column of the merged table, the key of [`Run::get`].
    pub name: String,
    /// How it varies.
    pub dispersion: Dispersion,
}

impl Campaign {
    /// A campaign of `runs` runs without parameters yet.
    pub fn new(
        name: impl Into<String>,
        base_seed: u64,
        runs: usize,
    ) -> Result<Self, CampaignError> {
        let campaign = Campaign {
            name: name.into(),
            base_seed,
            runs,
            parameters: Vec::new(),
            settings: BTreeMap::new(),
        };
        campaign.validate()?;
        Ok(campaign)
    }

    /// Adds a parameter, drawn after those added before.
    pub fn parameter(
        mut self,
        name: impl Into<String>,
        dispersion: Dispersion,
    ) -> Result<Self, CampaignError> {
        let parameter = Parameter {
            name: name.into(),
            dispersion,
        };
        self.check_parameter(&parameter, self.parameters.len())?;
        self.parameters.push(parameter);
        Ok(self)
    }

    /// Adds (or replaces) a bench setting that every run shares: recorded
    /// with the results and checked when they are resumed or merged.
    pub fn setting(mut self, name: impl Into<String>, value: impl ToString) -> Self {
        self.settings.insert(name.into(), value.to_string());
        self
    }

    /// The bench's settings, by name.
    pub fn settings(&self) -> &BTreeMap<String, String> {
        &self.settings
    }

    /// Reads and checks a campaign's JSON description.
    pub fn from_json(reader: impl Read) -> Result<Self, CampaignError> {
        // Read as a file first, then checked: a check's error stays typed
        // instead of becoming text inside the reader's.
        let file: CampaignFile =
            serde_json::from_reader(reader).map_err(|error| CampaignError::Description {
                reason: error.to_string(),
            })?;
        Campaign::try_from(file)
    }

    /// The description as JSON, as [`from_json`](Self::from_json) reads it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a campaign is plain data")
    }

    /// The campaign's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The seed every run's seed is derived from.
    pub fn base_seed(&self) -> u64 {
        self.base_seed
    }

    /// The number of runs.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The same campaign with another number of runs: runs that both have
    /// get the same values (a quick look at the first ten, then all).
    pub fn with_runs(mut self, runs: usize) -> Result<Self, CampaignError> {
        self.runs = runs;
        self.validate()?;
        Ok(self)
    }

    /// The same campaign with another base seed: another sample.
    pub fn with_base_seed(mut self, base_seed: u64) -> Self {
        self.base_seed = base_seed;
        self
    }

    /// The parameters, in drawing order.
    pub fn parameters(&self) -> &[Parameter] {
        &self.parameters
    }

    /// Run `index`: its seed and its value of every parameter.
    ///
    /// The values come from a ChaCha8 generator seeded with the base seed,
    /// on stream `2 · index`, drawn in the parameters' order; the run's
    /// own seed is the first word of stream `2 · index + 1` (see the crate
    /// docs). ChaCha8 is portable and `rand_chacha` keeps its output
    /// fixed across versions, so a run is the same on every machine.
    pub fn run(&self, index: usize) -> Result<Run, CampaignError> {
        if index >= self.runs {
            return Err(CampaignError::RunIndex {
                index,
                runs: self.runs,
            });
        }
        // `index < runs <= MAX_RUNS`: the streams fit in a `u64`.
        let stream = 2 * index as u64;
        let mut values_rng = self.stream(stream);
        let values = self
            .parameters
            .iter()
            .map(|p| (p.name.clone(), p.dispersion.sample(&mut values_rng)))
            .collect();
        let seed = rand::Rng::next_u64(&mut self.stream(stream + 1));
        Ok(Run::new(index, seed, values))
    }

    /// The base seed's generator, on `stream`.
    fn stream(&self, stream: u64) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.base_seed);
        rng.set_stream(stream);
        rng
    }

    /// Checks the name and every parameter.
    fn validate(&self) -> Result<(), CampaignError> {
        let name_is_usable = !self.name.is_empty()
            && self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !name_is_usable {
            return Err(CampaignError::Name {
                name: self.name.clone(),
            });
        }
        if self.runs > MAX_RUNS {
            return Err(CampaignError::TooManyRuns { runs: self.runs });
        }
        for (i, parameter) in self.parameters.iter().enumerate() {
            self.check_parameter(parameter, i)?;
        }
        Ok(())
    }

    /// Checks `parameter` against itself and the `before` parameters that
    /// precede it.
    fn check_parameter(&self, parameter: &Parameter, before: usize) -> Result<(), CampaignError> {
        let name = &parameter.name;
        let reason = if name.is_empty() {
            Some("a parameter needs a name")
        } else if RESERVED_COLUMNS.contains(&name.as_str()) {
            Some("this name is a column of every merged table (run, seed, error)")
        } else if self.parameters[..before].iter().any(|p| p.name == *name) {
            Some("this name is given to two parameters")
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(CampaignError::ParameterName {
                name: name.clone(),
                reason,
            });
        }
        parameter.dispersion.validate(name)
    }

    /// What makes `here` draw other runs than this description (all but
    /// the number of runs), said as "this there, that here"; `None` if
    /// nothing does.
    pub(crate) fn difference(&self, here: &Campaign) -> Option<String> {
        let (names, here_names) = (self.parameter_names(), here.parameter_names());
        if self.name != here.name {
            Some(format!(
                "campaign `{}` there, `{}` here",
                self.name, here.name
            ))
        } else if self.base_seed != here.base_seed {
            Some(format!(
                "base seed {} there, {} here",
                self.base_seed, here.base_seed
            ))
        } else if names != here_names {
            Some(format!("parameters {names:?} there, {here_names:?} here"))
        } else if let Some((there, mine)) = self
            .parameters
            .iter()
            .zip(&here.parameters)
            .find(|(a, b)| a.dispersion != b.dispersion)
        {
            Some(format!(
                "parameter `{}` drawn from {:?} there, {:?} here",
                there.name, there.dispersion, mine.dispersion
            ))
        } else if self.settings != here.settings {
            Some(format!(
                "settings {:?} there, {:?} here",
                self.settings, here.settings
            ))
        } else {
            None
        }
    }

    /// The parameters' names, in order.
    pub(crate) fn parameter_names(&self) -> Vec<String> {
        self.parameters.iter().map(|p| p.name.clone()).collect()
    }

    /// The parameters' names as a set, to check metric names against.
    pub(crate) fn parameter_name_set(&self) -> HashSet<&str> {
        self.parameters.iter().map(|p| p.name.as_str()).collect()
    }
}
