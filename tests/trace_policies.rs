//! Real traces under FCFS, EASY and conservative backfilling, from the
//! scenarios in `scenarios/` (which read `../shared/data/swf`).
//!
//! CI runs the two-trace check that EASY beats FCFS on mean wait; the run of
//! every trace under every policy is `#[ignore]`d (it takes minutes):
//! `cargo test --release --test engine_policies trace_policies -- --ignored --nocapture`.

mod common;

use schedscope::runner::{RunOptions, run};
use schedscope::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn data_present() -> bool {
    common::shared_data("swf").is_some()
}

/// (jobs, mean wait, mean bounded slowdown, utilization).
fn figures(scenario: &str, policy: &str) -> (f64, f64, f64, f64) {
    let path = root().join("scenarios").join(scenario);
    let s = Scenario::load_with(&path, &[format!("policy.name={policy}")]).unwrap();
    let r = run(&s, &RunOptions::default(), &AtomicU64::new(0)).unwrap();
    let f = |n: &str| r.summary().get(n).unwrap().mean;
    (
        f("jobs"),
        f("mean_wait"),
        f("mean_bounded_slowdown"),
        f("utilization"),
    )
}

#[test]
fn easy_beats_fcfs_on_mean_wait() {
    if !data_present() {
        return;
    }
    for trace in ["trace-kth-sp2-1996-2.1.toml", "trace-lublin_256.toml"] {
        let fcfs = figures(trace, "fcfs");
        let easy = figures(trace, "easy");
        eprintln!(
            "{trace}: FCFS wait {:.1} s, EASY wait {:.1} s",
            fcfs.1, easy.1
        );
        assert_eq!(fcfs.0, easy.0, "{trace}: every job runs under both");
        assert!(
            easy.1 < fcfs.1,
            "{trace}: EASY {} vs FCFS {}",
            easy.1,
            fcfs.1
        );
    }
}

#[test]
#[ignore = "minutes in a release build; run with --ignored"]
fn every_trace_runs_under_every_policy() {
    if !data_present() {
        return;
    }
    let mut names: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("trace-") && n.ends_with(".toml"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 10);
    println!("| trace | policy | jobs | mean wait (s) | mean bounded slowdown | utilization |");
    println!("|---|---|---:|---:|---:|---:|");
    for n in &names {
        let mut jobs = None;
        for p in ["fcfs", "easy", "conservative"] {
            let (j, w, b, u) = figures(n, p);
            println!(
                "| {} | {p} | {j} | {w:.1} | {b:.2} | {u:.4} |",
                &n[6..n.len() - 5]
            );
            assert!(j > 0.0);
            assert_eq!(*jobs.get_or_insert(j), j, "{n}: job counts differ");
        }
    }
}
