//! The power bench's Monte-Carlo campaign: runs made alone or together are
//! the same runs, and a forked run is the run made from the start.

use std::fs;
use std::path::PathBuf;

use causim_campaign::{merge, Runner};
use causim_examples::power::campaign::{self, min_socs, plot_min_soc, Forked, MIN_SOC};
use causim_examples::power::PowerConfig;

fn config() -> PowerConfig {
    PowerConfig {
        orbits: 2,
        ..PowerConfig::default()
    }
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "causim-power-campaign-{}-{test}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_campaign_of_dispersed_runs_is_the_same_made_together_or_alone() {
    let description = campaign::campaign(&config(), 12, 7).unwrap();
    let (together, alone) = (TempDir::new("together"), TempDir::new("alone"));
    let run = |run: &causim_campaign::Run| campaign::run(config(), run);
    let summary = Runner::new(&description, &together.0)
        .run_local(2, &run, &|_| {})
        .unwrap();
    assert_eq!((summary.ran, summary.failed.len()), (12, 0));
    for index in [11, 3, 0] {
        Runner::new(&description, &alone.0)
            .run_index(index, &run)
            .unwrap();
    }

    let table = merge(&description, &together.0).unwrap().table;
    let single = merge(&description, &alone.0).unwrap().table;
    assert_eq!(single.rows.len(), 3);
    for row in &single.rows {
        assert_eq!(row, &table.rows[row.run], "run {} made alone", row.run);
    }
    // The dispersions reach the bench: runs differ, and stay physical.
    let socs = min_socs(&table);
    assert_eq!(socs.len(), 12);
    assert!(socs[0] < socs[11], "{socs:?}");
    assert!(socs.iter().all(|soc| (0.0..1.0).contains(soc)), "{socs:?}");
    let unmet = table.column("unmet_wh").unwrap();
    assert!(unmet.iter().all(|wh| *wh == Some(0.0)), "{unmet:?}");

    let svg = together.0.join("min-soc.svg");
    plot_min_soc(&table, &svg).unwrap();
    let drawing = fs::read_to_string(&svg).unwrap();
    assert!(drawing.contains("12 runs"), "the caption counts the runs");
    assert!(drawing.matches("<rect").count() > 24, "a bar per bin");
}

#[test]
fn a_forked_run_is_the_run_made_from_the_start() {
    let description = campaign::forked_campaign(&config(), 6, 3).unwrap();
    let forked = Forked::new(config()).unwrap();
    for index in 0..6 {
        let run = description.run(index).unwrap();
        let from_snapshot = forked.run(&run).unwrap();
        let from_start = campaign::run(config(), &run).unwrap();
        assert_eq!(from_snapshot, from_start, "run {index}");
        assert!(from_snapshot.get(MIN_SOC).is_some());
    }
    // More payload time in eclipse, lower battery: the dispersed load
    // matters.
    let minutes = |run: &causim_campaign::Run| run.get("payload_eclipse_min").unwrap();
    let mut runs: Vec<_> = (0..6).map(|i| description.run(i).unwrap()).collect();
    runs.sort_by(|a, b| minutes(a).total_cmp(&minutes(b)));
    let (least, most) = (&runs[0], &runs[5]);
    let soc = |run| forked.run(run).unwrap().get(MIN_SOC).unwrap();
    assert!(soc(most) < soc(least));
}

#[test]
fn a_run_without_a_parameter_fails_with_its_name() {
    // A description missing a parameter the bench reads: the run fails with
    // the name, it does not panic.
    let description = causim_campaign::Campaign::new("short", 1, 1).unwrap();
    let error = campaign::run(config(), &description.run(0).unwrap()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the campaign has no parameter `panel_efficiency`; it has no parameters"
    );
}

/// A campaign of one run, nominal but for the payload's minutes.
fn nominal_with_payload(minutes: f64) -> causim_campaign::Run {
    let fixed = |value| causim_campaign::Dispersion::Fixed { value };
    let nominal = PowerConfig::default();
    causim_campaign::Campaign::new("nominal", 1, 1)
        .and_then(|c| c.parameter("panel_efficiency", fixed(nominal.panel_efficiency)))
        .and_then(|c| c.parameter("battery_wh", fixed(nominal.battery.capacity_wh)))
        .and_then(|c| c.parameter("avionics_w", fixed(nominal.avionics_w)))
        .and_then(|c| c.parameter("payload_eclipse_min", fixed(minutes)))
        .and_then(|c| c.run(0))
        .unwrap()
}

#[test]
fn a_payload_time_that_rounds_to_nothing_leaves_the_payload_off() {
    // Under half a second: not switched, rather than an off command at the
    // very time of the on one (refused as not in the future).
    let tiny = campaign::run(config(), &nominal_with_payload(0.005)).unwrap();
    let off = campaign::run(config(), &nominal_with_payload(0.0)).unwrap();
    assert_eq!(tiny, off);
    let on = campaign::run(config(), &nominal_with_payload(10.0)).unwrap();
    assert!(on.get(MIN_SOC).unwrap() < off.get(MIN_SOC).unwrap());
}

/// The description `docs/campaigns.md` shows is the example's own.
#[test]
fn the_documented_description_is_the_examples() {
    let docs = include_str!("../../docs/campaigns.md");
    let start = docs.find("```json\n").expect("a JSON block") + "```json\n".len();
    let end = start + docs[start..].find("```").expect("its end");
    let documented = causim_campaign::Campaign::from_json(&docs.as_bytes()[start..end]).unwrap();
    let base = PowerConfig {
        orbits: 3,
        ..PowerConfig::default()
    };
    assert_eq!(documented, campaign::campaign(&base, 1000, 2026).unwrap());
}

#[test]
fn a_forked_run_of_other_hardware_fails_saying_why() {
    let forked = Forked::new(config()).unwrap();
    let description = campaign::campaign(&config(), 1, 1).unwrap();
    let error = forked.run(&description.run(0).unwrap()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("a forked run starts from the snapshot's hardware"),
        "{error}"
    );
}
