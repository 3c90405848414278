//! Hand-worked schedules: every start time checked.

use super::*;
use crate::model::{Cluster, JobSpec};
use crate::sched::MaxJumps;
use crate::sched::PlacementName;

fn job(id: u64, submit: i64, comps: &[u32], runtime: i64) -> JobSpec {
    JobSpec {
        size: comps.iter().sum(),
        components: comps.to_vec(),
        ..JobSpec::rigid(
            id,
            SimTime::from_secs(submit),
            0,
            SimTime::from_secs(runtime),
        )
    }
}

fn starts(platform: Platform, jobs: Vec<JobSpec>, policy: PolicySpec) -> Vec<(u64, i64)> {
    let mut e = Engine::new(
        platform,
        Box::new(jobs.into_iter()),
        &policy,
        EngineConfig::default(),
    )
    .unwrap();
    e.run();
    let mut v: Vec<(u64, i64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000))
        .collect();
    v.sort();
    v
}

/// Two clusters of 4: a co-allocated job (J3) blocks the queue under FCFS;
/// FPFS lets J4 (and with no limit, J5) jump it.
fn jumping_example() -> Vec<JobSpec> {
    vec![
        job(1, 0, &[4], 10),
        job(2, 0, &[4], 5),
        job(3, 1, &[4, 4], 2),
        job(4, 2, &[2], 3),
        job(5, 3, &[1], 1),
    ]
}

