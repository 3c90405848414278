//! The command line as users and scripts meet it: exit codes, messages that
//! say where input is wrong, reports, and byte-identical reruns.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `run FILE` on `text` and returns (exit code, stderr).
fn run_text(text: &str) -> (i32, String, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.toml", text);
    let o = schedscope(&["run", p.to_str().unwrap()]);
    // The folder goes when `dir` does; the path is kept for messages only.
    (o.status.code().unwrap_or(-1), stderr(&o), p)
}

const SMALL: &str = "name = \"small\"\n[platform]\nshape = \"2x4\"\n[workload]\nkind = \"jobs\"\n";

#[test]
fn malformed_toml_names_file_and_line() {
    let (code, err, p) = run_text("name = \"x\n[platform]\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{}:1:", p.display())), "{err}");
}

#[test]
fn unknown_keys_are_errors_with_the_allowed_ones() {
    let (code, err, _) = run_text(&format!(
        "{SMALL}jobs = [{{ submit = 0, size = 1, runtime = 1 }}]\nbogus = 3\n"
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(":7:") && err.contains("bogus"), "{err}");
    assert!(err.contains("`kind`"), "lists what is allowed: {err}");
    let (code, err, _) = run_text(&format!(
        "{SMALL}jobs = [{{ submit = 0, size = 1, runtime = 1 }}]\n[policy]\nname = \"lifo\"\n"
    ));
    assert_eq!(code, 2);
    assert!(
        err.contains(":8:") && err.contains("fcfs") && err.contains("fpfs"),
        "{err}"
    );
}

#[test]
fn negative_and_zero_values_name_their_key() {
    let (code, err, _) = run_text(&format!(
        "{SMALL}jobs = [{{ submit = 0, size = 0, runtime = 1 }}]\n"
    ));
    assert_eq!(code, 2);
    assert!(err.contains(":6:") && err.contains("`size`"), "{err}");
    let (code, err, _) = run_text(&format!(
        "{SMALL}jobs = [{{ submit = 0, size = 1, runtime = -4 }}]\n"
    ));
    assert_eq!(code, 2);
    assert!(err.contains(":6:") && err.contains("`runtime`"), "{err}");
    let (code, err, _) = run_text(
        "name = \"g\"\n[platform]\nshape = \"5x20\"\n[workload]\nkind = \"ngubiri\"\nmean_interarrival = 0\n",
    );
    assert_eq!(code, 2);
    assert!(
        err.contains(":6:") && err.contains("`mean_interarrival`"),
        "{err}"
    );
    let (code, err, _) = run_text(&format!(
        "{SMALL}jobs = [{{ submit = 0, size = 1, runtime = 1 }}]\n[run]\nreplications = 0\n"
    ));
    assert_eq!(code, 2);
    assert!(err.contains(":8:") && err.contains("replications"), "{err}");
}

/// Every replication's summary is kept for the confidence intervals: a
/// count without bound grew without bound (150 MB a second on a small
/// scenario, until the machine ran out). Refused past 10,000, wherever it
/// is written.
#[test]
fn replications_have_a_bound() {
    let jobs = "jobs = [{ submit = 0, size = 1, runtime = 1 }]\n";
    let (code, err, _) = run_text(&format!("{SMALL}{jobs}[run]\nreplications = 10001\n"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(":8:") && err.contains("from 1 to 10000"),
        "{err}"
    );
    let (code, err, _) = run_text(&format!(
        "{SMALL}{jobs}[run]\nreplications = \"auto\"\nmax_replications = 20000\n"
    ));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("max_replications (20000) is more than 10000"),
        "{err}"
    );
    let o = schedscope(&[
        "run",
        "scenarios/teach-jumping.toml",
        "--replications",
        "100000000",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("from 1 to 10000"), "{}", stderr(&o));
    // At the bound it runs.
    let (code, err, _) = run_text(&format!("{SMALL}{jobs}[run]\nreplications = 10000\n"));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_job_larger_than_every_cluster_is_refused() {
    let (code, err, _) = run_text(&format!(
        "{SMALL}jobs = [{{ submit = 0, size = 5, runtime = 1 }}]\n"
    ));
    assert_eq!(code, 2);
    assert!(
        err.contains(":6:") && err.contains("can never run on 2×4"),
        "{err}"
    );
    // It gave a size, not components: the message speaks of its size and
    // says how to split it.
    assert!(
        err.contains("job 1: size 5 is one component")
            && err.contains("give `components` to split it"),
        "{err}"
    );
}

#[test]
fn a_truncated_swf_line_names_file_line_and_field_count() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.swf",
        "; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 10 2 -1 -1 2\n",
    );
    let sc = write(
        dir.path(),
        "s.toml",
        "name = \"t\"\n[workload]\nkind = \"swf\"\npath = \"t.swf\"\n",
    );
    let o = schedscope(&["run", sc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("t.swf") && err.contains("line 3"), "{err}");
    assert!(
        err.contains("18"),
        "says how many fields a line needs: {err}"
    );
    let o = schedscope(&["swf", "info", dir.path().join("t.swf").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_missing_file_is_bad_input() {
    let o = schedscope(&["run", "no/such/scenario.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/scenario.toml"));
    let dir = tempfile::tempdir().unwrap();
    let sc = write(
        dir.path(),
        "s.toml",
        "name = \"t\"\n[workload]\nkind = \"swf\"\npath = \"gone.swf\"\n",
    );
    let o = schedscope(&["run", sc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("s.toml:4:") && err.contains("gone.swf"),
        "{err}"
    );
}

#[test]
fn bad_overrides_are_bad_input() {
    let o = schedscope(&[
        "run",
        "scenarios/teach-jumping.toml",
        "--set",
        "policy.max_jumps=-1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("max_jumps"));
    let o = schedscope(&["run", "scenarios/teach-jumping.toml", "--set", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_exits_1_with_a_diff_when_a_bound_fails() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/teach-jumping.toml"),
    )
    .unwrap();
    let ok = write(dir.path(), "ok.toml", &text);
    let o = schedscope(&["check", ok.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let bad = write(
        dir.path(),
        "bad.toml",
        &text.replace(
            "makespan = { min = 15.0, max = 15.0 }",
            "makespan = { max = 12.0 }",
        ),
    );
    let o = schedscope(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL") && out.contains("makespan = 15") && out.contains("3.0000 above"),
        "{out}"
    );
}

#[test]
fn json_summary_has_the_documented_fields() {
    let o = schedscope(&[
        "run",
        "scenarios/default.toml",
        "--set",
        "run.jobs=3000",
        "--set",
        "run.warmup_jobs=100",
        "--replications",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    for k in ["scenario", "policy", "jobs"] {
        assert!(!v[k].is_null(), "missing {k}");
    }
    let overall = &v["metrics"]["overall"];
    for k in [
        "art",
        "mean_wait",
        "mean_slowdown",
        "mean_bounded_slowdown",
        "utilization",
        "makespan",
    ] {
        assert!(overall[k].is_number(), "overall.{k}");
        assert!(overall["half_width"][k].is_number(), "half-width of {k}");
    }
    for g in ["size", "components", "widest"] {
        let rows = v["metrics"]["groups"][g].as_array().unwrap();
        assert_eq!(rows.len(), 4);
        for r in rows {
            for k in [
                "label",
                "count",
                "number_pct",
                "load_pct",
                "art",
                "mean_wait",
                "mean_slowdown",
            ] {
                assert!(!r[k].is_null(), "groups.{g} row lacks {k}");
            }
        }
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str, seed: &str| -> (Vec<u8>, Vec<u8>) {
        let d = dir.path().join(name);
        let o = schedscope(&[
            "run",
            "scenarios/default.toml",
            "--set",
            "run.jobs=5000",
            "--seed",
            seed,
            "--out",
            d.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        (
            std::fs::read(d.join("summary.json")).unwrap(),
            std::fs::read(d.join("jobs.csv")).unwrap(),
        )
    };
    let a = out("a", "7");
    let b = out("b", "7");
    let c = out("c", "8");
    assert_eq!(a, b, "same scenario and seed, same bytes");
    assert_ne!(a.0, c.0, "another seed, another summary");
    let csv = String::from_utf8(a.1).unwrap();
    assert!(csv.starts_with("job_id,submit,start,end,size,components"));
    assert_eq!(csv.lines().count(), 5001, "a header and one row per job");
}

#[test]
fn sweep_prints_one_row_per_point() {
    let o = schedscope(&[
        "sweep",
        "scenarios/teach-jumping.toml",
        "--vary",
        "policy.name=fcfs,fpfs",
        "--vary",
        "policy.max_jumps=0,1",
        "--format",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[0].starts_with("policy.name,policy.max_jumps,jobs"));
}

#[test]
fn validate_every_shipped_scenario() {
    let mut paths: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| p.display().to_string())
            .collect();
    paths.sort();
    if common::shared_data("swf").is_none() || common::shared_data("reference_outputs").is_none() {
        // Trace scenarios need the traces; validate the rest.
        paths.retain(|p| !std::fs::read_to_string(p).unwrap().contains("shared/data"));
    }
    let mut args = vec!["validate"];
    args.extend(paths.iter().map(String::as_str));
    let o = schedscope(&args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn headless_without_a_terminal_prints_the_default_tables() {
    // stdout is a pipe here, so no console opens.
    let o = schedscope(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("tour · 24/16/16/8") && out.contains("by size"),
        "{out}"
    );
}

#[test]
fn validate_and_check_report_missing_data_on_one_line_and_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let bounded = "\n[expect]\njobs = { min = 1.0 }\n";
    let missing = write(
        dir.path(),
        "a-missing.toml",
        &format!(
            "name = \"m\"\n[workload]\nkind = \"swf\"\npath = \"traces/KTH.swf.gz\"\n{bounded}"
        ),
    );
    let unbounded = write(
        dir.path(),
        "b-unbounded.toml",
        "name = \"u\"\n[workload]\nkind = \"batsim\"\npath = \"w.json\"\ndownload = \"https://example.org/w\"\n",
    );
    let good = write(
        dir.path(),
        "c-good.toml",
        &format!("{SMALL}jobs = [{{ submit = 0, size = 1, runtime = 1 }}]\n{bounded}"),
    );
    let args = |cmd: &'static str| -> Vec<String> {
        [cmd.to_string()]
            .into_iter()
            .chain(
                [&missing, &unbounded, &good]
                    .iter()
                    .map(|p| p.display().to_string()),
            )
            .collect()
    };
    let run_args = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        schedscope(&a)
    };

    let o = run_args(args("validate"));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "one line per scenario: {out}");
    assert!(
        lines[0].starts_with("missing ")
            && lines[0].contains("a-missing.toml:4: the trace traces/KTH.swf.gz is missing")
            && lines[0].contains("Parallel Workloads Archive (https://www.cs.huji.ac.il/labs/parallel/workload/logs.html)")
            && lines[0].contains("--set workload.path=/path/to/KTH.swf.gz"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("missing ")
            && lines[1].contains("the workload file w.json")
            && lines[1].contains("download it from https://example.org/w"),
        "{out}"
    );
    assert!(lines[2].starts_with("ok ") && lines[2].contains("c-good.toml"));
    assert!(!out.contains("with --set"), "no --set was given: {out}");
    assert!(
        stderr(&o).contains("2 of 3 scenarios could not be read"),
        "{}",
        stderr(&o)
    );

    // check passes over the scenario without bounds, reports the missing
    // trace and still checks the last one.
    let o = run_args(args("check"));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("missing ") && out.contains("a-missing.toml:4:"),
        "{out}"
    );
    assert!(
        out.contains("b-unbounded.toml has no [expect] bounds"),
        "{out}"
    );
    assert!(out.contains("  pass  jobs = 1.0000"), "{out}");
    assert!(stderr(&o).contains("1 of 3 scenarios could not be checked"));

    // With an override, the message names it rather than a --set never given.
    let o = schedscope(&[
        "run",
        missing.to_str().unwrap(),
        "--set",
        "policy.name=fcfs",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("a-missing.toml (with policy.name=fcfs):"),
        "{err}"
    );
}

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
