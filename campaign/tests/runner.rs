//! Runs, result files, the results folder, the merge and the command line.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use causim_campaign::{
    merge, Action, Campaign, CampaignArgs, CampaignError, Dispersion, Metrics, Report, Run,
    RunResult, Runner, Slice,
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
    drop_campaign(runs, 2.0)
}

/// `campaign(runs)` with its height drawn from another range.
fn redrawn(runs: usize) -> Campaign {
    drop_campaign(runs, 3.0)
}

/// A fall from a height between 1 m and `highest`, with some drag.
fn drop_campaign(runs: usize, highest: f64) -> Campaign {
    let height = Dispersion::Uniform {
        low: 1.0,
        high: highest,
    };
    let drag = Dispersion::Normal {
        mean: 0.1,
        std_dev: 0.02,
    };
    Campaign::new("drop", 11, runs)
        .and_then(|c| c.parameter("height_m", height))
        .and_then(|c| c.parameter("drag", drag))
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

/// The files in `dir` whose name starts with `.` (temporary ones).
fn hidden_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter(|name| name.starts_with('.'))
        .collect()
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
            assert_eq!(
                files, 41,
                "one file per run and the description, nothing else"
            );
            csv_of(&campaign, &dir.0)
        })
        .collect();
    assert_eq!(tables[0], tables[1]);
    assert_eq!(tables[0], tables[2]);
    assert_eq!(tables[0].lines().count(), 41);
    assert!(tables[0].starts_with("run,seed,height_m,drag,fall_s,speed_m_s,error\n0,"));
}

