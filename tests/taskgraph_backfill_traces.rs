//! Backfilling reservations from real traces, at the reservation level
//! (no arrival times: the first 1,000 jobs of a trace are the queue, each
//! job used once): the paper reports more backfill time inside
//! reservations with LPC-EGEE's small jobs than with DAS2's. Our model
//! does NOT show it in processor-seconds: with requested times as
//! estimates LPC-EGEE's jobs hardly fit any gap (their requests are
//! long), and even with exact run times DAS2's wider jobs fill more
//! processor-seconds; LPC-EGEE fills more gaps by count only. Jobs wider than the 16-processor cluster are set to 16
//! (as the paper does); a job's estimate is its requested time (or its run
//! time where the trace has none), or its run time; graph weights are
//! seconds.

mod common;

use schedscope::taskgraph::ar::Candidate;
use schedscope::taskgraph::generate::{EdgeLength, GenParams, Meshing, SizeClass, WEIGHT_PAIRS};
use schedscope::taskgraph::study::reservation;
use schedscope::workload::swf;

fn queue(path: &std::path::Path, run_time: bool) -> Vec<Candidate> {
    let t = swf::read_path(path).unwrap();
    t.records
        .iter()
        .take(1000)
        .enumerate()
        .map(|(i, r)| {
            let width = r.requested_procs.max(r.allocated_procs).clamp(1, 16) as usize;
            let est = if r.requested_time > 0 && !run_time {
                r.requested_time
            } else {
                r.run_time
            };
            Candidate {
                job: i,
                width,
                estimate: est.max(1) as u64,
            }
        })
        .collect()
}

/// Total backfilled processor-seconds over 40 reservations of five graphs
/// (4 TPEs, leaves drawn in turn), jobs consumed as they are used.
fn backfill_time(mut q: Vec<Candidate>) -> (u64, usize) {
    let mut total = 0;
    let mut jobs = 0;
    for r in 0..40u64 {
        let leaf = GenParams::new(
            SizeClass::ALL[(r % 2) as usize],
            Meshing::ALL[(r % 4) as usize],
            EdgeLength::ALL[((r / 4) % 4) as usize],
            WEIGHT_PAIRS[(r % 5) as usize],
        );
        let (mut res, _) = reservation(&leaf, 4, 5, r, false);
        let filled = res.backfill(&q);
        total += res.backfill_time();
        jobs += filled.len();
        let used: Vec<usize> = filled.iter().map(|f| f.job).collect();
        q.retain(|c| !used.contains(&c.job));
    }
    (total, jobs)
}

#[test]
fn which_trace_fills_more_reservation_gaps() {
    let (Some(das), Some(lpc)) = (
        common::shared_data("swf/DAS2-fs1-2003-1.swf"),
        common::shared_data("swf/LPC-EGEE-2004-1.2-cln.swf.gz"),
    ) else {
        return;
    };
    let mut seen = Vec::new();
    for run_time in [false, true] {
        let (dq, lq) = (queue(&das, run_time), queue(&lpc, run_time));
        assert_eq!((dq.len(), lq.len()), (1000, 1000));
        let (d, dj) = backfill_time(dq);
        let (l, lj) = backfill_time(lq);
        println!(
            "estimates = {}: DAS2-fs1 {d} processor-seconds in {dj} jobs; LPC-EGEE {l} in {lj} jobs",
            if run_time {
                "run times"
            } else {
                "requested times"
            }
        );
        seen.push((d, dj, l, lj));
    }
    // Requested times: DAS2 27,571 s in 247 jobs, LPC-EGEE 7 s in 7 jobs.
    let (d, dj, l, lj) = seen[0];
    assert!(d > l && dj > lj, "{seen:?}");
    // Run times: DAS2 28,792 s in 443 jobs, LPC-EGEE 9,514 s in 995 jobs.
    let (d, dj, l, lj) = seen[1];
    assert!(d > l, "{seen:?}");
    assert!(lj > dj, "{seen:?}");
}
