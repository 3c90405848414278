//! The paper's study on schedscope's model: four utilizations × five
//! policies on paired seeds (every policy sees the same jobs), and the
//! paper's findings asserted as this model shows them.
//!
//! Readings: the speedup parameters of `workload::moldable::paper_types`,
//! folding overhead 0.1, FJT's `long_min` 16, §4's window rule
//! `all-backfilled` (not the default, `estimate`: see
//! tests/moldable_readings.rs for both), estimates off by a uniform ±50 % (so that some are
//! under the run time). The full table (more seeds) is the ignored test
//! `full_study_table`: `cargo test --release --test papers moldable_study --
//! --ignored --nocapture`.

use rayon::prelude::*;
use schedscope::engine::EngineConfig;
use schedscope::metrics::moldable::{MoldableFigures, figures};
use schedscope::model::{JobRecord, Platform};
use schedscope::policy::SharedParams;
use schedscope::policy::fjt;
use schedscope::policy::{PolicyName, PolicySpec};
use schedscope::sched::ParamValue;
use schedscope::workload::estimates::EstimateModel;
use schedscope::workload::moldable::{MoldableParams, MoldableWorkload};

const POLICIES: [PolicyName; 5] = fjt::ALL;
const UTILIZATIONS: [f64; 4] = [1.0, 0.8, 0.6, 0.4];
const JOBS: u64 = 120;

fn run_records(name: PolicyName, util: f64, seed: u64, jobs: u64) -> Vec<JobRecord> {
    let params = MoldableParams::paper(util, jobs, 0.1);
    let source = MoldableWorkload::new(&params, seed).unwrap();
    let mut policy = PolicySpec::named(name);
    if [fjt::FJT4_BFA, fjt::FJT1_BFA, fjt::FJT1_BFM].contains(&name) {
        policy
            .params
            .insert("window".into(), ParamValue::Text("all-backfilled".into()));
    }
    let mut e = schedscope::simulation::engine(
        Platform::uniform(1, 64),
        Box::new(source),
        &policy,
        EngineConfig {
            seed,
            estimates: EstimateModel::uniform_error(50.0),
            ..EngineConfig::default()
        },
    )
    .unwrap();
    e.run();
    e.check_conservation().expect("every job ended once");
    assert_eq!(e.counters().refused, 0, "{:?}", e.last_refusal());
    e.drain_records().collect()
}

/// Means over seeds of each figure, per (utilization, policy).
fn study(seeds: u64) -> Vec<(f64, PolicyName, MoldableFigures)> {
    let cells: Vec<(f64, PolicyName)> = UTILIZATIONS
        .iter()
        .flat_map(|&u| POLICIES.iter().map(move |&p| (u, p)))
        .collect();
    cells
        .par_iter()
        .map(|&(u, p)| {
            let runs: Vec<MoldableFigures> = (1..=seeds)
                .map(|s| figures(&run_records(p, u, s, JOBS)))
                .collect();
            (u, p, mean(&runs))
        })
        .collect()
}

fn mean(runs: &[MoldableFigures]) -> MoldableFigures {
    let k = runs.len() as f64;
    let mut m = MoldableFigures::default();
    for r in runs {
        for (a, b) in [(&mut m.long, &r.long), (&mut m.short, &r.short)] {
            a.jobs += b.jobs;
            a.response += b.response / k;
            a.execution += b.execution / k;
            a.wait += b.wait / k;
            a.wait_sd += b.wait_sd / k;
            a.partition += b.partition / k;
        }
        m.aborted += r.aborted;
        m.folded += r.folded;
        m.expanded += r.expanded;
        m.work_lost += r.work_lost / k;
    }
    m
}

fn get(t: &[(f64, PolicyName, MoldableFigures)], u: f64, p: PolicyName) -> &MoldableFigures {
    &t.iter().find(|(a, b, _)| *a == u && *b == p).unwrap().2
}

