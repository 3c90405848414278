//! Engine throughput: the paper's platform and workload under FCFS and
//! FPFS(10) with worst fit, against a bare binary-heap event loop as the
//! floor. Reported per job (a job is two events: arrival and completion).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use schedscope::runner::run_replication;
use schedscope::scenario::Scenario;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::AtomicU64;

const JOBS: u64 = 100_000;

fn bare_heap(events: u64) -> u64 {
    // Arrivals push a completion; the heap holds about as many events as
    // the engine's does (one pending arrival plus the running jobs).
    let mut heap = BinaryHeap::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut t = 0u64;
    for seq in 0..32u64 {
        heap.push(Reverse((seq, 0u8, seq)));
    }
    let mut handled = 0;
    let mut seq = 32;
    while handled < events {
        let Reverse((now, _, _)) = heap.pop().expect("never empty");
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t = t.max(now);
        heap.push(Reverse((t + (x % 1000), (x & 1) as u8, seq)));
        seq += 1;
        handled += 1;
    }
    t
}

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.sample_size(10);
    g.throughput(Throughput::Elements(2 * JOBS));
    g.bench_function("bare binary heap (events)", |b| {
        b.iter(|| black_box(bare_heap(2 * JOBS)))
    });
    g.throughput(Throughput::Elements(JOBS));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/default.toml");
    for (name, sets) in [
        ("FCFS", vec!["policy.name=fcfs"]),
        (
            "FPFS(10) worst fit",
            vec!["policy.name=fpfs", "policy.max_jumps=10"],
        ),
    ] {
        let mut all: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        all.push(format!("run.jobs={JOBS}"));
        all.push("run.warmup_jobs=0".into());
        let sc = Scenario::load_with(&path, &all).expect("scenario");
        g.bench_with_input(BenchmarkId::new("jobs", name), &sc, |b, sc| {
            b.iter(|| {
                let r = run_replication(sc, 0, 1, false, &AtomicU64::new(0)).expect("run");
                black_box(r.summary.art)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
