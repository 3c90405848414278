//! The moldable workload as a scenario: its keys, bad values named at
//! their line, and the per-class figures in `run` and `sweep` reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn write(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("m.toml");
    std::fs::write(&p, text).unwrap();
    p
}

const HEAD: &str = "name = \"m\"\n[platform]\nshape = \"1x64\"\n[run]\njobs = 40\n[workload]\nkind = \"moldable\"\n";

/// (exit code, stderr, path) of `run` on HEAD + `rest`.
fn run_with(rest: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), &format!("{HEAD}{rest}"));
    let o = schedscope(&["run", p.to_str().unwrap()]);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        p.display().to_string(),
    )
}

#[test]
fn bad_values_name_file_line_and_key() {
    // Line 8 is the first line after HEAD.
    for (rest, line, key) in [
        ("utilization = 0\n", 8, "workload.utilization"),
        ("utilization = 7.5\n", 8, "workload.utilization"),
        (
            "utilization = 0.4\nshort_load = 0.6\n",
            9,
            "workload.short_load",
        ),
        ("short_load = -1\n", 8, "workload.short_load"),
        ("long_threshold = 0\n", 8, "workload.long_threshold"),
        ("fold_overhead = -0.5\n", 8, "workload.fold_overhead"),
        ("max_mpl = 100\n", 8, "workload.max_mpl"),
        ("max_mpl = 0\n", 8, "max_mpl"),
        ("max_size = 65\n", 8, "workload.max_size"),
        (
            "estimate_factor = [1.5, 0.5]\n",
            8,
            "workload.estimate_factor",
        ),
        ("estimate_factor = 0\n", 8, "workload.estimate_factor"),
        (
            "estimate_factor = [0.5, 1, 2]\n",
            8,
            "workload.estimate_factor",
        ),
        ("short_min_size = 40\n", 8, "workload.short_min_size"),
        (
            "[workload.speedup]\nbt_a = { a = 0.5 }\n",
            9,
            "workload.speedup.bt_a.a",
        ),
        (
            "[workload.speedup]\nlu_w = { a = 16, sigma = -1 }\n",
            9,
            "workload.speedup.lu_w.sigma",
        ),
        ("[workload.speedup]\nbt_b = { a = 4 }\n", 9, "bt_b"),
        ("long_threshold = 10\n", 8, "short"),
        ("q = 0.5\n", 8, "`q` does not apply"),
    ] {
        let (code, err, path) = run_with(rest);
        assert_eq!(code, 2, "{rest}: {err}");
        assert!(
            err.contains(&format!("{path}:{line}:")),
            "{rest}: wants line {line}: {err}"
        );
        assert!(err.contains(key), "{rest}: wants {key}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn the_scenario_reports_long_and_short_jobs_apart() {
    let o = schedscope(&["run", "scenarios/utrera-moldable.toml", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["metrics"]["moldable"];
    for c in ["long", "short"] {
        for f in [
            "jobs",
            "response",
            "execution",
            "wait",
            "wait_sd",
            "partition",
        ] {
            assert!(m[c][f].as_f64().is_some(), "{c}.{f} in {m}");
        }
        assert!(m[c]["jobs"].as_f64().unwrap() > 0.0);
        assert!(m[c]["half_width"]["response"].as_f64().is_some());
    }
    for f in ["aborted", "folded", "expanded", "work_lost"] {
        assert!(m[f].as_f64().is_some(), "{f} in {m}");
    }
    let long = m["long"]["jobs"].as_f64().unwrap();
    let short = m["short"]["jobs"].as_f64().unwrap();
    assert_eq!(long + short, 120.0);
    assert!(long / 120.0 <= 0.30, "long jobs are at most 30 %: {long}");
    // A rigid scenario has no such table.
    let o = schedscope(&["run", "scenarios/teach-backfill.toml", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["metrics"].get("moldable").is_none());
}

#[test]
fn sweep_reports_the_per_class_figures_and_expect_knows_them() {
    let o = schedscope(&[
        "sweep",
        "scenarios/utrera-moldable.toml",
        "--vary",
        "policy.name=fifo,fjt1-bfm",
        "--replications",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = String::from_utf8_lossy(&o.stdout);
    for col in [
        "long resp",
        "long exec",
        "long wait sd",
        "short part",
        "folded",
        "work lost",
    ] {
        assert!(t.contains(col), "{col}: {t}");
    }
    assert_eq!(t.lines().count(), 3, "{t}");
    let o = schedscope(&[
        "sweep",
        "scenarios/utrera-moldable.toml",
        "--vary",
        "policy.name=fifo,fjt1-bfm",
        "--replications",
        "1",
        "--format",
        "csv",
    ]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.lines().next().unwrap().contains("long.response"), "{t}");
    // [expect] accepts the moldable names and checks them.
    let (code, err, _) = run_with("[expect]\n\"long.response\" = { min = 1 }\n");
    assert_eq!(code, 0, "{err}");
    let (code, err, _) = run_with("[expect]\n\"long.nonsense\" = { min = 1 }\n");
    assert_eq!(code, 2, "{err}");
}

/// The window rule's default is the per-job reading that most of the
/// paper's text gives (a backfilled job's window expires when it outlives
/// its estimate): under it the scenario's FJT1+BFM folds backfilled jobs.
/// §4's one definition (`window = "all-backfilled"`: every running job was
/// backfilled) stays a key, and under it no window expires here.
#[test]
fn the_default_window_expires_when_a_backfilled_job_outlives_its_estimate() {
    let folded = |extra: &[&str]| {
        let mut args = vec!["run", "scenarios/utrera-moldable.toml", "--format", "json"];
        args.extend(extra);
        let o = schedscope(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["metrics"]["moldable"]["folded"].as_f64().unwrap()
    };
    assert!(folded(&[]) > 0.0, "no fold under the default window rule");
    assert_eq!(
        folded(&["--set", "policy.params.window=\"estimate\""]),
        folded(&[])
    );
    assert_eq!(
        folded(&["--set", "policy.params.window=\"all-backfilled\""]),
        0.0
    );
}
