//! What can go wrong in a campaign, named so that it can be fixed.
//!
//! A failing *run* is not an error of the campaign: its message lands in
//! its result file and in the merged table, and the other runs go on.
//! These are the errors of the campaign itself — its description, a run
//! index, the result files — each naming the parameter, run or file.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// An error of a campaign's description, of its arguments or of its files.
#[derive(Debug)]
#[non_exhaustive]
pub enum CampaignError {
    /// The description is not valid JSON of a campaign.
    Description {
        /// What the JSON reader said, with the line and column.
        reason: String,
    },
    /// The campaign's name is empty or cannot be a file name's part.
    Name {
        /// The name given.
        name: String,
    },
    /// A parameter's name is empty, repeated or reserved.
    ParameterName {
        /// The name given.
        name: String,
        /// Why it cannot be used.
        reason: &'static str,
    },
    /// A parameter's dispersion is not a distribution.
    Dispersion {
        /// The parameter.
        parameter: String,
        /// What is wrong with it.
        reason: String,
    },
    /// More runs than the generator has streams for
    /// ([`MAX_RUNS`](crate::MAX_RUNS)).
    TooManyRuns {
        /// The number asked for.
        runs: usize,
    },
    /// A run index at or past the number of runs.
    RunIndex {
        /// The index asked for.
        index: usize,
        /// The campaign's number of runs.
        runs: usize,
    },
    /// A parameter a run asked for that the campaign does not have.
    UnknownParameter {
        /// The name asked for.
        name: String,
        /// The campaign's parameters.
        known: Vec<String>,
    },
    /// A merge of more runs than a table holds
    /// ([`MAX_MERGED_RUNS`](crate::MAX_MERGED_RUNS)).
    TooManyToMerge {
        /// The campaign's number of runs.
        runs: usize,
    },
    /// A command-line argument that cannot be understood.
    Argument {
        /// What is wrong.
        reason: String,
    },
    /// A result file that cannot be read or written.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A results folder that does not exist (a merge of nothing).
    NoResults {
        /// The folder.
        dir: PathBuf,
    },
    /// A results folder of another campaign description.
    OtherDescription {
        /// The folder's description file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
    /// A results folder's description file that cannot be read.
    DescriptionFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A result file that is not a run record.
    ResultFile {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        reason: String,
    },
    /// A result file of another campaign, another seed or other
    /// dispersions: left over from an earlier description.
    StaleResult {
        /// The file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
}

impl fmt::Display for CampaignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CampaignError::Description { reason } => {
                write!(f, "the campaign description is not valid: {reason}")
            }
            CampaignError::Name { name } => write!(
                f,
                "campaign name `{name}` must be non-empty and made of letters, digits, `-`, `_` and `.`"
            ),
            CampaignError::ParameterName { name, reason } => {
                write!(f, "parameter `{name}`: {reason}")
            }
            CampaignError::Dispersion { parameter, reason } => {
                write!(f, "parameter `{parameter}`: {reason}")
            }
            CampaignError::TooManyRuns { runs } => write!(
                f,
                "{runs} runs is more than a campaign can have ({})",
                crate::MAX_RUNS
            ),
            CampaignError::RunIndex { index, runs: 0 } => {
                write!(f, "run index {index} is out of range: the campaign has no runs")
            }
            CampaignError::RunIndex { index, runs } => write!(
                f,
                "run index {index} is out of range: the campaign has {runs} runs (0 to {})",
                runs.saturating_sub(1)
            ),
            CampaignError::UnknownParameter { name, known } if known.is_empty() => {
                write!(f, "the campaign has no parameter `{name}`; it has no parameters")
            }
            CampaignError::UnknownParameter { name, known } => write!(
                f,
                "the campaign has no parameter `{name}`; it has: {}",
                known.join(", ")
            ),
            CampaignError::TooManyToMerge { runs } => write!(
                f,
                "{runs} runs is more than one table holds ({}): merge with fewer --runs",
                crate::MAX_MERGED_RUNS
            ),
            CampaignError::Argument { reason } => f.write_str(reason),
            CampaignError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            CampaignError::NoResults { dir } => {
                write!(f, "{}: no such results folder", dir.display())
            }
            CampaignError::OtherDescription { path, reason } => write!(
                f,
                "{}: the results there are of another campaign description ({reason}); \
                 use another results folder, or delete this one",
                path.display()
            ),
            CampaignError::DescriptionFile { path, reason } => write!(
                f,
                "{}: the description of the results in this folder cannot be read: {reason}; \
                 restore it, or use another results folder",
                path.display()
            ),
            CampaignError::ResultFile { path, reason } => write!(
                f,
                "{}: not a run record: {reason} (delete it to make the run again)",
                path.display()
            ),
            CampaignError::StaleResult { path, reason } => write!(
                f,
                "{}: a result of another campaign description ({reason}); \
                 delete it or run that index again",
                path.display()
            ),
        }
    }
}

impl std::error::Error for CampaignError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CampaignError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