/// The jumping example on 2 × 4 processors under FCFS.
fn jumping_under_fcfs() -> Engine {
    Engine::new(
        Platform::uniform(2, 4),
        Box::new(jumping_example().into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap()
}

#[test]
fn fcfs_keeps_order() {
    let s = starts(
        Platform::uniform(2, 4),
        jumping_example(),
        PolicySpec::fcfs(),
    );
    assert_eq!(s, vec![(1, 0), (2, 0), (3, 10), (4, 12), (5, 12)]);
}

#[test]
fn fpfs_zero_is_fcfs() {
    let s = starts(
        Platform::uniform(2, 4),
        jumping_example(),
        PolicySpec::fpfs(MaxJumps::Limit(0)),
    );
    assert_eq!(s, vec![(1, 0), (2, 0), (3, 10), (4, 12), (5, 12)]);
}

#[test]
fn fpfs_one_allows_a_single_jump() {
    let s = starts(
        Platform::uniform(2, 4),
        jumping_example(),
        PolicySpec::fpfs(MaxJumps::Limit(1)),
    );
    assert_eq!(s, vec![(1, 0), (2, 0), (3, 10), (4, 5), (5, 12)]);
}

#[test]
fn fpfs_unlimited_lets_everything_that_fits_jump() {
    let s = starts(
        Platform::uniform(2, 4),
        jumping_example(),
        PolicySpec::fpfs(MaxJumps::Unlimited),
    );
    assert_eq!(s, vec![(1, 0), (2, 0), (3, 10), (4, 5), (5, 5)]);
}

fn uneven() -> Platform {
    Platform {
        split_overhead: 0.0,
        clusters: vec![
            Cluster {
                name: "big".into(),
                processors: 4,
                speed: 1.0,
            },
            Cluster {
                name: "small".into(),
                processors: 2,
                speed: 1.0,
            },
        ],
        network: None,
    }
}

#[test]
fn placements_differ_where_they_should() {
    let jobs = || vec![job(1, 0, &[2], 10), job(2, 0, &[4], 1)];
    let run = |p| starts(uneven(), jobs(), PolicySpec::fcfs().with_placement(p));
    assert_eq!(run(PlacementName::WorstFit), vec![(1, 0), (2, 10)]);
    assert_eq!(run(PlacementName::BestFit), vec![(1, 0), (2, 0)]);
    assert_eq!(run(PlacementName::FirstFit), vec![(1, 0), (2, 10)]);
}

#[test]
fn a_slower_cluster_stretches_the_run() {
    let mut p = Platform::uniform(2, 4);
    p.clusters[1].speed = 0.5;
    let mut e = Engine::new(
        p,
        Box::new(vec![job(1, 0, &[4], 10), job(2, 0, &[2, 2], 10)].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.run();
    let r: Vec<_> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000))
        .collect();
    // job 1 on c0 (speed 1): 10 s; job 2 spans both clusters, so runs at 0.5.
    assert_eq!(r, vec![(1, 0, 10), (2, 10, 30)]);
}

#[test]
fn set_rate_reschedules_the_completion() {
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(vec![job(1, 0, &[4], 10)].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(4));
    assert_eq!(e.running_len(), 1);
    e.set_rate(JobKey(0), 0.5); // 6 s of work left at half speed: 12 s
    e.run();
    let r: Vec<_> = e.drain_records().collect();
    assert_eq!(r[0].end, SimTime::from_secs(16));
}

#[test]
fn commands_switch_policy_and_inject() {
    let mut e = jumping_under_fcfs();
    e.step_until(SimTime::from_secs(4));
    let out = e
        .apply(Command::SetPolicy {
            policy: PolicySpec::fpfs(MaxJumps::Unlimited),
        })
        .unwrap();
    assert!(out.message.contains("FPFS"));
    // Nine processors on 2 × 4: the policy could never run it. It is
    // rejected with the reason, not queued to wait for ever.
    let out = e
        .apply(Command::InjectJobs {
            jobs: vec![InjectJob {
                size: 9,
                runtime: 1.0,
                estimate: None,
                components: None,
                count: 1,
                site: None,
            }],
        })
        .unwrap();
    assert!(
        out.message.contains("rejected by FPFS") && out.message.contains("needs 9 processors"),
        "{}",
        out.message
    );
    assert_eq!(e.counters().rejected, 1);
    assert_eq!(e.rejections()[0].id, INJECTED_ID_BASE + 1);
    e.apply(Command::InjectJobs {
        jobs: vec![InjectJob {
            size: 1,
            runtime: 1.0,
            estimate: None,
            components: None,
            count: 2,
            site: None,
        }],
    })
    .unwrap();
    assert_eq!(e.command_log().len(), 3);
    e.run();
    assert_eq!(e.check_conservation(), Ok(()));
    let recs: Vec<_> = e.drain_records().collect();
    assert_eq!(recs.len(), 7);
    assert_eq!(recs.iter().filter(|r| r.injected).count(), 2);
    // The switch at t=4 lets 4 and 5 jump at t=5.
    let start = |id| recs.iter().find(|r| r.id == id).unwrap().start.0 / 1_000_000;
    assert_eq!((start(4), start(5)), (5, 5));
}

/// Every injected job the engine cannot run is refused with its reason,
/// and nothing is queued: a command log or timeline edited by hand reaches
/// the engine without the console form's checks.
#[test]
fn bad_injected_jobs_are_refused_with_their_reason() {
    let mut e = jumping_under_fcfs();
    let good = InjectJob {
        size: 2,
        runtime: 1.0,
        estimate: None,
        components: None,
        count: 1,
        site: None,
    };
    let bad = [
        (
            InjectJob {
                size: 0,
                ..good.clone()
            },
            "size must be at least 1",
        ),
        (
            InjectJob {
                runtime: -1.0,
                ..good.clone()
            },
            "runtime must be",
        ),
        (
            InjectJob {
                runtime: f64::INFINITY,
                ..good.clone()
            },
            "runtime must be",
        ),
        (
            InjectJob {
                runtime: f64::NAN,
                ..good.clone()
            },
            "runtime must be",
        ),
        (
            InjectJob {
                estimate: Some(-1.0),
                ..good.clone()
            },
            "estimate must be",
        ),
        (
            InjectJob {
                estimate: Some(f64::INFINITY),
                ..good.clone()
            },
            "estimate must be",
        ),
        (
            InjectJob {
                components: Some(vec![1, 2]),
                ..good.clone()
            },
            "add up to the size",
        ),
        (
            InjectJob {
                components: Some(vec![2, 0]),
                ..good.clone()
            },
            "≥ 1 each",
        ),
        (
            InjectJob {
                site: Some(2),
                ..good.clone()
            },
            "site 2 does not exist",
        ),
        (
            InjectJob {
                site: Some(1),
                ..good.clone()
            },
            "one-task local job",
        ),
    ];
    for (job, reason) in bad {
        let err = e
            .apply(Command::InjectJobs {
                jobs: vec![good.clone(), job.clone()],
            })
            .unwrap_err();
        assert!(
            matches!(&err, CommandError::BadJob(m) if m.contains(reason)),
            "{job:?}: {err}"
        );
    }
    assert_eq!(e.queue_len(), 0, "a refused command queues nothing");
    assert!(e.command_log().is_empty());
    // Zero run time and estimate, and a local job on a site, are fine.
    let fine = [
        InjectJob {
            runtime: 0.0,
            estimate: Some(0.0),
            ..good.clone()
        },
        InjectJob {
            size: 1,
            site: Some(1),
            ..good.clone()
        },
    ];
    let said: Vec<String> = fine
        .into_iter()
        .map(|job| {
            e.apply(Command::InjectJobs { jobs: vec![job] })
                .unwrap()
                .message
        })
        .collect();
    e.run();
    let mut injected: Vec<(u64, u32)> = e
        .drain_records()
        .filter(|r| r.injected)
        .map(|r| (r.id, r.size))
        .collect();
    injected.sort_unstable();
    // Injected jobs are numbered on from the last, in the order injected;
    // a refused command takes no number, or a replay of the command log
    // (which holds only the commands applied) would number them otherwise.
    let first = injected[0].0;
    assert_eq!(first, INJECTED_ID_BASE + 1);
    assert_eq!(injected, [(first, 2), (first + 1, 1)]);
    assert_eq!(
        said,
        [
            format!("injected job {first}"),
            format!("injected job {}", first + 1)
        ]
    );
}

/// A command that injects jobs the policy can run beside one it never
/// could runs the first and rejects the other with its reason: nothing of
/// the command is lost, nothing waits for ever.
#[test]
fn an_injection_runs_what_it_can_and_rejects_what_it_never_could() {
    let mut e = jumping_under_fcfs();
    let job = |size, components: Option<Vec<u32>>| InjectJob {
        size,
        runtime: 1.0,
        estimate: None,
        components,
        count: 1,
        site: None,
    };
    // 5 without components is split by the policy (2 + 3 on 2 × 4); 5 as
    // one component can never fit; 2 fits anywhere.
    let out = e
        .apply(Command::InjectJobs {
            jobs: vec![job(2, None), job(5, Some(vec![5])), job(5, None)],
        })
        .unwrap();
    let (a, b, c) = (
        INJECTED_ID_BASE + 1,
        INJECTED_ID_BASE + 2,
        INJECTED_ID_BASE + 3,
    );
    assert!(
        out.message
            .starts_with(&format!("injected job {a}, {c}; rejected by FCFS"))
    );
    assert!(
        out.message
            .contains(&format!("job {b} asks for 5 processors as 5"))
    );
    e.run();
    assert_eq!(e.check_conservation(), Ok(()));
    let mut ids: Vec<u64> = e
        .drain_records()
        .filter(|r| r.injected)
        .map(|r| r.id)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [a, c]);
    let c = e.counters();
    assert_eq!((c.arrived, c.finished, c.rejected), (8, 7, 1));
}

#[test]
fn snapshot_shows_ownership() {
    let mut e = jumping_under_fcfs();
    e.step_until(SimTime::from_secs(3));
    let s = e.snapshot();
    let jobs = |c: &ClusterView| c.cells.iter().map(|x| x.job).collect::<Vec<_>>();
    assert_eq!(jobs(&s.clusters[0]), vec![Some(1); 4]);
    assert_eq!(jobs(&s.clusters[1]), vec![Some(2); 4]);
    assert_eq!(
        s.queue.iter().map(|q| q.id).collect::<Vec<_>>(),
        vec![3, 4, 5]
    );
    // FCFS's head, never jumped, against its limit of none.
    let panel = &s.policy_state.panel;
    assert_eq!(panel.head_note.as_deref(), Some("0/0"));
    assert_eq!(panel.head_lines[0].text(), "jumped 0 of 0 no more jumps");
}

/// An operator command applied between two events of one instant lands
/// after the rest of that instant, as a saved command log replays it (at
/// its time, once the instant's events are in). Jobs 1 and 2 both arrive
/// at 0 s; the estimate error flipped after job 1's arrival alone still
/// finds job 2 arrived, so job 2 keeps its exact estimate.
#[test]
fn a_command_between_events_of_one_instant_lands_after_them() {
    use crate::model::estimates::EstimateModel;
    let jobs = vec![job(1, 0, &[4], 10), job(2, 0, &[4], 10)];
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step();
    assert_eq!(e.next_event_time(), Some(SimTime::ZERO), "job 2 not in yet");
    e.apply(Command::SetEstimateError {
        estimates: EstimateModel::uniform_error(30.0),
        queued_too: false,
    })
    .unwrap();
    assert_eq!(e.now(), SimTime::ZERO);
    let s = e.snapshot();
    let queued: Vec<(u64, SimTime)> = s.queue.iter().map(|q| (q.id, q.estimate)).collect();
    assert_eq!(queued, vec![(2, SimTime::from_secs(10))]);
    assert_eq!(e.running_len(), 1);
}

/// Settling handles the events left at the current instant and no more,
/// and gives up, saying so, after its limit of events: ten jobs arrive at
/// 0 s; after the first arrival, three more events are not enough; the
/// rest of the instant is, and the clock is still at 0 s with the ten jobs
/// in (four running, six queued).
#[test]
fn settling_handles_the_instant_within_its_limit() {
    let jobs: Vec<JobSpec> = (1..=10).map(|id| job(id, 0, &[1], 10)).collect();
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step();
    assert!(!e.settle_within(3), "six arrivals are left after three");
    assert_eq!(e.counters().events, 4);
    assert!(e.settle_within(100));
    assert_eq!(e.counters().events, 10);
    assert_eq!(e.now(), SimTime::ZERO);
    assert_eq!((e.running_len(), e.queue_len()), (4, 6));
    assert!(e.settle(), "nothing left at 0 s");
    assert_eq!(e.counters().events, 10);
}

/// The processor-seconds held by the jobs running now, for a report of a
/// run cut short: at 4 s, job 1 (2 processors since 0 s) has held 8 and
/// job 2 (1 since 3 s) 1; job 3, queued, none.
#[test]
fn the_running_jobs_held_what_they_held_so_far() {
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(vec![job(1, 0, &[2], 10), job(2, 3, &[1], 10), job(3, 3, &[4], 1)].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    assert_eq!(e.running_held(), 0.0);
    e.step_until(SimTime::from_secs(4));
    assert_eq!(e.running_held(), 9.0);
}

/// A job's state by its workload id: running, queued, or gone (ended, or
/// not arrived yet) — each job's own, whatever the others'.
#[test]
fn a_job_is_found_by_its_id() {
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(
            vec![
                job(7, 0, &[4], 10),
                job(3, 1, &[4], 10),
                job(5, 30, &[1], 1),
            ]
            .into_iter(),
        ),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(2));
    assert_eq!(e.job_state(7), Some(JobState::Running));
    assert_eq!(e.job_state(3), Some(JobState::Queued));
    assert_eq!(e.job_state(5), None, "not arrived yet");
    e.step_until(SimTime::from_secs(15));
    assert_eq!(e.job_state(7), None, "ended");
    assert_eq!(e.job_state(3), Some(JobState::Running));
}

/// Stepping up to a time moves the clock there when it is ahead, and
/// never back; stepping up to the end of time handles every event and
/// leaves the clock at the last.
#[test]
fn stepping_until_a_time_never_moves_the_clock_back() {
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(vec![job(1, 0, &[4], 10), job(2, 5, &[4], 10)].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(7));
    assert_eq!(e.now(), SimTime::from_secs(7));
    e.step_until(SimTime::from_secs(3));
    assert_eq!(e.now(), SimTime::from_secs(7));
    e.step_until(SimTime::MAX);
    assert_eq!(e.now(), SimTime::from_secs(20));
    assert!(e.is_done());
}

#[test]
fn estimate_error_applies_to_later_arrivals_or_also_the_queue() {
    use crate::model::estimates::EstimateModel;
    let run = |queued_too: bool| {
        let mut e = Engine::new(
            Platform::uniform(1, 4),
            Box::new(
                vec![
                    job(1, 0, &[4], 10),
                    job(2, 1, &[4], 10),
                    job(3, 5, &[4], 10),
                ]
                .into_iter(),
            ),
            &PolicySpec::fcfs(),
            EngineConfig {
                estimates: EstimateModel::exact(),
                ..EngineConfig::default()
            },
        )
        .unwrap();
        e.step_until(SimTime::from_secs(2));
        e.apply(Command::SetEstimateError {
            estimates: EstimateModel::uniform_error(30.0),
            queued_too,
        })
        .unwrap();
        e.step_until(SimTime::from_secs(6));
        let s = e.snapshot();
        s.queue
            .iter()
            .map(|q| (q.id, q.estimate))
            .collect::<Vec<_>>()
    };
    let ten = SimTime::from_secs(10);
    let only_new = run(false);
    assert_eq!(only_new[0], (2, ten), "job 2 was queued before the flip");
    assert_ne!(only_new[1].1, ten, "job 3 arrived after it");
    let all = run(true);
    assert_ne!(all[0].1, ten, "queued_too re-estimates job 2");
}

mod protocol {
    use crate::engine::{Engine, EngineConfig};
    use crate::model::estimates::{EstimateModel, OnOverrun};
    use crate::model::{JobSpec, Platform, SimTime};
    use crate::sched::{JobKey, Policy, PolicySpec, PolicyState, Start, StartKind, SystemView};

    fn secs(s: i64) -> SimTime {
        SimTime::from_secs(s)
    }

    /// A one-cluster job whose estimate is its runtime.
    pub(super) fn job(id: u64, submit: i64, size: u32, runtime: i64) -> JobSpec {
        JobSpec {
            work: None,
            id,
            submit: secs(submit),
            size,
            components: vec![size],
            runtime: secs(runtime),
            estimate: Some(secs(runtime)),
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: None,
            graph: None,
        }
    }

    fn kill_engine(jobs: Vec<JobSpec>) -> Engine {
        kill_engine_on(4, jobs)
    }

    fn kill_engine_on(processors: u32, jobs: Vec<JobSpec>) -> Engine {
        Engine::new(
            Platform::uniform(1, processors),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig {
                estimates: EstimateModel::exact().with_overrun(OnOverrun::Kill),
                ..EngineConfig::default()
            },
        )
        .unwrap()
    }

    /// A job of 10 s with an exact estimate runs twice as fast from 4 s:
    /// its 6 s of work left take 3 s, so it ends at 7, well within the
    /// allowance it started with (to 10): not an overrun, not killed.
    #[test]
    fn a_job_sped_up_mid_run_is_not_overrunning() {
        let mut e = kill_engine(vec![job(1, 0, 4, 10)]);
        e.step_until(secs(4));
        e.set_rate(JobKey(0), 2.0);
        e.run();
        let r: Vec<_> = e.drain_records().collect();
        assert_eq!((r[0].end, r[0].killed), (secs(7), false));
        assert_eq!(e.counters().overruns, 0);
    }

    /// A job that ends exactly at the end of its estimate has not overrun
    /// it, and the engine sets no expiry event for it: its run takes two
    /// events, its arrival and its end (the event count is reported).
    #[test]
    fn a_job_ending_at_its_estimate_has_no_expiry_event() {
        let mut e = kill_engine(vec![job(1, 0, 4, 10)]);
        e.run();
        let r: Vec<_> = e.drain_records().collect();
        assert_eq!((r[0].end, r[0].killed), (secs(10), false));
        let c = e.counters();
        assert_eq!((c.events, c.overruns), (2, 0), "{c:?}");
    }

    /// Each rate change leaves the job's old completion event behind,
    /// stale; the engine sweeps such events out of its queue once they are
    /// many, so that a run with many rate changes (links, folding) keeps
    /// its event queue bounded. 20,000 changes at one instant leave at most
    /// a few thousand events queued, and the job still ends on time.
    #[test]
    fn stale_events_are_swept_out_of_the_queue() {
        let mut e = kill_engine(vec![job(1, 0, 4, 100)]);
        e.step_until(secs(1));
        for i in 0..20_000 {
            e.set_rate(JobKey(0), if i % 2 == 0 { 2.0 } else { 1.0 });
        }
        assert!(e.events.len() <= 8_194, "{} events queued", e.events.len());
        e.run();
        let r: Vec<_> = e.drain_records().collect();
        assert_eq!((r[0].end, r[0].killed), (secs(100), false));
    }

    /// Below that many, stale events stay queued and are counted as they
    /// come due: a job whose rate changes twice has four events in the
    /// reported count (its arrival, two old completions and its end). A
    /// sweep at every change would report two.
    #[test]
    fn a_few_stale_events_are_counted_as_they_come_due() {
        let mut e = kill_engine(vec![job(1, 0, 4, 100)]);
        e.step_until(secs(1));
        e.set_rate(JobKey(0), 2.0);
        e.set_rate(JobKey(0), 1.0);
        e.run();
        let r: Vec<_> = e.drain_records().collect();
        assert_eq!(r[0].end, secs(100));
        assert_eq!(e.counters().events, 4);
    }

    /// The sweep waits for more than 4,096 stale events, counted exactly:
    /// a job past its estimate (its expiry event taken) whose rate changes
    /// 4,096 times has as many stale completions queued beside its live
    /// one; the next change sweeps them all out.
    #[test]
    fn the_sweep_comes_after_4096_stale_events() {
        let mut e = Engine::new(
            Platform::uniform(1, 4),
            Box::new(
                vec![JobSpec {
                    estimate: Some(secs(50)),
                    ..job(1, 0, 4, 100)
                }]
                .into_iter(),
            ),
            &PolicySpec::fcfs(),
            EngineConfig {
                estimates: EstimateModel::default().with_overrun(OnOverrun::Continue),
                ..EngineConfig::default()
            },
        )
        .unwrap();
        e.step_until(secs(60));
        assert_eq!(e.counters().overruns, 1);
        for i in 0..4_096 {
            e.set_rate(JobKey(0), if i % 2 == 0 { 2.0 } else { 1.0 });
        }
        assert_eq!(e.events.len(), 4_097);
        e.set_rate(JobKey(0), 1.0);
        assert_eq!(e.events.len(), 1);
        e.run();
        let r: Vec<_> = e.drain_records().collect();
        assert_eq!(r[0].end, secs(100));
    }

    /// ... and for more than half the queue: beside 4,097 other running
    /// jobs' live completions, 4,097 stale events are not yet more than
    /// half of the 8,195 queued, and 4,098 are.
    #[test]
    fn the_sweep_waits_for_stale_events_to_be_most_of_the_queue() {
        let others = 4_097;
        let mut e = kill_engine_on(
            others + 1,
            (1..=others as u64 + 1)
                .map(|id| job(id, 0, 1, 100))
                .collect(),
        );
        e.step_until(secs(1));
        assert_eq!(e.counters().started, others as u64 + 1);
        for i in 0..4_097 {
            e.set_rate(JobKey(0), if i % 2 == 0 { 2.0 } else { 1.0 });
        }
        assert_eq!(e.events.len(), 8_195);
        e.set_rate(JobKey(0), 1.0);
        assert_eq!(e.events.len(), 4_098);
        e.run();
        e.check_conservation().expect("every job ended");
    }

    /// A rate that is not a positive number, or one for a job that is not
    /// running, changes nothing: the running job still ends at 10 s, and
    /// the queued one runs its 10 s at full speed after it.
    #[test]
    fn a_rate_that_is_not_positive_or_for_a_queued_job_is_ignored() {
        let mut e = kill_engine(vec![job(1, 0, 4, 10), job(2, 1, 4, 10)]);
        e.step_until(secs(4));
        for rate in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            e.set_rate(JobKey(0), rate);
        }
        e.set_rate(JobKey(1), 2.0);
        e.run();
        let mut r: Vec<_> = e
            .drain_records()
            .map(|r| (r.id, r.start, r.end, r.killed))
            .collect();
        r.sort_by_key(|r| r.0);
        assert_eq!(
            r,
            vec![
                (1, secs(0), secs(10), false),
                (2, secs(10), secs(20), false)
            ]
        );
        assert_eq!(e.counters().overruns, 0);
    }

    /// The same job slowed to half speed from 4 s would need 12 s more, to
    /// 16; its allowance ends at 10, where it is killed with work left.
    #[test]
    fn a_job_slowed_mid_run_overruns_at_its_allowance() {
        let mut e = kill_engine(vec![job(1, 0, 4, 10)]);
        e.step_until(secs(4));
        e.set_rate(JobKey(0), 0.5);
        e.run();
        let r: Vec<_> = e.drain_records().collect();
        assert_eq!((r[0].end, r[0].killed), (secs(10), true));
        let c = e.counters();
        assert_eq!((c.overruns, c.killed, c.finished), (1, 1, 1), "{c:?}");
    }

    /// A policy that first decides the impossible — a job not in the queue,
    /// too many processors, a busy processor, a cluster that does not
    /// exist — and then what FCFS would. Each wrong decision is refused
    /// with its reason and the run goes on to the end.
    struct Faulty {
        spec: PolicySpec,
    }

    impl Policy for Faulty {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }

        fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<crate::sched::Abort>) {}

        fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
            None
        }

        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            let Some(&head) = view.queue.first() else {
                return;
            };
            let w = view.job(head).size;
            let start = |assignment, processors| Start {
                job: head,
                assignment,
                kind: StartKind::Head,
                processors,
                processes: None,
            };
            out.push(Start {
                job: JobKey(999),
                ..start(vec![(0, w)], None)
            });
            out.push(start(vec![(0, w + 10)], None));
            out.push(start(vec![(7, w)], None));
            if let Some(&r) = view.running.first() {
                let busy = view.job(r).processors[0][0];
                out.push(start(vec![(0, 1)], Some(vec![vec![busy]])));
            }
            if view.free[0] >= w {
                out.push(start(vec![(0, w)], None));
                // The same job twice: the second is no longer queued.
                out.push(start(vec![(0, w)], None));
            }
        }

        fn state(&self, _view: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    fn faulty(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
        Ok(Box::new(Faulty { spec: spec.clone() }))
    }

    #[test]
    fn impossible_decisions_are_refused_and_the_run_goes_on() {
        let jobs = vec![job(1, 0, 3, 5), job(2, 1, 1, 5), job(3, 2, 4, 5)];
        let mut e = Engine::with_builder(
            Platform::uniform(1, 4),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
            crate::sched::Policies::of(faulty),
        )
        .unwrap();
        e.run();
        e.check_conservation().expect("every job ended");
        let mut ends: Vec<(u64, SimTime, SimTime)> =
            e.drain_records().map(|r| (r.id, r.start, r.end)).collect();
        ends.sort();
        assert_eq!(
            ends,
            vec![
                (1, secs(0), secs(5)),
                (2, secs(1), secs(6)),
                (3, secs(6), secs(11))
            ]
        );
        assert!(e.counters().refused >= 12, "{:?}", e.counters());
        let (_, last) = e.last_refusal().expect("refusals kept");
        assert!(!last.to_string().is_empty());
    }

    /// FCFS whose first `wrong` attempts to start each job ask for more
    /// processors than the cluster has.
    struct Clumsy {
        spec: PolicySpec,
        wrong: fn(u64) -> u32,
        tries: std::collections::HashMap<u64, u32>,
    }

    impl Policy for Clumsy {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<crate::sched::Abort>) {}
        fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
            None
        }
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            let mut free = view.free[0];
            for &k in view.queue {
                let job = view.job(k);
                if job.size > free {
                    break;
                }
                let tries = self.tries.entry(job.id).or_default();
                *tries += 1;
                let w = if *tries > (self.wrong)(job.id) {
                    free -= job.size;
                    job.size
                } else {
                    100
                };
                out.push(Start {
                    job: k,
                    assignment: vec![(0, w)],
                    kind: StartKind::Head,
                    processors: None,
                    processes: None,
                });
            }
        }
        fn state(&self, _view: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    /// The passes retried after a refusal are counted per instant: having
    /// used them all at one instant leaves them all for the next. Job 1's
    /// first four starts are refused, the pass at 0 s and its three
    /// retries, so it starts at the next event, job 2's arrival at 5 s;
    /// job 2's first start, refused there, is retried at once and it
    /// starts at 5 s too, not at job 1's end.
    #[test]
    fn refused_passes_are_retried_afresh_at_each_instant() {
        let jobs = vec![job(1, 0, 1, 10), job(2, 5, 1, 10)];
        let mut e = Engine::with_builder(
            Platform::uniform(1, 4),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
            crate::sched::Policies::of(|spec, _p| {
                Ok(Box::new(Clumsy {
                    spec: spec.clone(),
                    wrong: |id| if id == 1 { 4 } else { 1 },
                    tries: Default::default(),
                }))
            }),
        )
        .unwrap();
        e.run();
        e.check_conservation().expect("every job ended");
        let mut ends: Vec<(u64, SimTime, SimTime)> =
            e.drain_records().map(|r| (r.id, r.start, r.end)).collect();
        ends.sort();
        assert_eq!(ends, vec![(1, secs(5), secs(15)), (2, secs(5), secs(15))]);
        assert_eq!(e.counters().refused, 5, "{:?}", e.counters());
    }
}

