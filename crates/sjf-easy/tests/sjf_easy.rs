//! `sjf-easy` as its users meet it: a schedule worked by hand through
//! schedscope's engine, and the `schedscope-sjf` program's commands.

use schedscope::engine::EngineConfig;
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::catalog;
use schedscope::policy::{SharedParams, names};
use schedscope::sched::PolicySpec;
use std::process::{Command, Output};
use std::sync::Once;

fn registered() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| schedscope_sjf_easy::register().expect("registers"));
}

fn job(id: u64, submit: i64, size: u32, runtime: i64) -> JobSpec {
    JobSpec::rigid(
        id,
        SimTime::from_secs(submit),
        size,
        SimTime::from_secs(runtime),
    )
}

/// One cluster of 4, exact estimates. A (3 for 10 s) starts at 0. B (2 for
/// 50 s) cannot start: reserved at 10, when 2 are left over. E (1 for
/// 100 s) ends long after 10 but fits in those 2: it starts at 2. F (1 for
/// 5 s) arrives at 3 and, shortest, becomes the first in line with no
/// processor free: reserved at 10. At 10 F and B both start, F first.
#[test]
fn the_shortest_job_holds_the_reservation_and_others_backfill_around_it() {
    registered();
    let jobs = vec![
        job(1, 0, 3, 10),
        job(2, 1, 2, 50),
        job(3, 2, 1, 100),
        job(4, 3, 1, 5),
    ];
    let spec = PolicySpec::named(schedscope_sjf_easy::NAME);
    let mut e = schedscope::simulation::engine(
        Platform::uniform(1, 4),
        Box::new(jobs.into_iter()),
        &spec,
        EngineConfig::default(),
    )
    .expect("builds");
    e.run();
    let mut starts: Vec<(u64, i64, bool)> = e
        .drain_records()
        .map(|r| (r.id, r.start.as_secs_f64() as i64, r.jumped_ahead))
        .collect();
    starts.sort();
    assert_eq!(
        starts,
        vec![(1, 0, false), (2, 10, false), (3, 2, true), (4, 10, true)]
    );
}

#[test]
fn a_name_taken_or_badly_spelt_is_refused() {
    registered();
    let e = schedscope_sjf_easy::register().unwrap_err();
    assert!(e.contains("\"sjf-easy\" is already in the catalog"), "{e}");
    let mut easy = schedscope_sjf_easy::entry();
    easy.name = names::EASY;
    assert!(catalog::register(easy).unwrap_err().contains("already"));
    let mut bad = schedscope_sjf_easy::entry();
    bad.name = schedscope::policy::PolicyName::new("SJF easy");
    assert!(catalog::register(bad).unwrap_err().contains("lowercase"));
    assert_eq!(
        catalog::names().last(),
        Some(schedscope_sjf_easy::NAME),
        "listed after the built-in policies"
    );
}

fn sjf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope-sjf"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("the program runs")
}

fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `run`, `sweep`, `check` and `policies` know it without any change to
/// schedscope; every job that arrives ends, on one cluster and on five.
#[test]
fn the_program_runs_it_in_every_command() {
    let listed = ok(&sjf(&["policies"]));
    assert!(
        listed.contains("\nsjf-easy\n    shortest job first"),
        "{listed}"
    );
    // A trace's jobs are counted by `workload.first_jobs`, a generated
    // workload's by `run.jobs`.
    for (scenario, count) in [
        (
            "scenarios/trace-lublin_256.toml",
            "workload.first_jobs=2000",
        ),
        ("scenarios/default.toml", "run.jobs=2000"),
    ] {
        let o = sjf(&[
            "run",
            scenario,
            "--set",
            "policy.name=sjf-easy",
            "--set",
            count,
            "--set",
            "run.warmup_jobs=100",
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
        assert_eq!(v["policy"]["label"], "SJF + EASY reservation");
        assert_eq!(v["metrics"]["overall"]["jobs"], 1900.0, "{scenario}");
    }
    let rows = ok(&sjf(&[
        "sweep",
        "scenarios/trace-lublin_256.toml",
        "--set",
        "workload.first_jobs=1000",
        "--vary",
        "policy.name=easy,sjf-easy",
        "--format",
        "csv",
    ]));
    assert_eq!(rows.lines().count(), 3, "{rows}");
    assert!(
        rows.lines().nth(2).unwrap().starts_with("sjf-easy,"),
        "{rows}"
    );
    // check: bounds a scenario file states for it.
    let dir = std::env::temp_dir().join(format!("sjf-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sjf.toml");
    std::fs::write(
        &file,
        "name = \"sjf\"\n[platform]\nshape = \"1x4\"\n[workload]\nkind = \"jobs\"\n\
         jobs = [{submit = 0, size = 3, runtime = 10}, {submit = 1, size = 2, runtime = 50},\n\
         {submit = 2, size = 1, runtime = 100}, {submit = 3, size = 1, runtime = 5}]\n\
         [policy]\nname = \"sjf-easy\"\n[expect]\njobs = { min = 4.0, max = 4.0 }\n\
         mean_wait = { min = 3.99, max = 4.01 }\n",
    )
    .unwrap();
    let out = ok(&sjf(&["check", file.to_str().unwrap()]));
    assert!(out.contains("pass  mean_wait = 4.0000"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// teach-backfill under sjf-easy: H (job 3, 5 s estimated) is the shortest
/// waiting from 1 and holds the reservation at 20, when A's 2 processors
/// come back; Q (job 4, 10 s) ranks second and cannot start at 12 without
/// delaying it (C's processor came back, but Q would end at 22).
#[test]
fn it_says_why_a_job_waits_by_its_own_pass() {
    registered();
    let sc = schedscope::scenario::Scenario::load_with(
        std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/teach-backfill.toml"
        )),
        &["policy.name=sjf-easy".to_string()],
    )
    .expect("scenario");
    let said =
        schedscope::cli::explain::explain(&sc, sc.seed(), &[(3, 2.0), (4, 12.0)]).expect("run");
    let texts: Vec<&str> = said.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Its estimate, 5 s, is the shortest of those waiting: it holds the reservation at +18 s, when the running jobs' estimates free what it needs.",
            "SJF takes the queue shortest estimate first: its estimate, 10 s, ranks 2nd of 2; job 3 holds the reservation at +8 s, and it cannot start now without delaying that reservation.",
        ]
    );
}
