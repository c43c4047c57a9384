//! Runs, result files, the merge and the command line.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use causim_campaign::{
    merge, Action, Campaign, CampaignArgs, CampaignError, Dispersion, Metrics, Report, Run,
    RunResult, Runner,
};

/// A folder of its own for each test, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("causim-campaign-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn campaign(runs: usize) -> Campaign {
    Campaign::new("drop", 11, runs)
        .and_then(|c| {
            c.parameter(
                "height_m",
                Dispersion::Uniform {
                    low: 1.0,
                    high: 2.0,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "drag",
                Dispersion::Normal {
                    mean: 0.1,
                    std_dev: 0.02,
                },
            )
        })
        .unwrap()
}

/// A run of a little model: a fall from the run's height, slowed by its
/// drag, with the run's seed for a wobble.
fn fall(run: &Run) -> RunResult {
    use rand::RngExt;
    let height = run.get("height_m")?;
    let drag = run.get("drag")?;
    let wobble: f64 = run.rng().random_range(-0.01..0.01);
    let time = (2.0 * height / 9.81).sqrt() * (1.0 + drag) + wobble;
    Ok(Metrics::new()
        .with("fall_s", time)
        .with("speed_m_s", 2.0 * height / time))
}

fn csv_of(campaign: &Campaign, dir: &Path) -> String {
    let merged = merge(campaign, dir).unwrap();
    let mut csv = Vec::new();
    merged.table.write_csv(&mut csv).unwrap();
    String::from_utf8(csv).unwrap()
}

#[test]
fn every_run_leaves_one_file_and_the_table_does_not_depend_on_the_jobs() {
    let campaign = campaign(40);
    let tables: Vec<String> = [1, 3, 8]
        .iter()
        .map(|&jobs| {
            let dir = TempDir::new(&format!("jobs-{jobs}"));
            let seen = AtomicUsize::new(0);
            let summary = Runner::new(&campaign, &dir.0)
                .run_local(jobs, &fall, &|_| {
                    seen.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            assert_eq!((summary.ran, summary.resumed), (40, 0));
            assert!(summary.failed.is_empty());
            assert_eq!(seen.load(Ordering::Relaxed), 40);
            let files = fs::read_dir(&dir.0).unwrap().count();
            assert_eq!(files, 40, "one file per run, nothing else");
            csv_of(&campaign, &dir.0)
        })
        .collect();
    assert_eq!(tables[0], tables[1]);
    assert_eq!(tables[0], tables[2]);
    assert_eq!(tables[0].lines().count(), 41);
    assert!(tables[0].starts_with("run,seed,height_m,drag,fall_s,speed_m_s,error\n0,"));
}

#[test]
fn a_run_made_alone_is_the_same_run() {
    let campaign = campaign(10);
    let (all, alone) = (TempDir::new("all"), TempDir::new("alone"));
    Runner::new(&campaign, &all.0)
        .run_local(2, &fall, &|_| {})
        .unwrap();
    // A batch system: one process per index, in any order.
    for index in (0..10).rev() {
        let record = Runner::new(&campaign, &alone.0)
            .run_index(index, &fall)
            .unwrap();
        assert_eq!(record.index, index);
        assert!(record.error.is_none());
    }
    assert_eq!(csv_of(&campaign, &all.0), csv_of(&campaign, &alone.0));
}

/// The table of a known campaign, locked: the file format is what other
/// tools read.
#[test]
fn the_table_of_a_known_campaign() {
    let campaign = campaign(4);
    let dir = TempDir::new("known");
    Runner::new(&campaign, &dir.0)
        .run_local(2, &fall, &|_| {})
        .unwrap();
    insta::assert_snapshot!(csv_of(&campaign, &dir.0));
}

#[derive(Debug)]
struct Overheated {
    cause: io::Error,
}

impl std::fmt::Display for Overheated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the heater overheated")
    }
}