mod flexible_split {
    use crate::engine::{Engine, EngineConfig};
    use crate::model::{JobSpec, Platform, SimTime};
    use crate::sched::{
        Abort, JobKey, Policy, PolicySpec, PolicyState, Refusal, Start, StartKind, SystemView,
    };

    /// Splits every job over the two clusters as 3 + (size − 3), after one
    /// split that does not add up.
    struct Splitter {
        spec: PolicySpec,
        tried: bool,
    }

    impl Policy for Splitter {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
        fn recheck_at(&self, _v: &SystemView<'_>) -> Option<SimTime> {
            None
        }
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            for &k in view.queue {
                let n = view.job(k).size;
                if !self.tried {
                    self.tried = true;
                    out.push(Start {
                        job: k,
                        assignment: vec![(0, 3), (1, n)],
                        kind: StartKind::Head,
                        processors: None,
                        processes: None,
                    });
                }
                out.push(Start {
                    job: k,
                    assignment: vec![(0, 3), (1, n - 3)],
                    kind: StartKind::Head,
                    processors: None,
                    processes: None,
                });
            }
        }
        fn state(&self, _v: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    fn build(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
        Ok(Box::new(Splitter {
            spec: spec.clone(),
            tried: false,
        }))
    }

    /// A job of 7 processors that names no components is split by the
    /// policy as 3 + 4 over two clusters of 4; a split that does not add up
    /// to 7 is refused with the widths it gave.
    #[test]
    fn the_policy_splits_a_job_that_names_no_components() {
        let job = JobSpec {
            components: Vec::new(),
            ..JobSpec::rigid(1, SimTime::ZERO, 7, SimTime::from_secs(5))
        };
        let mut e = Engine::with_builder(
            Platform::uniform(2, 4),
            Box::new(vec![job].into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
            crate::sched::Policies::of(build),
        )
        .unwrap();
        e.step();
        let (_, refusal) = e.last_refusal().expect("the bad split is refused").clone();
        assert_eq!(
            refusal,
            Refusal::Split {
                job: 1,
                given: vec![3, 7],
                size: 7
            }
        );
        assert_eq!(e.free_processors(), &[1, 0]);
        let _ = JobKey(0);
        e.run();
        e.check_conservation().unwrap();
        let r: Vec<_> = e.drain_records().collect();
        assert_eq!(
            (r[0].clusters.clone(), r[0].end),
            (vec![0, 1], SimTime::from_secs(5))
        );
    }
}

/// Queued jobs keep what they came with across estimate flips: a trace
/// job's own estimate (30 s for 10 s of work) comes back when the operator
/// flips the queue to exact estimates and back to the trace's, and an
/// injected job's own estimate (40 s) stays through both.
#[test]
fn queued_jobs_get_their_own_estimates_back_after_a_flip() {
    use crate::model::estimates::EstimateModel;
    let secs = SimTime::from_secs;
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(
            vec![
                job(1, 0, &[4], 10),
                JobSpec {
                    estimate: Some(secs(30)),
                    ..job(2, 1, &[4], 10)
                },
            ]
            .into_iter(),
        ),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(secs(2));
    e.apply(Command::InjectJobs {
        jobs: vec![InjectJob {
            size: 4,
            runtime: 10.0,
            estimate: Some(40.0),
            components: None,
            count: 1,
            site: None,
        }],
    })
    .unwrap();
    let estimates = |e: &Engine| {
        e.snapshot()
            .queue
            .iter()
            .map(|q| (q.id, q.estimate.0 / 1_000_000))
            .collect::<Vec<_>>()
    };
    let injected = INJECTED_ID_BASE + 1;
    assert_eq!(estimates(&e), vec![(2, 30), (injected, 40)]);
    assert_eq!(e.queue_len(), 2);
    for (model, want) in [(EstimateModel::exact(), 10), (EstimateModel::default(), 30)] {
        e.apply(Command::SetEstimateError {
            estimates: model.clone(),
            queued_too: true,
        })
        .unwrap();
        assert_eq!(estimates(&e), vec![(2, want), (injected, 40)]);
        assert_eq!(e.estimates(), &model);
    }
}

/// A lost-jobs error says when, how many arrived and ended, and which jobs
/// were left where, the first twenty of them.
#[test]
fn a_conservation_error_names_the_jobs_left() {
    let c = Conservation {
        at: SimTime::from_secs(7),
        arrived: 30,
        finished: 5,
        events_left: 2,
        left: (1..=25).map(|id| (id, "queued")).collect(),
    };
    let text = c.to_string();
    assert!(
        text.contains("30 arrived, 5 ended, 2 events left"),
        "{text}"
    );
    assert!(text.contains("1 (queued), 2 (queued)"), "{text}");
    assert!(text.contains("20 (queued), and 5 more"), "{text}");
    assert!(!text.contains("21 (queued)"), "{text}");
    let none = Conservation {
        left: Vec::new(),
        ..c
    };
    assert!(none.to_string().contains("none in the system"));
    let twenty = Conservation {
        left: (1..=20).map(|id| (id, "running")).collect(),
        ..c
    };
    let text = twenty.to_string();
    assert!(
        text.contains("20 (running)") && !text.contains("more"),
        "{text}"
    );
}

/// The counters' JSON leaves out the refused, folded and expanded counts
/// while they are zero, and gives them once they are not.
#[test]
fn the_counters_name_refusals_and_resizes_only_when_there_are_some() {
    let zero = serde_json::to_value(Counters::default()).unwrap();
    for key in ["refused", "folded", "expanded"] {
        assert!(zero.get(key).is_none(), "{key}: {zero}");
    }
    assert_eq!(zero["finished"], 0);
    let some = serde_json::to_value(Counters {
        refused: 1,
        folded: 2,
        expanded: 3,
        ..Counters::default()
    })
    .unwrap();
    assert_eq!(
        (&some["refused"], &some["folded"], &some["expanded"]),
        (&1.into(), &2.into(), &3.into())
    );
}

/// Asked in the middle of a run, the check reports the jobs still in the
/// system and the events still to come: here job 1 running (its
/// completion pending) and job 2 not yet arrived (its arrival pending).
#[test]
fn a_conservation_check_mid_run_counts_the_events_left() {
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(vec![job(1, 0, &[2], 10), job(2, 5, &[2], 10)].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(1));
    let err = e.check_conservation().expect_err("job 1 is still running");
    assert_eq!((err.arrived, err.finished), (1, 0));
    assert_eq!(err.left, vec![(1, "running")]);
    assert_eq!(err.events_left, e.events.len());
    assert!(err.events_left >= 2, "{}", err.events_left);
    e.run();
    e.check_conservation().unwrap();
}

/// An injected job written without `count` is one job, and says so when
/// the command is written out again (a saved timeline).
#[test]
fn an_injected_job_without_a_count_is_one() {
    let job: InjectJob = toml::from_str("size = 2\nruntime = 1.0").unwrap();
    assert_eq!(job.count, 1);
    assert!(toml::to_string(&job).unwrap().contains("count = 1"));
}

mod restless {
    use super::protocol::job;
    use crate::engine::{Engine, EngineConfig};
    use crate::model::estimates::{EstimateModel, OnOverrun};
    use crate::model::{Platform, SimTime};
    use crate::sched::{
        Abort, Policy, PolicySpec, PolicyState, Refusal, Start, StartKind, SystemView,
    };

    /// FCFS that asks, after every decision, to decide again at once,
    /// whether or not anything changed: a policy bug that would hold the
    /// clock at one instant for ever.
    struct Restless {
        spec: PolicySpec,
    }

    impl Policy for Restless {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
        fn recheck_at(&self, view: &SystemView<'_>) -> Option<SimTime> {
            Some(view.now)
        }
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            fcfs_starts(view, out);
        }
        fn state(&self, _v: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    /// FCFS on one cluster: the queue in order while the jobs fit.
    fn fcfs_starts(view: &SystemView<'_>, out: &mut Vec<Start>) {
        let mut free = view.free[0];
        for &k in view.queue {
            let w = view.job(k).size;
            if w > free {
                break;
            }
            free -= w;
            out.push(Start {
                job: k,
                assignment: vec![(0, w)],
                kind: StartKind::Head,
                processors: None,
                processes: None,
            });
        }
    }

    /// FCFS that at 2 s aborts every running job for its head, and then
    /// starts nothing before 5 s.
    struct Hesitant {
        spec: PolicySpec,
    }

    impl Policy for Hesitant {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<Abort>) {
            if view.now == SimTime::from_secs(2) {
                out.extend(view.running.iter().map(|&job| Abort { job, requeue: true }));
            }
        }
        fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
            None
        }
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            let now = view.now;
            if now < SimTime::from_secs(2) || now >= SimTime::from_secs(5) {
                fcfs_starts(view, out);
            }
        }
        fn state(&self, _v: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    /// An engine on one cluster of 4 under `on_overrun = "requeue"`, with
    /// the test policy `build` makes.
    fn requeue_engine(
        jobs: Vec<crate::model::JobSpec>,
        build: crate::sched::PolicyBuilder,
    ) -> Engine {
        Engine::with_builder(
            Platform::uniform(1, 4),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig {
                estimates: EstimateModel::exact().with_overrun(OnOverrun::Requeue),
                ..EngineConfig::default()
            },
            crate::sched::Policies::of(build),
        )
        .unwrap()
    }

    fn hesitant(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
        Ok(Box::new(Hesitant { spec: spec.clone() }))
    }

    /// A job aborted for the head stays out of the queue until the head
    /// has started, even when the policy lets time pass first: job 1 (the
    /// whole cluster, 100 s) is aborted at 2 s for job 2, which the policy
    /// starts only at 5 s, after arrivals at 3 and 5 s. Were job 1 back in
    /// the queue at 3 s, it would be first again and start at 5 s in job
    /// 2's place, which it was aborted to give.
    #[test]
    fn an_aborted_job_stays_out_until_the_head_it_made_room_for_starts() {
        let jobs = vec![
            job(1, 0, 4, 100),
            job(2, 1, 4, 10),
            job(3, 2, 1, 1),
            job(4, 3, 1, 1),
            job(5, 5, 1, 1),
        ];
        let mut e = requeue_engine(jobs, hesitant);
        e.run();
        e.check_conservation().expect("every job ended");
        assert_eq!(e.last_refusal(), None);
        let mut ends: Vec<(u64, i64, i64, u32)> = e
            .drain_records()
            .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000, r.requeues))
            .collect();
        ends.sort();
        assert_eq!(
            ends,
            vec![
                (1, 15, 115, 1),
                (2, 5, 15, 0),
                (3, 115, 116, 0),
                (4, 115, 116, 0),
                (5, 115, 116, 0)
            ]
        );
    }

