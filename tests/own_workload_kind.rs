//! A workload kind of one's own, registered from outside schedscope's
//! crate: scenarios name it, its keys live in `[workload.params]` with
//! errors at their lines, every job it makes runs for the time it asked,
//! injected jobs join it, its own family of figures reaches every report,
//! and the catalog refuses what it must.

use schedscope::engine::Engine;
use schedscope::model::{JobRecord, JobSpec, SimTime};
use schedscope::runner::{RunOptions, run};
use schedscope::scenario::kinds::{
    self, Columns, Figure, FigureFamily, FigureFold, Validated, Workload, WorkloadKindEntry,
};
use schedscope::scenario::{Scenario, ScenarioError};
use schedscope::sweep::render::{self, Row};
use schedscope::workload::JobSource;
use std::path::Path;
use std::sync::Once;
use std::sync::atomic::AtomicU64;

/// Jobs of `size` processors running `runtime` seconds, one every `gap`
/// seconds, job i (from 0) taking `i % 3 + 1` times the run time.
#[derive(Clone, Debug)]
struct Steady {
    size: u32,
    gap: f64,
    runtime: f64,
}

impl Workload for Steady {
    fn source(&self, _seed: u64, count: Option<u64>) -> Result<Box<dyn JobSource>, String> {
        let s = self.clone();
        Ok(Box::new((0..count.unwrap_or(u64::MAX)).map(move |i| {
            JobSpec::rigid(
                i + 1,
                SimTime::from_secs_f64(i as f64 * s.gap),
                s.size,
                SimTime::from_secs_f64(s.runtime * (i % 3 + 1) as f64),
            )
        })))
    }
}

fn positive(s: &Scenario, p: Option<&toml::Table>, key: &str) -> Result<f64, ScenarioError> {
    match p.and_then(|p| p.get(key)) {
        Some(toml::Value::Integer(i)) if *i > 0 => Ok(*i as f64),
        Some(v) => Err(s.error_at_key(
            &["workload", "params", key],
            format!("workload.params.{key} must be a whole number above 0, found {v}"),
        )),
        None => Err(s.error_at_key(
            &["workload"],
            format!("kind = \"steady\" needs workload.params.{key}"),
        )),
    }
}

fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        kinds::register(WorkloadKindEntry {
            name: "steady",
            summary: "one job every `gap` seconds",
            keys: &["params"],
            needs_platform: true,
            family: Some(&STEADY_FAMILY),
            validate: |s, w, _platform| {
                let p = w.params.as_ref().map(|p| p.get_ref());
                Ok(Validated::of(Steady {
                    size: positive(s, p, "size")? as u32,
                    gap: positive(s, p, "gap")?,
                    runtime: positive(s, p, "runtime")?,
                }))
            },
        })
        .expect("a new name");
    });
}

/// The kind's own figures: the measured jobs' mean run time, and the
/// longest jobs (three times the run time) in a table of their own.
static STEADY_FAMILY: FigureFamily = FigureFamily {
    name: "steady",
    title: "steady jobs",
    figures: &[
        Figure::counted("steady.jobs", "jobs", 2, None),
        Figure::counted("steady.mean_run", "mean run", 2, Some("mean run")),
        Figure::counted("longest.jobs", "longest jobs", 2, Some("longest")),
        Figure::counted(
            "longest.mean_wait",
            "longest mean wait",
            2,
            Some("longest wait"),
        ),
    ],
    columns: Columns::After(&["steady.mean_run", "longest.jobs"]),
    csv: &["steady.mean_run", "longest.jobs", "longest.mean_wait"],
    block: kinds::lines,
    fold: |warmup_jobs| {
        Box::new(SteadyFold {
            warmup_jobs,
            ..SteadyFold::default()
        })
    },
};

#[derive(Default)]
struct SteadyFold {
    warmup_jobs: u64,
    jobs: u64,
    run: f64,
    longest: u64,
    longest_wait: f64,
}

