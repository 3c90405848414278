//! Throughput of the backfilling policies on a real trace (KTH, 28,475 runnable of 28,476
//! jobs), on an overloaded one (the first 10,000 jobs of METACENTRUM on its
//! 60 processors: the queue grows to thousands, so every decision faces a
//! long queue), on Batsim's 801-job workload with counted and with pinned
//! processors, on a synthetic multi-cluster workload, and on the multi-cluster
//! default at a heavier load with exact, ±30 % and ±99 % estimates. The trace benches
//! are skipped when `../shared/data` is absent.

use criterion::{Criterion, criterion_group, criterion_main};
use schedscope::runner::run_replication;
use schedscope::scenario::Scenario;
use std::path::Path;
use std::sync::atomic::AtomicU64;

fn scenario(name: &str, policy: &str, extra: &[&str]) -> Option<Scenario> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name);
    let mut sets = vec![format!("policy.name={policy}")];
    sets.extend(extra.iter().map(|s| s.to_string()));
    match Scenario::load_with(&path, &sets) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("skipping {name}: {e}");
            None
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("backfill");
    g.sample_size(10);
    for policy in ["fcfs", "easy", "conservative"] {
        if let Some(s) = scenario("trace-kth-sp2-1996-2.1.toml", policy, &[]) {
            g.bench_function(format!("kth/{policy}"), |b| {
                b.iter(|| run_replication(&s, 0, 1, false, &AtomicU64::new(0)).unwrap())
            });
        }
        if policy != "fcfs"
            && let Some(s) = scenario(
                "trace-metacentrum-2009-2.toml",
                policy,
                &["workload.first_jobs=10000"],
            )
        {
            g.bench_function(format!("metacentrum-10k/{policy}"), |b| {
                b.iter(|| run_replication(&s, 0, 1, false, &AtomicU64::new(0)).unwrap())
            });
        }
        if policy != "fcfs" {
            for machines in ["counted", "pinned"] {
                let set = format!("policy.machines={machines}");
                if let Some(s) = scenario("batsim-medium-late.toml", policy, &[&set]) {
                    g.bench_function(format!("batsim-801/{policy}/{machines}"), |b| {
                        b.iter(|| run_replication(&s, 0, 1, false, &AtomicU64::new(0)).unwrap())
                    });
                }
            }
        }
        if let Some(s) = scenario("backfill-estimate-error.toml", policy, &["run.jobs=5000"]) {
            g.bench_function(format!("5x20-coalloc/{policy}"), |b| {
                b.iter(|| run_replication(&s, 0, 1, false, &AtomicU64::new(0)).unwrap())
            });
        }
    }
    // The multi-cluster default under conservative backfilling at a
    // heavier load (interarrival 0.55), with exact estimates and with
    // ±30 % and ±99 % uniform error (#38): the error runs' queue grows, so
    // every compression walks a long queue; 4,000 jobs keep a sample short.
    for (name, estimates) in [
        ("exact", &["estimates.source=exact"][..]),
        (
            "error-30",
            &[
                "estimates.source=uniform-error",
                "estimates.error_percent=30",
            ][..],
        ),
        (
            "error-99",
            &[
                "estimates.source=uniform-error",
                "estimates.error_percent=99",
            ][..],
        ),
    ] {
        let mut extra = vec![
            "run.replications=1",
            "workload.mean_interarrival=0.55",
            "run.jobs=4000",
            "run.warmup_jobs=100",
        ];
        extra.extend_from_slice(estimates);
        if let Some(s) = scenario("default.toml", "conservative", &extra) {
            g.bench_function(format!("default-0.55/conservative/{name}"), |b| {
                b.iter(|| run_replication(&s, 0, 1, false, &AtomicU64::new(0)).unwrap())
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