    /// A policy is asked for aborts only under `on_overrun = "requeue"`,
    /// and only while a job waits and a job runs. Hesitant asks to abort
    /// every running job at 2 s: not heard when estimates are only
    /// estimates (job 1 runs its 100 s; job 2, arrived at 1 s, after it);
    /// nor under requeue when the event at 2 s (job 2's end) leaves
    /// nothing waiting.
    #[test]
    fn aborts_are_asked_for_only_under_requeue_and_for_a_waiting_job() {
        let under = |overrun: Option<OnOverrun>, jobs: Vec<crate::model::JobSpec>| {
            let estimates = match overrun {
                Some(o) => EstimateModel::exact().with_overrun(o),
                None => EstimateModel::exact(),
            };
            let mut e = Engine::with_builder(
                Platform::uniform(1, 4),
                Box::new(jobs.into_iter()),
                &PolicySpec::fcfs(),
                EngineConfig {
                    estimates,
                    ..EngineConfig::default()
                },
                crate::sched::Policies::of(hesitant),
            )
            .unwrap();
            e.run();
            e.check_conservation().expect("every job ended");
            let mut ends: Vec<(u64, i64, i64, u32)> = e
                .drain_records()
                .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000, r.requeues))
                .collect();
            ends.sort();
            ends
        };
        let waiting = || vec![job(1, 0, 4, 100), job(2, 1, 4, 10), job(3, 2, 1, 1)];
        let run_through = vec![(1, 0, 100, 0), (2, 100, 110, 0), (3, 110, 111, 0)];
        assert_eq!(under(None, waiting()), run_through);
        assert_eq!(under(Some(OnOverrun::Kill), waiting()), run_through);
        let none_waiting = vec![job(1, 0, 2, 100), job(2, 0, 2, 2)];
        assert_eq!(
            under(Some(OnOverrun::Requeue), none_waiting),
            vec![(1, 0, 100, 0), (2, 0, 2, 0)]
        );
    }

    /// Under requeue, a policy that takes one job a pass: it starts the
    /// first queued job and asks to decide again at once, and from `from`
    /// on only; until then it asks to decide again at `from`.
    struct OneAtATime {
        spec: PolicySpec,
        from: SimTime,
    }

    impl Policy for OneAtATime {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
        fn recheck_at(&self, view: &SystemView<'_>) -> Option<SimTime> {
            Some(view.now.max(self.from))
        }
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            if view.now < self.from {
                return;
            }
            let Some(&k) = view.queue.first() else {
                return;
            };
            let w = view.job(k).size;
            if w <= view.free[0] {
                out.push(Start {
                    job: k,
                    assignment: vec![(0, w)],
                    kind: StartKind::Head,
                    processors: None,
                    processes: None,
                });
            }
        }
        fn state(&self, _v: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    /// The jobs of [`OneAtATime`] starting from `FROM` seconds, on one
    /// cluster of 8: (id, start, end) in seconds, in id order.
    fn one_at_a_time<const FROM: i64>(jobs: Vec<crate::model::JobSpec>) -> Vec<(u64, i64, i64)> {
        let mut e = Engine::with_builder(
            Platform::uniform(1, 8),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig {
                estimates: EstimateModel::exact().with_overrun(OnOverrun::Requeue),
                ..EngineConfig::default()
            },
            crate::sched::Policies::of(|spec, _p| {
                Ok(Box::new(OneAtATime {
                    spec: spec.clone(),
                    from: SimTime::from_secs(FROM),
                }))
            }),
        )
        .unwrap();
        let mut steps = 0;
        while e.step().is_some() {
            steps += 1;
            assert!(steps < 1_000, "still at {:?} after {steps} steps", e.now());
        }
        e.check_conservation().expect("every job ended");
        assert_eq!(e.last_refusal(), None);
        let mut ends: Vec<(u64, i64, i64)> = e
            .drain_records()
            .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000))
            .collect();
        ends.sort();
        ends
    }

    /// A pass that started a job changed something, however many passes
    /// came before it at the instant: a policy that starts one job a pass
    /// starts all six 1-wide jobs arrived at 0 s, on 8 processors, at 0 s.
    #[test]
    fn passes_that_start_jobs_are_not_idle() {
        let jobs = (1..=6).map(|id| job(id, 0, 1, 10)).collect();
        let ends = one_at_a_time::<0>(jobs);
        assert_eq!(ends, (1..=6).map(|id| (id, 0, 10)).collect::<Vec<_>>());
    }

    /// A later time a policy asks to decide again at is a decision point
    /// of its own: job 1, arrived at 0 s, starts at the 5 s asked for,
    /// with no other event then.
    #[test]
    fn a_later_time_asked_for_is_a_decision_point() {
        let ends = one_at_a_time::<5>(vec![job(1, 0, 2, 10)]);
        assert_eq!(ends, vec![(1, 5, 15)]);
    }

    /// FCFS that writes down when it is asked to reshape (`'R'`) and to
    /// schedule (`'S'`), and asks for a wake at the instant it last
    /// scheduled — a time not ahead of now, which is no decision point.
    /// What it writes down goes to [`CALLS`] (one test uses it).
    struct Recorder {
        spec: PolicySpec,
        last: Option<SimTime>,
    }

    static CALLS: std::sync::Mutex<Vec<(i64, char)>> = std::sync::Mutex::new(Vec::new());

    fn call(now: SimTime, what: char) {
        CALLS.lock().unwrap().push((now.0 / 1_000_000, what));
    }

    impl Policy for Recorder {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
        fn recheck_at(&self, _v: &SystemView<'_>) -> Option<SimTime> {
            None
        }
        fn reshape(&mut self, view: &SystemView<'_>, _out: &mut Vec<crate::sched::Decision>) {
            call(view.now, 'R');
        }
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            call(view.now, 'S');
            self.last = Some(view.now);
            fcfs_starts(view, out);
        }
        fn wake_at(&self) -> Option<SimTime> {
            self.last
        }
        fn state(&self, _v: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    fn recorder(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
        Ok(Box::new(Recorder {
            spec: spec.clone(),
            last: None,
        }))
    }

    /// What the trait promises a policy: at every decision point with jobs
    /// running it is asked to reshape before it schedules, and once more
    /// after, only when something started; a wake asked for at now (not
    /// ahead of it) adds no decision point. Job 1 (2 of 4 processors,
    /// 10 s) arrives at 0 s and starts, job 2 (4 wide) at 1 s waits for
    /// it, and starts at 10 s.
    #[test]
    fn reshape_is_asked_before_the_starts_and_after_them_when_some_started() {
        let jobs = vec![job(1, 0, 2, 10), job(2, 1, 4, 10)];
        let mut e = Engine::with_builder(
            Platform::uniform(1, 4),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
            crate::sched::Policies::of(recorder),
        )
        .unwrap();
        e.run();
        e.check_conservation().expect("every job ended");
        // Nothing runs at 0 s before job 1 starts, nor at 10 s before job
        // 2 does; at 1 s nothing starts; at 20 s nothing is left to decide.
        assert_eq!(
            *CALLS.lock().unwrap(),
            vec![(0, 'S'), (0, 'R'), (1, 'R'), (1, 'S'), (10, 'S'), (10, 'R')]
        );
        assert_eq!(e.counters().events, 4);
    }

    fn restless(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
        Ok(Box::new(Restless { spec: spec.clone() }))
    }

    /// FCFS that at 2 s aborts job 1 while it runs, and after that pass
    /// asks once to decide again at the same instant.
    #[derive(Default)]
    struct AgainAfterAbort {
        spec: PolicySpec,
        asked: bool,
        again: bool,
    }

    impl Policy for AgainAfterAbort {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<Abort>) {
            if view.now == SimTime::from_secs(2) {
                let first = view.running.iter().filter(|&&k| view.job(k).id == 1);
                out.extend(first.map(|&job| Abort { job, requeue: true }));
            }
        }
        fn recheck_at(&self, view: &SystemView<'_>) -> Option<SimTime> {
            self.again.then_some(view.now)
        }
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            self.again = view.now == SimTime::from_secs(2) && !self.asked;
            self.asked |= self.again;
            fcfs_starts(view, out);
        }
        fn state(&self, _v: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }

    fn again_after_abort(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
        Ok(Box::new(AgainAfterAbort {
            spec: spec.clone(),
            ..AgainAfterAbort::default()
        }))
    }

    /// An aborted job is back in the queue only after the instant of its
    /// abort, even when a decision at that instant leaves an event at it.
    /// Job 1 (2 processors of 4, 100 s) is aborted at 2 s, when job 2
    /// (1 wide, 10 s) arrives and starts; the policy then asks to decide
    /// again at 2 s, with room for job 1. Job 1 is not in the queue for
    /// that pass: it is back at job 2's end, 12 s, and starts then.
    #[test]
    fn an_aborted_job_is_back_only_after_the_instant_of_its_abort() {
        let jobs = vec![job(1, 0, 2, 100), job(2, 2, 1, 10)];
        let mut e = requeue_engine(jobs, again_after_abort);
        let mut times = Vec::new();
        while let Some(t) = e.step() {
            times.push(t.0 / 1_000_000);
            assert!(times.len() < 1_000, "still at {t:?} after 1,000 steps");
        }
        e.check_conservation().expect("every job ended");
        assert_eq!(e.last_refusal(), None);
        let mut ends: Vec<(u64, i64, i64, u32)> = e
            .drain_records()
            .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000, r.requeues))
            .collect();
        ends.sort();
        assert_eq!(ends, vec![(1, 12, 112, 1), (2, 2, 12, 0)]);
        // Arrivals at 0 and 2 s, the pass asked for at 2 s, job 2's end,
        // the end job 1's first run would have had (stale), job 1's end.
        assert_eq!(times, vec![0, 2, 2, 12, 100, 112]);
    }

    /// A policy that keeps asking to decide again at the same instant
    /// while nothing changes is refused after a few passes, and the clock
    /// moves on: every job ends, at the times FCFS gives. The run is
    /// stepped with a bound, so that a livelock fails the test instead of
    /// hanging it.
    #[test]
    fn a_policy_asking_again_and_again_at_one_instant_does_not_hold_the_clock() {
        let jobs = vec![job(1, 0, 3, 5), job(2, 1, 2, 5), job(3, 2, 1, 5)];
        let mut e = requeue_engine(jobs, restless);
        // (instant, events at it, refusals at it)
        let mut instants: Vec<(i64, u32, u64)> = Vec::new();
        let mut steps = 0;
        while let Some(t) = e.step() {
            steps += 1;
            assert!(steps < 1_000, "still at {:?} after {steps} steps", e.now());
            let (t, refused) = (t.0 / 1_000_000, e.counters().refused);
            match instants.last_mut() {
                Some((at, n, _)) if *at == t => *n += 1,
                _ => instants.push((t, 1, 0)),
            }
            let before: u64 = instants.iter().rev().skip(1).map(|i| i.2).sum();
            instants.last_mut().unwrap().2 = refused - before;
        }
        // The count of passes that changed nothing starts afresh at each
        // instant. At 1 s and at 2 s alike: the arrival's pass, three
        // passes asked for that changed nothing, and the fourth ask
        // refused — a refusal that is not retried, or the policy would be
        // asked three times more.
        assert_eq!(
            instants,
            vec![(0, 2, 0), (1, 4, 1), (2, 4, 1), (5, 2, 0), (10, 2, 0)]
        );
        e.check_conservation().expect("every job ended");
        let mut ends: Vec<(u64, i64, i64)> = e
            .drain_records()
            .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000))
            .collect();
        ends.sort();
        assert_eq!(ends, vec![(1, 0, 5), (2, 5, 10), (3, 5, 10)]);
        let (at, last) = e.last_refusal().expect("the endless asking is refused");
        assert_eq!(
            last,
            &Refusal::Recheck {
                passes: crate::engine::RECHECK_RETRIES + 1
            }
        );
        assert!(last.to_string().contains("changed nothing"), "{last}");
        assert_eq!(*at, SimTime::from_secs(2));
    }
}

