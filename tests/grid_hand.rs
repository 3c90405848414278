//! Hand-worked schedules of the two-site grid (per-processor queues, gangs
//! at the grid scheduler, local backfilling): every start and end asserted.
//! Each example is built so that the policy's random choices (which site,
//! which of equal queues) cannot change a time.

use schedscope::engine::{
    Command, CommandError, Engine, EngineConfig, INJECTED_ID_BASE, InjectJob,
};
use schedscope::model::{JobRecord, JobSpec, Platform, SimTime};
use schedscope::policy::grid_view::GridStateView;
use schedscope::policy::{PolicyName, PolicySpec};
use schedscope::policy::{SharedParams, names};
use schedscope::sched::ParamValue;
use schedscope::workload::estimates::EstimateModel;

/// A local job: (id, submit, site, runtime).
fn local(id: u64, submit: f64, site: u16, rt: f64) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: SimTime::from_secs_f64(submit),
        size: 1,
        components: vec![1],
        runtime: SimTime::from_secs_f64(rt),
        estimate: None,
        user: None,
        injected: false,
        home: Some(site),
        comm: None,
        graph: None,
        app: None,
    }
}

/// A gang: (id, submit, tasks, runtime).
fn gang(id: u64, submit: f64, size: u32, rt: f64) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: SimTime::from_secs_f64(submit),
        size,
        components: Vec::new(),
        runtime: SimTime::from_secs_f64(rt),
        estimate: None,
        user: None,
        injected: false,
        home: None,
        comm: None,
        graph: None,
        app: None,
    }
}

fn run(name: PolicyName, per_site: u32, jobs: Vec<JobSpec>) -> (Vec<JobRecord>, Engine) {
    run_with(name, per_site, &[], jobs)
}

/// As [`run`], with `[policy.params]` text values.
fn run_with(
    name: PolicyName,
    per_site: u32,
    params: &[(&str, &str)],
    jobs: Vec<JobSpec>,
) -> (Vec<JobRecord>, Engine) {
    run_seeded(name, per_site, params, 1, jobs)
}

/// As [`run_with`], with the run's seed (the policy's random choices).
fn run_seeded(
    name: PolicyName,
    per_site: u32,
    params: &[(&str, &str)],
    seed: u64,
    jobs: Vec<JobSpec>,
) -> (Vec<JobRecord>, Engine) {
    let mut platform = Platform::uniform(2, per_site);
    platform.split_overhead = 0.1;
    let policy = PolicySpec {
        params: params
            .iter()
            .map(|&(k, v)| {
                let value = v
                    .parse()
                    .map_or_else(|_| ParamValue::Text(v.to_string()), ParamValue::Float);
                (k.to_string(), value)
            })
            .collect(),
        ..PolicySpec::named(name)
    };
    // Each job's own estimate: its run time unless a test gives one.
    let config = EngineConfig {
        estimates: EstimateModel::default(),
        seed,
        ..EngineConfig::default()
    };
    let mut e =
        schedscope::simulation::engine(platform, Box::new(jobs.into_iter()), &policy, config)
            .unwrap();
    e.run();
    let mut recs: Vec<JobRecord> = e.drain_records().collect();
    recs.sort_by_key(|r| r.id);
    (recs, e)
}

/// (id, start, end) in seconds.
fn times(recs: &[JobRecord]) -> Vec<(u64, f64, f64)> {
    recs.iter()
        .map(|r| (r.id, r.start.as_secs_f64(), r.end.as_secs_f64()))
        .collect()
}

/// Site 0 is busy (L1 to 10, L2 to 4) and site 1 (L3 and L4 to 20, L5
/// queued) has only one empty queue when gang 9 (2 tasks, 5 s) arrives at
/// 1: it takes both empty queues of site 0 and waits for L1.
fn gang_waits_on_site_0(more: &[JobSpec]) -> Vec<JobSpec> {
    let mut jobs = vec![
        local(1, 0.0, 0, 10.0),
        local(2, 0.0, 0, 4.0),
        local(3, 0.0, 1, 20.0),
        local(4, 0.0, 1, 20.0),
        local(5, 0.5, 1, 1.0),
        gang(9, 1.0, 2, 5.0),
    ];
    jobs.extend_from_slice(more);
    jobs
}

