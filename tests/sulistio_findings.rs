//! The reservation paper's experiment (scenarios/sulistio-*.toml) and its
//! findings as our model shows them: one cluster of 16, 32 or 64
//! processors; the first 1,000 jobs of DAS2-fs1 or of the cleaned LPC-EGEE
//! log (the paper used DAS2 fs4 and the uncleaned LPC log: neither is in
//! ../shared/data), wider jobs clamped, started at time zero
//! (`start_at_zero`); 2,400 task graphs of 7–12 subtasks on 4 TPEs over
//! the trace's span (`arrivals = "count"`, `until = "trace"`); AR vs FCFS
//! vs EASY; total completion time = first submit to last end (the
//! summary's `makespan`).
//!
//! The paper: AR completes much earlier than FCFS and EASY at 16
//! processors, and its total completion time is the same at 16, 32 and 64;
//! more backfill inside the reservations with LPC's small jobs than with
//! DAS's.
//!
//! Ours (the tables in docs/sulistio.md): one request of five graphs
//! every 30 minutes serves the 2,400 graphs in 480 requests, 10 days; on
//! LPC-EGEE the graphs arrive within the trace's 2.9 days, so AR's total
//! completion time is the request grid's 10 days against 2.9 under FCFS and
//! EASY (AR is *later*, not earlier). On DAS2-fs1 (graphs spread over the
//! trace's 29.6 days, slower than the requests serve them) the last trace
//! job (a 8.9-day run submitted on day 28.7) ends last under every
//! scheduler: the three totals are within 0.1 %. AR's total is flat over
//! 16/32/64, but so are FCFS's and EASY's.

mod common;

use schedscope::scenario::Scenario;
use schedscope::workload::graphs::GRAPH_ID_BASE;
use std::path::Path;

/// One run of the experiment.
#[derive(Clone, Debug)]
struct Row {
    seed: u64,
    trace: &'static str,
    policy: &'static str,
    procs: u32,
    /// First submit to last end, s.
    total: f64,
    /// Mean wait over all jobs and graphs, s.
    wait: f64,
    /// Mean wait of the graphs, s.
    graph_wait: f64,
    /// Mean wait of the trace's jobs, s.
    job_wait: f64,
    /// Trace jobs and graphs run.
    jobs: usize,
    graphs: usize,
    /// First and last submit of the trace's jobs and of the graphs, s.
    job_span: (f64, f64),
    graph_span: (f64, f64),
    /// AR: reservations, mean reduction %, backfill processor-seconds.
    ar: Option<(u64, f64, f64)>,
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\t{}\t{}\t{}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\t{}\t{}",
            self.seed,
            self.trace,
            self.policy,
            self.procs,
            self.total,
            self.wait,
            self.graph_wait,
            self.job_wait,
            self.jobs,
            self.graphs
        )?;
        if let Some((n, red, bf)) = self.ar {
            write!(f, "\t{n}\t{red:.2}\t{bf:.0}")?;
        }
        Ok(())
    }
}

/// One run of `sulistio-{trace}.toml` under `policy` on `procs`
/// processors at graph seed `seed` (the traces are fixed, so the seed
/// draws only the graphs), with the extra overrides `sets`.
fn run(trace: &'static str, policy: &'static str, procs: u32, seed: u64, sets: &[&str]) -> Row {
    let mut all = vec![
        format!("policy.name={policy}"),
        format!("platform.shape=1x{procs}"),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = Scenario::load_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/sulistio-{trace}.toml")),
        &all,
    )
    .unwrap();
    let mut e = s.build_engine(seed, false).unwrap();
    e.run();
    e.check_conservation().unwrap();
    let recs: Vec<_> = e.drain_records().collect();
    let first = recs.iter().map(|r| r.submit).min().unwrap();
    let last = recs.iter().map(|r| r.end).max().unwrap();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let span = |v: &[f64]| {
        (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(0.0, f64::max),
        )
    };
    let (graphs, jobs): (Vec<_>, Vec<_>) = recs.iter().partition(|r| r.id >= GRAPH_ID_BASE);
    let waits = |v: &[&schedscope::model::JobRecord]| {
        v.iter().map(|r| r.wait().as_secs_f64()).collect::<Vec<_>>()
    };
    let submits = |v: &[&schedscope::model::JobRecord]| {
        v.iter().map(|r| r.submit.as_secs_f64()).collect::<Vec<_>>()
    };
    let all_waits: Vec<f64> = recs.iter().map(|r| r.wait().as_secs_f64()).collect();
    let ar = e.policy_state().panel.plan.map(|v| {
        (
            v.reservations,
            v.reduction_pct_sum / v.reservations.max(1) as f64,
            v.backfill_secs,
        )
    });
    Row {
        seed,
        trace,
        policy,
        procs,
        total: (last - first).as_secs_f64(),
        wait: mean(&all_waits),
        graph_wait: mean(&waits(&graphs)),
        job_wait: mean(&waits(&jobs)),
        jobs: jobs.len(),
        graphs: graphs.len(),
        job_span: span(&submits(&jobs)),
        graph_span: span(&submits(&graphs)),
        ar,
    }
}