/// Every check of a reservation request, each at its boundary: a window
/// ahead of now and not empty, processors that are there and named once,
/// free of other windows and of running jobs over it, and jobs held by one
/// reservation at a time.
mod grants {
    use super::protocol::job;
    use crate::engine::{Engine, EngineConfig, Refusal};
    use crate::model::{JobSpec, Platform, SimTime};
    use crate::sched::{PolicySpec, Reserve};

    fn secs(s: i64) -> SimTime {
        SimTime::from_secs(s)
    }

    fn ask(procs: &[u32], start: i64, finish: i64, holds: &[u64]) -> Reserve {
        Reserve {
            cluster: 0,
            processors: procs.to_vec(),
            start: secs(start),
            finish: secs(finish),
            holds: holds.to_vec(),
        }
    }

    /// Asserts that `r` is refused for a reason containing `why`.
    fn refused(e: &mut Engine, r: Reserve, why: &str) {
        match e.grant(&r) {
            Err(Refusal::Reservation(reason)) => {
                assert!(reason.contains(why), "{r:?}: {reason}")
            }
            other => panic!("{r:?}: {other:?}"),
        }
    }

    /// First come, first served on `clusters` of `processors`, at 5 s.
    fn fcfs_at_5(clusters: usize, processors: u32, jobs: Vec<JobSpec>) -> Engine {
        let mut e = Engine::new(
            Platform::uniform(clusters, processors),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
        )
        .unwrap();
        e.step_until(secs(5));
        e
    }

