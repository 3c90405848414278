//! EASY backfilling against a reference written from its definition alone:
//! the queue rescanned from scratch at every decision point, no profile, no
//! memo, no copy of the queue kept between decision points. Every job's
//! start time must agree, under every backfill order, on random workloads
//! whose estimates are exact or too long (jobs end early, so shadow times
//! move and free processors come back at unplanned times): on one cluster,
//! co-allocating on three, and on a full-speed and a half-speed cluster
//! (where a job's span depends on where it goes).
//!
//! The reference, at every instant where something ended or arrived (after
//! all of them):
//! 1. starts jobs in queue order while the first one fits;
//! 2. gives the first that does not a reservation: the earliest estimated
//!    end (of the running jobs and those just started) by which enough
//!    processors are free, the shadow time; the processors left over then
//!    are the extra ones;
//! 3. tries every later job in the backfill order: it starts if it fits in
//!    the free processors and its estimate ends by the shadow time, or if
//!    it fits in both the free and the extra processors (then taking them
//!    from the extra).

#[path = "common/reference.rs"]
mod reference;

use proptest::prelude::*;
use reference::{Job, in_order, order_strategy, placement_strategy, workload};
use schedscope::policy::BuildPlacement;
use schedscope::policy::backfill::BackfillOrder;
use schedscope::policy::names;
use schedscope::policy::placement::{Assignment, Placement, PlacementName};

