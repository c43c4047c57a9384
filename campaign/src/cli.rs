//! The campaign's command-line flags, shared by every campaign program.
//!
//! A campaign program is the user's `main`: it builds the description,
//! takes these flags out of its arguments (its own flags stay), and hands
//! its run function to [`CampaignArgs::execute`]. The same program then
//! runs everything locally, one index for a batch system, or the merge:
//!
//! ```text
//! program                      every run on all cores, then the merge
//! program --run-index 41       run 41 alone (a Slurm array task: --run-index $SLURM_ARRAY_TASK_ID)
//! program --merge              the table of the result files there are
//! ```
//!
//! The flags are parsed by hand: seven flags do not justify an argument
//! parser in every campaign program's dependencies, and the program keeps
//! whatever parser it has for its own flags.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::campaign::Campaign;
use crate::error::CampaignError;
use crate::merge::{merge, Merged};
use crate::record::RunRecord;
use crate::run::Run;
use crate::runner::{LocalSummary, RunResult, Runner};

/// The flags, for a program's `--help`.
pub const CAMPAIGN_HELP: &str = "\
Campaign options:
  --run-index I   make run I alone and write its result file (batch systems:
                  one task per index); without it, every run is made locally
                  and the results are merged
  --merge         only merge the result files there are into the table
  --jobs N        local runs at once (default: the cores)
  --resume        skip runs whose result file is already there
  --runs N        the number of runs (default: the description's)
  --seed S        the base seed (default: the description's)
  --results DIR   where result files and the table go";

/// What the command line asks of a campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignArgs {
    /// What to do.
    pub action: Action,
    /// Where the result files go (`--results`).
    pub results: Option<PathBuf>,
    /// Local runs at once (`--jobs`).
    pub jobs: Option<usize>,
    /// Skip runs already made (`--resume`).
    pub resume: bool,
    /// The number of runs instead of the description's (`--runs`).
    pub runs: Option<usize>,
    /// The base seed instead of the description's (`--seed`).
    pub base_seed: Option<u64>,
}

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Every run locally, then the merge.
    All,
    /// One run (`--run-index`).
    RunIndex(usize),
    /// Only the merge (`--merge`).
    Merge,
}

/// What [`CampaignArgs::execute`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// One run made; its record says whether it failed.
    Ran(RunRecord),
    /// Every run made (or resumed), then merged.
    All {
        /// The runs made.
        summary: LocalSummary,
        /// The table.
        merged: Merged,
        /// Where the table was written.
        csv: PathBuf,
    },
    /// The result files merged.
    Merged {
        /// The table.
        merged: Merged,
        /// Where it was written.
        csv: PathBuf,
    },
}

impl CampaignArgs {
    /// Takes the campaign's flags (`--flag value` or `--flag=value`) out
    /// of `args`, leaving the program's own.
    pub fn take(args: &mut Vec<String>) -> Result<Self, CampaignError> {
        let mut parsed = CampaignArgs {
            action: Action::All,
            results: None,
            jobs: None,
            resume: false,
            runs: None,
            base_seed: None,
        };
        let mut kept = Vec::new();
        let mut merge = false;
        let mut index = None;
        let mut rest = std::mem::take(args).into_iter();
        while let Some(arg) = rest.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg.clone(), None),
            };
            let mut value = || value_of(&flag, inline.clone(), &mut rest);
            match flag.as_str() {
                "--run-index" => index = Some(number(&flag, value()?)?),
                "--jobs" => parsed.jobs = Some(number(&flag, value()?)?),
                "--runs" => parsed.runs = Some(number(&flag, value()?)?),
                "--seed" => parsed.base_seed = Some(number(&flag, value()?)?),
                "--results" => parsed.results = Some(PathBuf::from(value()?)),
                "--resume" | "--merge" if inline.is_some() => {
                    return Err(argument(format!("{flag} takes no value")));
                }
                "--resume" => parsed.resume = true,
                "--merge" => merge = true,
                _ => kept.push(arg),
            }
        }
        *args = kept;
        parsed.action = match (index, merge) {
            (Some(_), true) => {
                return Err(argument(
                    "--run-index and --merge cannot be given together".into(),
                ))
            }
            (Some(index), false) => Action::RunIndex(index),
            (None, true) => Action::Merge,
            (None, false) => Action::All,
        };
        if parsed.jobs == Some(0) {
            return Err(argument("--jobs must be at least 1".into()));
        }
        Ok(parsed)
    }

    /// `campaign` with the number of runs and the base seed of the flags.
    pub fn apply(&self, mut campaign: Campaign) -> Campaign {
        if let Some(runs) = self.runs {
            campaign = campaign.with_runs(runs);
        }
        if let Some(seed) = self.base_seed {
            campaign = campaign.with_base_seed(seed);
        }
        campaign
    }

    /// Does what the flags ask, with `f` as the run and the result files
    /// in `--results` or else `default_results`; `finished` sees each
    /// record a local run writes. The table goes to `<results>/<campaign
    /// name>.csv`.
    pub fn execute<F>(
        &self,
        campaign: &Campaign,
        default_results: &Path,
        f: &F,
        finished: &(dyn Fn(&RunRecord) + Sync),
    ) -> Result<Report, CampaignError>
    where
        F: Fn(&Run) -> RunResult + Sync,
    {
        let dir = self.results.as_deref().unwrap_or(default_results);
        let runner = Runner::new(campaign, dir).resume(self.resume);
        match self.action {
            Action::RunIndex(index) => runner.run_index(index, f).map(Report::Ran),
            Action::Merge => {
                let (merged, csv) = merge_into_csv(campaign, dir)?;
                Ok(Report::Merged { merged, csv })
            }
            Action::All => {
                let jobs = self.jobs.unwrap_or_else(available_cores);
                let summary = runner.run_local(jobs, f, finished)?;
                let (merged, csv) = merge_into_csv(campaign, dir)?;
                Ok(Report::All {
                    summary,
                    merged,
                    csv,
                })
            }
        }
    }
}

/// Merges the result files in `dir` and writes the table beside them.
fn merge_into_csv(campaign: &Campaign, dir: &Path) -> Result<(Merged, PathBuf), CampaignError> {
    let merged = merge(campaign, dir)?;
    let csv = dir.join(format!("{}.csv", campaign.name()));
    let io_error = |source| CampaignError::Io {
        path: csv.clone(),
        source,
    };
    let file = File::create(&csv).map_err(io_error)?;
    merged
        .table
        .write_csv(BufWriter::new(file))
        .map_err(io_error)?;
    Ok((merged, csv))
}

fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// A flag's value: after `=`, or the next argument.
fn value_of(
    flag: &str,
    inline: Option<String>,
    rest: &mut impl Iterator<Item = String>,
) -> Result<String, CampaignError> {
    inline
        .or_else(|| rest.next())
        .ok_or_else(|| argument(format!("{flag} needs a value")))
}

fn number<T: FromStr>(flag: &str, text: String) -> Result<T, CampaignError> {
    text.parse()
        .map_err(|_| argument(format!("{flag} needs a whole number, got `{text}`")))
}

fn argument(reason: String) -> CampaignError {
    CampaignError::Argument { reason }
}
