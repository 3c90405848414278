//! Properties of backfilling with exact estimates, over random workloads:
//! EASY never starts the head later than the reservation it got when it
//! reached the head, and conservative never starts a job later than its
//! first reservation. Both on one cluster and on three with co-allocation.
//! Every workload opens with a job holding every processor for 20 s, so the
//! first job after it always waits: each property also checks that
//! reservations were made (for that job at least, and under conservative
//! for every job that waited), and cannot pass on an empty plan.

use proptest::prelude::*;
use schedscope::engine::EngineConfig;
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::backfill::BackfillOrder;
use schedscope::policy::{Machines, PolicyName, PolicySpec};
use schedscope::policy::{SharedParams, names};
use schedscope::workload::estimates::EstimateModel;
use std::collections::HashMap;

/// The id of the job that holds every processor at the start.
const BLOCKER: u64 = 1_000_000;

/// A job holding every processor for 20 s from 0, then (submit gap, widths,
/// runtime) per job, ids from 1.
fn workload(clusters: usize, procs: u32) -> impl Strategy<Value = Vec<JobSpec>> {
    let job = (
        0i64..8,
        prop::collection::vec(1..=procs, 1..=clusters),
        1i64..40,
    );
    prop::collection::vec(job, 1..40).prop_map(move |v| {
        let mut t = 0;
        let blocker = JobSpec {
            components: vec![procs; clusters],
            ..JobSpec::rigid(
                BLOCKER,
                SimTime::ZERO,
                procs * clusters as u32,
                SimTime::from_secs(20),
            )
        };
        std::iter::once(blocker)
            .chain(v.into_iter().enumerate().map(|(i, (gap, widths, run))| {
                t += gap;
                JobSpec {
                    work: None,
                    id: i as u64 + 1,
                    submit: SimTime::from_secs(t),
                    size: widths.iter().sum(),
                    components: widths,
                    runtime: SimTime::from_secs(run),
                    estimate: None,
                    user: None,
                    injected: false,
                    home: None,
                    app: None,
                    comm: None,
                    graph: None,
                }
            }))
            .collect()
    })
}

/// What a run showed: each job's first planned start (the head's shadow
/// under EASY, every reservation under conservative) and its start, and
/// the jobs that waited.
struct Seen {
    planned: Vec<(u64, SimTime, SimTime)>,
    waited: Vec<u64>,
}

impl Seen {
    /// Every job started by its first planned start; the first job after
    /// the blocker (which must wait) was planned.
    fn check(&self) -> Result<(), TestCaseError> {
        prop_assert!(
            self.planned.iter().any(|&(id, _, _)| id == 1),
            "job 1 waited behind the blocker without a reservation: {:?}",
            self.planned
        );
        prop_assert!(self.waited.contains(&1));
        for &(id, planned, start) in &self.planned {
            prop_assert!(
                start <= planned,
                "job {id}: reserved {planned}, started {start}"
            );
        }
        Ok(())
    }

    /// Conservative: every job that waited held a reservation.
    fn every_waiting_job_planned(&self) -> Result<(), TestCaseError> {
        for id in &self.waited {
            prop_assert!(
                self.planned.iter().any(|p| p.0 == *id),
                "job {id} waited without a reservation"
            );
        }
        Ok(())
    }
}

/// Runs to the end and collects what it showed.
fn run(platform: Platform, jobs: Vec<JobSpec>, policy: PolicySpec) -> Seen {
    let mut e = schedscope::simulation::engine(
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
    let records: Vec<_> = e.drain_records().collect();
    let mut planned: Vec<_> = records
        .iter()
        .filter_map(|r| first.get(&r.id).map(|&t| (r.id, t, r.start)))
        .collect();
    planned.sort();
    let mut waited: Vec<u64> = records
        .iter()
        .filter(|r| r.start > r.submit)
        .map(|r| r.id)
        .collect();
    waited.sort();
    Seen { planned, waited }
}

fn spec(name: PolicyName, order: BackfillOrder) -> PolicySpec {
    PolicySpec::named(name).with_order(order)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn easy_head_never_starts_after_its_reservation(jobs in workload(1, 12), shortest in any::<bool>()) {
        let order = if shortest { BackfillOrder::ShortestEstimate } else { BackfillOrder::Arrival };
        run(Platform::uniform(1, 12), jobs, spec(names::EASY, order)).check()?;
    }

    #[test]
    fn pinned_easy_head_never_starts_after_its_reservation(jobs in workload(1, 12)) {
        let policy = spec(names::EASY, BackfillOrder::Arrival).with_machines(Machines::Pinned);
        run(Platform::uniform(1, 12), jobs, policy).check()?;
    }

    #[test]
    fn pinned_conservative_never_starts_after_its_first_reservation(jobs in workload(1, 12)) {
        let policy = spec(names::CONSERVATIVE, BackfillOrder::Arrival).with_machines(Machines::Pinned);
        let seen = run(Platform::uniform(1, 12), jobs, policy);
        seen.check()?;
        seen.every_waiting_job_planned()?;
    }

    #[test]
    fn easy_co_allocated_head_never_starts_after_its_reservation(jobs in workload(3, 4)) {
        run(Platform::uniform(3, 4), jobs, spec(names::EASY, BackfillOrder::Arrival)).check()?;
    }

    #[test]
    fn conservative_never_starts_after_its_first_reservation(jobs in workload(1, 12)) {
        let seen = run(Platform::uniform(1, 12), jobs, spec(names::CONSERVATIVE, BackfillOrder::Arrival));
        seen.check()?;
        seen.every_waiting_job_planned()?;
    }

    #[test]
    fn conservative_co_allocated_never_starts_after_its_first_reservation(jobs in workload(3, 4)) {
        let seen = run(Platform::uniform(3, 4), jobs, spec(names::CONSERVATIVE, BackfillOrder::Arrival));
        seen.check()?;
        seen.every_waiting_job_planned()?;
    }
}