/// The experiment at one graph seed: both traces, AR / FCFS / EASY, at
/// each of `sizes` processors, under the overrides `sets`; each row
/// printed as it is done.
fn experiment(seed: u64, sizes: &[u32], sets: &[&str]) -> Vec<Row> {
    let mut out = Vec::new();
    for trace in ["das2", "lpc"] {
        for &procs in sizes {
            for policy in ["ar", "fcfs", "easy"] {
                let row = run(trace, policy, procs, seed, sets);
                println!("{row}");
                out.push(row);
            }
        }
    }
    out
}

const DAY: f64 = 86_400.0;

/// What holds at every seed we ran under the default readings (the table
/// in docs/sulistio.md), so that a seed where it fails fails the test.
/// Returns the number of (seed, trace) cells checked.
fn check(rows: &[Row]) -> usize {
    let find = |seed: u64, trace: &str, policy: &str, procs: u32| {
        rows.iter()
            .find(|r| r.seed == seed && r.trace == trace && r.policy == policy && r.procs == procs)
    };
    let mut seeds: Vec<u64> = rows.iter().map(|r| r.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    let mut cells = 0;
    for &seed in &seeds {
        for trace in ["das2", "lpc"] {
            let ar = find(seed, trace, "ar", 16).expect("AR at 16");
            let fcfs = find(seed, trace, "fcfs", 16).expect("FCFS at 16");
            let easy = find(seed, trace, "easy", 16).expect("EASY at 16");
            for r in [ar, fcfs, easy] {
                // Every trace job and all 2,400 graphs ran, the trace from
                // time 0 and the graphs within its span.
                assert_eq!((r.jobs, r.graphs), (1_000, 2_400), "{r}");
                assert_eq!(r.job_span.0, 0.0, "{r}");
                assert!(
                    r.graph_span.0 >= 0.0 && r.graph_span.1 <= r.job_span.1,
                    "{r}"
                );
            }
            let (n, reduction, _) = ar.ar.expect("ar reports its reservations");
            for procs in [32, 64] {
                if let Some(x) = find(seed, trace, "ar", procs) {
                    // AR flat over 16 / 32 / 64 (within 0.2 %).
                    assert!((ar.total - x.total).abs() / ar.total < 0.002, "{ar} vs {x}");
                }
            }
            match trace {
                "lpc" => {
                    // 480 requests of five graphs, one every 30 minutes:
                    // the last is asked for at 10 days less 30 minutes,
                    // long after the trace's 2.9 days.
                    assert!((480..=482).contains(&n), "{ar}");
                    assert!((9.9 * DAY..10.2 * DAY).contains(&ar.total), "{ar}");
                    // Full requests of one family: interweaving five
                    // graphs shortens a reservation by over 40 %.
                    assert!(reduction > 40.0, "{ar}");
                    // Not reproduced: AR completes over three times later
                    // than FCFS and EASY, not earlier.
                    for x in [fcfs, easy] {
                        assert!(x.total < 3.1 * DAY && ar.total > 3.0 * x.total, "{x}");
                        // Graphs wait days for their request under AR,
                        // seconds to minutes under FCFS and EASY.
                        assert!(ar.graph_wait > DAY && x.graph_wait < 0.01 * DAY, "{ar} {x}");
                    }
                }
                _ => {
                    // Graphs arrive slower than the requests serve them:
                    // over 1,300 requests, most with fewer than five graphs,
                    // so interweaving shortens them less (10–20 %).
                    assert!(n > 1_300, "{ar}");
                    assert!((10.0..20.0).contains(&reduction), "{ar}");
                    // Not reproduced as a "huge gain": AR's total is below
                    // FCFS's and above EASY's, all three within 0.1 % (the
                    // trace's last job decides).
                    assert!(easy.total < ar.total && ar.total < fcfs.total, "{ar}");
                    for x in [fcfs, easy] {
                        assert!((ar.total - x.total).abs() / x.total < 0.001, "{ar} vs {x}");
                    }
                    // The graphs wait less under AR than under FCFS and
                    // EASY, where they queue behind the trace's wide jobs.
                    assert!(ar.graph_wait < fcfs.graph_wait.min(easy.graph_wait), "{ar}");
                }
            }
            cells += 1;
        }
        // Not reproduced: LPC-EGEE's small jobs do not fill more of the
        // reservations' gaps than DAS2's.
        let bf = |trace| find(seed, trace, "ar", 16).and_then(|r| r.ar).map(|a| a.2);
        let (das2, lpc) = (bf("das2").unwrap(), bf("lpc").unwrap());
        assert!(lpc <= das2, "seed {seed}: LPC {lpc} > DAS2 {das2} proc-s");
    }
    cells
}

#[test]
fn the_trace_starts_at_zero_and_the_graphs_arrive_over_its_span() {
    if common::shared_data("swf").is_none() {
        return;
    }
    // The trace's own clock: LPC-EGEE's first kept job is submitted on day
    // 41.5; DAS2-fs1's first 1,000 jobs are submitted over 29.6 days and
    // LPC-EGEE's over 2.9.
    for (trace, span_days) in [("das2", 29.6), ("lpc", 2.9)] {
        let r = run(trace, "fcfs", 64, 1, &[]);
        println!("{r} {:?} {:?}", r.job_span, r.graph_span);
        assert_eq!(r.job_span.0, 0.0);
        assert!(((r.job_span.1 / DAY) - span_days).abs() < 0.05, "{r:?}");
        assert_eq!(r.graphs, 2_400);
        // The graphs share the trace's span: the first within the first
        // hour-fraction of it, the last near its end.
        let d = r.job_span.1 - r.job_span.0;
        assert!(r.graph_span.0 < 0.01 * d && r.graph_span.1 > 0.99 * d);
        assert!(r.graph_span.1 <= r.job_span.1);
        // Without start_at_zero the trace keeps its clock, and
        // until = "trace" still follows it.
        let kept = run(trace, "fcfs", 64, 1, &["workload.start_at_zero=false"]);
        let origin = kept.job_span.0;
        assert_eq!(kept.job_span.1 - origin, r.job_span.1);
        assert!(kept.graph_span.0 >= origin && kept.graph_span.1 <= kept.job_span.1);
        if trace == "lpc" {
            assert!((41.4 * DAY..41.6 * DAY).contains(&origin), "{origin}");
        }
    }
}

#[test]
fn the_findings_at_the_scenario_seed_and_two_others() {
    if common::shared_data("swf").is_none() {
        return;
    }
    // 16 processors at seeds 1–3, AR also at 32 and 64 at seed 1: 22 runs.
    let mut rows: Vec<Row> = (1..=3).flat_map(|s| experiment(s, &[16], &[])).collect();
    for trace in ["das2", "lpc"] {
        for procs in [32, 64] {
            rows.push(run(trace, "ar", procs, 1, &[]));
        }
    }
    assert_eq!(check(&rows), 6);
}

/// The other reading of the stream: about 4 graphs every 10 minutes
/// (`arrivals = "rate"`) over the trace's span, however many that makes.
/// LPC-EGEE only (DAS2-fs1's 29.6 days make 17,065 graphs at seed 1, and
/// its AR runs are the slowest of the experiment: they are in the ignored
/// test).
#[test]
fn the_rate_reading_makes_as_many_graphs_as_the_span_holds() {
    if common::shared_data("swf").is_none() {
        return;
    }
    let rate = ["graphs.arrivals=rate"];
    let ar = run("lpc", "ar", 16, 1, &rate);
    let fcfs = run("lpc", "fcfs", 16, 1, &rate);
    println!("{ar}\n{fcfs}");
    // 2.9 days at 576 a day.
    assert!((1_550..1_800).contains(&ar.graphs), "{ar}");
    // Fewer graphs than 2,400, so fewer requests and an earlier end than
    // under the count reading, still over twice FCFS's.
    let (n, _, _) = ar.ar.unwrap();
    assert!(n < 400 && ar.total < 8.0 * DAY, "{ar}");
    assert!(ar.total > 2.0 * fcfs.total, "{ar} vs {fcfs}");
}

/// The whole experiment (2 traces × 16/32/64 × AR/FCFS/EASY) at ten graph
/// seeds (and at seed 1 under `arrivals = "rate"`), printed as tab-separated rows
/// (seed, trace, policy, processors, total completion s, mean wait s,
/// graphs' mean wait s, trace jobs' mean wait s, jobs, graphs, and for AR
/// reservations, mean reduction %, backfill proc-s); the default reading
/// then checked as above. In release:
///   cargo test --release --test papers sulistio_findings -- --ignored --nocapture
#[test]
#[ignore]
fn the_whole_experiment_over_ten_seeds() {
    if common::shared_data("swf").is_none() {
        return;
    }
    let rows: Vec<Row> = (1..=10)
        .flat_map(|s| experiment(s, &[16, 32, 64], &[]))
        .collect();
    assert_eq!(rows.len(), 10 * 18);
    assert_eq!(check(&rows), 20);
    // The rate reading at seed 1 (DAS2-fs1's AR runs hold a backlog of
    // thousands of graphs; the whole test takes 183 s in release).
    println!("# arrivals = \"rate\"");
    let rate = experiment(1, &[16, 32, 64], &["graphs.arrivals=rate"]);
    let das2 = rate
        .iter()
        .find(|r| r.trace == "das2" && r.policy == "ar")
        .unwrap();
    assert!((16_500..17_600).contains(&das2.graphs), "{das2}");
}