/// Site 0 is busy (L1 to 10, L2 to 4) and site 1 has only one empty queue
/// when gang 9 (2 tasks) arrives at 1, so it takes both empty queues of
/// site 0 and waits for L1. L6 (5 s) backfills at 4 when L2 frees its
/// processor: 5 ≤ 10 − 4. L7 (7 s) may not at 9 (7 > 10 − 9): it waits for
/// the gang, which starts at 10, and runs after it.
#[test]
fn a_gang_waits_on_empty_queues_while_a_local_job_backfills_and_one_may_not() {
    let jobs = gang_waits_on_site_0(&[local(6, 2.0, 0, 5.0), local(7, 5.0, 0, 7.0)]);
    for name in [names::GRID_1, names::GRID_2] {
        let (recs, e) = run(name, 2, jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (2, 0.0, 4.0),
                (3, 0.0, 20.0),
                (4, 0.0, 20.0),
                (5, 20.0, 21.0),
                (6, 4.0, 9.0),
                (7, 15.0, 22.0),
                (9, 10.0, 15.0),
            ],
            "{name:?}"
        );
        assert_eq!(e.counters().started_ahead, 1, "only L6 backfilled");
        assert_eq!(e.counters().refused, 0);
        let g = recs.iter().find(|r| r.id == 9).unwrap();
        assert_eq!(g.clusters, vec![0]);
    }
}

/// Approach 2: gang 9 (3 tasks) fits in no site of 2 processors, but the
/// 3 idle processors of both sites take it at once, split 1 + 2, and it
/// runs 10 % longer (5 s → 5.5 s). Gang 8 (4 tasks) arrives at 2 with no
/// processor idle and takes the four empty queues (`wide = "queues"`); it
/// does not start when gang 9 ends (3 idle), and is split 2 + 2 at 10 when
/// L1 ends: 2 s → 2.2 s. Both
/// gangs are wider than every site, so approach 1 splits them the same
/// way (a gang no site holds is split under both approaches).
#[test]
fn approach_two_splits_a_gang_over_both_sites_with_the_overhead() {
    let jobs = vec![
        local(1, 0.0, 0, 10.0),
        gang(9, 1.0, 3, 5.0),
        gang(8, 2.0, 4, 2.0),
    ];
    let (recs, e) = run(names::GRID_2, 2, jobs.clone());
    assert_eq!(
        times(&recs),
        vec![(1, 0.0, 10.0), (8, 10.0, 12.2), (9, 1.0, 6.5)]
    );
    let g9 = recs.iter().find(|r| r.id == 9).unwrap();
    assert_eq!(
        (g9.clusters.clone(), g9.components.clone()),
        (vec![0, 1], vec![1, 2])
    );
    let g8 = recs.iter().find(|r| r.id == 8).unwrap();
    assert_eq!(
        (g8.clusters.clone(), g8.components.clone()),
        (vec![0, 1], vec![2, 2])
    );
    assert_eq!(e.counters().refused, 0);

    let (recs1, e) = run(names::GRID_1, 2, jobs);
    assert_eq!(times(&recs1), times(&recs));
    assert_eq!(e.counters().refused, 0);
}

/// A gang wider than every site (4 tasks, sites of 2), under both
/// approaches. L1 holds a processor of site 0 to 10 and L2 one of site 1
/// to 4 when gang 9 arrives at 1: 2 processors are idle, too few.
///
/// * `wide = "queues"` (default): its tasks take the 4 empty queues and it
///   starts when all 4 processors are free. L3 (1 s, site 1) backfills at 2
///   (1 ≤ 10 − 2); L4 (8 s, site 0) may not at 5 (8 > 10 − 5) and queues
///   behind the gang on the idle processor (the shorter queue). The gang
///   starts at 10 and runs 2 s × 1.1 = 2.2 s; L4 follows it, 12.2 to 20.2.
/// * `wide = "idle"`: the gang claims nothing and waits in the grid queue
///   until 4 processors are idle at once. L3 runs at 2 on an idle
///   processor, L4 at 5 on the other, so the gang waits for L4 too: it
///   starts at 13, ends at 15.2.
#[test]
fn a_gang_wider_than_every_site_is_split_under_both_approaches() {
    let jobs = vec![
        local(1, 0.0, 0, 10.0),
        local(2, 0.0, 1, 4.0),
        gang(9, 1.0, 4, 2.0),
        local(3, 2.0, 1, 1.0),
        local(4, 5.0, 0, 8.0),
    ];
    for name in [names::GRID_1, names::GRID_2] {
        let (recs, e) = run(name, 2, jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (2, 0.0, 4.0),
                (3, 2.0, 3.0),
                (4, 12.2, 20.2),
                (9, 10.0, 12.2),
            ],
            "{name:?}, wide = queues"
        );
        assert_eq!(e.counters().started_ahead, 1, "only L3 backfilled");
        assert_eq!(e.counters().refused, 0);
        let g = recs.iter().find(|r| r.id == 9).unwrap();
        assert_eq!(
            (g.clusters.clone(), g.components.clone()),
            (vec![0, 1], vec![2, 2])
        );

        let (recs, e) = run_with(name, 2, &[("wide", "idle")], jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (2, 0.0, 4.0),
                (3, 2.0, 3.0),
                (4, 5.0, 13.0),
                (9, 13.0, 15.2),
            ],
            "{name:?}, wide = idle"
        );
        assert_eq!(e.counters().refused, 0);
    }
}