/// Start times (in seconds) by job index, from the reference, on
/// clusters of `processors` each at the given speeds (1, 1/2, 1/3, …: a
/// job runs its time and estimate times the slowest of its clusters'
/// factors). Placement is the policy's (worst fit by default): EASY is
/// what is checked here, not where a job goes.
fn reference(
    speeds: &[f64],
    processors: u32,
    jobs: &[Job],
    order: BackfillOrder,
    placement: &dyn Placement,
) -> Vec<i64> {
    let clusters = speeds.len();
    let factors: Vec<i64> = speeds.iter().map(|&s| (1.0 / s).round() as i64).collect();
    assert!(
        speeds
            .iter()
            .zip(&factors)
            .all(|(&s, &f)| s * f as f64 == 1.0)
    );
    let stretch = |a: &Assignment| {
        a.iter()
            .map(|&(c, _)| factors[c as usize])
            .max()
            .unwrap_or(1)
    };
    let n = jobs.len();
    let mut start = vec![-1i64; n];
    // (real end, estimated end, processors per cluster) of running jobs.
    let mut running: Vec<(i64, i64, Assignment)> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    let mut next = 0; // next job to arrive (jobs are sorted by submit)
    loop {
        let arrival = (next < n).then(|| jobs[next].0);
        let end = running.iter().map(|r| r.0).min();
        let now = match (arrival, end) {
            (Some(a), Some(e)) => a.min(e),
            (Some(a), None) => a,
            (None, Some(e)) => e,
            (None, None) => break,
        };
        running.retain(|r| r.0 != now);
        while next < n && jobs[next].0 == now {
            queue.push(next);
            next += 1;
        }
        let mut free = vec![processors; clusters];
        for r in &running {
            for &(c, w) in &r.2 {
                free[c as usize] -= w;
            }
        }
        let go = |i: usize,
                  a: Assignment,
                  free: &mut Vec<u32>,
                  running: &mut Vec<_>,
                  start: &mut Vec<i64>| {
            start[i] = now;
            for &(c, w) in &a {
                free[c as usize] -= w;
            }
            let f = stretch(&a);
            running.push((now + jobs[i].2 * f, now + jobs[i].3 * f, a));
        };
        // 1. In queue order while the first fits.
        while let Some(&h) = queue.first() {
            let Some(a) = placement.place(&jobs[h].1, &free) else {
                break;
            };
            queue.remove(0);
            go(h, a, &mut free, &mut running, &mut start);
        }
        let Some(&head) = queue.first() else {
            continue;
        };
        // 2. The head's shadow time and the extra processors then.
        let mut ends: Vec<(i64, Assignment)> = running.iter().map(|r| (r.1, r.2.clone())).collect();
        ends.sort();
        let (mut avail, mut k) = (free.clone(), 0);
        let (shadow, mut extra) = loop {
            let t = ends[k].0;
            while k < ends.len() && ends[k].0 == t {
                for &(c, w) in &ends[k].1 {
                    avail[c as usize] += w;
                }
                k += 1;
            }
            if let Some(a) = placement.place(&jobs[head].1, &avail) {
                for &(c, w) in &a {
                    avail[c as usize] -= w;
                }
                break (t, avail);
            }
        };
        // 3. The rest in the backfill order.
        let rest = in_order(&queue[1..], jobs, order);
        for i in rest {
            // Ends by the shadow time where it would go on the free
            // processors, or else fits in the extra ones.
            let by_shadow = placement
                .place(&jobs[i].1, &free)
                .filter(|a| now + jobs[i].3 * stretch(a) <= shadow);
            let a = match by_shadow {
                Some(a) => a,
                None => {
                    let within: Vec<u32> =
                        free.iter().zip(&extra).map(|(&f, &x)| f.min(x)).collect();
                    let Some(a) = placement.place(&jobs[i].1, &within) else {
                        continue;
                    };
                    for &(c, w) in &a {
                        extra[c as usize] -= w;
                    }
                    a
                }
            };
            go(i, a, &mut free, &mut running, &mut start);
            queue.retain(|&q| q != i);
        }
    }
    start
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn easy_on_one_cluster_starts_every_job_when_the_reference_does(
        jobs in workload(1, 8, 60),
        order in order_strategy(),
    ) {
        reference::agree(names::EASY, reference, &[1.0; 1], 8, &jobs, order, PlacementName::WorstFit)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn easy_co_allocating_on_three_clusters_starts_every_job_when_the_reference_does(
        jobs in workload(3, 4, 60),
        order in order_strategy(),
        placement in placement_strategy(),
    ) {
        reference::agree(names::EASY, reference, &[1.0; 3], 4, &jobs, order, placement)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// A full-speed and a half-speed cluster, either first: whether a job
    /// ends by the shadow time depends on where it would run.
    #[test]
    fn easy_on_clusters_of_two_speeds_starts_every_job_when_the_reference_does(
        jobs in workload(2, 4, 60),
        order in order_strategy(),
        placement in placement_strategy(),
        slow_first in any::<bool>(),
    ) {
        let speeds = if slow_first { [0.5, 1.0] } else { [1.0, 0.5] };
        reference::agree(names::EASY, reference, &speeds, 4, &jobs, order, placement)?;
    }
}

/// The comparison is not vacuous: on fixed workloads the reference itself
/// backfills jobs by the shadow time and on the extra processors, and
/// leaves some jobs waiting behind a reservation.
#[test]
fn the_reference_backfills_both_ways() {
    let one = |jobs: &[(i64, u32, i64, i64)]| -> Vec<Job> {
        jobs.iter()
            .map(|&(t, w, r, e)| (t, vec![w], r, e))
            .collect()
    };
    let wf = PlacementName::WorstFit;
    // 4 processors. J0 holds 3 until 10 (estimated 12); the head J1 (4
    // wide) gets shadow 12 with no extra. J2 (1 wide, 5 s) ends by then:
    // backfilled at 2. J3 (1 wide, 40 s) does not, and has no extra: it
    // waits, also when J2's processor comes back at 7. J0 ends early at 10
    // and J1 starts; J3, now the head, starts when J1 ends (early) at 15.
    let jobs = one(&[(0, 3, 10, 12), (1, 4, 5, 10), (2, 1, 5, 5), (3, 1, 40, 40)]);
    let want = vec![0, 10, 2, 15];
    for order in BackfillOrder::ALL {
        assert_eq!(
            reference(&[1.0], 4, &jobs, order, wf.build().as_ref()),
            want,
            "{order:?}"
        );
        assert_eq!(
            reference::engine(names::EASY, &[1.0], 4, &jobs, order, wf),
            want,
            "{order:?}"
        );
    }
    // 6 processors: J0 holds 4 until 10; the head J1 (5 wide) gets shadow
    // 10 with 1 extra; J2 (1 wide, 30 s) runs past it on the extra one.
    let jobs = one(&[(0, 4, 10, 10), (1, 5, 5, 5), (2, 1, 30, 30)]);
    let want = vec![0, 10, 2];
    for order in BackfillOrder::ALL {
        assert_eq!(
            reference(&[1.0], 6, &jobs, order, wf.build().as_ref()),
            want,
            "{order:?}"
        );
        assert_eq!(
            reference::engine(names::EASY, &[1.0], 6, &jobs, order, wf),
            want,
            "{order:?}"
        );
    }
}