impl std::error::Error for Overheated {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

/// Runs 2 and 5 fail, 3 panics, 4 reports a metric with a parameter's name.
fn sometimes_failing(run: &Run) -> RunResult {
    match run.index() {
        2 | 5 => Err(Box::new(Overheated {
            cause: io::Error::other("sensor stuck at 85 °C, \"hot\""),
        })),
        3 => panic!("battery model diverged at t = {} s", 12),
        4 => Ok(Metrics::new().with("height_m", 1.0)),
        _ => fall(run),
    }
}

#[test]
fn failing_and_panicking_runs_are_recorded_and_the_others_go_on() {
    let campaign = campaign(8);
    let dir = TempDir::new("failing");
    let summary = Runner::new(&campaign, &dir.0)
        .run_local(2, &sometimes_failing, &|_| {})
        .unwrap();
    assert_eq!(summary.ran, 8);
    assert_eq!(summary.failed, [2, 3, 4, 5]);

    let merged = merge(&campaign, &dir.0).unwrap();
    let errors: Vec<(usize, &str)> = merged
        .table
        .failed()
        .map(|row| (row.run, row.error.as_deref().unwrap()))
        .collect();
    assert_eq!(
        errors,
        [
            (2, "the heater overheated: sensor stuck at 85 °C, \"hot\""),
            (3, "the run panicked: battery model diverged at t = 12 s"),
            (4, "metric `height_m`: this name is a parameter's"),
            (5, "the heater overheated: sensor stuck at 85 °C, \"hot\""),
        ]
    );
    let fall_s = merged.table.column("fall_s").unwrap();
    assert!(fall_s[2].is_none() && fall_s[0].is_some() && fall_s[7].is_some());
    // The error column is quoted: it holds a comma and quotes.
    let csv = csv_of(&campaign, &dir.0);
    let line = csv.lines().nth(3).unwrap();
    assert!(
        line.ends_with(",,,\"the heater overheated: sensor stuck at 85 °C, \"\"hot\"\"\""),
        "{line}"
    );
}

#[test]
fn non_finite_metrics_survive_the_file_and_the_table() {
    let campaign = campaign(3);
    let dir = TempDir::new("nan");
    let diverging = |run: &Run| -> RunResult {
        let value = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][run.index()];
        Ok(Metrics::new().with("peak", value))
    };
    Runner::new(&campaign, &dir.0)
        .run_local(1, &diverging, &|_| {})
        .unwrap();
    let peak = merge(&campaign, &dir.0)
        .unwrap()
        .table
        .column("peak")
        .unwrap();
    assert!(peak[0].unwrap().is_nan());
    assert_eq!(peak[1..], [Some(f64::INFINITY), Some(f64::NEG_INFINITY)]);
    let csv = csv_of(&campaign, &dir.0);
    let peaks: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(4).unwrap())
        .collect();
    assert_eq!(peaks, ["NaN", "inf", "-inf"]);
}

#[test]
fn the_merge_lists_missing_runs_and_refuses_foreign_or_broken_files() {
    let campaign = campaign(6);
    let dir = TempDir::new("merge");
    let runner = Runner::new(&campaign, &dir.0);
    for index in [0, 2, 3] {
        runner.run_index(index, &fall).unwrap();
    }
    let merged = merge(&campaign, &dir.0).unwrap();
    assert_eq!(merged.missing, [1, 4, 5]);
    assert_eq!(
        merged.table.rows.iter().map(|r| r.run).collect::<Vec<_>>(),
        [0, 2, 3]
    );

    // A file of the same campaign with another base seed: stale.
    Runner::new(&campaign.clone().with_base_seed(12), &dir.0)
        .run_index(4, &fall)
        .unwrap();
    let stale = merge(&campaign, &dir.0).unwrap_err();
    assert!(matches!(stale, CampaignError::StaleResult { .. }));
    let message = stale.to_string();
    assert!(
        message.contains("run-000004.json") && message.contains("another base seed"),
        "{message}"
    );

    // Another campaign's file.
    let other = Campaign::new("other", 11, 6).unwrap();
    Runner::new(&other, &dir.0)
        .run_index(4, &|_: &Run| Ok(Metrics::new()))
        .unwrap();
    let foreign = merge(&campaign, &dir.0).unwrap_err().to_string();
    assert!(
        foreign.contains("campaign `other`, not `drop`"),
        "{foreign}"
    );

    // Another dispersion of the same names, same seed.
    let redrawn = Campaign::new("drop", 11, 6)
        .and_then(|c| {
            c.parameter(
                "height_m",
                Dispersion::Uniform {
                    low: 1.0,
                    high: 3.0,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "drag",
                Dispersion::Normal {
                    mean: 0.1,
                    std_dev: 0.02,
                },
            )
        })
        .unwrap();
    Runner::new(&redrawn, &dir.0).run_index(4, &fall).unwrap();
    let redrawn_error = merge(&campaign, &dir.0).unwrap_err().to_string();
    assert!(
        redrawn_error.contains("other parameters or dispersions"),
        "{redrawn_error}"
    );

    // A truncated file.
    let path = runner.result_path(4);
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, &text[..text.len() / 2]).unwrap();
    let broken = merge(&campaign, &dir.0).unwrap_err();
    assert!(
        matches!(broken, CampaignError::ResultFile { .. }),
        "{broken}"
    );
    assert!(
        broken
            .to_string()
            .contains("run-000004.json: not a run record: EOF"),
        "{broken}"
    );
}

