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
    let s = Scenario::load_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/sulistio-{trace}.toml")),
        &[
            format!("policy.name={policy}"),
            format!("platform.shape=1x{procs}"),
        ],
    )
    .unwrap();
    let mut e = s.build_engine(s.seed(), false).unwrap();
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
