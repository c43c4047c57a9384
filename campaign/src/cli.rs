//! The campaign's command-line flags, shared by every campaign program.
//!
//! A campaign program is the user's `main`: it builds the description (or
//! reads one with `--campaign FILE`), takes these flags out of its
//! arguments (its own flags stay), and hands its run function to
//! [`CampaignArgs::execute`]. The same program then runs everything
//! locally, one index or one slice for a batch system, or the merge:
//!
//! ```text
//! program                          every run on all cores, then the merge
//! program --run-index 41           run 41 alone
//! program --task 3 --tasks 100     runs 3, 103, 203, … on all cores (one task of a job array)
//! program --merge                  the table of the result files there are
//! ```
//!
//! The flags are parsed by hand: ten flags do not justify an argument
//! parser in every campaign program's dependencies, and the program keeps
//! whatever parser it has for its own flags.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::campaign::Campaign;
use crate::error::CampaignError;
use crate::folder::write_atomically;
use crate::merge::{merge, Merged};
use crate::run::Run;
use crate::runner::{LocalSummary, RunOutcome, RunResult, Runner, Slice};
use crate::RunRecord;

/// The flags, for a program's `--help`.
pub const CAMPAIGN_HELP: &str = "\
Campaign options:
  --run-index I      make run I alone and write its result file
  --task I --tasks N make runs I, I+N, I+2N, … on local threads (one task of N)
  --merge            only merge the result files there are into the table
  (none of these: every run on local threads, then the merge)
  --jobs N           local threads (default: the cores)
  --resume           skip runs whose result is there without error (failed
                     runs are made again); refused in a folder of another
                     description, as every run is
  --runs N           the number of runs (default: the description's)
  --base-seed S      the base seed every run's seed comes from
  --campaign FILE    the description, from a JSON file
  --results DIR      where result files and the table go";

/// What the command line asks of a campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignArgs {
    /// What to do.
    pub action: Action,
    /// Where the result files go (`--results`).
    pub results: Option<PathBuf>,
    /// Local threads (`--jobs`).
    pub jobs: Option<usize>,
    /// Skip runs already made (`--resume`).
    pub resume: bool,
    /// The number of runs instead of the description's (`--runs`).
    pub runs: Option<usize>,
    /// The base seed instead of the description's (`--base-seed`).
    pub base_seed: Option<u64>,
    /// A description file instead of the program's (`--campaign`).
    pub campaign: Option<PathBuf>,
}

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Every run locally, then the merge.
    All,
    /// One run (`--run-index`).
    RunIndex(usize),
    /// One batch task's slice (`--task`, `--tasks`).
    Slice(Slice),
    /// Only the merge (`--merge`).
    Merge,
}

/// What [`CampaignArgs::execute`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// One run made (or resumed); its record says whether it failed.
    Ran(RunOutcome),
    /// A slice's runs made.
    Slice(LocalSummary),
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

impl Report {
    /// True if every run asked for is there and none failed: a program's
    /// exit status (a batch task whose run failed must say so).
    pub fn succeeded(&self) -> bool {
        let complete =
            |merged: &Merged| merged.missing.is_empty() && merged.table.failed().next().is_none();
        match self {
            Report::Ran(outcome) => outcome.record.error.is_none(),
            Report::Slice(summary) => summary.failed.is_empty(),
            Report::All {
                summary, merged, ..
            } => summary.failed.is_empty() && complete(merged),
            Report::Merged { merged, .. } => complete(merged),
        }
    }
}

/// The flags as written, before they are checked against each other.
#[derive(Default)]
struct Given {
    run_index: Option<usize>,
    task: Option<usize>,
    tasks: Option<usize>,
    merge: bool,
    jobs: Option<usize>,
    resume: bool,
    runs: Option<usize>,
    base_seed: Option<u64>,
    results: Option<PathBuf>,
    campaign: Option<PathBuf>,
}

