//! The teaching scenarios do what their comments say: every start time of
//! the hand-worked examples, under each policy and placement, through the
//! same path `schedscope run` takes.

use schedscope::runner::{self, RunOptions};
use schedscope::scenario::Scenario;
use std::path::Path;
use std::sync::atomic::AtomicU64;

/// (job id, start in seconds), sorted by id.
fn starts(file: &str, sets: &[&str]) -> Vec<(u64, f64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = Scenario::load_with(&path, &sets).expect("scenario");
    let opts = RunOptions {
        keep_records: true,
        ..RunOptions::default()
    };
    let r = runner::run(&sc, &opts, &AtomicU64::new(0)).expect("run");
    let mut v: Vec<(u64, f64)> = r.replications[0]
        .records
        .iter()
        .map(|r| (r.id, r.start.as_secs_f64()))
        .collect();
    v.sort_by_key(|x| x.0);
    v
}

fn secs(v: &[(u64, f64)]) -> Vec<f64> {
    v.iter().map(|x| x.1).collect()
}

#[test]
fn jumping_under_fcfs_fpfs1_and_unlimited() {
    let f = "teach-jumping.toml";
    assert_eq!(secs(&starts(f, &[])), [0.0, 0.0, 10.0, 12.0, 12.0]);
    assert_eq!(
        secs(&starts(f, &["policy.name=fpfs", "policy.max_jumps=0"])),
        [0.0, 0.0, 10.0, 12.0, 12.0],
        "FPFS(0) is FCFS"
    );
    assert_eq!(
        secs(&starts(f, &["policy.name=fpfs", "policy.max_jumps=1"])),
        [0.0, 0.0, 10.0, 5.0, 12.0]
    );
    assert_eq!(
        secs(&starts(
            f,
            &["policy.name=fpfs", "policy.max_jumps=unlimited"]
        )),
        [0.0, 0.0, 10.0, 5.0, 5.0]
    );
}

#[test]
fn placement_decides_whether_the_second_job_waits() {
    let f = "teach-placement.toml";
    for (placement, second) in [("worst-fit", 10.0), ("first-fit", 10.0), ("best-fit", 0.0)] {
        let s = starts(f, &[&format!("policy.placement={placement}")]);
        assert_eq!(s[0], (1, 0.0), "{placement}");
        assert_eq!(s[1], (2, second), "{placement}");
    }
}

#[test]
fn the_timeline_switches_policy_and_injects() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/teach-live-switch.toml");
    let sc = Scenario::load(&path).expect("scenario");
    let opts = RunOptions {
        keep_records: true,
        ..RunOptions::default()
    };
    let r = runner::run(&sc, &opts, &AtomicU64::new(0)).expect("run");
    let recs = &r.replications[0].records;
    let injected: Vec<_> = recs.iter().filter(|r| r.injected).collect();
    assert_eq!(injected.len(), 1);
    assert_eq!(injected[0].components, vec![12, 12, 12]);
    assert_eq!(injected[0].submit.as_secs_f64(), 3000.0);
    // No job jumps ahead before the switch to FPFS at t = 2000 s; many do after.
    assert!(
        recs.iter()
            .filter(|r| r.jumped_ahead)
            .all(|r| r.start.as_secs_f64() >= 2000.0)
    );
    assert!(recs.iter().filter(|r| r.jumped_ahead).count() > 100);
}

#[test]
fn easy_backfills_what_conservative_refuses() {
    let f = "teach-backfill.toml";
    assert_eq!(secs(&starts(f, &[])), [0.0, 0.0, 20.0, 25.0, 2.0]);
    assert_eq!(
        secs(&starts(f, &["policy.name=conservative"])),
        [0.0, 0.0, 20.0, 5.0, 25.0]
    );
}