/// Largest gang first, oldest on ties. All queues hold a local job when
/// gangs A (1 task), B and C (2 tasks each, B older) arrive, so all three
/// wait in the grid queue. When site 0's queues empty at 10, B (largest,
/// older than C) takes them and starts at 11; C takes them next and starts
/// when B ends (15); A, the oldest but smallest, comes last, at 17.
fn largest_first_jobs() -> Vec<JobSpec> {
    vec![
        local(1, 0.0, 0, 10.0),
        local(2, 0.0, 0, 10.0),
        local(3, 0.0, 1, 100.0),
        local(4, 0.0, 1, 100.0),
        local(5, 1.0, 0, 1.0),
        local(6, 1.0, 0, 1.0),
        local(7, 1.0, 1, 1.0),
        local(8, 1.0, 1, 1.0),
        gang(11, 2.0, 1, 3.0),
        gang(12, 3.0, 2, 4.0),
        gang(13, 4.0, 2, 2.0),
    ]
}

#[test]
fn the_grid_queue_serves_the_largest_gang_first_and_the_oldest_on_a_tie() {
    let jobs = largest_first_jobs();
    for name in [names::GRID_1, names::GRID_2] {
        let (recs, _) = run(name, 2, jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (2, 0.0, 10.0),
                (3, 0.0, 100.0),
                (4, 0.0, 100.0),
                (5, 10.0, 11.0),
                (6, 10.0, 11.0),
                (7, 100.0, 101.0),
                (8, 100.0, 101.0),
                (11, 17.0, 20.0),
                (12, 11.0, 15.0),
                (13, 15.0, 17.0),
            ],
            "{name:?}"
        );
    }
}

/// What the console's grid view lists as the grid queue: at t = 5 the
/// three gangs of the example above wait there, oldest first, with their
/// sizes; once the last has started the queue is empty.
#[test]
fn the_grid_view_lists_the_waiting_gangs_with_their_sizes() {
    let jobs = largest_first_jobs();
    for name in [names::GRID_1, names::GRID_2] {
        let mut e = engine_at(name, 2, jobs.clone(), 5.0);
        assert_eq!(
            grid_state(&e).grid_queue,
            vec![(11, 1), (12, 2), (13, 2)],
            "{name:?}"
        );
        e.step_until(SimTime::from_secs_f64(18.0));
        assert_eq!(grid_state(&e).grid_queue, Vec::new(), "{name:?}");
    }
}

/// An engine on 2 sites × `per_site`, exact estimates, paused at `at`.
fn engine_at(name: PolicyName, per_site: u32, jobs: Vec<JobSpec>, at: f64) -> Engine {
    engine_seeded_at(name, per_site, 1, jobs, at)
}

/// As [`engine_at`], with the run's seed.
fn engine_seeded_at(
    name: PolicyName,
    per_site: u32,
    seed: u64,
    jobs: Vec<JobSpec>,
    at: f64,
) -> Engine {
    let mut platform = Platform::uniform(2, per_site);
    platform.split_overhead = 0.1;
    let policy = PolicySpec::named(name);
    let config = EngineConfig {
        estimates: EstimateModel::exact(),
        seed,
        ..EngineConfig::default()
    };
    let mut e =
        schedscope::simulation::engine(platform, Box::new(jobs.into_iter()), &policy, config)
            .unwrap();
    e.step_until(SimTime::from_secs_f64(at));
    e
}