#[test]
fn resume_skips_finished_runs_and_makes_failed_ones_again() {
    let campaign = campaign(6);
    let dir = TempDir::new("resume");
    Runner::new(&campaign, &dir.0)
        .run_local(2, &sometimes_failing, &|_| {})
        .unwrap();
    fs::remove_file(Runner::new(&campaign, &dir.0).result_path(1)).unwrap();

    let calls = AtomicUsize::new(0);
    let counted = |run: &Run| {
        calls.fetch_add(1, Ordering::Relaxed);
        fall(run)
    };
    let summary = Runner::new(&campaign, &dir.0)
        .resume(true)
        .run_local(2, &counted, &|_| {})
        .unwrap();
    // Run 0 is kept; 1 was deleted and 2 to 5 had failed: made again.
    assert_eq!((summary.ran, summary.resumed), (5, 1));
    assert_eq!(calls.load(Ordering::Relaxed), 5);
    assert!(summary.failed.is_empty());
    let merged = merge(&campaign, &dir.0).unwrap();
    assert_eq!(merged.table.failed().count(), 0);
    assert!(merged.missing.is_empty());

    // Resuming into a folder of another description is refused.
    let error = Runner::new(&campaign.clone().with_base_seed(1), &dir.0)
        .resume(true)
        .run_local(1, &fall, &|_| {})
        .unwrap_err();
    assert!(
        matches!(error, CampaignError::StaleResult { .. }),
        "{error}"
    );
}

#[test]
fn an_unwritable_folder_stops_the_campaign_with_its_path() {
    let campaign = campaign(4);
    let dir = TempDir::new("unwritable");
    fs::write(&dir.0, "a file where the folder should be").unwrap();
    let error = Runner::new(&campaign, &dir.0)
        .run_local(2, &fall, &|_| {})
        .unwrap_err();
    assert!(matches!(error, CampaignError::Io { .. }));
    assert!(
        error.to_string().starts_with(&dir.0.display().to_string()),
        "{error}"
    );
    let _ = fs::remove_file(&dir.0);
}

fn args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn the_command_line_takes_its_flags_and_leaves_the_programs() {
    let mut rest = args("--orbits 3 --run-index 41 --results /tmp/r --seed=9 --resume --fork");
    let parsed = CampaignArgs::take(&mut rest).unwrap();
    assert_eq!(rest, args("--orbits 3 --fork"));
    assert_eq!(parsed.action, Action::RunIndex(41));
    assert_eq!(parsed.results.as_deref(), Some(Path::new("/tmp/r")));
    assert_eq!(parsed.base_seed, Some(9));
    assert!(parsed.resume);

    let mut merge_only = args("--merge --runs 5 --jobs 3");
    let parsed = CampaignArgs::take(&mut merge_only).unwrap();
    assert_eq!(
        (parsed.action, parsed.runs, parsed.jobs),
        (Action::Merge, Some(5), Some(3))
    );
    assert_eq!(parsed.apply(campaign(100)).runs(), 5);

    let error = |text: &str| CampaignArgs::take(&mut args(text)).unwrap_err().to_string();
    assert_eq!(error("--run-index"), "--run-index needs a value");
    assert_eq!(
        error("--jobs two"),
        "--jobs needs a whole number, got `two`"
    );
    assert_eq!(
        error("--run-index -1"),
        "--run-index needs a whole number, got `-1`"
    );
    assert_eq!(
        error("--merge --run-index 1"),
        "--run-index and --merge cannot be given together"
    );
    assert_eq!(error("--jobs 0"), "--jobs must be at least 1");
    assert_eq!(error("--resume=yes"), "--resume takes no value");
}

#[test]
fn the_command_line_runs_one_index_all_of_them_or_the_merge() {
    let campaign = campaign(5);
    let dir = TempDir::new("cli");
    let execute = |text: &str| {
        let parsed = CampaignArgs::take(&mut args(text)).unwrap();
        parsed.execute(&parsed.apply(campaign.clone()), &dir.0, &fall, &|_| {})
    };
    let Report::Ran(record) = execute("--run-index 4").unwrap() else {
        panic!("one run")
    };
    assert_eq!(record.index, 4);
    let out_of_range = execute("--run-index 5").unwrap_err().to_string();
    assert_eq!(
        out_of_range,
        "run index 5 is out of range: the campaign has 5 runs (0 to 4)"
    );

    let Report::Merged { merged, csv } = execute("--merge").unwrap() else {
        panic!("a merge")
    };
    assert_eq!(merged.missing, [0, 1, 2, 3]);
    assert_eq!(csv, dir.0.join("drop.csv"));

    let Report::All {
        summary,
        merged,
        csv,
    } = execute("--resume --jobs 2").unwrap()
    else {
        panic!("all")
    };
    assert_eq!((summary.ran, summary.resumed), (4, 1));
    assert!(merged.missing.is_empty());
    assert_eq!(fs::read_to_string(csv).unwrap(), csv_of(&campaign, &dir.0));
}
