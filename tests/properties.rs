//! Invariants under random small workloads, for every policy and placement:
//! no cluster is ever over-allocated, every job ends exactly once, work is
//! conserved, and FCFS starts jobs in arrival order.

use proptest::prelude::*;
use schedscope::engine::EngineConfig;
use schedscope::model::{Cluster, JobRecord, JobSpec, Platform, SimTime};
use schedscope::policy::Catalogued;
use schedscope::policy::backfill::BackfillOrder;
use schedscope::policy::fjt;
use schedscope::policy::placement::PlacementName;
use schedscope::policy::{Machines, MaxJumps, PolicySpec};
use schedscope::policy::{SharedParams, names};
use schedscope::workload::estimates::EstimateModel;

fn platform_strategy() -> impl Strategy<Value = Platform> {
    prop::collection::vec(
        (1u32..=8, prop::sample::select(vec![1.0, 0.5, 0.25])),
        1..=4,
    )
    .prop_map(|cs| Platform {
        clusters: cs
            .into_iter()
            .enumerate()
            .map(|(i, (processors, speed))| Cluster {
                name: format!("c{i}"),
                processors,
                speed,
            })
            .collect(),
        split_overhead: 0.0,
        network: None,
    })
}

/// Raw jobs: (gap to previous submit, component count, width seed, run time).
fn jobs_strategy() -> impl Strategy<Value = Vec<(u32, usize, u32, u32)>> {
    prop::collection::vec((0u32..6, 1usize..=3, 1u32..=8, 0u32..20), 1..40)
}

/// Turns raw jobs into jobs that can run on `p`: widths clamped to the
/// clusters, at most as many components as clusters.
fn make_jobs(p: &Platform, raw: &[(u32, usize, u32, u32)]) -> Vec<JobSpec> {
    let mut sizes: Vec<u32> = p.clusters.iter().map(|c| c.processors).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let mut t = 0;
    raw.iter()
        .enumerate()
        .map(|(i, &(gap, n, w, rt))| {
            t += gap;
            let n = n.min(sizes.len());
            let components: Vec<u32> = (0..n).map(|k| w.min(sizes[k]).max(1)).collect();
            JobSpec {
                work: None,
                id: i as u64 + 1,
                submit: SimTime::from_secs(t as i64),
                size: components.iter().sum(),
                components,
                runtime: SimTime::from_secs(rt as i64),
                estimate: Some(SimTime::from_secs(rt as i64 * 2)),
                user: None,
                injected: false,
                home: None,
                app: None,
                comm: None,
                graph: None,
            }
        })
        .collect()
}

fn policies() -> Vec<PolicySpec> {
    let mut v = Vec::new();
    for name in schedscope::policy::catalog::names() {
        for placement in PlacementName::ALL {
            for max_jumps in [MaxJumps::Limit(0), MaxJumps::Limit(2), MaxJumps::Unlimited] {
                v.push(
                    PolicySpec::named(name)
                        .with_max_jumps(max_jumps)
                        .with_placement(placement),
                );
            }
        }
    }
    v
}

fn run(p: &Platform, jobs: &[JobSpec], policy: &PolicySpec) -> Vec<JobRecord> {
    let owned: Vec<JobSpec> = jobs.to_vec();
    let mut e = schedscope::simulation::engine(
        p.clone(),
        Box::new(owned.into_iter()),
        policy,
        EngineConfig {
            estimates: EstimateModel::exact(),
            ..EngineConfig::default()
        },
    )
    .expect("policy builds");
    let mut last = SimTime::ZERO;
    let mut records = Vec::new();
    while let Some(t) = e.step() {
        assert!(t >= last, "time went back");
        last = t;
        records.extend(e.drain_records());
    }
    records
}