/// A one-task job injected now, at `site` or at none.
fn inject_one(e: &mut Engine, runtime: f64, site: Option<u32>) -> Result<String, CommandError> {
    e.apply(Command::InjectJobs {
        jobs: vec![InjectJob {
            size: 1,
            runtime,
            estimate: None,
            components: None,
            count: 1,
            site,
        }],
    })
    .map(|o| o.message)
}

/// The grid's per-processor view of the engine's policy.
fn grid_state(e: &Engine) -> GridStateView {
    let state = e.policy_state();
    match state.detail::<GridStateView>() {
        Some(g) => g.clone(),
        None => panic!("not the grid's state: {state:?}"),
    }
}

/// Site 1's two processors run L3 and L4 to 20 while site 0 is idle. A
/// local job injected at site 1 at t = 5 (3 s) queues behind one of them
/// (it cannot start now, and site 0 is not its site), starts at 20 on
/// site 1 and ends once at 23. The same job injected with no site is a
/// one-task gang for the grid scheduler, which starts it at once on idle
/// site 0.
#[test]
fn an_injected_local_job_queues_at_its_site_and_ends_once() {
    let jobs = || vec![local(3, 0.0, 1, 20.0), local(4, 0.0, 1, 20.0)];
    for name in [names::GRID_1, names::GRID_2] {
        let mut e = engine_at(name, 2, jobs(), 5.0);
        let msg = inject_one(&mut e, 3.0, Some(1)).unwrap();
        let id = INJECTED_ID_BASE + 1;
        assert_eq!(msg, format!("injected job {id}"));
        let g = grid_state(&e);
        let queued: Vec<(usize, usize)> = (0..2)
            .flat_map(|s| (0..2).map(move |p| (s, p)))
            .filter(|&(s, p)| g.sites[s][p].head == Some((id, false)))
            .collect();
        assert_eq!(queued.len(), 1, "{name:?}: {g:?}");
        let (s, p) = queued[0];
        assert_eq!(s, 1, "{name:?}: queued at site 1");
        assert_eq!(g.sites[1][p].depth, 1);
        assert!(g.sites[1][p].running.is_some(), "behind a running job");
        assert!(
            g.sites[0]
                .iter()
                .all(|c| c.running.is_none() && c.depth == 0),
            "{name:?}: site 0 stays idle: {g:?}"
        );
        e.run();
        let recs: Vec<JobRecord> = e.drain_records().collect();
        let mine: Vec<&JobRecord> = recs.iter().filter(|r| r.id == id).collect();
        assert_eq!(mine.len(), 1, "{name:?}: ends exactly once");
        let r = mine[0];
        assert!(r.injected);
        assert_eq!(r.clusters, vec![1]);
        assert_eq!(
            (
                r.submit.as_secs_f64(),
                r.start.as_secs_f64(),
                r.end.as_secs_f64()
            ),
            (5.0, 20.0, 23.0),
            "{name:?}"
        );
        assert_eq!(recs.len(), 3);

        // Without a site: a one-task gang, started at once on site 0.
        let mut e = engine_at(name, 2, jobs(), 5.0);
        inject_one(&mut e, 3.0, None).unwrap();
        e.run();
        let r = e
            .drain_records()
            .find(|r| r.injected)
            .expect("the injected job ends");
        assert_eq!(r.clusters, vec![0]);
        assert_eq!((r.start.as_secs_f64(), r.end.as_secs_f64()), (5.0, 8.0));
    }
}