#[test]
fn a_run_made_alone_or_in_a_slice_is_the_same_run() {
    let campaign = campaign(10);
    let (all, alone, sliced) = (
        TempDir::new("all"),
        TempDir::new("alone"),
        TempDir::new("sliced"),
    );
    Runner::new(&campaign, &all.0)
        .run_local(2, &fall, &|_| {})
        .unwrap();
    // A batch system: one process per index, in any order.
    for index in (0..10).rev() {
        let outcome = Runner::new(&campaign, &alone.0)
            .run_index(index, &fall)
            .unwrap();
        assert_eq!(outcome.record.index, index);
        assert!(outcome.record.error.is_none() && !outcome.resumed);
    }
    // Three tasks of an array, each a slice on its own threads.
    let made: Vec<usize> = (0..3)
        .map(|task| {
            let slice = Slice::new(task, 3).unwrap();
            let summary = Runner::new(&campaign, &sliced.0)
                .run_slice(slice, 2, &fall, &|_| {})
                .unwrap();
            summary.ran
        })
        .collect();
    assert_eq!(made, [4, 3, 3], "runs 0, 3, 6, 9; 1, 4, 7; 2, 5, 8");
    assert_eq!(csv_of(&campaign, &all.0), csv_of(&campaign, &alone.0));
    assert_eq!(csv_of(&campaign, &all.0), csv_of(&campaign, &sliced.0));
    assert!(Slice::new(3, 3).is_err() && Slice::new(0, 0).is_err());
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
fn a_folder_of_another_description_is_refused_naming_what_differs() {
    let dir = TempDir::new("other-description");
    Runner::new(&campaign(4), &dir.0)
        .run_index(0, &fall)
        .unwrap();
    let refused = |other: &Campaign| {
        let error = Runner::new(other, &dir.0).run_index(1, &fall).unwrap_err();
        assert!(
            matches!(error, CampaignError::OtherDescription { .. }),
            "{error}"
        );
        error.to_string()
    };
    let seed = refused(&campaign(4).with_base_seed(12));
    assert!(
        seed.contains("campaign.json") && seed.contains("base seed 11 there, 12 here"),
        "{seed}"
    );
    let orbits = refused(&campaign(4).setting("orbits", 6));
    assert!(
        orbits.contains("settings {} there, {\"orbits\": \"6\"} here"),
        "{orbits}"
    );
    let redrawn = redrawn(4);
    assert!(refused(&redrawn).contains("parameter `height_m` drawn from Uniform"));
    // The resume and the merge are refused too; nothing was written.
    let resumed = Runner::new(&campaign(4).with_base_seed(12), &dir.0)
        .resume(true)
        .run_local(1, &fall, &|_| {});
    assert!(matches!(
        resumed,
        Err(CampaignError::OtherDescription { .. })
    ));
    assert!(matches!(
        merge(&campaign(4).with_base_seed(12), &dir.0),
        Err(CampaignError::OtherDescription { .. })
    ));
    assert_eq!(merge(&campaign(4), &dir.0).unwrap().missing, [1, 2, 3]);
    // More runs is the same description: the campaign grows.
    Runner::new(&campaign(6), &dir.0)
        .run_index(5, &fall)
        .unwrap();
    let merged = merge(&campaign(4), &dir.0).unwrap();
    assert_eq!((merged.missing, merged.beyond), (vec![1, 2, 3], vec![5]));
}

#[test]
fn the_merge_lists_missing_runs_and_refuses_foreign_or_broken_files() {
    let campaign = campaign(6);
    let (dir, elsewhere) = (TempDir::new("merge"), TempDir::new("merge-elsewhere"));
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

    // A file copied in from another campaign's folder: stale.
    let copied_in = |other: &Campaign| {
        let _ = fs::remove_dir_all(&elsewhere.0);
        Runner::new(other, &elsewhere.0)
            .run_index(4, &fall)
            .unwrap();
        fs::copy(elsewhere.0.join("run-000004.json"), runner.result_path(4)).unwrap();
        let error = merge(&campaign, &dir.0).unwrap_err();
        assert!(
            matches!(error, CampaignError::StaleResult { .. }),
            "{error}"
        );
        let message = error.to_string();
        assert!(message.contains("run-000004.json"), "{message}");
        message
    };
    assert!(copied_in(&campaign.clone().with_base_seed(12)).contains("another base seed"));
    let other = Campaign::new("other", 11, 6).unwrap();
    assert!(copied_in(&other).contains("campaign `other`, not `drop`"));
    let reordered = Campaign::new("drop", 11, 6)
        .and_then(|c| {
            c.parameter(
                "drag",
                Dispersion::Normal {
                    mean: 0.1,
                    std_dev: 0.02,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "height_m",
                Dispersion::Uniform {
                    low: 1.0,
                    high: 2.0,
                },
            )
        })
        .unwrap();
    assert!(copied_in(&reordered).contains("parameters (drag, height_m), not (height_m, drag)"));
    let redrawn = redrawn(6);
    assert!(copied_in(&redrawn).contains("another dispersion"));

    // A truncated file.
    runner.run_index(4, &fall).unwrap();
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

    // A hand-edited metric named like a parameter.
    let edited = text.replace("\"fall_s\"", "\"drag\"");
    fs::write(&path, edited).unwrap();
    let clash = merge(&campaign, &dir.0).unwrap_err().to_string();
    assert!(
        clash.contains("metric `drag`: this name is a parameter's"),
        "{clash}"
    );

    let missing = merge(&campaign, &dir.0.join("nowhere"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.ends_with("nowhere: no such results folder"),
        "{missing}"
    );
}

#[test]
fn two_writers_of_one_run_never_show_half_a_file() {
    let campaign = campaign(2);
    let dir = TempDir::new("writers");
    Runner::new(&campaign, &dir.0).run_index(0, &fall).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                for _ in 0..20 {
                    Runner::new(&campaign, &dir.0).run_index(0, &fall).unwrap();
                }
            });
        }
        scope.spawn(|| {
            for _ in 0..60 {
                let merged = merge(&campaign, &dir.0).unwrap();
                assert_eq!(merged.table.rows.len(), 1);
            }
        });
    });
    assert!(
        hidden_files(&dir.0).is_empty(),
        "{:?}",
        hidden_files(&dir.0)
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

    // One index resumed: read back, not made.
    let outcome = Runner::new(&campaign, &dir.0)
        .resume(true)
        .run_index(3, &counted)
        .unwrap();
    assert!(outcome.resumed && outcome.record.error.is_none());
    assert_eq!(calls.load(Ordering::Relaxed), 5);
}