fn check(p: &Platform, jobs: &[JobSpec], policy: &PolicySpec) -> Result<(), TestCaseError> {
    let recs = run(p, jobs, policy);
    let label = policy.label();
    // Every job ends exactly once.
    let mut ids: Vec<u64> = recs.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    let want: Vec<u64> = jobs.iter().map(|j| j.id).collect();
    prop_assert_eq!(&ids, &want, "{}: jobs that ended", label);
    for r in &recs {
        let spec = &jobs[r.id as usize - 1];
        prop_assert!(
            r.start >= r.submit && r.end >= r.start,
            "{}: job {} times",
            label,
            r.id
        );
        prop_assert!(!r.killed, "{}: job {} killed", label, r.id);
        // Work is conserved: the job ran for its work at the slowest speed
        // among its clusters (rounded up to a tick).
        let speed = r
            .clusters
            .iter()
            .map(|&c| p.clusters[c as usize].speed)
            .fold(f64::INFINITY, f64::min);
        let want = (spec.runtime.0 as f64 / speed).ceil() as i64;
        prop_assert_eq!(r.elapsed().0, want, "{}: job {} elapsed", label, r.id);
        // Components on distinct clusters with the job's widths.
        let mut cl = r.clusters.clone();
        cl.sort_unstable();
        cl.dedup();
        prop_assert_eq!(cl.len(), r.clusters.len());
        prop_assert_eq!(&r.components, &spec.components);
    }
    // No over-allocation: replay starts and ends per cluster (ends first at
    // equal times, as the engine frees before it starts).
    for (c, cluster) in p.clusters.iter().enumerate() {
        let mut ev: Vec<(SimTime, i64)> = Vec::new();
        for r in &recs {
            for (k, &rc) in r.clusters.iter().enumerate() {
                if rc as usize == c && r.end > r.start {
                    ev.push((r.start, r.components[k] as i64));
                    ev.push((r.end, -(r.components[k] as i64)));
                }
            }
        }
        ev.sort();
        let mut used = 0i64;
        for (t, d) in ev {
            used += d;
            prop_assert!(
                used <= cluster.processors as i64,
                "{}: cluster {} holds {} > {} at {}",
                label,
                c,
                used,
                cluster.processors,
                t
            );
        }
    }
    // FCFS never starts a job before an earlier-arrived one.
    if policy.name == names::FCFS
        || (policy.name == names::FPFS && policy.max_jumps() == MaxJumps::Limit(0))
    {
        let mut by_arrival = recs.clone();
        by_arrival.sort_by_key(|r| r.arrival);
        for w in by_arrival.windows(2) {
            prop_assert!(
                w[0].start <= w[1].start,
                "{}: job {} (arrived earlier) started at {} after job {} at {}",
                label,
                w[0].id,
                w[0].start,
                w[1].id,
                w[1].start
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn invariants_hold_for_every_policy_and_placement(
        p in platform_strategy(),
        raw in jobs_strategy(),
    ) {
        let jobs = make_jobs(&p, &raw);
        // Every policy that takes this platform (`ar` wants one cluster).
        for policy in policies().into_iter().filter(|s| s.build(&p).is_ok()) {
            check(&p, &jobs, &policy)?;
        }
    }
}

/// Every policy with estimates that are wrong both ways, under every
/// overrun setting, scan order and placement: every job ends exactly once,
/// only `kill` kills, only `requeue` requeues, the engine refuses no
/// decision, two runs give the same records, and a run takes a bounded number of events (no deciding again
/// and again at instants where nothing changes). Debug builds also check
/// conservative backfilling's kept profile against a fresh one at every
/// decision point.
fn check_wrong_estimates(
    p: &Platform,
    jobs: &[JobSpec],
    seed: u64,
    order: BackfillOrder,
    placement: PlacementName,
) -> Result<(), TestCaseError> {
    use schedscope::workload::estimates::OnOverrun;
    let owned: Vec<JobSpec> = jobs.to_vec();
    let mut specs: Vec<PolicySpec> = schedscope::policy::catalog::names()
        .map(|name| {
            PolicySpec::named(name)
                .with_order(order)
                .with_placement(placement)
        })
        .collect();
    specs.retain(|s| s.build(p).is_ok());
    if p.clusters.len() == 1 {
        // Reservations pinned to numbered processors: the engine checks
        // that every processor a policy names is free.
        for name in [names::EASY, names::CONSERVATIVE] {
            specs.push(
                PolicySpec::named(name)
                    .with_order(order)
                    .with_machines(Machines::Pinned),
            );
        }
    }
    for policy in &specs {
        for on_overrun in [OnOverrun::Continue, OnOverrun::Kill, OnOverrun::Requeue] {
            let policy = policy.clone();
            let go = || {
                let mut e = schedscope::simulation::engine(
                    p.clone(),
                    Box::new(owned.clone().into_iter()),
                    &policy,
                    EngineConfig {
                        seed,
                        estimates: EstimateModel {
                            on_overrun,
                            ..EstimateModel::uniform_error(60.0)
                        },
                        ..EngineConfig::default()
                    },
                )
                .expect("policy builds");
                // A few events per job: a run that takes many more is
                // deciding again and again at instants where nothing changes.
                let mut steps = 0;
                while e.step().is_some() {
                    steps += 1;
                    if steps > 100 * jobs.len() + 1000 {
                        return None;
                    }
                }
                Some((
                    e.drain_records().collect::<Vec<JobRecord>>(),
                    e.last_refusal().cloned(),
                ))
            };
            let label = format!("{} / {on_overrun:?}", policy.label());
            let recs = go();
            prop_assert!(recs.is_some(), "{}: too many events", label);
            let (recs, refused) = recs.expect("checked");
            // The engine carries out every decision of a shipped policy:
            // none asks to decide again at once while nothing changes.
            prop_assert_eq!(&refused, &None, "{}: a refused decision", label);
            let mut ids: Vec<u64> = recs.iter().map(|r| r.id).collect();
            ids.sort_unstable();
            let want: Vec<u64> = jobs.iter().map(|j| j.id).collect();
            prop_assert_eq!(&ids, &want, "{}: jobs that ended", label);
            // Backfilling with aborts requeues expired backfilled jobs by
            // its own rule, whatever the overrun setting.
            let aborts_by_rule = [fjt::FJT4_BFA, fjt::FJT1_BFA].contains(&policy.name);
            for r in &recs {
                prop_assert!(r.start >= r.submit && r.end >= r.start, "{}", label);
                prop_assert!(!r.killed || on_overrun == OnOverrun::Kill, "{}", label);
                prop_assert!(
                    r.requeues == 0 || on_overrun == OnOverrun::Requeue || aborts_by_rule,
                    "{}",
                    label
                );
            }
            prop_assert_eq!(Some((recs, refused)), go(), "{}: not reproducible", label);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn backfilling_with_wrong_estimates_keeps_its_invariants(
        p in platform_strategy(),
        raw in jobs_strategy(),
        seed in 0u64..1000,
        order in prop::sample::select(BackfillOrder::ALL.to_vec()),
        placement in prop::sample::select(PlacementName::ALL.to_vec()),
    ) {
        let jobs = make_jobs(&p, &raw);
        check_wrong_estimates(&p, &jobs, seed, order, placement)?;
    }
}
