//! Conservative backfilling on the multi-cluster default with estimate
//! error (#38): the run that made its re-planning slow. Work on its speed
//! must leave the schedule alone, so every job's start, end and clusters
//! are folded into one digest and compared with the digest this run had
//! before that work (2,000 jobs at interarrival 0.55, ±99 % and ±30 %
//! uniform error, and exact estimates for comparison).

use schedscope::runner::run_seeded;
use schedscope::scenario::Scenario;
use std::path::Path;
use std::sync::atomic::AtomicU64;

/// FNV-1a over the jobs' (id, start, end, components, clusters) in the
/// order they end: stable across Rust versions, unlike `DefaultHasher`.
fn schedule_digest(sets: &[&str]) -> (u64, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/default.toml");
    let mut all = vec![
        "policy.name=conservative",
        "workload.mean_interarrival=0.55",
        "run.jobs=2000",
        "run.warmup_jobs=100",
    ];
    all.extend_from_slice(sets);
    let sets: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    let s = Scenario::load_with(&path, &sets).unwrap();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: i64| {
        for b in x.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    let mut jobs = 0;
    run_seeded(&s, 0, 1, false, &AtomicU64::new(0), &mut |r| {
        jobs += 1;
        eat(r.id as i64);
        eat(r.start.0);
        eat(r.end.0);
        for (&w, &c) in r.components.iter().zip(&r.clusters) {
            eat(w as i64);
            eat(c as i64);
        }
        true
    })
    .unwrap();
    (h, jobs)
}

/// Every job starts when and where it did before conservative backfilling's
/// re-planning was made faster.
#[test]
fn conservative_with_estimate_error_keeps_its_schedule() {
    let cases: [(&[&str], u64); 3] = [
        (
            &[
                "estimates.source=uniform-error",
                "estimates.error_percent=99",
            ],
            0xf2c7_92c4_0855_8f47,
        ),
        (
            &[
                "estimates.source=uniform-error",
                "estimates.error_percent=30",
            ],
            0x1b39_eae3_bc9c_fbd1,
        ),
        (&["estimates.source=exact"], 0x375a_ed32_2484_0ad9),
    ];
    let all: Vec<(u64, usize)> = cases.iter().map(|c| schedule_digest(c.0)).collect();
    for ((sets, want), (got, jobs)) in cases.iter().zip(&all) {
        assert_eq!(*jobs, 2000, "{sets:?}");
        assert_eq!(got, want, "{sets:?}: {got:#018x}; all: {all:x?}");
    }
}
