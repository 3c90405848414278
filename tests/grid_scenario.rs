//! `[workload] kind = "grid"` and `[run] completions` as users meet them:
//! the paper's defaults, runs that end at N completions with the grid
//! figures reported, exit-2 messages naming file, line and key, and a
//! sweep whose rows carry the grid figures with half-widths.

use schedscope::grid_study::{GridFigures, GridPoint, run_once};
use schedscope::policy::names;
use schedscope::runner::{RunOptions, run};
use schedscope::scenario::Scenario;
use schedscope::workload::grid::{GangService, GangSizes, GridParams};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::AtomicU64;

const SCENARIO: &str = "scenarios/grid-two-site.toml";

fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn load(sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    Scenario::load_with(&path, &sets).expect("the scenario loads")
}

#[test]
fn a_bare_grid_workload_takes_the_papers_values() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g.toml");
    std::fs::write(
        &p,
        "name = \"g\"\n[platform]\nshape = \"2x16\"\n[workload]\nkind = \"grid\"\n",
    )
    .unwrap();
    let sc = Scenario::load(&p).unwrap();
    let g = sc
        .workload()
        .downcast::<schedscope::workload::grid::GridParams>()
        .cloned()
        .expect("a grid workload");
    assert_eq!(
        g,
        GridParams {
            sites: 2,
            local_rate: 12.5,
            gang_rate: 0.5,
            gang_sizes: GangSizes::Uniform,
            gang_service: GangService::Shared,
            mean_service: 1.0,
        }
    );
    assert_eq!(sc.platform().split_overhead, 0.1);
    assert_eq!(sc.platform().total_processors(), 32);
}

#[test]
fn a_run_ends_at_n_completions_and_reports_the_grid_figures() {
    let sc = load(&["run.replications=1", "run.completions=3000"]);
    let r = run(&sc, &RunOptions::default(), &AtomicU64::new(0)).unwrap();
    let rep = &r.replications[0];
    // One event may end several jobs: at least N, and no more than the
    // jobs one event can end (a gang of 13 and the rest at that instant).
    assert!(
        (3000..3000 + 16).contains(&rep.summary.jobs),
        "{}",
        rep.summary.jobs
    );
    let g = GridFigures::of(rep.family.as_ref().expect("grid figures"));
    assert!(
        g.gangs_finished_pct > 80.0 && g.gangs_finished_pct <= 100.0,
        "{g:?}"
    );
    assert!(g.rt > 1.0 && g.wrt > 1.0, "{g:?}");
    // Jobs are still in the system when the run stops: more arrived than
    // finished.
    assert!(
        rep.counters.arrived > rep.counters.finished,
        "{:?}",
        rep.counters
    );
    // The scenario's run is the study's run: same seed, same figures.
    let mut point = GridPoint::paper(12.5, names::GRID_2, 30.0, GangSizes::Uniform);
    point.completed = 3000;
    assert_eq!(run_once(&point, rep.seed), g);
    let s = r.summary();
    assert!(s.figure("grid.wrt").is_some() && s.figure("grid.nonsense").is_none());
}