#[test]
fn a_write_that_fails_stops_the_campaign_with_its_path() {
    let campaign = campaign(40);
    let dir = TempDir::new("unwritable");
    // Run 5's file cannot be replaced: a folder stands at its name.
    fs::create_dir_all(Runner::new(&campaign, &dir.0).result_path(5).join("x")).unwrap();
    let error = Runner::new(&campaign, &dir.0)
        .run_local(2, &fall, &|_| {})
        .unwrap_err();
    assert!(matches!(error, CampaignError::Io { .. }));
    assert!(error.to_string().contains("run-000005.json"), "{error}");
    assert!(
        hidden_files(&dir.0).is_empty(),
        "{:?}",
        hidden_files(&dir.0)
    );
    // The other thread stopped too: far fewer than the 39 other runs.
    let made = fs::read_dir(&dir.0)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_type().unwrap().is_file())
        .count()
        - 1;
    assert!(made < 39, "{made} runs made after the error");
    // The merge names what stands in the way.
    let merge_error = merge(&campaign, &dir.0).unwrap_err().to_string();
    assert!(merge_error.contains("run-000005.json"), "{merge_error}");
}

#[test]
fn a_panic_of_the_progress_callback_is_the_callers_and_stops_the_campaign() {
    let campaign = campaign(2000);
    let dir = TempDir::new("callback");
    let caught = std::panic::catch_unwind(|| {
        Runner::new(&campaign, &dir.0).run_local(2, &fall, &|record| {
            if record.index == 0 {
                panic!("the progress bar broke")
            }
        })
    });
    let payload = caught.unwrap_err();
    assert_eq!(
        payload.downcast_ref::<&str>(),
        Some(&"the progress bar broke")
    );
    let made = fs::read_dir(&dir.0).unwrap().count() - 1;
    assert!(made < 1000, "{made} runs made after the panic");
}

#[test]
fn two_descriptions_starting_in_one_folder_at_once_are_not_both_accepted() {
    for attempt in 0..20 {
        let dir = TempDir::new(&format!("race-{attempt}"));
        let (three, six) = (
            campaign(4).setting("orbits", 3),
            campaign(4).setting("orbits", 6),
        );
        let accepted: Vec<bool> = std::thread::scope(|scope| {
            let a = scope.spawn(|| Runner::new(&three, &dir.0).run_index(0, &fall).is_ok());
            let b = scope.spawn(|| Runner::new(&six, &dir.0).run_index(1, &fall).is_ok());
            vec![a.join().unwrap(), b.join().unwrap()]
        });
        assert_eq!(
            accepted.iter().filter(|&&ok| ok).count(),
            1,
            "attempt {attempt}"
        );
    }
}

#[test]
fn values_are_checked_to_a_relative_billionth() {
    let campaign = campaign(1);
    let dir = TempDir::new("tolerance");
    let runner = Runner::new(&campaign, &dir.0);
    runner.run_index(0, &fall).unwrap();
    let path = runner.result_path(0);
    let height = campaign.run(0).unwrap().get("height_m").unwrap();
    let original = fs::read_to_string(&path).unwrap();
    let with_height = |value: f64| original.replace(&format!("{height}"), &format!("{value}"));
    // The last bits of another math library: the same draw.
    fs::write(&path, with_height(height * (1.0 + 1e-12))).unwrap();
    assert!(merge(&campaign, &dir.0).is_ok());
    // A millionth off: another draw.
    fs::write(&path, with_height(height * (1.0 + 1e-6))).unwrap();
    let error = merge(&campaign, &dir.0).unwrap_err();
    assert!(error.to_string().contains("another dispersion"), "{error}");
}

#[test]
fn a_damaged_description_file_says_what_it_is() {
    let campaign = campaign(2);
    let dir = TempDir::new("damaged");
    Runner::new(&campaign, &dir.0).run_index(0, &fall).unwrap();
    fs::write(dir.0.join("campaign.json"), "{").unwrap();
    let error = Runner::new(&campaign, &dir.0)
        .run_index(1, &fall)
        .unwrap_err();
    assert!(
        matches!(error, CampaignError::DescriptionFile { .. }),
        "{error}"
    );
    assert!(error
        .to_string()
        .contains("the description of the results in this folder cannot be read"));
    assert!(matches!(
        merge(&campaign, &dir.0),
        Err(CampaignError::DescriptionFile { .. })
    ));
}

