//! Running a campaign's runs: one alone, or all of them on local threads.
//!
//! A run is the user's function of a [`Run`]; it returns [`Metrics`] or an
//! error. Whatever it does — returns, fails or panics — leaves one result
//! file, and the campaign goes on: in a campaign of a thousand dispersed
//! runs, the one that breaks the bench is the interesting one, and it must
//! not cost the other 999.

use std::error::Error;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::campaign::Campaign;
use crate::error::CampaignError;
use crate::record::{result_path, Metrics, RunRecord};
use crate::run::Run;

/// What a run returns: its metrics, or why it could not measure them.
pub type RunResult = Result<Metrics, Box<dyn Error + Send + Sync>>;

/// Runs a campaign's runs and writes their result files into one folder.
#[derive(Debug)]
pub struct Runner<'a> {
    /// The campaign.
    campaign: &'a Campaign,
    /// Where the result files go.
    dir: PathBuf,
    /// Whether runs with a valid result file are skipped.
    resume: bool,
}

/// What [`Runner::run_local`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocalSummary {
    /// Runs made now.
    pub ran: usize,
    /// Runs skipped because their result was already there (`resume`).
    pub resumed: usize,
    /// Indices of the runs made now that failed, in order.
    pub failed: Vec<usize>,
}

impl<'a> Runner<'a> {
    /// A runner of `campaign` writing into `dir` (made if missing).
    pub fn new(campaign: &'a Campaign, dir: impl Into<PathBuf>) -> Self {
        Runner {
            campaign,
            dir: dir.into(),
            resume: false,
        }
    }

    /// Skips the runs whose result file is there, is this campaign's and
    /// has no error — to finish a campaign that was stopped.
    pub fn resume(mut self, resume: bool) -> Self {
        self.resume = resume;
        self
    }

    /// Where run `index`'s result file goes.
    pub fn result_path(&self, index: usize) -> PathBuf {
        result_path(&self.dir, index)
    }

    /// The folder of the result files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes run `index` and writes its result file; the record says
    /// whether the run failed. A batch job's body: `--run-index` of the
    /// command line.
    pub fn run_index<F>(&self, index: usize, f: &F) -> Result<RunRecord, CampaignError>
    where
        F: Fn(&Run) -> RunResult,
    {
        let run = self.campaign.run(index)?;
        self.make_dir()?;
        let record = execute(self.campaign, &run, f);
        record.write(&self.result_path(index))?;
        Ok(record)
    }

    /// Makes every run on `jobs` threads (at least one), each run on one
    /// thread from start to end; `finished` sees each record as it is
    /// written (a progress bar). The result files do not depend on `jobs`.
    pub fn run_local<F>(
        &self,
        jobs: usize,
        f: &F,
        finished: &(dyn Fn(&RunRecord) + Sync),
    ) -> Result<LocalSummary, CampaignError>
    where
        F: Fn(&Run) -> RunResult + Sync,
    {
        self.make_dir()?;
        let work = Work {
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            summary: Mutex::new(LocalSummary::default()),
        };
        let threads = jobs.clamp(1, self.campaign.runs().max(1));
        let outcomes: Vec<Result<(), CampaignError>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| scope.spawn(|| self.work(&work, f, finished)))
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().expect("a worker catches its runs' panics"))
                .collect()
        });
        outcomes.into_iter().collect::<Result<(), _>>()?;
        let mut summary = work
            .summary
            .into_inner()
            .expect("workers do not panic holding it");
        summary.failed.sort_unstable();
        Ok(summary)
    }

    /// One thread's share: takes the next index until none is left or
    /// another thread hit an error.
    fn work<F>(
        &self,
        work: &Work,
        f: &F,
        finished: &(dyn Fn(&RunRecord) + Sync),
    ) -> Result<(), CampaignError>
    where
        F: Fn(&Run) -> RunResult,
    {
        while !work.stop.load(Ordering::Relaxed) {
            let index = work.next.fetch_add(1, Ordering::Relaxed);
            if index >= self.campaign.runs() {
                break;
            }
            let done = self.make_or_resume(index, f, finished);
            match done {
                Ok(Done::Resumed) => work.lock().resumed += 1,
                Ok(Done::Ran { failed }) => {
                    let mut summary = work.lock();
                    summary.ran += 1;
                    if failed {
                        summary.failed.push(index);
                    }
                }
                Err(error) => {
                    work.stop.store(true, Ordering::Relaxed);
                    return Err(error);
                }
            }
        }
        Ok(())
    }

    /// Makes run `index`, unless resuming and its result is there.
    fn make_or_resume<F>(
        &self,
        index: usize,
        f: &F,
        finished: &(dyn Fn(&RunRecord) + Sync),
    ) -> Result<Done, CampaignError>
    where
        F: Fn(&Run) -> RunResult,
    {
        let run = self.campaign.run(index)?;
        let path = self.result_path(index);
        if self.resume {
            if let Some(record) = RunRecord::read(&path)? {
                record.check(self.campaign, &run, &path)?;
                if record.error.is_none() {
                    finished(&record);
                    return Ok(Done::Resumed);
                }
            }
        }
        let record = execute(self.campaign, &run, f);
        record.write(&path)?;
        finished(&record);
        Ok(Done::Ran {
            failed: record.error.is_some(),
        })
    }

    fn make_dir(&self) -> Result<(), CampaignError> {
        fs::create_dir_all(&self.dir).map_err(|source| CampaignError::Io {
            path: self.dir.clone(),
            source,
        })
    }
}

/// The threads' shared state in [`Runner::run_local`].
struct Work {
    /// The next index to take.
    next: AtomicUsize,
    /// Set by a thread that hit an error of the campaign (a file it could
    /// not write): the others stop after their current run.
    stop: AtomicBool,
    /// The counts so far.
    summary: Mutex<LocalSummary>,
}

impl Work {
    fn lock(&self) -> std::sync::MutexGuard<'_, LocalSummary> {
        self.summary
            .lock()
            .expect("workers do not panic holding it")
    }
}

/// How one index went.
enum Done {
    Resumed,
    Ran { failed: bool },
}

/// Makes `run`, catching its panic, and times it.
fn execute<F>(campaign: &Campaign, run: &Run, f: &F) -> RunRecord
where
    F: Fn(&Run) -> RunResult,
{
    let start = Instant::now();
    // The user's function gets the run by reference and owns nothing of
    // ours, so nothing is left half-updated if it unwinds.
    let outcome = match panic::catch_unwind(AssertUnwindSafe(|| f(run))) {
        Ok(Ok(metrics)) => Ok(metrics),
        Ok(Err(error)) => Err(error_chain(&*error)),
        Err(payload) => Err(format!("the run panicked: {}", panic_message(&*payload))),
    };
    RunRecord::new(campaign, run, outcome, start.elapsed().as_secs_f64())
}

/// `error` and its causes, `: `-separated.
fn error_chain(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A panic's message, when it has one.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}
