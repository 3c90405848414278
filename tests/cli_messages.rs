//! The command line's messages and outputs: what a user reads in the CSV,
//! the workload histogram, the help and the refusals, and that the README
//! and the changelog say what the binary does.

mod common;

use crate::cli::{SMALL, run_text, schedscope, stderr, stdout, write};
use std::path::Path;
use std::process::Command;

#[test]
fn the_csv_marks_warm_up_jobs_so_its_measured_rows_give_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let o = schedscope(&[
        "run",
        "scenarios/default.toml",
        "--set",
        "run.jobs=3000",
        "--set",
        "run.warmup_jobs=500",
        "--replications",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let mut r = csv::Reader::from_path(out.join("jobs.csv")).unwrap();
    let header = r.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (resp, rep, measured) = (col("response"), col("replication"), col("measured"));
    // (sum of responses, measured rows, warm-up rows) per replication.
    let mut per_rep = [(0.0f64, 0u64, 0u64); 2];
    for row in r.records() {
        let row = row.unwrap();
        let e = &mut per_rep[row[rep].parse::<usize>().unwrap()];
        match &row[measured] {
            "1" => {
                e.0 += row[resp].parse::<f64>().unwrap();
                e.1 += 1;
            }
            "0" => e.2 += 1,
            other => panic!("measured is 0 or 1, found {other}"),
        }
    }
    for (sum, n, warm) in per_rep {
        assert_eq!((n, warm), (2500, 500), "{sum}");
    }
    let art = per_rep.iter().map(|(s, n, _)| s / *n as f64).sum::<f64>() / 2.0;
    let expected = summary["metrics"]["overall"]["art"].as_f64().unwrap();
    assert!(
        (art - expected).abs() <= 1e-9 * expected,
        "ART from the CSV's measured rows {art}, summary {expected}"
    );
    assert_eq!(summary["jobs"], 5000);
}

#[test]
fn messages_speak_of_the_scenario_not_of_rust_types() {
    let rust = [
        "expected u32",
        "expected u64",
        "expected f64",
        "expected i64",
        "struct ",
        "invalid type",
        "invalid value",
        "i128",
        "unknown variant",
        "unknown field",
    ];
    let plain = |err: &str| {
        for r in rust {
            assert!(!err.contains(r), "names a Rust type ({r}): {err}");
        }
    };
    for (set, says) in [
        (
            "run.jobs=abc",
            "`jobs` must be a whole number from 1 to 4294967295, found \"abc\"",
        ),
        ("run.jobs=-3", "found -3"),
        (
            "workload.mean_runtime=x",
            "`mean_runtime` must be a number, found \"x\"",
        ),
        (
            "policy=fcfs",
            "`policy` must be a policy table, e.g. { name = \"easy\" }",
        ),
        (
            "policy.name=lifo",
            "must be one of \"fcfs\", \"fpfs\", \"easy\", \"conservative\"",
        ),
        ("estimates=3", "must be an estimates table"),
        (
            "seed=123456789012345678901234567890",
            "123456789012345678901234567890 is not a number TOML can hold",
        ),
    ] {
        let o = schedscope(&["run", "scenarios/teach-jumping.toml", "--set", set]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(says), "{set}: {err}");
        plain(&err);
    }
    let (code, err, _) = run_text(&format!(
        "seed = 123456789012345678901234567890\n{SMALL}jobs = [{{ submit = 0, size = 1, runtime = 1 }}]\n"
    ));
    assert_eq!(code, 2);
    assert!(
        err.contains("`seed` must be a whole number from 0 to 18446744073709551615, found 123456789012345678901234567890"),
        "{err}"
    );
    plain(&err);
}

/// A list of jobs runs whole: a job count given for it would be ignored,
/// so it is refused, at its line, saying how to take fewer jobs.
#[test]
fn a_job_count_for_a_list_of_jobs_is_refused_not_ignored() {
    let text = "name = \"listed\"\n[platform]\nshape = \"1x4\"\n[workload]\nkind = \"jobs\"\n\
                jobs = [{ submit = 0, size = 1, runtime = 5 }, { submit = 1, size = 1, runtime = 5 }]\n\
                [run]\njobs = 2\n";
    let (code, err, p) = run_text(text);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{}:8:8: `[run] jobs` does not apply to workload kind \"jobs\": every job it lists runs",
            p.display()
        )),
        "{err}"
    );
    // With `completions` the run ends there: a job count is refused too.
    let o = schedscope(&[
        "run",
        "scenarios/grid-two-site.toml",
        "--set",
        "run.jobs=50",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "--set run.jobs=50: `[run] jobs` does not apply with `[run] completions` = 5000: \
             the run ends at its 5000th completion"
        ),
        "{}",
        stderr(&o)
    );
    // A trace's message says how to take its first jobs.
    let Some(_) = common::shared_data("swf/lublin_256.swf") else {
        return;
    };
    let o = schedscope(&[
        "run",
        "scenarios/trace-lublin_256.toml",
        "--set",
        "run.jobs=100",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "--set run.jobs=100: `[run] jobs` does not apply to workload kind \"swf\": \
             every job it lists runs; take the first N with `workload.first_jobs`"
        ),
        "{}",
        stderr(&o)
    );
    let o = schedscope(&[
        "run",
        "scenarios/trace-lublin_256.toml",
        "--set",
        "workload.first_jobs=100",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"jobs\": 100,"), "{}", stdout(&o));
}

