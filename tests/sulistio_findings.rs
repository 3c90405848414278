//! The reservation paper's experiment (scenarios/sulistio-*.toml) and its
//! findings as our model shows them: one cluster of 16, 32 or 64
//! processors, the first 1,000 jobs of DAS2-fs1 or LPC-EGEE (wider jobs
//! clamped) and task graphs of 7–12 subtasks on 4 TPEs arriving about 4
//! every 10 minutes over five days; AR vs FCFS vs EASY; total completion
//! time = first submit to last end (the summary's `makespan`).
//!
//! The paper: AR completes much earlier than FCFS and EASY at 16
//! processors, and its total completion time is the same at 16, 32 and 64.
//! Ours: the first 1,000 jobs of these traces span 37 (DAS2-fs1) and 44
//! (LPC-EGEE) days, not the paper's five, so every scheduler's total
//! completion time is the last trace job's submit plus its run: AR is NOT
//! below FCFS and EASY (equal or a little above); it IS flat over
//! 16/32/64, but so are FCFS and EASY. What AR changes is the graphs'
//! wait: one request of five graphs every 30 minutes drains 2,880 graphs
//! in about 12 days, so the mean wait is days under AR and minutes under
//! FCFS and EASY. Interweaving shortens the reservations by 43.7 % on
//! average (585 reservations); backfilling puts nothing in their gaps.
//!
//! Over other graph seeds (the traces are fixed; the seed draws the graph
//! stream) the same holds: checked at seeds 2 and 3 at 16 processors
//! here, and over the whole experiment at seeds 1–10 in an ignored test
//! (the command is on it). Backfill is not always nothing there (DAS2-fs1
//! at seed 8: 49 processor-seconds), but LPC-EGEE never gets more than
//! DAS2-fs1.

mod common;

use schedscope::policy::PolicyState;
use schedscope::scenario::Scenario;
use std::path::Path;

/// (total completion time s, mean wait s, jobs) of one run; with AR also
/// (reservations, mean reduction %, backfill processor-seconds).
fn run(trace: &str, policy: &str, procs: u32) -> (f64, f64, usize) {
    run_with(trace, policy, procs).0
}

type Ar = Option<(u64, f64, f64)>;

fn run_with(trace: &str, policy: &str, procs: u32) -> ((f64, f64, usize), Ar) {
    run_seeded(trace, policy, procs, None)
}

/// One run with the graph stream's seed `seed` (the scenario's otherwise;
/// the traces are fixed, so the seed draws only the graphs).
fn run_seeded(trace: &str, policy: &str, procs: u32, seed: Option<u64>) -> ((f64, f64, usize), Ar) {
    let s = Scenario::load_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/sulistio-{trace}.toml")),
        &[
            format!("policy.name={policy}"),
            format!("platform.shape=1x{procs}"),
        ],
    )
    .unwrap();
    let mut e = s.build_engine(seed.unwrap_or(s.seed()), false).unwrap();
    e.run();
    e.check_conservation().unwrap();
    let recs: Vec<_> = e.drain_records().collect();
    let first = recs.iter().map(|r| r.submit).min().unwrap();
    let last = recs.iter().map(|r| r.end).max().unwrap();
    let wait = recs.iter().map(|r| r.wait().as_secs_f64()).sum::<f64>() / recs.len() as f64;
    let ar = match e.policy_state() {
        PolicyState::Reservations(v) => Some((
            v.reservations,
            v.reduction_pct_sum / v.reservations.max(1) as f64,
            v.backfill_secs,
        )),
        _ => None,
    };
    (((last - first).as_secs_f64(), wait, recs.len()), ar)
}

#[test]
fn total_completion_time_is_set_by_the_trace_not_by_the_scheduler() {
    if common::shared_data("swf").is_none() {
        return;
    }
    let mut backfill = Vec::new();
    for trace in ["das2", "lpc"] {
        let (ar16, stats) = run_with(trace, "ar", 16);
        let (n, reduction, filled) = stats.expect("ar reports its reservations");
        println!(
            "{trace}: {n} reservations, mean reduction {reduction:.2} %, backfill {filled} proc-s"
        );
        assert!(n > 400 && reduction > 0.0);
        backfill.push(filled);
        let fcfs16 = run(trace, "fcfs", 16);
        let easy16 = run(trace, "easy", 16);
        let ar32 = run(trace, "ar", 32);
        let ar64 = run(trace, "ar", 64);
        println!(
            "{trace}: AR 16/32/64 {ar16:?} {ar32:?} {ar64:?}; FCFS {fcfs16:?}; EASY {easy16:?}"
        );
        // Every job and graph ran: 1,000 trace jobs and the graphs.
        assert!(ar16.2 > 3_500 && ar16.2 == fcfs16.2 && fcfs16.2 == easy16.2);
        // Not reproduced: AR is not below FCFS and EASY at 16 processors.
        assert!(ar16.0 >= fcfs16.0.min(easy16.0), "AR below: {ar16:?}");
        // All three within 0.1 % of each other: the trace's span decides.
        for x in [fcfs16.0, easy16.0] {
            assert!((ar16.0 - x).abs() / x < 0.001, "{ar16:?} vs {x}");
        }
        // Flat over 16/32/64 (within 0.2 %), as the paper says of AR.
        for x in [ar32.0, ar64.0] {
            assert!((ar16.0 - x).abs() / ar16.0 < 0.002, "{ar16:?} vs {x}");
        }
        // The graphs wait for their reservation: days under AR, far less
        // under FCFS and EASY.
        assert!(ar16.1 > 86_400.0, "AR mean wait {}", ar16.1);
        assert!(fcfs16.1 < 0.1 * ar16.1 && easy16.1 < 0.1 * ar16.1);
    }
    println!(
        "backfill inside reservations: DAS2 {} / LPC {} proc-s",
        backfill[0], backfill[1]
    );
    // Not reproduced: the paper backfills more with LPC-EGEE's small jobs
    // than with DAS2's. Ours backfills nothing with either: when a request
    // is built the independent jobs have already started on the free
    // processors (the queue is empty or holds only jobs longer than every
    // gap).
    assert_eq!(backfill, [0.0, 0.0]);
}