#[test]
fn parameter_lists_differ_even_when_their_names_join_alike() {
    let dir = TempDir::new("joined");
    let fixed = || Dispersion::Fixed { value: 1.0 };
    let two = Campaign::new("j", 1, 1)
        .and_then(|c| c.parameter("a", fixed()))
        .and_then(|c| c.parameter("b", fixed()))
        .unwrap();
    let one = Campaign::new("j", 1, 1)
        .and_then(|c| c.parameter("a, b", fixed()))
        .unwrap();
    let ok = |_: &Run| Ok(Metrics::new());
    Runner::new(&two, &dir.0).run_index(0, &ok).unwrap();
    let error = Runner::new(&one, &dir.0).run_index(0, &ok).unwrap_err();
    assert!(
        matches!(error, CampaignError::OtherDescription { .. }),
        "{error}"
    );
}

#[test]
fn a_merge_larger_than_a_table_is_refused() {
    let huge = campaign(1)
        .with_runs(causim_campaign::MAX_MERGED_RUNS + 1)
        .unwrap();
    let error = merge(&huge, Path::new("/nowhere")).unwrap_err();
    assert!(
        matches!(error, CampaignError::TooManyToMerge { .. }),
        "{error}"
    );
}

#[test]
fn a_campaign_without_runs_has_an_empty_table() {
    let campaign = campaign(0);
    let dir = TempDir::new("empty");
    let summary = Runner::new(&campaign, &dir.0)
        .run_local(2, &fall, &|_| {})
        .unwrap();
    assert_eq!(summary.ran, 0);
    assert_eq!(csv_of(&campaign, &dir.0), "run,seed,height_m,drag,error\n");
    let error = Runner::new(&campaign, &dir.0)
        .run_index(0, &fall)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "run index 0 is out of range: the campaign has no runs"
    );
}

#[test]
fn column_names_are_quoted_in_the_header() {
    let campaign = Campaign::new("quoted", 1, 1)
        .and_then(|c| c.parameter("load, \"peak\"", Dispersion::Fixed { value: 1.0 }))
        .unwrap();
    let dir = TempDir::new("quoted");
    Runner::new(&campaign, &dir.0)
        .run_local(1, &|_: &Run| Ok(Metrics::new().with("a,b", 2.0)), &|_| {})
        .unwrap();
    let csv = csv_of(&campaign, &dir.0);
    assert!(
        csv.starts_with("run,seed,\"load, \"\"peak\"\"\",\"a,b\",error\n"),
        "{csv}"
    );
}

fn args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn the_command_line_takes_its_flags_and_leaves_the_programs() {
    let mut rest = args("--orbits 3 --run-index 41 --results /tmp/r --base-seed=9 --resume --fork");
    let parsed = CampaignArgs::take(&mut rest).unwrap();
    assert_eq!(rest, args("--orbits 3 --fork"));
    assert_eq!(parsed.action, Action::RunIndex(41));
    assert_eq!(parsed.results.as_deref(), Some(Path::new("/tmp/r")));
    assert_eq!(parsed.base_seed, Some(9));
    assert!(parsed.resume);

    let mut merge_only = args("--merge --runs 5");
    let parsed = CampaignArgs::take(&mut merge_only).unwrap();
    assert_eq!((parsed.action, parsed.runs), (Action::Merge, Some(5)));
    assert_eq!(parsed.campaign(campaign(100)).unwrap().runs(), 5);
    let sliced = CampaignArgs::take(&mut args("--task 2 --tasks 10 --jobs 3")).unwrap();
    assert_eq!(sliced.action, Action::Slice(Slice::new(2, 10).unwrap()));

    let error = |text: &str| {
        let mut given = args(text);
        let error = CampaignArgs::take(&mut given).unwrap_err().to_string();
        assert_eq!(given, args(text), "the arguments are left as they were");
        error
    };
    assert_eq!(error("--run-index"), "--run-index needs a value");
    assert_eq!(error("--results --resume"), "--results needs a value");
    assert_eq!(error("--results="), "--results needs a value");
    assert_eq!(
        error("--jobs two"),
        "--jobs needs a whole number, got `two`"
    );
    assert_eq!(
        error("--run-index -1"),
        "--run-index needs a whole number, got `-1`"
    );
    assert_eq!(error("--runs 2 --runs 3"), "--runs is given twice");
    assert_eq!(error("--resume --resume"), "--resume is given twice");
    let together = "--run-index, --task/--tasks and --merge cannot be given together";
    assert_eq!(error("--merge --run-index 1"), together);
    assert_eq!(error("--task 1 --tasks 2 --run-index 1"), together);
    assert_eq!(error("--task 1"), "--task and --tasks go together");
    assert_eq!(
        error("--task 2 --tasks 2"),
        "task 2 of 2: a task is one of 0 to tasks - 1"
    );
    assert_eq!(error("--jobs 0"), "--jobs must be at least 1");
    assert_eq!(error("--resume=yes"), "--resume takes no value");
    assert_eq!(
        error("--merge --jobs 2"),
        "--jobs with --merge (nothing runs) has no effect"
    );
    assert_eq!(
        error("--merge --resume"),
        "--resume with --merge (nothing runs) has no effect"
    );
    assert_eq!(
        error("--run-index 1 --jobs 2"),
        "--jobs with --run-index (one run, one thread) has no effect"
    );
}

