//! Conservative backfilling against a reference written from its
//! definition alone: reservations kept in a plain list, every search a walk
//! over every running job and reservation, no profile, no summaries of room
//! given back, no cache of starts found. Every job's start time must agree,
//! on random workloads on one cluster and co-allocating ones on three,
//! under every backfill order, with estimates exact or too long (so jobs
//! end early and reservations are compressed).
//!
//! The reference, at every instant where something ended or arrived or a
//! reservation comes due (after all of them):
//! 1. if a running job ended before its estimated end, compresses: in the
//!    scan order, each queued job's reservation is taken out and the job
//!    placed again at the earliest time it fits with every other
//!    reservation in place (a job without one is placed in its turn);
//!    otherwise the jobs without a reservation (the arrivals) are placed
//!    in the scan order;
//! 2. starts the jobs whose reservation is due, in arrival order.
//!
//! A job is placed at the earliest time from now (now, or when a running
//! job is expected to end, or a reservation begins or ends) at which the
//! placement finds room for it over its whole estimate, each cluster
//! counting its least free processors over that window.

#[path = "common/reference.rs"]
mod reference;

use proptest::prelude::*;
use reference::{Job, in_order, order_strategy, placement_strategy, workload};
use schedscope::policy::BuildPlacement;
use schedscope::policy::backfill::BackfillOrder;
use schedscope::policy::names;
use schedscope::policy::placement::{Assignment, Placement, PlacementName};

/// Processors held from `from` until `to` (exclusive).
#[derive(Clone, Debug)]
struct Hold {
    from: i64,
    to: i64,
    a: Assignment,
}

/// The least free processors per cluster over [from, to), given the holds.
fn least_free(clusters: usize, processors: u32, holds: &[&Hold], from: i64, to: i64) -> Vec<i64> {
    let mut points: Vec<i64> = vec![from];
    for h in holds {
        for t in [h.from, h.to] {
            if t > from && t < to {
                points.push(t);
            }
        }
    }
    let mut least = vec![i64::MAX; clusters];
    for &t in &points {
        let mut free = vec![processors as i64; clusters];
        for h in holds.iter().filter(|h| h.from <= t && t < h.to) {
            for &(c, w) in &h.a {
                free[c as usize] -= w as i64;
            }
        }
        for (l, f) in least.iter_mut().zip(free) {
            *l = (*l).min(f);
        }
    }
    least
}

/// The earliest start from `now` for `widths` over `span`, and where.
fn earliest(
    clusters: usize,
    processors: u32,
    holds: &[&Hold],
    now: i64,
    widths: &[u32],
    span: i64,
    placement: &dyn Placement,
) -> (i64, Assignment) {
    let mut times: Vec<i64> = vec![now];
    for h in holds {
        times.extend([h.from, h.to].into_iter().filter(|&t| t > now));
    }
    times.sort_unstable();
    times.dedup();
    for t in times {
        let least = least_free(clusters, processors, holds, t, t + span);
        let free: Vec<u32> = least.iter().map(|&f| f.max(0) as u32).collect();
        if let Some(a) = placement.place(widths, &free) {
            return (t, a);
        }
    }
    unreachable!("every job fits once everything has ended")
}