impl CampaignArgs {
    /// Takes the campaign's flags (`--flag value` or `--flag=value`) out
    /// of `args`, leaving the program's own; on an error, `args` is left
    /// as it was.
    pub fn take(args: &mut Vec<String>) -> Result<Self, CampaignError> {
        let mut given = Given::default();
        let mut kept = Vec::new();
        let mut rest = args.iter().cloned();
        while let Some(arg) = rest.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg.clone(), None),
            };
            let mut value = || value_of(&flag, inline.clone(), &mut rest);
            match flag.as_str() {
                "--run-index" => set(&mut given.run_index, &flag, number(&flag, value()?)?)?,
                "--task" => set(&mut given.task, &flag, number(&flag, value()?)?)?,
                "--tasks" => set(&mut given.tasks, &flag, number(&flag, value()?)?)?,
                "--jobs" => set(&mut given.jobs, &flag, number(&flag, value()?)?)?,
                "--runs" => set(&mut given.runs, &flag, number(&flag, value()?)?)?,
                "--base-seed" => set(&mut given.base_seed, &flag, number(&flag, value()?)?)?,
                "--results" => set(&mut given.results, &flag, PathBuf::from(value()?))?,
                "--campaign" => set(&mut given.campaign, &flag, PathBuf::from(value()?))?,
                "--resume" | "--merge" if inline.is_some() => {
                    return Err(argument(format!("{flag} takes no value")));
                }
                "--resume" => set_switch(&mut given.resume, &flag)?,
                "--merge" => set_switch(&mut given.merge, &flag)?,
                _ => kept.push(arg),
            }
        }
        let parsed = given.check()?;
        *args = kept;
        Ok(parsed)
    }

    /// The campaign to run: `--campaign`'s file if given, else
    /// `built_in`, with `--runs` and `--base-seed` applied.
    pub fn campaign(&self, built_in: Campaign) -> Result<Campaign, CampaignError> {
        let mut campaign = match &self.campaign {
            Some(path) => read_description(path)?,
            None => built_in,
        };
        if let Some(runs) = self.runs {
            campaign = campaign.with_runs(runs)?;
        }
        if let Some(seed) = self.base_seed {
            campaign = campaign.with_base_seed(seed);
        }
        Ok(campaign)
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
        let jobs = self.jobs.unwrap_or_else(available_cores);
        match self.action {
            Action::RunIndex(index) => runner.run_index(index, f).map(Report::Ran),
            Action::Slice(slice) => runner
                .run_slice(slice, jobs, f, finished)
                .map(Report::Slice),
            Action::Merge => {
                let (merged, csv) = merge_into_csv(campaign, dir)?;
                Ok(Report::Merged { merged, csv })
            }
            Action::All => {
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

impl Given {
    /// The flags, unless two of them contradict each other.
    fn check(self) -> Result<CampaignArgs, CampaignError> {
        let action = match (self.run_index, self.task, self.tasks, self.merge) {
            (None, None, None, false) => Action::All,
            (Some(index), None, None, false) => Action::RunIndex(index),
            (None, Some(task), Some(tasks), false) => Action::Slice(Slice::new(task, tasks)?),
            (None, None, None, true) => Action::Merge,
            (None, Some(_), None, false) | (None, None, Some(_), false) => {
                return Err(argument("--task and --tasks go together".into()))
            }
            _ => {
                return Err(argument(
                    "--run-index, --task/--tasks and --merge cannot be given together".into(),
                ))
            }
        };
        if self.jobs == Some(0) {
            return Err(argument("--jobs must be at least 1".into()));
        }
        let unused = match action {
            Action::RunIndex(_) if self.jobs.is_some() => {
                Some("--jobs with --run-index (one run, one thread)")
            }
            Action::Merge if self.jobs.is_some() => Some("--jobs with --merge (nothing runs)"),
            Action::Merge if self.resume => Some("--resume with --merge (nothing runs)"),
            _ => None,
        };
        if let Some(unused) = unused {
            return Err(argument(format!("{unused} has no effect")));
        }
        Ok(CampaignArgs {
            action,
            results: self.results,
            jobs: self.jobs,
            resume: self.resume,
            runs: self.runs,
            base_seed: self.base_seed,
            campaign: self.campaign,
        })
    }
}

/// Reads the description file at `path`.
fn read_description(path: &Path) -> Result<Campaign, CampaignError> {
    let file = File::open(path).map_err(|source| CampaignError::Io {
        path: path.to_owned(),
        source,
    })?;
    Campaign::from_json(std::io::BufReader::new(file)).map_err(|error| match error {
        CampaignError::Description { reason } => CampaignError::Description {
            reason: format!("{}: {reason}", path.display()),
        },
        other => other,
    })
}

/// Merges the result files in `dir` and writes the table beside them.
fn merge_into_csv(campaign: &Campaign, dir: &Path) -> Result<(Merged, PathBuf), CampaignError> {
    let merged = merge(campaign, dir)?;
    let csv = dir.join(format!("{}.csv", campaign.name()));
    let mut bytes = Vec::new();
    merged
        .table
        .write_csv(&mut bytes)
        .expect("writing into memory does not fail");
    write_atomically(&csv, &bytes)?;
    Ok((merged, csv))
}

fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Sets a flag's value, once.
fn set<T>(slot: &mut Option<T>, flag: &str, value: T) -> Result<(), CampaignError> {
    if slot.replace(value).is_some() {
        return Err(argument(format!("{flag} is given twice")));
    }
    Ok(())
}

/// Sets a switch, once.
fn set_switch(switch: &mut bool, flag: &str) -> Result<(), CampaignError> {
    if std::mem::replace(switch, true) {
        return Err(argument(format!("{flag} is given twice")));
    }
    Ok(())
}

/// A flag's value: after `=`, or the next argument unless that is a flag.
fn value_of(
    flag: &str,
    inline: Option<String>,
    rest: &mut impl Iterator<Item = String>,
) -> Result<String, CampaignError> {
    let value = inline.or_else(|| rest.next());
    match value {
        Some(value) if !value.is_empty() && !value.starts_with("--") => Ok(value),
        _ => Err(argument(format!("{flag} needs a value"))),
    }
}

fn number<T: FromStr>(flag: &str, text: String) -> Result<T, CampaignError> {
    text.parse()
        .map_err(|_| argument(format!("{flag} needs a whole number, got `{text}`")))
}

fn argument(reason: String) -> CampaignError {
    CampaignError::Argument { reason }
}