    /// Four processors at 5 s: job 1 runs on processors 0 and 1 until
    /// 20 (its estimate), job 2 waits to arrive at 100.
    fn engine() -> Engine {
        let e = fcfs_at_5(1, 4, vec![job(1, 0, 2, 20), job(2, 100, 1, 5)]);
        assert_eq!(e.now(), secs(5));
        assert_eq!(e.running_processors(), vec![(1, vec![(0, vec![0, 1])])]);
        e
    }

    #[test]
    fn the_window_must_lie_ahead_of_now_and_not_be_empty() {
        let mut e = engine();
        for (start, finish) in [(4, 30), (10, 10), (10, 9)] {
            refused(&mut e, ask(&[3], start, finish, &[]), "is not ahead of now");
        }
        refused(
            &mut e,
            Reserve {
                cluster: 9,
                ..ask(&[3], 10, 20, &[])
            },
            "no cluster 9",
        );
        refused(&mut e, ask(&[], 10, 20, &[]), "no processors named");
        // From now, for one second: active at once, over at 6.
        assert_eq!(e.grant(&ask(&[3], 5, 6, &[])), Ok(1));
        assert_eq!(e.reservations().len(), 1);
        assert!(e.reservations()[0].active);
        assert_eq!(e.next_event_time(), Some(secs(6)));
    }