/// Start times (in seconds) by job index, from the reference.
fn reference(
    speeds: &[f64],
    processors: u32,
    jobs: &[Job],
    order: BackfillOrder,
    placement: &dyn Placement,
) -> Vec<i64> {
    assert!(speeds.iter().all(|&s| s == 1.0), "clusters of one speed");
    let clusters = speeds.len();
    let n = jobs.len();
    let mut start = vec![-1i64; n];
    // (real end, what the profile holds for it: until its estimated end).
    let mut running: Vec<(i64, Hold)> = Vec::new();
    let mut reserved: Vec<Option<Hold>> = vec![None; n];
    let mut queue: Vec<usize> = Vec::new();
    let mut next = 0; // next job to arrive (jobs are sorted by submit)
    // The next instant: an arrival, an end, or a reservation due.
    while let Some(now) = (next < n)
        .then(|| jobs[next].0)
        .into_iter()
        .chain(running.iter().map(|r| r.0))
        .chain(reserved.iter().flatten().map(|r| r.from))
        .min()
    {
        let early = running.iter().any(|r| r.0 == now && r.1.to > now);
        running.retain(|r| r.0 != now);
        while next < n && jobs[next].0 == now {
            queue.push(next);
            next += 1;
        }
        let scan = in_order(&queue, jobs, order);
        for &i in &scan {
            if reserved[i].is_some() && !early {
                continue;
            }
            reserved[i] = None;
            let holds: Vec<&Hold> = running
                .iter()
                .map(|r| &r.1)
                .chain(reserved.iter().flatten())
                .collect();
            let (t, a) = earliest(
                clusters, processors, &holds, now, &jobs[i].1, jobs[i].3, placement,
            );
            reserved[i] = Some(Hold {
                from: t,
                to: t + jobs[i].3,
                a,
            });
        }
        // Due now: start, in arrival order (the queue's).
        for &i in &queue {
            let r = reserved[i].as_ref().expect("every queued job is placed");
            if r.from <= now {
                start[i] = now;
                let hold = reserved[i].take().expect("just seen");
                running.push((now + jobs[i].2, hold));
            }
        }
        queue.retain(|&i| start[i] < 0);
    }
    start
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn conservative_on_one_cluster_starts_every_job_when_the_reference_does(
        jobs in workload(1, 8, 50),
        order in order_strategy(),
    ) {
        reference::agree(names::CONSERVATIVE, reference, &[1.0; 1], 8, &jobs, order, PlacementName::WorstFit)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn conservative_co_allocating_on_three_clusters_starts_every_job_when_the_reference_does(
        jobs in workload(3, 4, 50),
        order in order_strategy(),
        placement in placement_strategy(),
    ) {
        reference::agree(names::CONSERVATIVE, reference, &[1.0; 3], 4, &jobs, order, placement)?;
    }
}

/// The comparison is not vacuous: on a fixed workload the reference
/// backfills a job into a hole and moves a reservation earlier when a job
/// ends early.
#[test]
fn the_reference_backfills_and_compresses() {
    let wf = PlacementName::WorstFit;
    // 4 processors. J0 holds 3 until 10 (estimated 20). J1 (4 wide)
    // reserves 20; J2 (1 wide, 5 s) fits in the hole before it: starts at
    // 2. J0 ends early at 10: J1's reservation moves to 10 and it starts.
    // J3 (2 wide, 10 s, arrived at 3) had reserved 25 (after J1's
    // estimate); compressed, it moves to 15, when J1 is expected to end.
    // Smallest first compresses J3 first: it takes 10, and J1 20.
    let jobs: Vec<Job> = vec![
        (0, vec![3], 10, 20),
        (1, vec![4], 5, 5),
        (2, vec![1], 5, 5),
        (3, vec![2], 10, 10),
    ];
    let want = vec![0, 10, 2, 15];
    for order in [BackfillOrder::Arrival, BackfillOrder::ShortestEstimate] {
        assert_eq!(
            reference(&[1.0], 4, &jobs, order, wf.build().as_ref()),
            want,
            "{order:?}"
        );
        assert_eq!(
            reference::engine(names::CONSERVATIVE, &[1.0], 4, &jobs, order, wf),
            want,
            "{order:?}"
        );
    }
    let smallest = BackfillOrder::Smallest;
    let want = vec![0, 20, 2, 10];
    assert_eq!(
        reference(&[1.0], 4, &jobs, smallest, wf.build().as_ref()),
        want
    );
    assert_eq!(
        reference::engine(names::CONSERVATIVE, &[1.0], 4, &jobs, smallest, wf),
        want
    );
}