#[test]
fn other_workloads_report_no_grid_figures() {
    let o = schedscope(&["run", "scenarios/teach-jumping.toml", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("\"grid\""), "{out}");
    let o = schedscope(&["run", SCENARIO, "--format", "json"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let g = v.pointer("/metrics/grid").expect("grid figures");
    for k in [
        "rt",
        "sld",
        "wrt",
        "wsld",
        "gangs_finished_pct",
        "utilization",
    ] {
        assert!(g.get(k).and_then(|x| x.as_f64()).is_some(), "{k}: {g}");
        assert!(g.pointer(&format!("/half_width/{k}")).is_some(), "{k}: {g}");
    }
}

#[test]
fn bad_grid_values_name_file_line_and_key() {
    for (set, line, words) in [
        (
            "workload.local_rate=-1",
            17,
            "workload.local_rate must be from",
        ),
        (
            "workload.gang_rate=0",
            18,
            "workload.gang_rate must be from",
        ),
        ("workload.gang_sizes=cubes", 19, "gang_sizes"),
        (
            "workload.mean_service=1e9",
            20,
            "workload.mean_service must be from",
        ),
        (
            "workload.split_overhead=-0.1",
            21,
            "workload.split_overhead must be from",
        ),
        ("run.completions=0", 31, "completions"),
        (
            "workload.q=0.5",
            // A key the file does not have: the line is the override's,
            // so the message names the --set, not a line of the file.
            0,
            "does not apply to workload kind \"grid\"",
        ),
    ] {
        let o = schedscope(&["run", SCENARIO, "--set", set]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        let at = match line {
            0 => format!("--set {set}: "),
            n => format!("grid-two-site.toml (with {set}):{n}:"),
        };
        assert!(err.contains(&at), "{set}: {err}");
        assert!(err.contains(words), "{set}: {err}");
        assert!(!err.contains("panicked"), "{set}: {err}");
    }
    let o = schedscope(&["run", SCENARIO, "--set", "platform.shape=1x8"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("up to 13 tasks, more than the 8 processors"),
        "{err}"
    );
}

#[test]
fn a_sweep_over_the_study_axes_prints_the_grid_figures_with_half_widths() {
    let o = schedscope(&[
        "sweep",
        SCENARIO,
        "--vary",
        "policy.name=grid-1,grid-2",
        "--vary",
        "workload.gang_sizes=uniform,pow2",
        "--set",
        "run.completions=1000",
        "--replications",
        "3",
        "--format",
        "csv",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(
        lines[0].contains("grid.wrt,grid.wrt_half_width"),
        "{}",
        lines[0]
    );
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "grid.wrt_half_width")
        .unwrap();
    for l in &lines[1..] {
        let hw: f64 = l.split(',').nth(col).unwrap().parse().unwrap();
        assert!(hw > 0.0, "{l}");
    }
}

/// The headless form of `i` at a site: an `inject-jobs` timeline entry with
/// `site`. A command log saved with one (and one without, written as before
/// the key existed) reads back as the same commands, runs to the same bytes
/// twice, and the local job runs at its site; a site outside the platform
/// is exit 2 naming the file and line.
#[test]
fn an_injected_local_job_at_a_site_round_trips_through_a_saved_timeline() {
    use schedscope::engine::{Command as Cmd, InjectJob};
    use schedscope::model::SimTime;
    let sc = load(&["run.replications=1", "run.completions=2000"]);
    let job = |size, site| InjectJob {
        size,
        runtime: 2.5,
        estimate: None,
        components: None,
        count: 1,
        site,
    };
    let log = vec![
        (
            SimTime::from_secs(10),
            Cmd::InjectJobs {
                jobs: vec![job(1, Some(1))],
            },
        ),
        (
            SimTime::from_secs(20),
            Cmd::InjectJobs {
                jobs: vec![job(4, None)],
            },
        ),
    ];
    let text = sc.save_with_log(&log);
    assert!(
        text.contains(
            "[[timeline]]\nat = 10.0\naction = \"inject-jobs\"\njobs = [{ count = 1, runtime = 2.5, site = 1, size = 1 }]\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("jobs = [{ count = 1, runtime = 2.5, size = 4 }]\n"),
        "no site key where there is no site: {text}"
    );
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("replay.toml");
    std::fs::write(&p, &text).unwrap();
    let again = Scenario::load(&p).unwrap();
    assert_eq!(again.save_with_log(&[]), text, "it reads back the same");
    let path = p.to_str().unwrap();
    let a = schedscope(&["run", path, "--format", "csv"]);
    assert_eq!(
        a.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    let b = schedscope(&["run", path, "--format", "csv"]);
    assert_eq!(a.stdout, b.stdout, "byte-identical replays");
    let csv = String::from_utf8_lossy(&a.stdout);
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .filter(|r: &Vec<&str>| r[0] == "1000000001")
        .collect();
    assert_eq!(rows.len(), 1, "the injected local job ends once");
    // submit 10, size 1, on cluster 1.
    assert_eq!((rows[0][1], rows[0][4], rows[0][6]), ("10", "1", "1"));

    let bad = text.replace("site = 1", "site = 2");
    std::fs::write(&p, &bad).unwrap();
    let o = schedscope(&["run", path]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // The entry's `[[timeline]]` line.
    let at = bad.find("site = 2").unwrap();
    let line = bad[..at]
        .rfind("[[timeline]]")
        .map(|i| bad[..i].lines().count() + 1);
    assert!(
        err.contains(&format!("replay.toml:{}:1: timeline: site 2 does not exist: the sites are 0 to 1 (one per cluster)", line.unwrap())),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Under `gang_service = "longest-task"` a gang holds its processors until
/// its longest task ends: utilization counts that time held, and
/// `busy_utilization` only what the processors computed, which is the
/// offered load or less (2 × λ + 0.5 × 7.5 over 32 processors, 0.636 at
/// λ = 8.3). Under the shared service time the two are the same.
#[test]
fn held_and_computing_utilization_are_reported_apart() {
    let figures = |service: &str| {
        let o = schedscope(&[
            "run",
            SCENARIO,
            "--set",
            &format!("workload.gang_service={service}"),
            "--set",
            "workload.local_rate=8.3",
            "--set",
            "run.completions=20000",
            "--set",
            "run.replications=2",
            "--format",
            "json",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let g = &v["metrics"]["grid"];
        (
            g["utilization"].as_f64().unwrap(),
            g["busy_utilization"].as_f64().unwrap(),
        )
    };
    let (held, busy) = figures("longest-task");
    assert!(held > 0.8, "held {held}");
    assert!((0.6..0.67).contains(&busy), "computing {busy}");
    let (held, busy) = figures("shared");
    assert_eq!(held, busy);
    assert!((0.6..0.67).contains(&busy), "computing {busy}");
    // The table says so only where they differ.
    let table = |service: &str| {
        let o = schedscope(&[
            "run",
            SCENARIO,
            "--set",
            &format!("workload.gang_service={service}"),
            "--set",
            "run.completions=2000",
        ]);
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert!(table("longest-task").contains("U computing"));
    assert!(!table("shared").contains("U computing"));
}
