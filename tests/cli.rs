//! The command line as users and scripts meet it: exit codes, messages that
//! say where input is wrong, reports, and byte-identical reruns.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `run FILE` on `text` and returns (exit code, stderr).
pub(crate) fn run_text(text: &str) -> (i32, String, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.toml", text);
    let o = schedscope(&["run", p.to_str().unwrap()]);
    // The folder goes when `dir` does; the path is kept for messages only.
    (o.status.code().unwrap_or(-1), stderr(&o), p)
}

pub(crate) const SMALL: &str =
    "name = \"small\"\n[platform]\nshape = \"2x4\"\n[workload]\nkind = \"jobs\"\n";

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