    /// A window ahead of now begins at its start, when nothing else
    /// happens then, and ends at its finish.
    #[test]
    fn a_window_begins_and_ends_on_time() {
        let mut e = engine();
        assert_eq!(e.grant(&ask(&[2, 3], 10, 30, &[])), Ok(1));
        assert!(!e.reservations()[0].active);
        assert_eq!(e.free_processors(), &[2]);
        assert_eq!(e.next_event_time(), Some(secs(10)));
        e.step_until(secs(10));
        assert!(e.reservations()[0].active);
        assert_eq!(e.free_processors(), &[0]);
        e.step_until(secs(30));
        assert!(e.reservations().is_empty());
        assert_eq!(e.free_processors(), &[4]);
    }

    #[test]
    fn processors_must_be_there_named_once_and_free_of_other_windows() {
        let mut e = engine();
        assert_eq!(e.grant(&ask(&[3], 10, 20, &[])), Ok(1));
        refused(
            &mut e,
            ask(&[4], 30, 40, &[]),
            "processor 4 of cluster 0 is not there",
        );
        refused(
            &mut e,
            ask(&[2, 2], 30, 40, &[]),
            "processor 2 of cluster 0 is not there or named twice",
        );
        // Overlapping the window by a second at either end, or inside it.
        for (start, finish) in [(19, 30), (5, 11), (12, 13)] {
            refused(
                &mut e,
                ask(&[2, 3], start, finish, &[]),
                "processor 3 of cluster 0 is in reservation 1",
            );
        }
        // Right after it and right before it.
        assert_eq!(e.grant(&ask(&[3], 20, 30, &[])), Ok(2));
        assert_eq!(e.grant(&ask(&[2, 3], 5, 10, &[])), Ok(3));
        assert_eq!(e.reservations().len(), 3);
    }

    #[test]
    fn a_running_job_keeps_its_processors_until_its_estimated_end() {
        let mut e = engine();
        refused(
            &mut e,
            ask(&[1], 19, 30, &[]),
            "processor 1 of cluster 0 runs job 1",
        );
        // Unless the reservation holds it.
        assert_eq!(e.grant(&ask(&[1], 19, 30, &[1])), Ok(1));
        // From its estimated end on.
        assert_eq!(e.grant(&ask(&[0], 20, 30, &[])), Ok(2));
    }

    #[test]
    fn a_job_is_held_by_one_reservation_at_a_time() {
        let mut e = engine();
        assert_eq!(e.grant(&ask(&[3], 10, 20, &[2])), Ok(1));
        refused(
            &mut e,
            ask(&[2], 10, 20, &[2]),
            "job 2 is held by reservation 1",
        );
        assert_eq!(e.grant(&ask(&[2], 10, 20, &[])), Ok(2));
    }

