//! Campaign descriptions, the seed rule and dispersions.

use causim_campaign::{Campaign, CampaignError, Dispersion};

fn campaign(runs: usize) -> Campaign {
    Campaign::new("power", 2026, runs)
        .and_then(|c| {
            c.parameter(
                "efficiency",
                Dispersion::Normal {
                    mean: 0.28,
                    std_dev: 0.01,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "capacity_wh",
                Dispersion::Uniform {
                    low: 270.0,
                    high: 330.0,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "cells",
                Dispersion::Choice {
                    values: vec![7.0, 8.0],
                },
            )
        })
        .expect("a valid campaign")
}

#[test]
fn a_run_depends_on_the_base_seed_and_its_index_only() {
    let small = campaign(10);
    let large = campaign(1000);
    for index in 0..10 {
        let alone = small.run(index).unwrap();
        assert_eq!(alone, large.run(index).unwrap(), "run {index}");
        assert_eq!(alone, small.run(index).unwrap(), "run {index} made twice");
        assert_eq!(alone.index(), index);
    }
    assert_ne!(
        small.run(0).unwrap().values(),
        small.run(1).unwrap().values()
    );
    let reseeded = campaign(10).with_base_seed(2027);
    assert_ne!(
        small.run(0).unwrap().seed(),
        reseeded.run(0).unwrap().seed()
    );
}

/// The seed rule is a promise: a run's values and seed on this machine are
/// its values on any machine and with any later version. Changing the rule
/// changes this snapshot.
#[test]
fn the_first_runs_are_fixed_by_the_seed_rule() {
    let campaign = campaign(3);
    let runs: Vec<String> = (0..3)
        .map(|i| {
            let run = campaign.run(i).unwrap();
            let values: Vec<String> = run
                .values()
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            format!("run {i}: seed {} {}", run.seed(), values.join(" "))
        })
        .collect();
    insta::assert_snapshot!(runs.join("\n"));
}

#[test]
fn adding_a_parameter_keeps_the_earlier_draws_and_the_seeds() {
    let before = campaign(5);
    let after = campaign(5)
        .parameter(
            "payload_w",
            Dispersion::Triangular {
                low: 140.0,
                mode: 150.0,
                high: 170.0,
            },
        )
        .unwrap();
    for index in 0..5 {
        let (a, b) = (before.run(index).unwrap(), after.run(index).unwrap());
        assert_eq!(a.seed(), b.seed());
        assert_eq!(a.values(), &b.values()[..3]);
    }
}

#[test]
fn a_runs_generator_is_its_seed() {
    use rand::{Rng, SeedableRng};
    let campaign = campaign(2);
    let (first, second) = (campaign.run(0).unwrap(), campaign.run(1).unwrap());
    let mut expected = rand_chacha::ChaCha8Rng::seed_from_u64(first.seed());
    assert_eq!(first.rng().next_u64(), expected.next_u64());
    assert_ne!(first.rng().next_u64(), second.rng().next_u64());
}

#[test]
fn draws_follow_their_dispersions() {
    let campaign = Campaign::new("draws", 1, 4000)
        .and_then(|c| {
            c.parameter(
                "n",
                Dispersion::Normal {
                    mean: 10.0,
                    std_dev: 2.0,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "u",
                Dispersion::Uniform {
                    low: -1.0,
                    high: 3.0,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "ln",
                Dispersion::LogNormal {
                    median: 5.0,
                    sigma: 0.3,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "t",
                Dispersion::Triangular {
                    low: 0.0,
                    mode: 1.0,
                    high: 4.0,
                },
            )
        })
        .and_then(|c| {
            c.parameter(
                "c",
                Dispersion::Choice {
                    values: vec![1.0, 2.0, 5.0],
                },
            )
        })
        .and_then(|c| c.parameter("f", Dispersion::Fixed { value: 0.5 }))
        .unwrap();
    let column = |name: &str| -> Vec<f64> {
        (0..4000)
            .map(|i| campaign.run(i).unwrap().get(name).unwrap())
            .collect()
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };

    let n = column("n");
    let sd = (n.iter().map(|x| (x - mean(&n)).powi(2)).sum::<f64>() / n.len() as f64).sqrt();
    assert!((mean(&n) - 10.0).abs() < 0.15, "normal mean {}", mean(&n));
    assert!((sd - 2.0).abs() < 0.15, "normal std_dev {sd}");

    let u = column("u");
    assert!(u.iter().all(|&x| (-1.0..3.0).contains(&x)));
    assert!((mean(&u) - 1.0).abs() < 0.1, "uniform mean {}", mean(&u));

    let ln = column("ln");
    assert!(ln.iter().all(|&x| x > 0.0));
    assert!(
        (median(&ln) - 5.0).abs() < 0.15,
        "log-normal median {}",
        median(&ln)
    );

    let t = column("t");
    assert!(t.iter().all(|&x| (0.0..=4.0).contains(&x)));
    assert!(
        (mean(&t) - 5.0 / 3.0).abs() < 0.08,
        "triangular mean {}",
        mean(&t)
    );

    let c = column("c");
    for value in [1.0, 2.0, 5.0] {
        let share = c.iter().filter(|&&x| x == value).count() as f64 / c.len() as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.04, "choice {value}: {share}");
    }
    assert!(column("f").iter().all(|&x| x == 0.5));
}

#[test]
fn a_description_reads_back_from_its_json() {
    let campaign = campaign(12);
    let json = campaign.to_json();
    assert_eq!(Campaign::from_json(json.as_bytes()).unwrap(), campaign);
    let written = r#"{
        "name": "power", "base_seed": 2026, "runs": 12,
        "parameters": [
            {"name": "efficiency", "dispersion": {"kind": "normal", "mean": 0.28, "std_dev": 0.01}},
            {"name": "capacity_wh", "dispersion": {"kind": "uniform", "low": 270, "high": 330}},
            {"name": "cells", "dispersion": {"kind": "choice", "values": [7, 8]}}
        ]
    }"#;
    assert_eq!(Campaign::from_json(written.as_bytes()).unwrap(), campaign);
}

fn description_error(json: &str) -> String {
    Campaign::from_json(json.as_bytes())
        .unwrap_err()
        .to_string()
}

#[test]
fn a_bad_description_says_what_and_where() {
    let head = r#""name": "c", "base_seed": 1, "runs": 2"#;
    let with = |parameters: &str| format!("{{{head}, \"parameters\": [{parameters}]}}");

    let typo = description_error(&format!("{{{head}, \"paramters\": []}}"));
    assert!(typo.contains("unknown field `paramters`"), "{typo}");
    assert!(typo.contains("line 1"), "{typo}");

    let kind = description_error(&with(
        r#"{"name": "x", "dispersion": {"kind": "gauss", "mean": 1}}"#,
    ));
    assert!(
        kind.contains("unknown variant `gauss`") && kind.contains("normal"),
        "{kind}"
    );

    let field = description_error(&with(
        r#"{"name": "x", "dispersion": {"kind": "normal", "mean": 1, "sd": 2}}"#,
    ));
    assert!(field.contains("unknown field `sd`"), "{field}");

    assert!(description_error("[1, 2").starts_with("the campaign description is not valid"));
}

#[test]
fn invalid_dispersions_name_their_parameter() {
    let cases = [
        (
            Dispersion::Uniform {
                low: 2.0,
                high: 2.0,
            },
            "uniform needs low < high, got low 2, high 2",
        ),
        (
            Dispersion::Normal {
                mean: 0.0,
                std_dev: -1.0,
            },
            "normal needs std_dev >= 0, got -1",
        ),
        (
            Dispersion::LogNormal {
                median: 0.0,
                sigma: 1.0,
            },
            "log_normal needs median > 0, got 0",
        ),
        (
            Dispersion::LogNormal {
                median: 1.0,
                sigma: -0.1,
            },
            "log_normal needs sigma >= 0, got -0.1",
        ),
        (
            Dispersion::Triangular {
                low: 0.0,
                mode: 5.0,
                high: 4.0,
            },
            "triangular needs low <= mode <= high and low < high, got 0, 5, 4",
        ),
        (
            Dispersion::Choice { values: vec![] },
            "choice needs at least one value",
        ),
        (
            Dispersion::Fixed { value: f64::NAN },
            "NaN is not a finite number",
        ),
        (
            Dispersion::Uniform {
                low: 0.0,
                high: f64::INFINITY,
            },
            "inf is not a finite number",
        ),
    ];
    for (dispersion, reason) in cases {
        let error = Campaign::new("c", 1, 1)
            .unwrap()
            .parameter("load_w", dispersion)
            .unwrap_err();
        assert_eq!(error.to_string(), format!("parameter `load_w`: {reason}"));
    }
    // Read from a file, the same check.
    let json = r#"{"name": "c", "base_seed": 1, "runs": 2, "parameters": [
        {"name": "load_w", "dispersion": {"kind": "uniform", "low": 3, "high": 1}}]}"#;
    assert_eq!(
        description_error(json),
        "parameter `load_w`: uniform needs low < high, got low 3, high 1"
    );
}

#[test]
fn unusable_names_are_refused() {
    let base = || Campaign::new("c", 1, 1).unwrap();
    let fixed = Dispersion::Fixed { value: 1.0 };
    let twice = base()
        .parameter("x", fixed.clone())
        .unwrap()
        .parameter("x", fixed.clone());
    assert_eq!(
        twice.unwrap_err().to_string(),
        "parameter `x`: this name is given to two parameters"
    );
    let reserved = base().parameter("seed", fixed.clone()).unwrap_err();
    assert!(
        reserved
            .to_string()
            .starts_with("parameter `seed`: this name is a column"),
        "{reserved}"
    );
    assert!(matches!(
        base().parameter("", fixed),
        Err(CampaignError::ParameterName { .. })
    ));
    for name in ["", "two words", "../up"] {
        let error = Campaign::new(name, 1, 1).unwrap_err();
        assert!(
            matches!(error, CampaignError::Name { .. }),
            "{name:?}: {error}"
        );
    }
}

#[test]
fn out_of_range_indices_and_unknown_parameters_are_errors() {
    let campaign = campaign(3);
    assert_eq!(
        campaign.run(3).unwrap_err().to_string(),
        "run index 3 is out of range: the campaign has 3 runs (0 to 2)"
    );
    assert_eq!(
        campaign
            .run(0)
            .unwrap()
            .get("eficiency")
            .unwrap_err()
            .to_string(),
        "the campaign has no parameter `eficiency`; it has: efficiency, capacity_wh, cells"
    );
}

#[test]
fn a_description_read_any_way_is_checked() {
    // Through serde directly, not `from_json`: checked all the same.
    let empty_choice = r#"{"name": "c", "base_seed": 1, "runs": 1, "parameters": [
        {"name": "cells", "dispersion": {"kind": "choice", "values": []}}]}"#;
    let error = serde_json::from_str::<Campaign>(empty_choice)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("parameter `cells`: choice needs at least one value"),
        "{error}"
    );
    // Ranges wider than a finite number would draw infinities.
    for dispersion in [
        Dispersion::Uniform {
            low: -1e308,
            high: 1e308,
        },
        Dispersion::Triangular {
            low: -1e308,
            mode: 0.0,
            high: 1e308,
        },
    ] {
        let error = Campaign::new("c", 1, 1)
            .unwrap()
            .parameter("x", dispersion)
            .unwrap_err();
        assert!(
            error.to_string().contains("wider than a finite number"),
            "{error}"
        );
    }
    let too_many = Campaign::new("c", 1, causim_campaign::MAX_RUNS + 1).unwrap_err();
    assert!(
        matches!(too_many, CampaignError::TooManyRuns { .. }),
        "{too_many}"
    );
    assert!(campaign(1).with_runs(usize::MAX).is_err());
}

#[test]
fn settings_are_part_of_the_description() {
    let with = campaign(3).setting("orbits", 3).setting("soc", 0.9);
    assert_eq!(with.settings().get("orbits").map(String::as_str), Some("3"));
    let read = Campaign::from_json(with.to_json().as_bytes()).unwrap();
    assert_eq!(read, with);
    // Settings do not change the draws.
    assert_eq!(with.run(2).unwrap(), campaign(3).run(2).unwrap());
}

/// The description shown in `docs/campaigns.md` is one.
#[test]
fn the_documented_description_reads() {
    let docs = include_str!("../../docs/campaigns.md");
    let start = docs.find("```json\n").expect("a JSON block") + "```json\n".len();
    let end = start + docs[start..].find("```").expect("its end");
    let campaign = Campaign::from_json(&docs.as_bytes()[start..end]).unwrap();
    assert_eq!((campaign.name(), campaign.runs()), ("power", 1000));
    assert_eq!(campaign.parameters().len(), 4);
}