/// One run of the experiment: (seed, trace, policy, processors), total
/// completion time s, mean wait s, jobs, and AR's reservations, mean
/// reduction % and backfill processor-seconds.
#[derive(Clone, Debug)]
struct Row {
    seed: u64,
    trace: &'static str,
    policy: &'static str,
    procs: u32,
    total: f64,
    wait: f64,
    jobs: usize,
    ar: Ar,
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\t{}\t{}\t{}\t{:.0}\t{:.0}\t{}",
            self.seed, self.trace, self.policy, self.procs, self.total, self.wait, self.jobs
        )?;
        if let Some((n, red, bf)) = self.ar {
            write!(f, "\t{n}\t{red:.2}\t{bf:.0}")?;
        }
        Ok(())
    }
}

/// The experiment at one graph seed: both traces, AR / FCFS / EASY, at
/// each of `sizes` processors; each row printed as it is done.
fn experiment(seed: u64, sizes: &[u32]) -> Vec<Row> {
    let mut out = Vec::new();
    for trace in ["das2", "lpc"] {
        for &procs in sizes {
            for policy in ["ar", "fcfs", "easy"] {
                let ((total, wait, jobs), ar) = run_seeded(trace, policy, procs, Some(seed));
                let row = Row {
                    seed,
                    trace,
                    policy,
                    procs,
                    total,
                    wait,
                    jobs,
                    ar,
                };
                println!("{row}");
                out.push(row);
            }
        }
    }
    out
}

/// What holds at every seed we ran (the table in scenarios/README.md), so
/// that a seed where it fails fails the test. Returns the number of
/// (seed, trace) cells checked.
fn check(rows: &[Row]) -> usize {
    let find = |seed: u64, trace: &str, policy: &str, procs: u32| {
        rows.iter()
            .find(|r| r.seed == seed && r.trace == trace && r.policy == policy && r.procs == procs)
    };
    let mut seeds: Vec<u64> = rows.iter().map(|r| r.seed).collect();
    seeds.dedup();
    let mut cells = 0;
    for &seed in &seeds {
        for trace in ["das2", "lpc"] {
            let ar = find(seed, trace, "ar", 16).expect("AR at 16");
            let fcfs = find(seed, trace, "fcfs", 16).expect("FCFS at 16");
            let easy = find(seed, trace, "easy", 16).expect("EASY at 16");
            let (n, reduction, _) = ar.ar.expect("ar reports its reservations");
            assert!(n > 400 && reduction > 30.0, "{ar}");
            assert!(ar.jobs > 3_500 && ar.jobs == fcfs.jobs && fcfs.jobs == easy.jobs);
            // Not reproduced at any seed: AR is not below FCFS and EASY;
            // all three within 0.1 % (the trace's span decides).
            assert!(ar.total >= fcfs.total.min(easy.total), "AR below: {ar}");
            for x in [fcfs, easy] {
                assert!((ar.total - x.total).abs() / x.total < 0.001, "{ar} vs {x}");
            }
            // The graphs wait days for their reservation under AR.
            assert!(ar.wait > 86_400.0, "{ar}");
            assert!(fcfs.wait < 0.1 * ar.wait && easy.wait < 0.1 * ar.wait);
            // Flat over 16 / 32 / 64 (within 0.2 %) where run.
            for procs in [32, 64] {
                if let Some(x) = find(seed, trace, "ar", procs) {
                    assert!((ar.total - x.total).abs() / ar.total < 0.002, "{ar} vs {x}");
                }
            }
            cells += 1;
        }
        // Not reproduced at any seed: LPC-EGEE's small jobs do not fill
        // more of the reservations' gaps than DAS2's.
        let bf = |trace| find(seed, trace, "ar", 16).and_then(|r| r.ar).map(|a| a.2);
        let (das2, lpc) = (bf("das2").unwrap(), bf("lpc").unwrap());
        assert!(lpc <= das2, "seed {seed}: LPC {lpc} > DAS2 {das2} proc-s");
    }
    cells
}

#[test]
fn the_findings_hold_at_other_graph_seeds() {
    if common::shared_data("swf").is_none() {
        return;
    }
    // 16 processors, two seeds besides the scenario's: 12 runs.
    let rows: Vec<Row> = [2, 3].iter().flat_map(|&s| experiment(s, &[16])).collect();
    assert_eq!(rows.len(), 12);
    assert_eq!(check(&rows), 4);
}

/// The whole experiment (2 traces × 16/32/64 × AR/FCFS/EASY) at ten graph
/// seeds, printed as tab-separated rows (seed, trace, policy, processors,
/// total completion s, mean wait s, jobs, and for AR reservations, mean
/// reduction %, backfill proc-s), then checked as above. In release:
///   cargo test --release --test sulistio_findings -- --ignored --nocapture
#[test]
#[ignore]
fn the_whole_experiment_over_ten_seeds() {
    if common::shared_data("swf").is_none() {
        return;
    }
    let rows: Vec<Row> = (1..=10)
        .flat_map(|s| experiment(s, &[16, 32, 64]))
        .collect();
    assert_eq!(rows.len(), 10 * 18);
    assert_eq!(check(&rows), 20);
}
