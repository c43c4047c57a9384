//! Running a campaign's runs: one alone, a batch task's slice, or all of
//! them on local threads.
//!
//! A run is the user's function of a [`Run`]; it returns [`Metrics`] or an
//! error. Whatever it does — returns, fails or panics — leaves one result
//! file, and the campaign goes on: in a campaign of a thousand dispersed
//! runs, the one that breaks the bench is the interesting one, and it must
//! not cost the other 999.

use std::error::Error;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::campaign::Campaign;
use crate::error::CampaignError;
use crate::folder;
use crate::record::{result_path, Metrics, RunRecord};
use crate::run::Run;

/// What a run returns: its metrics, or why it could not measure them.
pub type RunResult = Result<Metrics, Box<dyn Error + Send + Sync>>;

/// The stack of each local thread: what a program's main thread gets on
/// Linux, so that a run that works alone (`--run-index`) works among
/// others (a thread's default, 2 MiB, is a quarter of it).
pub const DEFAULT_STACK_SIZE: usize = 8 << 20;

/// Runs a campaign's runs and writes their result files into one folder.
#[derive(Debug)]
pub struct Runner<'a> {
    /// The campaign.
    campaign: &'a Campaign,
    /// Where the result files go.
    dir: PathBuf,
    /// Whether runs with a valid result file are skipped.
    resume: bool,
    /// The stack size of each local thread, bytes.
    stack_size: usize,
}

/// One batch task's share of the runs: indices `task`, `task + tasks`,
/// `task + 2·tasks`, …
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice {
    /// This task, `0..tasks`.
    pub task: usize,
    /// How many tasks share the runs.
    pub tasks: usize,
}

impl Slice {
    /// Every run.
    pub const ALL: Slice = Slice { task: 0, tasks: 1 };

    /// Task `task` of `tasks`.
    pub fn new(task: usize, tasks: usize) -> Result<Self, CampaignError> {
        if tasks == 0 || task >= tasks {
            return Err(CampaignError::Argument {
                reason: format!("task {task} of {tasks}: a task is one of 0 to tasks - 1"),
            });
        }
        Ok(Slice { task, tasks })
    }

    /// The `k`-th index of this slice, if it is below `runs`.
    fn index(self, k: usize, runs: usize) -> Option<usize> {
        let index = k.checked_mul(self.tasks)?.checked_add(self.task)?;
        (index < runs).then_some(index)
    }
}

/// What happened to one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// Its record (read back from its file if it was resumed).
    pub record: RunRecord,
    /// True if it was not made again: its result was there (`resume`).
    pub resumed: bool,
}

