//! Monte-Carlo campaigns of causim benches.
//!
//! A campaign runs one bench many times, each run with its own draw of
//! dispersed parameters (a panel's efficiency, a battery's capacity, a
//! load's power) and its own seed, and gathers what each run measured into
//! one table. Verification teams use it to ask how often a design fails,
//! not whether its nominal case passes.
//!
//! - A [`Campaign`] describes it: parameters with [`Dispersion`]s, a base
//!   seed, a number of runs; in code or in a JSON file.
//! - [`Campaign::run`] gives run *i*: its seed and its values, derived from
//!   the base seed and *i* alone. Any run can be made again by itself, on
//!   any machine, without the others.
//! - A [`Runner`] makes one run (`--run-index i`: each task of a Slurm job
//!   array or any batch system makes one) or all of them on local threads,
//!   and writes one result file per run. A run that fails or panics leaves
//!   its error in its file; the others go on.
//! - [`merge`] reads the result files into a [`Table`] (CSV): each run's
//!   seed, parameters, metrics and error.
//! - [`CampaignArgs`] is the command line every campaign program shares.
//!
//! ```
//! use causim_campaign::{Campaign, Dispersion, Metrics, Runner, merge};
//!
//! let campaign = Campaign::new("drop", 7, 20)?
//!     .parameter("height_m", Dispersion::Uniform { low: 1.0, high: 2.0 })?;
//! let dir = std::env::temp_dir().join(format!("causim-campaign-doc-{}", std::process::id()));
//! let fall = |run: &causim_campaign::Run| -> causim_campaign::RunResult {
//!     let height = run.get("height_m")?;
//!     Ok(Metrics::new().with("fall_s", (2.0 * height / 9.81).sqrt()))
//! };
//! Runner::new(&campaign, &dir).run_local(2, &fall, &|_| {})?;
//! let merged = merge(&campaign, &dir)?;
//! assert_eq!(merged.table.rows.len(), 20);
//! assert!(merged.missing.is_empty());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Seeds.** Every draw comes from ChaCha8 (`rand_chacha`), seeded with
//! the base seed: run *i*'s parameters from stream `2i`, in the order the
//! parameters are listed, and the run's own seed ([`Run::seed`]) is the
//! first word of stream `2i + 1`. ChaCha8 is specified and portable, so a
//! run's seed is the same everywhere; streams make the runs independent
//! without hashing indices into seeds. Adding a parameter at the end of
//! the list leaves the earlier parameters' draws and every run's seed as
//! they were. The values are `rand_distr`'s transformations of those
//! words: exact for uniform, triangular and choice; those that go through
//! `exp` or `ln` (log-normal, the normal's rare tail) may differ in their
//! last bits between builds whose math libraries differ, so result files
//! are checked against a fresh draw to a relative 10⁻⁹. A new minor
//! version of `rand_distr` may change its transformations: the crate's
//! tests lock the first runs' values, so such a change is seen.
//!
//! **The results folder** holds the description beside the result files
//! (`campaign.json`): a run, a resume or a merge in a folder of another
//! description — other base seed, dispersions or bench settings
//! ([`Campaign::setting`]) — is refused, naming what differs.
//!
//! **Forking.** A campaign whose runs share a long common start (launch,
//! early orbit) runs it once, saves the bench (causim's `save` feature),
//! and has each run restore the snapshot into its own bench before
//! applying its parameters; the run function captures the snapshot's
//! bytes. The power example does it with `--fork`.

mod campaign;
mod cli;
mod dispersion;
mod error;
mod folder;
mod merge;
mod record;
mod run;
mod runner;

pub use campaign::{Campaign, Parameter, MAX_RUNS};
pub use cli::{Action, CampaignArgs, Report, CAMPAIGN_HELP};
pub use dispersion::Dispersion;
pub use error::CampaignError;
pub use merge::{merge, Merged, Row, Table, MAX_MERGED_RUNS};
pub use record::{Metrics, Named, RunRecord};
pub use run::Run;
pub use runner::{LocalSummary, RunOutcome, RunResult, Runner, Slice, DEFAULT_STACK_SIZE};
