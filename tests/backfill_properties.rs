//! Properties of backfilling with exact estimates, over random workloads:
//! EASY never starts the head later than the reservation it got when it
//! reached the head, and conservative never starts a job later than its
//! first reservation. Both on one cluster and on three with co-allocation.

use proptest::prelude::*;
use schedscope::engine::{Engine, EngineConfig};
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::backfill::BackfillOrder;
use schedscope::policy::{Machines, PolicyName, PolicySpec};
use schedscope::workload::estimates::EstimateModel;
use std::collections::HashMap;

/// (submit gap, widths, runtime) per job.
fn workload(clusters: usize, procs: u32) -> impl Strategy<Value = Vec<JobSpec>> {
    let job = (
        0i64..8,
        prop::collection::vec(1..=procs, 1..=clusters),
        1i64..40,
    );
    prop::collection::vec(job, 1..40).prop_map(|v| {
        let mut t = 0;
        v.into_iter()
            .enumerate()
            .map(|(i, (gap, widths, run))| {
                t += gap;
                JobSpec {
                    id: i as u64 + 1,
                    submit: SimTime::from_secs(t),
                    size: widths.iter().sum(),
                    components: widths,
                    runtime: SimTime::from_secs(run),
                    estimate: None,
                    user: None,
                    injected: false,
                    app: None,
                }
            })
            .collect()
    })
}

/// Runs to the end; returns each job's first planned start (the head's
/// shadow under EASY, every reservation under conservative) and its start.
fn run(platform: Platform, jobs: Vec<JobSpec>, policy: PolicySpec) -> Vec<(u64, SimTime, SimTime)> {
    let mut e = Engine::new(
        platform,
        Box::new(jobs.into_iter()),
        &policy,
        EngineConfig {
            estimates: EstimateModel::exact(),
            ..EngineConfig::default()
        },
    )
    .unwrap();
    let mut first: HashMap<u64, SimTime> = HashMap::new();
    while let Some(now) = e.step() {
        // Only where the instant is settled: the policy has decided.
        if e.next_event_time() == Some(now) {
            continue;
        }
        if let Some(v) = e.snapshot().backfill {
            for (id, t) in v.reservations {
                first.entry(id).or_insert(t);
            }
        }
    }
    let mut out: Vec<_> = e
        .drain_records()
        .filter_map(|r| first.get(&r.id).map(|&t| (r.id, t, r.start)))
        .collect();
    out.sort();
    out
}

fn spec(name: PolicyName, order: BackfillOrder) -> PolicySpec {
    PolicySpec {
        name,
        order,
        ..PolicySpec::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn easy_head_never_starts_after_its_reservation(jobs in workload(1, 12), shortest in any::<bool>()) {
        let order = if shortest { BackfillOrder::ShortestEstimate } else { BackfillOrder::Arrival };
        for (id, planned, start) in run(Platform::uniform(1, 12), jobs, spec(PolicyName::Easy, order)) {
            prop_assert!(start <= planned, "job {id}: reserved {planned}, started {start}");
        }
    }

    #[test]
    fn pinned_easy_head_never_starts_after_its_reservation(jobs in workload(1, 12)) {
        let policy = PolicySpec { machines: Machines::Pinned, ..spec(PolicyName::Easy, BackfillOrder::Arrival) };
        for (id, planned, start) in run(Platform::uniform(1, 12), jobs, policy) {
            prop_assert!(start <= planned, "job {id}: reserved {planned}, started {start}");
        }
    }

    #[test]
    fn pinned_conservative_never_starts_after_its_first_reservation(jobs in workload(1, 12)) {
        let policy = PolicySpec { machines: Machines::Pinned, ..spec(PolicyName::Conservative, BackfillOrder::Arrival) };
        for (id, planned, start) in run(Platform::uniform(1, 12), jobs, policy) {
            prop_assert!(start <= planned, "job {id}: reserved {planned}, started {start}");
        }
    }

    #[test]
    fn easy_co_allocated_head_never_starts_after_its_reservation(jobs in workload(3, 4)) {
        for (id, planned, start) in run(Platform::uniform(3, 4), jobs, spec(PolicyName::Easy, BackfillOrder::Arrival)) {
            prop_assert!(start <= planned, "job {id}: reserved {planned}, started {start}");
        }
    }

    #[test]
    fn conservative_never_starts_after_its_first_reservation(jobs in workload(1, 12)) {
        let n = jobs.len();
        let v = run(Platform::uniform(1, 12), jobs, spec(PolicyName::Conservative, BackfillOrder::Arrival));
        // Every job that waited held a reservation.
        prop_assert!(v.len() <= n);
        for (id, planned, start) in v {
            prop_assert!(start <= planned, "job {id}: reserved {planned}, started {start}");
        }
    }

    #[test]
    fn conservative_co_allocated_never_starts_after_its_first_reservation(jobs in workload(3, 4)) {
        for (id, planned, start) in run(Platform::uniform(3, 4), jobs, spec(PolicyName::Conservative, BackfillOrder::Arrival)) {
            prop_assert!(start <= planned, "job {id}: reserved {planned}, started {start}");
        }
    }
}
