//! Hand-worked schedules: every start time checked.

use super::*;
use crate::model::{Cluster, JobSpec};
use schedscope_policies::policy::SharedParams;
use schedscope_policies::policy::{MaxJumps, PlacementName};

impl Engine {
    /// An engine under one of the catalog's policies, as the application
    /// builds one.
    pub(crate) fn new(
        platform: Platform,
        source: Box<dyn crate::model::JobSource>,
        policy: &PolicySpec,
        config: EngineConfig,
    ) -> Result<Engine, String> {
        Engine::with_builder(
            platform,
            source,
            policy,
            config,
            schedscope_policies::policy::CATALOG,
        )
    }
}

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

mod commands;
mod rounds;

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

mod protocol;

mod flexible_split;

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

mod restless;

/// Every check of a reservation request, each at its boundary: a window
/// ahead of now and not empty, processors that are there and named once,
/// free of other windows and of running jobs over it, and jobs held by one
/// reservation at a time.
mod grants;

mod snapshots;

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