/// What [`Runner::run_local`] and [`Runner::run_slice`] did.
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
            stack_size: DEFAULT_STACK_SIZE,
        }
    }

    /// Skips the runs whose result file is there, is this campaign's and
    /// has no error (a failed run is made again) — to finish a campaign
    /// that was stopped, or to resubmit a whole batch array.
    pub fn resume(mut self, resume: bool) -> Self {
        self.resume = resume;
        self
    }

    /// The stack size of each local thread ([`DEFAULT_STACK_SIZE`]).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = bytes;
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

    /// Makes run `index` on this thread and writes its result file; the
    /// record says whether the run failed. A batch task's body:
    /// `--run-index` of the command line.
    pub fn run_index<F>(&self, index: usize, f: &F) -> Result<RunOutcome, CampaignError>
    where
        F: Fn(&Run) -> RunResult,
    {
        let run = self.campaign.run(index)?;
        folder::claim(&self.dir, self.campaign)?;
        self.make_or_resume(&run, f)
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
        self.run_slice(Slice::ALL, jobs, f, finished)
    }

    /// Makes the runs of `slice` on `jobs` local threads: a batch task
    /// that makes many short runs (`--task`, `--tasks`).
    pub fn run_slice<F>(
        &self,
        slice: Slice,
        jobs: usize,
        f: &F,
        finished: &(dyn Fn(&RunRecord) + Sync),
    ) -> Result<LocalSummary, CampaignError>
    where
        F: Fn(&Run) -> RunResult + Sync,
    {
        folder::claim(&self.dir, self.campaign)?;
        let work = Work {
            slice,
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            summary: Mutex::new(LocalSummary::default()),
        };
        let threads = jobs.clamp(1, self.campaign.runs().max(1));
        let outcomes: Vec<Result<(), Stop>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .filter_map(|i| {
                    std::thread::Builder::new()
                        .name(format!("campaign-{i}"))
                        .stack_size(self.stack_size)
                        .spawn_scoped(scope, || self.work(&work, f, finished))
                        .ok()
                })
                .collect();
            if workers.is_empty() {
                // No thread to be had: this one does the work.
                return vec![self.work(&work, f, finished)];
            }
            workers
                .into_iter()
                .map(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|panic| Err(Stop::Panic(panic)))
                })
                .collect()
        });
        // A panic first (the caller's own, from `finished`), then an error.
        let mut error = None;
        for outcome in outcomes {
            match outcome {
                Err(Stop::Panic(payload)) => panic::resume_unwind(payload),
                Err(Stop::Error(e)) => error = error.or(Some(e)),
                Ok(()) => {}
            }
        }
        if let Some(error) = error {
            return Err(error);
        }
        let mut summary = work.summary.into_inner().unwrap_or_else(|e| e.into_inner());
        summary.failed.sort_unstable();
        Ok(summary)
    }

    /// One thread's share: takes the next index until none is left, or
    /// another thread hit an error or a panic of `finished`.
    fn work<F>(
        &self,
        work: &Work,
        f: &F,
        finished: &(dyn Fn(&RunRecord) + Sync),
    ) -> Result<(), Stop>
    where
        F: Fn(&Run) -> RunResult,
    {
        while !work.stop.load(Ordering::Relaxed) {
            let k = work.next.fetch_add(1, Ordering::Relaxed);
            let Some(index) = work.slice.index(k, self.campaign.runs()) else {
                break;
            };
            let made = self
                .campaign
                .run(index)
                .and_then(|run| self.make_or_resume(&run, f));
            let done = made.map_err(Stop::Error).and_then(|outcome| {
                work.count(&outcome);
                // The callback is the caller's code: its panic stops the
                // other threads too, then reaches the caller as it was.
                panic::catch_unwind(AssertUnwindSafe(|| finished(&outcome.record)))
                    .map_err(Stop::Panic)
            });
            if let Err(stop) = done {
                work.stop.store(true, Ordering::Relaxed);
                return Err(stop);
            }
        }
        Ok(())
    }

    /// Makes `run`, unless resuming and its result is there.
    fn make_or_resume<F>(&self, run: &Run, f: &F) -> Result<RunOutcome, CampaignError>
    where
        F: Fn(&Run) -> RunResult,
    {
        let path = self.result_path(run.index());
        if self.resume {
            if let Some(record) = RunRecord::read(&path)? {
                record.check(self.campaign, run, &path)?;
                if record.error.is_none() {
                    return Ok(RunOutcome {
                        record,
                        resumed: true,
                    });
                }
            }
        }
        let record = execute(self.campaign, run, f);
        record.write(&path)?;
        Ok(RunOutcome {
            record,
            resumed: false,
        })
    }
}

/// Why a local thread stopped early.
enum Stop {
    /// An error of the campaign (a file it could not write).
    Error(CampaignError),
    /// A panic of the caller's `finished` callback.
    Panic(Box<dyn std::any::Any + Send>),
}

/// The threads' shared state in [`Runner::run_slice`].
struct Work {
    /// The indices to make.
    slice: Slice,
    /// The next of them to take (its rank in the slice).
    next: AtomicUsize,
    /// Set by a thread that hit an error of the campaign (a file it could
    /// not write): the others stop after their current run.
    stop: AtomicBool,
    /// The counts so far.
    summary: Mutex<LocalSummary>,
}

impl Work {
    /// Counts `outcome` in the summary.
    fn count(&self, outcome: &RunOutcome) {
        let mut summary = self.summary.lock().unwrap_or_else(|e| e.into_inner());
        if outcome.resumed {
            summary.resumed += 1;
            return;
        }
        summary.ran += 1;
        if outcome.record.error.is_some() {
            summary.failed.push(outcome.record.index);
        }
    }
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