impl FigureFold for SteadyFold {
    fn record(&mut self, r: &JobRecord) {
        if r.arrival < self.warmup_jobs || r.injected {
            return;
        }
        self.jobs += 1;
        self.run += r.elapsed().as_secs_f64();
        if r.runtime == SimTime::from_secs(75) {
            self.longest += 1;
            self.longest_wait += r.wait().as_secs_f64();
        }
    }

    fn values(&self, _engine: &Engine) -> Vec<f64> {
        vec![
            self.jobs as f64,
            self.run / self.jobs.max(1) as f64,
            self.longest as f64,
            self.longest_wait / self.longest.max(1) as f64,
        ]
    }
}

const SCENARIO: &str = r#"name = "steady"
[platform]
shape = "2x8"
[workload]
kind = "steady"
[workload.params]
size = 4
gap = 10
runtime = 25
[policy]
name = "fcfs"
[run]
jobs = 60
"#;

fn parse(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::parse(text, "steady.toml", Path::new("."), &sets)
}

#[test]
fn a_registered_kind_runs_every_job_it_makes_for_the_time_it_asked() {
    register();
    let sc = parse(SCENARIO, &[]).expect("the kind is known");
    assert!(sc.workload().downcast::<Steady>().is_some());
    let opts = RunOptions {
        keep_records: true,
        ..RunOptions::default()
    };
    let r = run(&sc, &opts, &AtomicU64::new(0)).expect("runs");
    let records = &r.replications[0].records;
    assert_eq!(records.len(), 60, "every job that arrived has ended");
    for j in records {
        let k = j.id - 1;
        assert_eq!(j.submit, SimTime::from_secs(10 * k as i64));
        assert_eq!(j.size, 4);
        assert_eq!(
            j.end.0 - j.start.0,
            SimTime::from_secs(25 * (k % 3 + 1) as i64).0,
            "job {} ran for what it asked",
            j.id
        );
        assert!(j.start >= j.submit);
    }
}

#[test]
fn its_family_of_figures_reaches_every_report() {
    register();
    let sc = parse(SCENARIO, &["run.warmup_jobs=6", "run.replications=2"]).unwrap();
    let r = run(&sc, &RunOptions::default(), &AtomicU64::new(0)).unwrap();
    let s = r.summary();
    let mean = |n: &str| s.figure(n).unwrap_or_else(|| panic!("{n}")).mean;
    // 54 measured jobs of 25, 50 and 75 s, a third of each.
    assert_eq!(mean("steady.jobs"), 54.0);
    assert_eq!(mean("steady.mean_run"), 50.0);
    assert_eq!(mean("longest.jobs"), 18.0);
    assert!(s.figure("longest.nonsense").is_none());

    // The JSON summary: the family's table, a table of its own for the
    // figures named after another word, half-widths beside each.
    let v = schedscope::report::json::summary(&sc, &r);
    let t = &v["metrics"]["steady"];
    assert_eq!(t["mean_run"], 50.0, "{t}");
    assert_eq!(t["longest"]["jobs"], 18.0, "{t}");
    assert_eq!(t["longest"]["half_width"]["jobs"], 0.0, "{t}");
    assert_eq!(t["half_width"]["mean_run"], 0.0, "{t}");
    let wait = render::figure(&v, "longest.mean_wait").unwrap();
    assert_eq!(wait, s.figure("longest.mean_wait").unwrap());
    assert!(wait.mean > 0.0, "the longest jobs waited: {wait:?}");
    assert!(render::never_negative("longest.mean_wait"));

    // The run's table: the family's block under its title.
    let table = schedscope::report::table::render(&sc, &r);
    assert!(table.contains("\n  steady jobs\n"), "{table}");
    assert!(
        table.contains("    mean run            50.00 ± 0.00\n"),
        "{table}"
    );

    // A sweep's table shows its columns after the common ones; its CSV
    // the figures it lists.
    let settings = [("policy.name".to_string(), "fcfs".to_string())];
    let rows = [Row {
        settings: &settings,
        summary: &v,
    }];
    let keys = ["policy.name".to_string()];
    let head = render::table(&keys, &rows);
    let head = head.lines().next().unwrap();
    assert!(
        head.ends_with("util           mean run            longest"),
        "{head}"
    );
    let csv = render::csv(&keys, &rows);
    let head = csv.lines().next().unwrap();
    assert!(
        head.ends_with(
            "requeued_half_width,steady.mean_run,steady.mean_run_half_width,longest.jobs,\
             longest.jobs_half_width,longest.mean_wait,longest.mean_wait_half_width"
        ),
        "{head}"
    );

    // `[expect]` knows its figures by name.
    let ok = format!("{SCENARIO}[expect]\n\"longest.jobs\" = {{ min = 18, max = 18 }}\n");
    assert!(parse(&ok, &["run.warmup_jobs=6"]).is_ok());
    let bad = format!("{SCENARIO}[expect]\n\"longest.nonsense\" = {{ min = 1 }}\n");
    let e = parse(&bad, &[]).unwrap_err().to_string();
    assert!(
        e.contains("[expect] has no figure \"longest.nonsense\"") && e.contains("longest.jobs"),
        "{e}"
    );
}