/// A site outside the platform, or a site on a job of several tasks, is
/// refused with a reason (the run goes on); under a policy without sites
/// (EASY here) the site is carried but not read: the job starts at once
/// wherever processors are free, as a job of no site would.
#[test]
fn an_injected_site_is_checked_and_only_the_grid_policies_read_it() {
    let jobs = || vec![local(3, 0.0, 1, 20.0), local(4, 0.0, 1, 20.0)];
    let mut e = engine_at(names::GRID_2, 2, jobs(), 5.0);
    let err = inject_one(&mut e, 3.0, Some(2)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "injected job: site 2 does not exist: the sites are 0 to 1 (one per cluster)"
    );
    let err = e
        .apply(Command::InjectJobs {
            jobs: vec![InjectJob {
                size: 2,
                runtime: 1.0,
                estimate: None,
                components: None,
                count: 1,
                site: Some(0),
            }],
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "injected job: a site is for a one-task local job; this one has 2 tasks (leave the site out for a gang)"
    );
    assert!(
        e.command_log().is_empty(),
        "refused commands are not logged"
    );

    let mut e = engine_at(names::EASY, 2, jobs(), 5.0);
    inject_one(&mut e, 3.0, Some(1)).unwrap();
    e.run();
    let r = e
        .drain_records()
        .find(|r| r.injected)
        .expect("the injected job ends");
    assert_eq!(
        r.clusters,
        vec![0],
        "site 1 is full: EASY starts it on site 0"
    );
    assert_eq!((r.start.as_secs_f64(), r.end.as_secs_f64()), (5.0, 8.0));
}

/// The two readings of an idle processor (`[policy.params] idle`). Gang 9
/// waits on both queues of site 0 for L1 (to 10); L2 ends at 4 and leaves
/// its processor executing nothing, gang 9's task at the head of its
/// queue. Gang 8 (one task, 3 s) comes at 5. Not executing is idle (the
/// default): it starts on that processor at once and is gone by 8, before
/// gang 9 needs it. Unclaimed: that processor is gang 9's, so gang 8 takes
/// the one empty queue left (site 1's, behind L3 or L4) and starts at 20.
#[test]
fn a_processor_held_by_a_waiting_gang_is_idle_only_under_the_default_reading() {
    let jobs = gang_waits_on_site_0(&[gang(8, 5.0, 1, 3.0)]);
    for (idle, eight) in [(None, (5.0, 8.0)), (Some("unclaimed"), (20.0, 23.0))] {
        let params: Vec<(&str, &str)> = idle.iter().map(|&v| ("idle", v)).collect();
        let (recs, e) = run_with(names::GRID_1, 2, &params, jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (2, 0.0, 4.0),
                (3, 0.0, 20.0),
                (4, 0.0, 20.0),
                (5, 20.0, 21.0),
                (8, eight.0, eight.1),
                (9, 10.0, 15.0),
            ],
            "{idle:?}"
        );
        assert_eq!(e.counters().refused, 0);
    }
}

/// Both sites busy to 10 on one processor and to 4 on the other; gangs 9
/// and 7 (2 tasks each) take the empty queues of one site each and wait
/// for the processors busy to 10. From 4 each site has one processor
/// executing nothing. Gang 8 (2 tasks, 3 s) comes at 5: no one site has
/// two idle processors or two empty queues. Approach 1 does not split a
/// gang one site can hold: it waits in the grid queue, goes to a site
/// when 9 and 7 start at 10 and start at 15. Approach 2 splits it over
/// the idle processors of both sites at once, 10 % longer.
#[test]
fn only_approach_two_splits_a_gang_that_one_site_can_hold() {
    let jobs = vec![
        local(1, 0.0, 0, 10.0),
        local(2, 0.0, 0, 4.0),
        local(3, 0.0, 1, 10.0),
        local(4, 0.0, 1, 4.0),
        gang(9, 1.0, 2, 5.0),
        gang(7, 1.5, 2, 5.0),
        gang(8, 5.0, 2, 3.0),
    ];
    for (name, eight) in [(names::GRID_1, (15.0, 18.0)), (names::GRID_2, (5.0, 8.3))] {
        let (recs, _) = run(name, 2, jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (2, 0.0, 4.0),
                (3, 0.0, 10.0),
                (4, 0.0, 4.0),
                (7, 10.0, 15.0),
                (8, eight.0, eight.1),
                (9, 10.0, 15.0),
            ],
            "{name:?}"
        );
        let g = recs.iter().find(|r| r.id == 8).unwrap();
        assert_eq!(g.clusters.len(), if name == names::GRID_1 { 1 } else { 2 });
    }
}

/// A gang one site can hold (flexible, or asking for one component) goes
/// to a site drawn at random among those with room: over sixteen seeds,
/// on an empty platform, both sites are drawn.
#[test]
fn a_gang_one_site_can_hold_goes_to_a_random_site() {
    for components in [vec![], vec![2]] {
        let mut drawn = [0; 2];
        for seed in 0..16 {
            let mut g = gang(9, 0.0, 2, 5.0);
            g.components = components.clone();
            let (recs, _) = run_seeded(names::GRID_1, 2, &[], seed, vec![g]);
            assert_eq!(recs[0].start, SimTime::ZERO);
            assert_eq!(recs[0].clusters.len(), 1);
            drawn[recs[0].clusters[0] as usize] += 1;
        }
        assert!(drawn.iter().all(|&n| n > 0), "{components:?}: {drawn:?}");
    }
}