#[test]
fn an_unknown_generator_key_lists_that_kinds_keys_only() {
    let o = schedscope(&["run", "scenarios/default.toml", "--set", "workload.bogus=1"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("unknown key `bogus` for workload kind \"ngubiri\" (it takes: `kind`, `q`, `min_size`, `max_size`, `mean_interarrival`, `mean_runtime`, `split`)"),
        "{err}"
    );
    for other in ["`path`", "`jobs`", "`first_jobs`", "`oversize`"] {
        assert!(
            !err.contains(other),
            "lists another kind's key {other}: {err}"
        );
    }
}

#[test]
fn times_past_what_the_simulation_holds_are_refused_not_clamped() {
    let job = |fields: &str| format!("{SMALL}jobs = [{{ size = 1, {fields} }}]\n");
    for (fields, says) in [
        (
            "submit = 0, runtime = 9e15",
            "`runtime` must be a time in seconds from 0 to 9.2e12 (about 292,000 years), found 9e15",
        ),
        (
            "submit = 1e300, runtime = 1",
            "`submit` must be a time in seconds from 0 to 9.2e12 (about 292,000 years), found 1e300",
        ),
        (
            "submit = 9e12, runtime = 9e12",
            "job 1: submit + runtime = 1.8e13 s is past the latest time",
        ),
        (
            "submit = 0, runtime = 1, estimate = 1e13",
            "`estimate` must be a time in seconds",
        ),
    ] {
        let (code, err, _) = run_text(&job(fields));
        assert_eq!(code, 2, "{fields}: {err}");
        assert!(err.contains(says), "{fields}: {err}");
    }
    // The largest time that fits runs, and ends there.
    let (code, err, _) = run_text(&job("submit = 0, runtime = 9.2e12"));
    assert_eq!(code, 0, "{err}");
    let o = schedscope(&[
        "run",
        "scenarios/default.toml",
        "--set",
        "workload.mean_runtime=1e11",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`mean_runtime` = 1e11 s would take run times past"),
        "{}",
        stderr(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.swf",
        "; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 9000000000000000 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let sc = write(
        dir.path(),
        "s.toml",
        "name = \"t\"\n[workload]\nkind = \"swf\"\npath = \"t.swf\"\n",
    );
    let o = schedscope(&["run", sc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("t.swf line 3: job 2: its times reach past the latest time"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn every_option_has_help() {
    use clap::CommandFactory;
    let cli = schedscope::cli::Cli::command();
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id != "help" && id != "version" && arg.get_help().is_none() {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands() {
            // The sweep command's options are documented with its own work.
            if sub.get_name() != "sweep" {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
    }
    let mut missing = Vec::new();
    walk(&cli, "schedscope", &mut missing);
    assert!(missing.is_empty(), "options without help: {missing:?}");
}

#[test]
fn a_policy_parameter_it_does_not_declare_is_an_error_at_its_line() {
    let (code, err, _) = run_text(&format!(
        "{SMALL}jobs = [{{ submit = 0, size = 1, runtime = 1 }}]\n[policy]\nname = \"easy\"\n[policy.params]\nthreshold = 2\n"
    ));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(":10:") && err.contains("easy has no parameter params.threshold"),
        "{err}"
    );
    assert!(
        err.contains("(it reads: order, placement, machines)"),
        "{err}"
    );
    let o = schedscope(&["policies"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    for name in ["fcfs", "fpfs", "easy", "conservative"] {
        assert!(out.lines().any(|l| l == name), "{out}");
    }
}

/// `schedscope workload` on blanco's Table I workload, 20 000 jobs: the
/// log2 reading (the default) and the size reading, each with its mean
/// size and share of powers of two, and a histogram row per size.
#[test]
fn workload_prints_the_size_histogram_of_both_size_readings() {
    let stats = |extra: &[&str]| -> (f64, f64, String) {
        let mut args = vec!["workload", "scenarios/blanco-pas.toml", "--jobs", "20000"];
        args.extend_from_slice(extra);
        let o = schedscope(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        let line = out.lines().nth(1).expect("summary line").to_string();
        assert!(line.starts_with("20000 jobs · mean size "), "{out}");
        let num = |after: &str| -> f64 {
            let rest = &line[line.find(after).unwrap() + after.len()..];
            rest.split_whitespace().next().unwrap().parse().unwrap()
        };
        (num("mean size "), num("powers of two ") / 100.0, out)
    };
    let (mean, pow2, out) = stats(&[]);
    assert!((11.0..13.0).contains(&mean), "log2 reading mean {mean}");
    assert!(
        (0.78..0.86).contains(&pow2),
        "log2 reading powers of two {pow2}"
    );
    assert!(out.contains("max 64"), "{out}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("32 ")),
        "{out}"
    );
    let (mean, pow2, out) = stats(&["--set", "workload.size_reading=size"]);
    assert!((2.9..3.4).contains(&mean), "size reading mean {mean}");
    assert!(
        (0.86..0.93).contains(&pow2),
        "size reading powers of two {pow2}"
    );
    assert!(out.contains("median 3"), "{out}");
    // A bad key is bad input.
    let o = schedscope(&[
        "workload",
        "scenarios/blanco-pas.toml",
        "--set",
        "workload.size_reading=cube",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_shipped_trace_scenario_runs_from_its_own_folder() {
    if common::shared_data("swf/lublin_256.swf").is_none() {
        return;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(["validate", "trace-lublin_256.toml"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn the_smaller_refusals_say_what_is_wrong() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "run",
                "scenarios/teach-jumping.toml",
                "--set",
                "platform.shape=1x99999999999",
            ],
            "at most 4294967295 processors a cluster, found 99999999999",
        ),
        (
            &[
                "run",
                "scenarios/teach-jumping.toml",
                "--set",
                "policy.max_jumps=-1",
            ],
            "`max_jumps` must be a whole number ≥ 0",
        ),
        (
            &["run", "scenarios/default.toml", "--set", "run.jobs=-1"],
            "`jobs` must be a whole number from 1 to 4294967295, found -1",
        ),
        (
            &[
                "run",
                "scenarios/default.toml",
                "--set",
                "run.warmup_jobs=20000",
            ],
            "`warmup_jobs` = 20000 leaves no job to measure",
        ),
        (
            &[
                "run",
                "scenarios/default.toml",
                "--set",
                "expect.art={min=5,max=1}",
            ],
            "[expect] \"art\" has `min` 5 above `max` 1",
        ),
        (
            &[
                "console",
                "scenarios/default.toml",
                "--compare",
                "policy.name",
            ],
            "--compare policy.name: expected KEY.PATH=VALUE",
        ),
        (
            &["workload", "scenarios/default.toml", "--jobs", "0"],
            "0 is not in 1..",
        ),
    ];
    for (args, says) in cases {
        let o = schedscope(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("max_jumps` max_jumps"), "{err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sl");
    let o = schedscope(&[
        "sweep",
        "scenarios/teach-jumping.toml",
        "--vary",
        "policy.name=fcfs,easy",
        "--slurm",
        "--shards",
        "100",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = std::fs::read_to_string(out.join("sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-1\n"), "{script}");
    let o = schedscope(&[
        "sweep",
        "scenarios/teach-jumping.toml",
        "--vary",
        "policy.name=fcfs,easy",
        "--slurm",
        "--shards",
        "2",
        "--time",
        "garbage",
        "--out",
        dir.path().join("t").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a Slurm time limit"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("t/sweep.sbatch").exists());
}

/// README's table of policies is the catalog's, word for word: a policy
/// added, renamed or given a key shows there.
#[test]
fn the_readme_lists_every_built_in_policy() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let table = schedscope::policy::catalog::markdown_table();
    assert!(
        readme.contains(&table),
        "README.md's table of policies is not the catalog's; it should read:\n{table}"
    );
}

/// The version the binary reports is the latest release in CHANGELOG.md.
#[test]
fn the_version_is_the_changelogs_latest_release() {
    let o = schedscope(&["--version"]);
    let out = stdout(&o);
    let version = out.trim().strip_prefix("schedscope ").expect(&out);
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let log =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/CHANGELOG.md")).unwrap();
    let latest = log
        .lines()
        .find_map(|l| {
            l.strip_prefix("## [")
                .filter(|l| !l.starts_with("Unreleased"))
        })
        .expect("a release in CHANGELOG.md");
    assert!(
        latest.starts_with(&format!("{version}] - ")),
        "CHANGELOG's latest release is {latest}, the binary says {version}"
    );
}