    /// A job still running past its estimate on a window's processor when
    /// the window begins is killed there: the window is the reservation's.
    #[test]
    fn a_window_takes_its_processors_from_a_job_past_its_estimate() {
        let long = JobSpec {
            runtime: secs(40),
            ..job(1, 0, 2, 20)
        };
        let mut e = fcfs_at_5(1, 4, vec![long, job(2, 100, 1, 5)]);
        assert_eq!(e.grant(&ask(&[1], 20, 30, &[])), Ok(1));
        e.step_until(secs(20));
        assert_eq!(e.counters().killed, 1);
        assert!(e.running_processors().is_empty());
        assert!(e.reservations()[0].active);
        assert_eq!(e.free_processors(), &[3]);
        let records: Vec<_> = e.drain_records().map(|r| (r.id, r.start, r.end)).collect();
        assert_eq!(records, vec![(1, secs(0), secs(20))]);
    }

    /// What a job held by a reservation may start on: one component on the
    /// reservation's cluster, at most its width, on as many of the
    /// reservation's processors as it takes, each named once, inside the
    /// window and ending by its finish.
    #[test]
    fn a_held_job_starts_inside_its_window_only() {
        use crate::sched::{Start, StartKind};
        let mut e = fcfs_at_5(2, 8, vec![job(1, 0, 2, 20), job(2, 6, 2, 5)]);
        assert_eq!(e.grant(&ask(&[2, 3, 4, 5], 10, 30, &[2])), Ok(1));
        e.step_until(secs(6));
        assert_eq!(e.queue.len(), 1);
        let held = e.queue[0];
        let start = |assignment: Vec<(u16, u32)>, procs: Option<Vec<Vec<u32>>>| Start {
            job: held,
            assignment,
            kind: StartKind::Head,
            processors: procs,
            processes: None,
        };
        let good = || start(vec![(0, 2)], Some(vec![vec![2, 3]]));
        let outside = Err(Refusal::OutsideReservation {
            job: 2,
            reservation: 1,
        });
        // Before the window.
        assert_eq!(e.check_reserved_start(&good()), outside);
        e.step_until(secs(10));
        assert_eq!(e.check_reserved_start(&good()), Ok(Some(1)));
        // Fewer processors than its width will do.
        assert_eq!(
            e.check_reserved_start(&start(vec![(0, 1)], Some(vec![vec![5]]))),
            Ok(Some(1))
        );
        for bad in [
            start(vec![(1, 2)], Some(vec![vec![2, 3]])),
            start(vec![(0, 0)], Some(vec![vec![]])),
            start(vec![(0, 3)], Some(vec![vec![2, 3, 4]])),
            start(vec![(0, 2)], Some(vec![vec![2, 3, 4]])),
            start(vec![(0, 2)], Some(vec![vec![2, 6]])),
            start(vec![(0, 2)], Some(vec![vec![3, 3]])),
            start(vec![(0, 2)], None),
            start(vec![(0, 1), (1, 1)], Some(vec![vec![2], vec![3]])),
        ] {
            assert_eq!(e.check_reserved_start(&bad), outside, "{bad:?}");
        }
        // Ending by the window's finish: 5 s from 25, not from 26.
        e.step_until(secs(25));
        assert_eq!(e.check_reserved_start(&good()), Ok(Some(1)));
        e.step_until(secs(26));
        assert_eq!(e.check_reserved_start(&good()), outside);
    }
}

mod snapshots {
    use super::*;

    /// One cluster of 2 under FCFS at 1 s: jobs 1 and 2 run, 3 to 9 wait.
    fn seven_queued() -> Engine {
        let jobs: Vec<JobSpec> = (1..=9).map(|i| job(i, 0, &[1], 100)).collect();
        let mut e = Engine::new(
            Platform::uniform(1, 2),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
        )
        .unwrap();
        e.step_until(SimTime::from_secs(1));
        e
    }

    fn rows(s: &EngineSnapshot) -> Vec<(usize, u64)> {
        s.queue.rows().map(|(i, r)| (i, r.id)).collect()
    }

    #[test]
    fn a_window_carries_its_rows_the_head_and_a_watched_job() {
        let e = seven_queued();
        let whole = e.snapshot();
        assert_eq!(rows(&whole), (3..=9).enumerate().collect::<Vec<_>>());
        assert_eq!(
            whole.queue,
            QueueSlice::whole(whole.queue.iter().cloned().collect()),
            "a whole queue carries no separate head"
        );
        let window = QueueWindow { from: 2, rows: 3 };
        let part = e.snapshot_window(window, None);
        assert_eq!(rows(&part), [(2, 5), (3, 6), (4, 7)]);
        assert_eq!(part.queue.len(), 7);
        assert_eq!(
            part.queue.first().map(|r| r.id),
            Some(3),
            "the head, whatever the window"
        );
        assert!(part.queue.find(9).is_none());
        // A job watched outside the window comes with its position.
        let watched = e.snapshot_window(window, Some(9));
        assert_eq!(watched.queue.find(9).map(|(i, r)| (i, r.id)), Some((6, 9)));
        assert_eq!(rows(&watched), rows(&part));
        // One inside the window is one of its rows, not carried twice.
        assert_eq!(e.snapshot_window(window, Some(6)).queue, part.queue);
        // A window of no rows, or past the end, still carries the head.
        let none = e.snapshot_window(QueueWindow { from: 0, rows: 0 }, None);
        assert_eq!(none.queue.window(), 0..0);
        assert_eq!(none.queue.first().map(|r| r.id), Some(3));
        let past = e.snapshot_window(QueueWindow { from: 50, rows: 3 }, None);
        assert_eq!(past.queue.window(), 7..7);
        assert_eq!(past.queue.first().map(|r| r.id), Some(3));
    }

    #[test]
    fn a_job_has_expired_once_it_runs_past_its_estimated_end_not_at_it() {
        let mut long = job(1, 0, &[2], 10);
        long.estimate = Some(SimTime::from_secs(5));
        let mut e = Engine::new(
            Platform::uniform(1, 2),
            Box::new(vec![long].into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
        )
        .unwrap();
        let mut expired_at = |t: i64| {
            e.step_until(SimTime::from_secs(t));
            let s = e.snapshot();
            assert_eq!(s.running[0].estimated_end, SimTime::from_secs(5));
            s.running[0].expired
        };
        assert!(!expired_at(4));
        assert!(!expired_at(5), "at its estimated end it has not expired");
        assert!(expired_at(6));
    }

    #[test]
    fn a_big_cluster_is_drawn_several_processors_to_a_cell() {
        // 1,024 processors, 4 to a cell; job 1 on processors 0 to 5, job 2
        // on 6 and 7.
        let mut e = Engine::new(
            Platform::uniform(1, 1024),
            Box::new(vec![job(1, 0, &[6], 10), job(2, 0, &[2], 10)].into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
        )
        .unwrap();
        e.step_until(SimTime::from_secs(1));
        let s = e.snapshot();
        let c = &s.clusters[0];
        assert_eq!((c.per_cell, c.cells.len(), c.free), (4, 256, 1016));
        let cell = |job, busy| CellView { job, busy };
        assert_eq!(
            c.cells[..3],
            [cell(Some(1), 4), cell(Some(1), 4), cell(None, 0)]
        );
        assert!(c.cells[2..].iter().all(|x| *x == CellView::default()));
    }
}

/// A job whose tasks do less work than it holds for (a gang holding its
/// processors until its longest task ends) is recorded as holding its
/// processors for its whole run and computing for its work only; the
/// engine counts a running one so too.
#[test]
fn a_job_whose_tasks_end_apart_holds_more_than_it_computes() {
    let mut gang = job(1, 0, &[4], 10);
    // Tasks of 10, 5, 3 and 2 s.
    gang.work = Some(20.0);
    let jobs = vec![gang, job(2, 0, &[4], 10)];
    let mut e = Engine::new(
        Platform::uniform(2, 4),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(5));
    assert_eq!(e.running_held(), 40.0);
    assert_eq!(e.running_busy(), 10.0 + 20.0);
    e.run();
    let mut r: Vec<_> = e.drain_records().map(|r| (r.id, r.held, r.busy)).collect();
    r.sort_by_key(|x| x.0);
    assert_eq!(r, vec![(1, 40.0, 20.0), (2, 40.0, 40.0)]);
}