/// The two readings of the time until a gang can start
/// (`[policy.params] elapsed`). Gang 9 waits on both queues of site 0 for
/// L1, which ends at 10 but was estimated to run 30 s. L6 (8 s) comes at 5
/// to the processor L2 left at 4. Exact (the default): the gang starts in
/// 5 s, too soon for L6, which queues behind it, unless the gang may be
/// kept waiting 3 s more (`threshold`, T). Estimated: in 25 s, so L6
/// starts at once and the gang waits for it until 13.
#[test]
fn a_local_job_backfills_by_the_exact_or_the_estimated_wait_of_the_gang() {
    let mut jobs = gang_waits_on_site_0(&[local(6, 5.0, 0, 8.0)]);
    jobs[0].estimate = Some(SimTime::from_secs(30));
    let exact: &[(&str, &str)] = &[("elapsed", "exact")];
    let three: &[(&str, &str)] = &[("elapsed", "exact"), ("threshold", "3")];
    let estimated: &[(&str, &str)] = &[("elapsed", "estimated")];
    for (params, six, nine) in [
        (exact, (15.0, 23.0), (10.0, 15.0)),
        (three, (5.0, 13.0), (13.0, 18.0)),
        (estimated, (5.0, 13.0), (13.0, 18.0)),
    ] {
        let (recs, _) = run_with(names::GRID_1, 2, params, jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (2, 0.0, 4.0),
                (3, 0.0, 20.0),
                (4, 0.0, 20.0),
                (5, 20.0, 21.0),
                (6, six.0, six.1),
                (9, nine.0, nine.1),
            ],
            "{params:?}"
        );
    }
}

/// A gang's wait counts a job started at the same instant, before the
/// engine shows it running, to the end planned for it. Three processors a
/// site; site 1 is busy to 100 with one queue taken. At 2, L7 (20 s) takes
/// one of site 0's two idle processors, gang 9 (3 tasks) takes site 0's
/// three empty queues and must wait for L7 until 22, and L8 (15 s) may
/// start at once on the processor left idle: 15 ≤ 22 − 2.
#[test]
fn a_job_started_at_the_same_instant_counts_in_the_gang_wait_by_its_planned_end() {
    let jobs = vec![
        local(1, 0.0, 0, 10.0),
        local(3, 0.0, 1, 100.0),
        local(4, 0.0, 1, 100.0),
        local(5, 0.0, 1, 100.0),
        local(6, 0.5, 1, 1.0),
        local(7, 2.0, 0, 20.0),
        gang(9, 2.0, 3, 5.0),
        local(8, 2.0, 0, 15.0),
    ];
    for elapsed in ["exact", "estimated"] {
        let (recs, _) = run_with(names::GRID_1, 3, &[("elapsed", elapsed)], jobs.clone());
        assert_eq!(
            times(&recs),
            vec![
                (1, 0.0, 10.0),
                (3, 0.0, 100.0),
                (4, 0.0, 100.0),
                (5, 0.0, 100.0),
                (6, 100.0, 101.0),
                (7, 2.0, 22.0),
                (8, 2.0, 17.0),
                (9, 22.0, 27.0),
            ],
            "{elapsed}"
        );
    }
}

/// Site 0's processors are busy to 10 and to 4. L3 (1 s) comes at 1 and
/// queues behind either, drawn at random (over eight seeds, each is
/// drawn); L4 (1 s) at 1.5 goes to the shortest queue, the other one: one
/// of them starts at 4, the other at 10.
#[test]
fn a_local_job_that_cannot_start_joins_the_shortest_queue() {
    let jobs = vec![
        local(1, 0.0, 0, 10.0),
        local(2, 0.0, 0, 4.0),
        local(3, 1.0, 0, 1.0),
        local(4, 1.5, 0, 1.0),
    ];
    let mut drawn = [0; 2];
    for seed in 0..8 {
        let (recs, _) = run_seeded(names::GRID_1, 2, &[], seed, jobs.clone());
        let mut starts: Vec<f64> = recs[2..].iter().map(|r| r.start.as_secs_f64()).collect();
        starts.sort_by(f64::total_cmp);
        assert_eq!(starts, vec![4.0, 10.0], "seed {seed}");
        let e = engine_seeded_at(names::GRID_1, 2, seed, jobs[..3].to_vec(), 2.0);
        let behind = grid_state(&e).sites[0]
            .iter()
            .position(|p| p.head == Some((3, false)))
            .expect("L3 queued");
        drawn[behind] += 1;
    }
    assert!(drawn.iter().all(|&n| n > 0), "{drawn:?}");
}