#[test]
fn its_keys_are_checked_at_their_lines() {
    register();
    let e = parse(SCENARIO, &["workload.params.gap=-3"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("workload.params.gap must be a whole number above 0, found -3"),
        "{e}"
    );
    let text = SCENARIO.replace("gap = 10", "gap = 0");
    let e = parse(&text, &[]).unwrap_err().to_string();
    assert!(e.starts_with("steady.toml:8:7: "), "at the key's line: {e}");
    let e = parse(SCENARIO, &["workload.q=0.5"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`q` does not apply to workload kind \"steady\" (it takes: params)"),
        "{e}"
    );
    // A built-in kind takes no `[workload.params]`.
    let text = SCENARIO.replace("kind = \"steady\"", "kind = \"ngubiri\"");
    let e = parse(&text, &[]).unwrap_err().to_string();
    assert!(
        e.contains("`params` does not apply to workload kind \"ngubiri\""),
        "{e}"
    );
}

#[test]
fn jobs_injected_into_it_run_too() {
    register();
    let text = format!(
        "{SCENARIO}[[timeline]]\nat = 15\naction = \"inject-jobs\"\njobs = [{{size = 8, runtime = 5, count = 2}}]\n"
    );
    let sc = parse(&text, &[]).unwrap();
    let opts = RunOptions {
        keep_records: true,
        ..RunOptions::default()
    };
    let r = run(&sc, &opts, &AtomicU64::new(0)).unwrap();
    let records = &r.replications[0].records;
    let injected: Vec<_> = records.iter().filter(|j| j.injected).collect();
    assert_eq!(injected.len(), 2, "both injected jobs ran");
    assert_eq!(records.len(), 62);
    // The kind has no split rule: the policy splits a job given without
    // components over the fewest clusters (9 as 5 + 4), and refuses
    // before the run one wider than the platform, naming it.
    let wide = text.replace("size = 8,", "size = 9,");
    assert!(parse(&wide, &[]).is_ok());
    let wider = text.replace("size = 8,", "size = 17,");
    let e = parse(&wider, &[]).unwrap_err().to_string();
    assert!(
        e.contains("timeline: under FCFS")
            && e.contains("needs 17 processors; the platform has 16"),
        "{e}"
    );
}

#[test]
fn the_catalog_refuses_a_taken_or_badly_spelt_name() {
    register();
    let entry = |name: &'static str| WorkloadKindEntry {
        name,
        summary: "",
        keys: &[],
        needs_platform: true,
        family: None,
        validate: |s, _, _| Err(s.invalid("never")),
    };
    for (name, says) in [
        ("steady", "already exists"),
        ("grid", "already exists"),
        ("Steady Jobs", "lowercase"),
        ("", "lowercase"),
    ] {
        let e = kinds::register(entry(name)).unwrap_err();
        assert!(e.contains(says), "{name}: {e}");
    }
    let listed = kinds::describe();
    assert!(
        listed.contains("steady\n    one job every `gap` seconds"),
        "{listed}"
    );
    for built_in in [
        "ngubiri", "jobs", "swf", "batsim", "blanco", "moldable", "grid",
    ] {
        assert!(listed.contains(&format!("{built_in}\n")), "{listed}");
    }
}