#[test]
fn the_command_line_reads_a_description_file() {
    let dir = TempDir::new("description");
    fs::create_dir_all(&dir.0).unwrap();
    let path = dir.0.join("drop.json");
    fs::write(&path, campaign(7).to_json()).unwrap();
    let parsed = CampaignArgs::take(&mut args(&format!(
        "--campaign {} --base-seed 4",
        path.display()
    )))
    .unwrap();
    let read = parsed
        .campaign(Campaign::new("built-in", 1, 1).unwrap())
        .unwrap();
    assert_eq!(read, campaign(7).with_base_seed(4));

    fs::write(&path, "{\"name\": \"drop\"}").unwrap();
    let error = parsed.campaign(campaign(1)).unwrap_err().to_string();
    assert!(
        error.contains("drop.json: missing field `base_seed`"),
        "{error}"
    );
    let absent = CampaignArgs::take(&mut args("--campaign /no/such.json")).unwrap();
    assert!(absent
        .campaign(campaign(1))
        .unwrap_err()
        .to_string()
        .starts_with("/no/such.json: "));
}

#[test]
fn the_command_line_runs_one_index_a_slice_all_of_them_or_the_merge() {
    let campaign = campaign(5);
    let dir = TempDir::new("cli");
    let execute = |text: &str| {
        let parsed = CampaignArgs::take(&mut args(text)).unwrap();
        parsed.execute(
            &parsed.campaign(campaign.clone()).unwrap(),
            &dir.0,
            &fall,
            &|_| {},
        )
    };
    let ran = execute("--run-index 4").unwrap();
    let Report::Ran(outcome) = &ran else {
        panic!("one run")
    };
    assert_eq!(outcome.record.index, 4);
    assert!(ran.succeeded());
    let out_of_range = execute("--run-index 5").unwrap_err().to_string();
    assert_eq!(
        out_of_range,
        "run index 5 is out of range: the campaign has 5 runs (0 to 4)"
    );

    let merged_report = execute("--merge").unwrap();
    assert!(!merged_report.succeeded(), "runs are missing");
    let Report::Merged { merged, csv } = merged_report else {
        panic!("a merge")
    };
    assert_eq!(merged.missing, [0, 1, 2, 3]);
    assert_eq!(csv, dir.0.join("drop.csv"));

    let Report::Slice(summary) = execute("--task 0 --tasks 2 --resume").unwrap() else {
        panic!("a slice")
    };
    assert_eq!(
        (summary.ran, summary.resumed),
        (2, 1),
        "runs 0 and 2 made, 4 resumed"
    );

    let all = execute("--resume --jobs 2").unwrap();
    assert!(all.succeeded());
    let Report::All {
        summary,
        merged,
        csv,
    } = all
    else {
        panic!("all")
    };
    assert_eq!((summary.ran, summary.resumed), (2, 3));
    assert!(merged.missing.is_empty());
    assert_eq!(fs::read_to_string(csv).unwrap(), csv_of(&campaign, &dir.0));
}