/// As in the first example, with T = 6: when L6 frees its processor at
/// 9, L7 (7 s) queued behind the gang there may start, since 7 ≤ 10 − 9 +
/// 6, and the gang waits for it until 16.
#[test]
fn a_threshold_lets_a_queued_local_job_delay_the_gang() {
    let jobs = gang_waits_on_site_0(&[local(6, 2.0, 0, 5.0), local(7, 5.0, 0, 7.0)]);
    let (recs, e) = run_with(names::GRID_1, 2, &[("threshold", "6")], jobs);
    assert_eq!(
        times(&recs),
        vec![
            (1, 0.0, 10.0),
            (2, 0.0, 4.0),
            (3, 0.0, 20.0),
            (4, 0.0, 20.0),
            (5, 20.0, 21.0),
            (6, 4.0, 9.0),
            (7, 9.0, 16.0),
            (9, 16.0, 21.0),
        ]
    );
    assert_eq!(e.counters().started_ahead, 2, "L6 and L7 backfilled");
}

/// On a platform of one site, a one-task job of no site is a local job of
/// that site: A (0 to 10) holds one processor and gang G (2 tasks, 5 s)
/// waits for it on both queues. B (20 s, at 2) may not backfill on the
/// idle processor G waits for (2 + 20 > 10): it queues behind G there and
/// starts when G ends, at 15. Taken for a one-task gang, B would start at
/// once on that idle processor and delay G to 22.
#[test]
fn on_one_site_a_one_task_job_of_no_site_is_a_local_job() {
    let no_site = |id, submit, rt| JobSpec {
        home: None,
        ..local(id, submit, 0, rt)
    };
    let jobs = vec![
        no_site(1, 0.0, 10.0),
        gang(9, 1.0, 2, 5.0),
        no_site(2, 2.0, 20.0),
    ];
    let policy = PolicySpec::named(names::GRID_1);
    let config = EngineConfig {
        estimates: EstimateModel::default(),
        ..EngineConfig::default()
    };
    let platform = Platform::uniform(1, 2);
    let mut e =
        schedscope::simulation::engine(platform, Box::new(jobs.into_iter()), &policy, config)
            .unwrap();
    e.run();
    let mut recs: Vec<JobRecord> = e.drain_records().collect();
    recs.sort_by_key(|r| r.id);
    assert_eq!(
        times(&recs),
        vec![(1, 0.0, 10.0), (2, 15.0, 35.0), (9, 10.0, 15.0)]
    );
    assert_eq!(e.counters().refused, 0);
}

/// What the console shows of the split example above at t = 3: gang 9
/// runs split 1 + 2 over both sites (and is the only job listed as split:
/// L1 runs on one site), gang 8 heads all four queues, waiting for their
/// processors.
#[test]
fn the_state_lists_only_the_gangs_running_over_several_sites() {
    let jobs = vec![
        local(1, 0.0, 0, 10.0),
        gang(9, 1.0, 3, 5.0),
        gang(8, 2.0, 4, 2.0),
    ];
    let e = engine_at(names::GRID_2, 2, jobs, 3.0);
    let g = grid_state(&e);
    assert_eq!(g.split, vec![(9, vec![(0, 1), (1, 2)])]);
    assert_eq!(g.grid_queue, vec![]);
    assert_eq!(g.waiting, vec![(8, vec![(0, 2), (1, 2)])]);
    assert!(
        g.sites.iter().flatten().all(|p| p.head == Some((8, true))),
        "{g:?}"
    );
    let running: Vec<Option<u64>> = g.sites.iter().flatten().map(|p| p.running).collect();
    assert_eq!(running.iter().filter(|r| **r == Some(9)).count(), 3);
    assert_eq!(running.iter().filter(|r| **r == Some(1)).count(), 1);
}