fn table(t: &[(f64, PolicyName, MoldableFigures)]) -> String {
    let mut s = String::from(
        "| util | policy | long resp | long exec | long wait | long wait sd | long part | short resp | short exec | short wait | short wait sd | short part | aborts | folds | expands | work lost |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (u, p, f) in t {
        s += &format!(
            "| {:.0} % | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} | {} | {} | {} | {:.0} |\n",
            u * 100.0,
            fjt::paper_label(*p).unwrap(),
            f.long.response,
            f.long.execution,
            f.long.wait,
            f.long.wait_sd,
            f.long.partition,
            f.short.response,
            f.short.execution,
            f.short.wait,
            f.short.wait_sd,
            f.short.partition,
            f.aborted,
            f.folded,
            f.expanded,
            f.work_lost
        );
    }
    s
}

#[test]
#[ignore = "the full table: cargo test --release --test papers moldable_study -- --ignored --nocapture"]
fn full_study_table() {
    let t0 = std::time::Instant::now();
    let t = study(40);
    println!("{}", table(&t));
    println!("study: {:.2} s", t0.elapsed().as_secs_f64());
}

#[test]
#[ignore = "speed: cargo test --release --test papers moldable_study -- --ignored --nocapture"]
fn hundred_thousand_jobs_under_bfm() {
    let t0 = std::time::Instant::now();
    let r = run_records(fjt::FJT1_BFM, 0.6, 1, 100_000);
    assert_eq!(r.len(), 100_000);
    println!(
        "100000 jobs under FJT1+BFM: {:.2} s",
        t0.elapsed().as_secs_f64()
    );
}

/// The paper's findings as this model shows them, on paired seeds (a
/// reduced study; the note has the 40-seed table).
///
/// * Under these readings no backfilled job's window expires (the head is
///   rarely blocked by a running set made only of backfilled jobs, since
///   short jobs start on whatever is free): no aborts and no folds, so
///   FJT1+BFM and FJT1+BFA schedule identically. The paper's 20–30 %
///   (long) and 5–10 % (short) gain of BFM does **not** reproduce: the
///   response times are equal.
/// * Short jobs' execution under BFM is at least that under FJT1+BFA
///   (holds, with equality).
/// * BFM's standard deviation of wait is the lowest of the five at 80 and
///   100 % (holds, tied with FJT1+BFA).
/// * At 40 % FJT4's long jobs do **not** have the largest partition (FIFO,
///   running every long job at its largest size, has); BFM's long jobs
///   have the smallest in the 40-seed table (tied with FJT1+BFA) but not
///   robustly: on 4 seeds FJT4's are smaller.
#[test]
fn findings_on_paired_seeds() {
    let t = study(4);
    for u in [1.0, 0.8] {
        let bfm = get(&t, u, fjt::FJT1_BFM);
        let bfa = get(&t, u, fjt::FJT1_BFA);
        assert!(bfm.long.jobs > 0 && bfm.short.jobs > 0);
        assert_eq!((bfm.aborted, bfm.folded, bfa.aborted), (0, 0, 0));
        assert_eq!(bfm.long.response, bfa.long.response, "no gain at {u}");
        assert_eq!(bfm.short.response, bfa.short.response, "no gain at {u}");
        assert!(bfm.short.execution >= bfa.short.execution);
        for p in POLICIES {
            let o = get(&t, u, p);
            assert!(bfm.long.wait_sd <= o.long.wait_sd, "{p:?} at {u}");
            assert!(bfm.short.wait_sd <= o.short.wait_sd, "{p:?} at {u}");
        }
    }
    let fjt4 = get(&t, 0.4, fjt::FJT4).long.partition;
    let fifo = get(&t, 0.4, fjt::FIFO).long.partition;
    assert!(fifo > fjt4, "FIFO {fifo} vs FJT4 {fjt4}");
    // BFM's long partition: equal to FJT1+BFA's and below FIFO's; below
    // FJT4's in the 40-seed table but not on these 4 seeds, so not
    // asserted against FJT4.
    let bfm = get(&t, 0.4, fjt::FJT1_BFM).long.partition;
    assert_eq!(bfm, get(&t, 0.4, fjt::FJT1_BFA).long.partition);
    assert!(bfm < fifo);
}
