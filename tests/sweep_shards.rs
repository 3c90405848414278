//! Sweeps in shares: whatever the number of shards, the merged result
//! folder prints exactly what one local sweep prints, and a shard killed
//! part-way is finished by running it again, which does only the missing
//! points.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Twelve points (4 maxJumps × 3 arrival rates), three replications each,
/// so half-widths appear in every report.
const SWEEP: [&str; 12] = [
    "sweep",
    "scenarios/ngubiri-maxjumps.toml",
    "--set",
    "run.jobs=1500",
    "--set",
    "run.warmup_jobs=100",
    "--replications",
    "3",
    "--vary",
    "policy.max_jumps=0,1,2,5",
    "--vary",
    "workload.mean_interarrival=0.64,0.7,0.8",
];

fn sweep(extra: &[&str]) -> Output {
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend_from_slice(extra);
    schedscope(&args)
}

fn local(format: &str) -> Vec<u8> {
    let o = sweep(&["--format", format]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    o.stdout
}

fn points_in(dir: &Path) -> BTreeMap<String, SystemTime> {
    std::fs::read_dir(dir.join("points"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        e.metadata().unwrap().modified().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// "shard 0/1: R of P points run, D already done, F failed" → (R, P, D, F).
fn shard_line(stderr: &str) -> (usize, usize, usize, usize) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("shard "))
        .unwrap_or_else(|| panic!("no shard line in {stderr}"));
    let nums: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    // shard I/N: R of P ... D ... F
    (nums[2], nums[3], nums[4], nums[5])
}

#[test]
fn merged_shards_print_the_local_sweep_byte_for_byte() {
    let formats = ["table", "json", "csv"];
    let expected: Vec<Vec<u8>> = formats.iter().map(|f| local(f)).collect();
    assert_eq!(
        text(&expected[0]).lines().count(),
        13,
        "a header and 12 rows"
    );
    for n in [1usize, 3, 7] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        let d = dir.to_str().unwrap();
        let mut ran = 0;
        for i in 0..n {
            let shard = format!("{i}/{n}");
            let o = sweep(&["--out", d, "--shard", &shard]);
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
            assert!(o.stdout.is_empty(), "a shard prints nothing on stdout");
            let (r, p, done, failed) = shard_line(&text(&o.stderr));
            assert_eq!((r, done, failed), (p, 0, 0));
            ran += r;
        }
        assert_eq!(ran, 12, "the shards share the points out exactly");
        assert_eq!(points_in(&dir).len(), 12);
        for (f, want) in formats.iter().zip(&expected) {
            let o = schedscope(&["merge", d, "--format", f]);
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
            assert!(
                o.stdout == *want,
                "{n} shards, {f}: merged\n{}\nlocal\n{}",
                text(&o.stdout),
                text(want)
            );
        }
    }
}

#[test]
fn sweep_out_without_shard_prints_the_local_rows_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("out");
    let d = d.to_str().unwrap();
    let want = local("csv");
    let o = sweep(&["--out", d, "--format", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(o.stdout, want);
    let before = points_in(Path::new(d));
    // A second run finds every point done, runs nothing, prints the same.
    let o = sweep(&["--out", d, "--format", "csv"]);
    assert_eq!(o.stdout, want);
    assert_eq!(points_in(Path::new(d)), before, "no result was rewritten");
}

#[test]
fn killed_shard_rerun_completes_only_the_missing_points() {
    let tmp = tempfile::tempdir().unwrap();
    let dir: PathBuf = tmp.path().join("out");
    let d = dir.to_str().unwrap().to_string();
    // Heavier points, one at a time, so the kill lands part-way.
    let mut args: Vec<String> = SWEEP.iter().map(|s| s.to_string()).collect();
    args[3] = "run.jobs=20000".into();
    args[7] = "1".into();
    args.extend(["--out".into(), d.clone(), "--shard".into(), "0/1".into()]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RAYON_NUM_THREADS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while points_in(&dir).len() < 2 && t0.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let survived = points_in(&dir);
    let k = survived.len();
    println!("killed after {k} of 12 points");
    assert!((2..12).contains(&k), "the kill landed part-way ({k} done)");

    let o = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (run, points, done, failed) = shard_line(&text(&o.stderr));
    assert_eq!((run, points, done, failed), (12 - k, 12, k, 0));
    let after = points_in(&dir);
    assert_eq!(after.len(), 12);
    for (name, t) in &survived {
        assert_eq!(
            after[name], *t,
            "{name} was finished before the kill and kept"
        );
    }
    // And the folder merges to what a local sweep prints.
    let mut local_args: Vec<String> = args[..args.len() - 4].to_vec();
    local_args.extend(["--format".into(), "json".into()]);
    let want = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(&local_args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let o = schedscope(&["merge", &d, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(o.stdout, want.stdout);
}

/// One point missing, one failed: said in the singular.
#[test]
fn one_missing_point_has_no_result_yet() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("out");
    let d = d.to_str().unwrap();
    let o = schedscope(&[
        "sweep",
        "scenarios/teach-jumping.toml",
        "--vary",
        "policy.max_jumps=0,1",
        "--out",
        d,
        "--shard",
        "0/2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = schedscope(&["merge", d]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("1 of 2 points has no result yet"), "{err}");
}

#[test]
fn merge_names_missing_and_failed_points_and_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("out");
    let d = d.to_str().unwrap();
    let o = sweep(&["--out", d, "--shard", "0/3"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // One finished point turns out unreadable.
    let (first, _) = points_in(Path::new(d)).into_iter().next().unwrap();
    std::fs::write(Path::new(d).join("points").join(&first), "{ half").unwrap();
    let o = schedscope(&["merge", d]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("8 of 12 points have no result yet"), "{err}");
    assert_eq!(err.matches("  missing ").count(), 8, "{err}");
    assert!(err.contains("1 of 12 points failed"), "{err}");
    assert!(err.contains(&format!("failed  {}", first.trim_end_matches(".json"))));
    assert!(err.contains("policy.max_jumps=0 workload.mean_interarrival=0.7"));
    // The points that are there are printed.
    assert_eq!(text(&o.stdout).lines().count(), 1 + 3);
    // Running the shard again redoes the unreadable point only.
    let o = sweep(&["--out", d, "--shard", "0/3"]);
    assert_eq!(shard_line(&text(&o.stderr)), (1, 4, 3, 0));
}

#[test]
fn a_folder_holds_one_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("out");
    let d = d.to_str().unwrap();
    let o = sweep(&["--out", d, "--shard", "0/4"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = sweep(&["--out", d, "--shard", "1/4", "--seed", "9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("holds results of another sweep"),
        "{}",
        text(&o.stderr)
    );
    let o = schedscope(&["merge", tmp.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("not a sweep's result folder"));
}

#[test]
fn vary_mistakes_are_errors() {
    for (vary, says) in [
        (["policy.name=fcfs", "policy.name=easy"], "already varied"),
        (["policy.max_jumps=1,,2", "seed=1"], "value 2 is empty"),
    ] {
        let o = schedscope(&[
            "sweep",
            "scenarios/teach-jumping.toml",
            "--vary",
            vary[0],
            "--vary",
            vary[1],
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert!(text(&o.stderr).contains(says), "{}", text(&o.stderr));
    }
}

/// A sweep file listing the same twelve points one per line prints what
/// the two --vary axes print, byte for byte; listed points cross with a
/// --vary; sharded and merged, a sweep file gives the local rows too.
#[test]
fn a_sweep_file_lists_points_one_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("points.csv");
    let mut listing =
        String::from("# maxJumps by arrival rate\npolicy.max_jumps, workload.mean_interarrival\n");
    for j in ["0", "1", "2", "5"] {
        for r in ["0.64", "0.7", "0.8"] {
            listing.push_str(&format!("{j},{r}\n"));
        }
    }
    std::fs::write(&file, &listing).unwrap();
    let base = &SWEEP[..8];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        let o = schedscope(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        o.stdout
    };
    let f = file.to_str().unwrap();
    assert_eq!(run(&["--points", f, "--format", "csv"]), local("csv"));
    // Listed points crossed with a varied key: the listed ones vary slowest.
    let crossed = dir.path().join("crossed.csv");
    std::fs::write(&crossed, "policy.max_jumps\n0\n1\n2\n5\n").unwrap();
    let c = crossed.to_str().unwrap();
    assert_eq!(
        run(&[
            "--points",
            c,
            "--vary",
            "workload.mean_interarrival=0.64,0.7,0.8",
            "--format",
            "csv"
        ]),
        local("csv")
    );
    // In shards, merged.
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    for i in 0..2 {
        let shard = format!("{i}/2");
        run(&["--points", f, "--out", o, "--shard", &shard]);
    }
    let m = schedscope(&["merge", o, "--format", "csv"]);
    assert_eq!(m.status.code(), Some(0), "{}", text(&m.stderr));
    assert_eq!(m.stdout, local("csv"));
}

#[test]
fn a_bad_sweep_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "policy.max_jumps,run.jobs\n1,100\n2\n",
            ":3:",
            "1 values for the 2 keys",
        ),
        ("policy.max_jumps\n1\n1\n", ":3:", "listed twice"),
        (
            "policy.max_jumps,policy.max_jumps\n1,2\n",
            ":1:",
            "given twice",
        ),
        ("# nothing\n", ":1:", "no header"),
        ("policy.max_jumps\n", ":1:", "no point is listed"),
    ];
    for (i, (listing, at, says)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("p{i}.csv"));
        std::fs::write(&file, listing).unwrap();
        let o = schedscope(&[
            "sweep",
            "scenarios/teach-jumping.toml",
            "--points",
            file.to_str().unwrap(),
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{listing}: {err}");
        assert!(err.contains(at) && err.contains(says), "{listing}: {err}");
    }
    // A listed key cannot be varied too.
    let file = dir.path().join("p.csv");
    std::fs::write(&file, "policy.max_jumps\n1\n").unwrap();
    let o = schedscope(&[
        "sweep",
        "scenarios/teach-jumping.toml",
        "--points",
        file.to_str().unwrap(),
        "--vary",
        "policy.max_jumps=2,3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("also a key of the sweep file"));
}

/// `--paired KEY=BASE`: each point's difference from its base point, seed
/// by seed, checked against separate `run --format json` of each point
/// with each replication's seed; the same rows from a merged folder; and
/// the mistakes named.
#[test]
fn paired_differences_are_taken_seed_by_seed() {
    let o = sweep(&["--paired", "policy.max_jumps=0", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 12);
    // The point maxJumps 5 at 0.7 against maxJumps 0 at 0.7, by hand from
    // each replication run on its own.
    let art = |jumps: &str, seed: u64| -> f64 {
        let o = schedscope(&[
            "run",
            "scenarios/ngubiri-maxjumps.toml",
            "--set",
            "run.jobs=1500",
            "--set",
            "run.warmup_jobs=100",
            "--set",
            "run.replications=1",
            "--set",
            &format!("policy.max_jumps={jumps}"),
            "--set",
            "workload.mean_interarrival=0.7",
            "--seed",
            &seed.to_string(),
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["metrics"]["overall"]["art"].as_f64().unwrap()
    };
    let row = rows
        .iter()
        .find(|r| {
            r["point"]["policy.max_jumps"] == 5 && r["point"]["workload.mean_interarrival"] == 0.7
        })
        .expect("the point");
    let seeds: Vec<u64> = row["summary"]["replication_seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert_eq!(seeds.len(), 3);
    let d: Vec<f64> = seeds.iter().map(|&s| art("5", s) - art("0", s)).collect();
    let mean = d.iter().sum::<f64>() / 3.0;
    let got = &row["paired"]["difference"]["art"];
    assert!(
        (got["mean"].as_f64().unwrap() - mean).abs() < 1e-9,
        "{got} against {d:?}"
    );
    assert!(got["half_width"].as_f64().unwrap() > 0.0, "{got}");
    assert_eq!(row["paired"]["against"]["policy.max_jumps"], 0);
    let base = rows
        .iter()
        .find(|r| r["point"]["policy.max_jumps"] == 0)
        .unwrap();
    assert!(
        base.get("paired").is_none(),
        "a base point has no difference"
    );

    // The table: the rows, then 9 paired lines under their header.
    let o = sweep(&["--paired", "policy.max_jumps=0"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    let after: Vec<&str> = table
        .split("paired against policy.max_jumps=0")
        .nth(1)
        .expect("a paired section")
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(after.len(), 9, "{table}");
    // The same from a result folder.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("out");
    let d = d.to_str().unwrap();
    let o = sweep(&["--out", d, "--shard", "0/1"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = schedscope(&["merge", d, "--paired", "policy.max_jumps=0"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), table);

    for (bad, says) in [
        ("policy.max_jumps=3", "no point has policy.max_jumps = 3"),
        ("policy.name=fpfs", "`policy.name` is not varied"),
        ("max_jumps", "expected KEY.PATH=VALUE"),
    ] {
        let o = sweep(&["--paired", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o.stdout));
        let e = text(&o.stderr);
        assert!(
            e.contains(&format!("--paired {bad}: ")) && e.contains(says),
            "{e}"
        );
    }
}
