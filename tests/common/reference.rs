//! What the reference checks of the backfilling policies share
//! (`easy_reference.rs`, `conservative_reference.rs`): the workloads, the
//! engine's start times, and the comparison.

use proptest::prelude::*;
use schedscope::engine::EngineConfig;
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::BuildPlacement;
use schedscope::policy::SharedParams;
use schedscope::policy::backfill::BackfillOrder;
use schedscope::policy::placement::{Placement, PlacementName};
use schedscope::policy::{PolicyName, PolicySpec};

/// (submit, component widths, run time, estimate) in whole seconds.
pub type Job = (i64, Vec<u32>, i64, i64);

/// A reference: start times (in seconds) by job index on clusters of
/// `processors` each at the given speeds.
pub type Reference = fn(&[f64], u32, &[Job], BackfillOrder, &dyn Placement) -> Vec<i64>;

/// The queued jobs `queue` (indices, in arrival order) in the backfill
/// order; ties keep arrival order.
pub fn in_order(queue: &[usize], jobs: &[Job], order: BackfillOrder) -> Vec<usize> {
    let mut v = queue.to_vec();
    match order {
        BackfillOrder::Arrival => {}
        BackfillOrder::ShortestEstimate => v.sort_by_key(|&i| (jobs[i].3, i)),
        BackfillOrder::Smallest => v.sort_by_key(|&i| (jobs[i].1.iter().sum::<u32>(), i)),
    }
    v
}

/// Start times (in seconds) by job index, from the engine under `name`,
/// on clusters of `processors` each at the given speeds.
pub fn engine(
    name: PolicyName,
    speeds: &[f64],
    processors: u32,
    jobs: &[Job],
    order: BackfillOrder,
    placement: PlacementName,
) -> Vec<i64> {
    let specs: Vec<JobSpec> = jobs
        .iter()
        .enumerate()
        .map(|(i, (submit, widths, run, est))| JobSpec {
            work: None,
            id: i as u64,
            submit: SimTime::from_secs(*submit),
            size: widths.iter().sum(),
            components: widths.clone(),
            runtime: SimTime::from_secs(*run),
            estimate: Some(SimTime::from_secs(*est)),
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: None,
            graph: None,
        })
        .collect();
    let policy = PolicySpec::named(name)
        .with_placement(placement)
        .with_order(order);
    let mut platform = Platform::uniform(speeds.len(), processors);
    for (c, &speed) in platform.clusters.iter_mut().zip(speeds) {
        c.speed = speed;
    }
    let mut e = schedscope::simulation::engine(
        platform,
        Box::new(specs.into_iter()),
        &policy,
        EngineConfig::default(),
    )
    .expect("the engine builds");
    e.run();
    let mut start = vec![-1i64; jobs.len()];
    for r in e.drain_records() {
        start[r.id as usize] = r.start.0 / 1_000_000;
    }
    start
}

/// The engine under `name` and the reference agree on every start, and
/// the reference ran every job.
pub fn agree(
    name: PolicyName,
    reference: Reference,
    speeds: &[f64],
    processors: u32,
    jobs: &[Job],
    order: BackfillOrder,
    placement: PlacementName,
) -> Result<(), TestCaseError> {
    let want = reference(speeds, processors, jobs, order, placement.build().as_ref());
    prop_assert!(want.iter().all(|&s| s >= 0), "the reference ran every job");
    prop_assert_eq!(
        engine(name, speeds, processors, jobs, order, placement),
        want
    );
    Ok(())
}

/// Jobs of one to `clusters` components of 1 to `processors` each, up to
/// `most` of them: submit gaps of 0–5 s, run times of 1–30 s, estimates
/// exact or up to four times too long (so jobs end early).
pub fn workload(clusters: usize, processors: u32, most: usize) -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec(
        (
            0i64..6,
            prop::collection::vec(1..=processors, 1..=clusters),
            1i64..31,
            0i64..4,
            any::<bool>(),
        ),
        1..most,
    )
    .prop_map(|v| {
        let mut t = 0;
        v.into_iter()
            .map(|(gap, widths, run, times, exact)| {
                t += gap;
                let est = if exact {
                    run
                } else {
                    run * (1 + times) + times
                };
                (t, widths, run, est)
            })
            .collect()
    })
}

pub fn order_strategy() -> impl Strategy<Value = BackfillOrder> {
    prop::sample::select(BackfillOrder::ALL.to_vec())
}

pub fn placement_strategy() -> impl Strategy<Value = PlacementName> {
    prop::sample::select(vec![
        PlacementName::WorstFit,
        PlacementName::BestFit,
        PlacementName::FirstFit,
    ])
}
