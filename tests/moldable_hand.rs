//! Hand-worked schedules of moldable jobs: the paper's Figure 1 (four jobs
//! arriving at once, three short and one long) under FIFO, FJT4, aggressive
//! backfilling with an abort and backfilling with malleability with a fold.
//! Every start, fold, expansion and end is asserted.
//!
//! The machine has 8 processors and both types speed up linearly, so a run
//! time is the sequential time over the processes. Short jobs admit 1, 2
//! or 4 processes; the long job any size up to 8 and, under FJT, at least
//! 6 (`long_min`). Folding by `f` runs at `1/(f·1.25)`. Job 3's estimate
//! (32 s sequential, 8 s on 4) is under its work (64 s, 16 s on 4).

use schedscope::engine::{Engine, EngineConfig};
use schedscope::model::{AppType, Cluster, JobRecord, JobSpec, Platform, SimTime, SizeRule};
use schedscope::policy::backfill::HeadPlan;
use schedscope::policy::fjt::{self, WindowRule};
use schedscope::policy::{PolicyName, PolicySpec};
use schedscope::policy::{SharedParams, names};
use schedscope::sched::BackfillView;
use schedscope::sched::ParamValue;
use std::sync::Arc;

fn app(name: &str, rule: SizeRule, cap: u32, long: bool) -> Arc<AppType> {
    Arc::new(AppType {
        name: name.into(),
        sizes: rule.sizes(cap),
        sequential: SimTime::from_secs(1),
        long,
        parallelism: 8.0,
        sigma: 0.0,
        fold_overhead: 0.25,
        max_mpl: 4,
    })
}

fn job(id: u64, t: &Arc<AppType>, seq: i64, est: i64) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: SimTime::ZERO,
        size: t.largest(),
        components: Vec::new(),
        runtime: SimTime::from_secs(seq),
        estimate: Some(SimTime::from_secs(est)),
        user: None,
        injected: false,
        app: Some(t.clone()),
        home: None,
        graph: None,
        comm: None,
    }
}

fn figure_one() -> Vec<JobSpec> {
    let short = app("short", SizeRule::PowerOfTwo, 4, false);
    let long = app("long", SizeRule::Any, 8, true);
    vec![
        job(1, &short, 40, 40),
        job(2, &long, 168, 168),
        job(3, &short, 64, 32),
        job(4, &short, 40, 40),
    ]
}

/// What happened: each job's (id, start, end, processes, folds, expands)
/// in seconds, and the folds and expansions as (time, job... ) events.
struct Run {
    jobs: Vec<(u64, f64, f64, u32, u32, u32)>,
    records: Vec<JobRecord>,
    /// (time, "fold" | "expand" | "abort")
    events: Vec<(f64, &'static str)>,
}

fn figure_one_engine(name: PolicyName, window: WindowRule, more: Vec<JobSpec>) -> Engine {
    engine_on_eight(name, window, figure_one().into_iter().chain(more).collect())
}

/// An engine on the paper's machine of 8 processors running `jobs` under
/// `name` (long jobs from 6 processes; `window` where the policy reads it).
fn engine_on_eight(name: PolicyName, window: WindowRule, jobs: Vec<JobSpec>) -> Engine {
    let mut policy = PolicySpec::named(name);
    if name != fjt::FIFO {
        policy.params.insert("long_min".into(), ParamValue::Int(6));
    }
    if name != fjt::FIFO && name != fjt::FJT4 {
        policy
            .params
            .insert("window".into(), ParamValue::Text(window.as_str().into()));
    }
    let platform = Platform {
        clusters: vec![Cluster {
            name: "m".into(),
            processors: 8,
            speed: 1.0,
        }],
        split_overhead: 0.0,
        network: None,
    };
    schedscope::simulation::engine(
        platform,
        Box::new(jobs.into_iter()),
        &policy,
        EngineConfig::default(),
    )
    .unwrap()
}

fn run(name: PolicyName, window: WindowRule) -> Run {
    let mut e = figure_one_engine(name, window, Vec::new());
    let mut events = Vec::new();
    let mut last = e.counters();
    let mut records = Vec::new();
    while let Some(t) = e.step() {
        let c = e.counters();
        let t = t.as_secs_f64();
        for _ in last.folded..c.folded {
            events.push((t, "fold"));
        }
        for _ in last.expanded..c.expanded {
            events.push((t, "expand"));
        }
        for _ in last.requeued..c.requeued {
            events.push((t, "abort"));
        }
        last = c;
        records.extend(e.drain_records());
    }
    e.check_conservation().expect("every job ended once");
    assert_eq!(e.counters().refused, 0, "{:?}", e.last_refusal());
    records.sort_by_key(|r| r.id);
    let jobs = records
        .iter()
        .map(|r| {
            let m = r.moldable.as_ref().unwrap();
            (
                r.id,
                r.start.as_secs_f64(),
                r.end.as_secs_f64(),
                m.processes,
                m.folds,
                m.expands,
            )
        })
        .collect();
    Run {
        jobs,
        records,
        events,
    }
}

/// FIFO: each job at its largest size. The long job needs all 8
/// processors and waits for job 1, leaving 4 idle for 10 s
/// (fragmentation); jobs 3 and 4 follow it.
#[test]
fn figure_one_fifo() {
    let r = run(fjt::FIFO, WindowRule::AllBackfilled);
    assert_eq!(
        r.jobs,
        vec![
            (1, 0.0, 10.0, 4, 0, 0),
            (2, 10.0, 31.0, 8, 0, 0),
            (3, 31.0, 47.0, 4, 0, 0),
            (4, 31.0, 41.0, 4, 0, 0),
        ]
    );
    assert!(r.events.is_empty());
}

/// FJT1+BFA: job 3 is backfilled into the 4 free processors (estimated to
/// end at 8 s, before the long job's reservation at 10 s). It overruns;
/// at 10 s job 1 ends, every running job is a backfilled one — the window
/// has expired — and job 3 is aborted (10 s of work lost) so that job 2
/// starts on 8. Job 3 runs again from the start at 31 s.
#[test]
fn figure_one_aggressive_backfilling_aborts() {
    for window in [WindowRule::AllBackfilled, WindowRule::Estimate] {
        let r = run(fjt::FJT1_BFA, window);
        assert_eq!(
            r.jobs,
            vec![
                (1, 0.0, 10.0, 4, 0, 0),
                (2, 10.0, 31.0, 8, 0, 0),
                (3, 31.0, 47.0, 4, 0, 0),
                (4, 31.0, 41.0, 4, 0, 0),
            ],
            "{window:?}"
        );
        assert_eq!(r.events, vec![(10.0, "abort")]);
        let m3 = r.records[2].moldable.as_ref().unwrap();
        assert!((m3.work_lost - 10.0).abs() < 1e-9);
        assert_eq!(r.records[2].requeues, 1);
        // 4 processors for 10 s lost, then 4 for 16 s.
        assert!((r.records[2].held - (40.0 + 64.0)).abs() < 1e-9);
    }
}

/// FJT1+BFM: at 10 s job 3 is folded by 4 onto 1 processor instead, and
/// job 2 starts at once on the 7 free (a smaller partition: 24 s). Job 3
/// has 6 s of work left at rate 0.2. At 34 s job 2 ends, job 4 starts on
/// 4 and the queue is empty: job 3 expands to 4 processors, with 1.2 s
/// left (4.8 s done while folded), and ends at 35.2 s.
#[test]
fn figure_one_backfilling_with_malleability_folds() {
    let r = run(fjt::FJT1_BFM, WindowRule::AllBackfilled);
    assert_eq!(
        r.jobs,
        vec![
            (1, 0.0, 10.0, 4, 0, 0),
            (2, 10.0, 34.0, 7, 0, 0),
            (3, 0.0, 35.2, 4, 1, 1),
            (4, 34.0, 44.0, 4, 0, 0),
        ]
    );
    assert_eq!(r.events, vec![(10.0, "fold"), (34.0, "expand")]);
    let m3 = r.records[2].moldable.as_ref().unwrap();
    assert_eq!(m3.work_lost, 0.0, "folding loses no work");
    // 4 × 10 + 1 × 24 + 4 × 1.2 processor-seconds.
    assert!(
        (r.records[2].held - 68.8).abs() < 1e-6,
        "{}",
        r.records[2].held
    );
    // Every job waited less than under aggressive backfilling but job 4.
    assert_eq!(r.records[1].wait(), SimTime::from_secs(10));
}

/// FJT4: the long job starts at once with 8 processes folded onto the 4
/// free processors (rate 0.4); the short jobs run after job 1; when job 4
/// ends at 36 s nothing waits and job 2 expands to 8, with 6.6 s of its
/// 21 s left. With backfilling allowed (FJT4+BFA) nothing is left to
/// backfill: the same schedule.
#[test]
fn figure_one_fjt4_starts_the_long_job_folded() {
    for name in [fjt::FJT4, fjt::FJT4_BFA] {
        let r = run(name, WindowRule::AllBackfilled);
        assert_eq!(
            r.jobs,
            vec![
                (1, 0.0, 10.0, 4, 0, 0),
                (2, 0.0, 42.6, 8, 0, 1),
                (3, 10.0, 26.0, 4, 0, 0),
                (4, 26.0, 36.0, 4, 0, 0),
            ],
            "{name:?}"
        );
        assert_eq!(r.events, vec![(36.0, "expand")]);
        let m2 = r.records[1].moldable.as_ref().unwrap();
        // 4 processors for 36 s, then 8 for 6.6 s.
        assert!((m2.partition - (144.0 + 52.8) / 42.6).abs() < 1e-9);
    }
}

#[test]
fn the_five_policies_carry_the_papers_names() {
    assert_eq!(
        fjt::ALL.map(fjt::paper_label),
        [
            Some("FIFO"),
            Some("FJT4"),
            Some("FJT4+BFA"),
            Some("FJT1+BFA"),
            Some("FJT1+BFM")
        ]
    );
    assert_eq!(fjt::paper_label(names::EASY), None);
}

/// A rigid job of `size` processors and `secs` seconds, exactly
/// estimated, arriving at `submit`.
fn rigid(id: u64, submit: i64, size: u32, secs: i64) -> JobSpec {
    JobSpec {
        submit: SimTime::from_secs(submit),
        size,
        components: vec![size],
        estimate: Some(SimTime::from_secs(secs)),
        app: None,
        ..job(id, &app("-", SizeRule::Any, 1, false), secs, secs)
    }
}

/// Every job's (id, start in seconds) under `name` on one cluster of
/// `processors`.
fn starts_under(name: PolicyName, processors: u32, jobs: Vec<JobSpec>) -> Vec<(u64, f64)> {
    let platform = Platform {
        clusters: vec![Cluster {
            name: "m".into(),
            processors,
            speed: 1.0,
        }],
        split_overhead: 0.0,
        network: None,
    };
    let policy = PolicySpec::named(name);
    let mut e = schedscope::simulation::engine(
        platform,
        Box::new(jobs.into_iter()),
        &policy,
        EngineConfig::default(),
    )
    .unwrap();
    assert_eq!(e.policy(), &policy, "the engine reports the policy it runs");
    e.run();
    e.check_conservation().expect("every job ended once");
    assert_eq!(e.counters().refused, 0, "{:?}", e.last_refusal());
    let mut v: Vec<(u64, f64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.as_secs_f64()))
        .collect();
    v.sort_by_key(|a| a.0);
    v
}

/// Rigid jobs under the backfilling FJT policies: the head's reservation
/// leaves over what the head does not take, and a long job backfills there.
///
/// 8 processors. A (4 wide, 10 s) starts; the head H (6 wide) is reserved
/// at 10, when 8 are free, leaving 2 over; C and C' (1 wide, 100 s) run
/// past 10 but on those 2: they start at 0, and H at 10. D (2 wide, 100 s)
/// would run past 10 too, with nothing left over: it waits for H to end at
/// 15.
#[test]
fn a_rigid_head_leaves_its_extra_processors_to_backfill() {
    let jobs = || {
        vec![
            rigid(1, 0, 4, 10),
            rigid(2, 0, 6, 5),
            rigid(3, 0, 1, 100),
            rigid(4, 0, 1, 100),
            rigid(5, 0, 2, 100),
        ]
    };
    for name in [fjt::FJT4_BFA, fjt::FJT1_BFA, fjt::FJT1_BFM] {
        assert_eq!(
            starts_under(name, 8, jobs()),
            [(1, 0.0), (2, 10.0), (3, 0.0), (4, 0.0), (5, 15.0)],
            "{name:?}"
        );
    }
}

/// A short moldable head is reserved for when its smallest size fits, and
/// takes the largest that fits then: a job that would run past that time
/// on the processors it takes does not backfill.
///
/// 12 processors. A (2 wide, 10 s) and B (8 wide, 20 s) start at 0. The
/// short job H (4 or 8 processes, 40 s sequential) arrives at 1 with 2
/// free: at 10, 4 are free, so H is reserved then on all 4, none over. C
/// (2 wide, 15 s) arrives at 2 and would end at 17: it waits. H starts at
/// 10 on 4 processes, C at 20. (Reserved for H's largest size, 8, H would
/// wait for 20 and C would backfill at 2, delaying H to 17.)
#[test]
fn a_short_head_is_reserved_for_its_smallest_size() {
    let short = Arc::new(AppType {
        sizes: vec![4, 8],
        ..(*app("short", SizeRule::Any, 8, false)).clone()
    });
    let h = JobSpec {
        submit: SimTime::from_secs(1),
        ..job(3, &short, 40, 40)
    };
    let jobs = vec![
        rigid(1, 0, 2, 10),
        rigid(2, 0, 8, 20),
        h,
        rigid(4, 2, 2, 15),
    ];
    for name in [fjt::FJT4_BFA, fjt::FJT1_BFA, fjt::FJT1_BFM] {
        assert_eq!(
            starts_under(name, 12, jobs.clone()),
            [(1, 0.0), (2, 0.0), (3, 10.0), (4, 20.0)],
            "{name:?}"
        );
    }
}

/// FJT1+BFM folds expired jobs, oldest first, until the head fits, and
/// counts what each fold gives back: a job folded by 4 keeps a quarter.
///
/// 10 processors. A (4 wide, 10 s) starts; the head H (8 wide) is reserved
/// at 10. B (short, 4 processes, estimated 8 s) backfills at 0 and C
/// (short, 2 processes, estimated 8 s) at 1; both run 100 s. At 10 A ends:
/// every running job was backfilled, 4 processors are free. Folding B
/// gives back 3 (7 free), not enough; folding C as well gives back 1 more:
/// H starts at 10 on 8.
#[test]
fn expired_jobs_are_folded_until_the_head_fits() {
    let short = app("short", SizeRule::PowerOfTwo, 4, false);
    let c = JobSpec {
        submit: SimTime::from_secs(1),
        size: 2,
        ..job(4, &short, 200, 16)
    };
    let jobs = vec![
        rigid(1, 0, 4, 10),
        rigid(2, 0, 8, 5),
        job(3, &short, 400, 32),
        c,
    ];
    assert_eq!(
        starts_under(fjt::FJT1_BFM, 10, jobs),
        [(1, 0.0), (2, 10.0), (3, 0.0), (4, 1.0)]
    );
}

/// What the backfilling FJT policies show: the blocked head, its shadow
/// time and the processors left over then, for the head at the front of
/// the queue only.
///
/// Figure 1 and a short job 5 arriving at 16. Nothing is shown after the
/// first arrival, before the policy has planned. From 0 the long job 2
/// waits for job 1's end at 10, with nothing over.
///
/// * FJT1+BFA: job 3 is aborted at 10 and job 2 starts; job 4 waits for
///   job 2's estimated end at 31, with 4 over. Job 3 is queued again at the
///   next event, 16, at the front: until the policy has planned again at
///   that instant, nothing is shown for job 4, no longer the head; then job
///   3 is the head, for 31. At 31 jobs 3 and 4 start and job 5 waits for
///   job 3's estimated end at 39; it starts at 41, when job 4 ends.
/// * FJT1+BFM: job 3 is folded at 10 and job 2 starts on 7; job 4 waits
///   for job 3, past its estimate: its shadow time is the instant of each
///   pass (10, then 16). At 34 job 2 ends and jobs 4 and 5 start.
#[test]
fn the_state_shows_the_blocked_head_at_the_front_of_the_queue() {
    let view = |head: u64, at: f64, extra: u32| {
        let shadow = SimTime::from_secs_f64(at);
        (
            HeadPlan {
                head,
                shadow: Some(shadow),
            }
            .state(),
            Some(BackfillView {
                head: Some(head),
                shadow: Some(shadow),
                extra: vec![extra],
                reservations: vec![(head, shadow)],
                reserved: 1,
            }),
        )
    };
    for (name, shown) in [
        (
            fjt::FJT1_BFA,
            vec![
                (0.0, None),
                (0.0, Some(view(2, 10.0, 0))),
                (10.0, Some(view(4, 31.0, 4))),
                (16.0, None),
                (16.0, Some(view(3, 31.0, 4))),
                (31.0, Some(view(5, 39.0, 0))),
                (41.0, None),
            ],
        ),
        (
            fjt::FJT1_BFM,
            vec![
                (0.0, None),
                (0.0, Some(view(2, 10.0, 0))),
                (10.0, Some(view(4, 10.0, 0))),
                (16.0, Some(view(4, 16.0, 0))),
                (34.0, None),
            ],
        ),
    ] {
        let late = JobSpec {
            submit: SimTime::from_secs(16),
            ..job(5, &app("short", SizeRule::PowerOfTwo, 4, false), 40, 40)
        };
        let mut e = figure_one_engine(name, WindowRule::AllBackfilled, vec![late]);
        let mut seen = Vec::new();
        while let Some(t) = e.step() {
            let s = e.snapshot();
            let state = e.policy_state();
            assert_eq!(state, s.policy_state);
            let now = match (state.detail::<HeadPlan>(), &s.backfill) {
                (None, None) => None,
                (Some(&HeadPlan { head, .. }), Some(_)) => {
                    assert_eq!(
                        s.queue.first().map(|r| r.id),
                        Some(head),
                        "{name:?} at {t:?}"
                    );
                    Some((state.clone(), s.backfill.clone()))
                }
                other => panic!("{name:?} at {t:?}: {other:?}"),
            };
            if seen.last().map(|(_, v)| v) != Some(&now) {
                seen.push((t.as_secs_f64(), now));
            }
        }
        assert_eq!(seen, shown, "{name:?}");
    }
}

/// §4's window rule, as the policy tells the console: on 8 processors a
/// rigid job (4 for 10 s) runs, a rigid job of 8 waits for it, and a short
/// moldable job is backfilled on the other 4 (estimated to end at the
/// shadow time, 10 s; it runs for 20 s). From 10 s every running job was
/// backfilled while the head waits, and folding by 4 would free 3 of the
/// 4 processors the head lacks, so FJT1+BFM leaves it be: the policy says
/// the window has expired until the job ends; under the estimate reading
/// (the default) it never says so.
#[test]
fn the_policy_says_when_the_papers_window_has_expired() {
    let short = app("short", SizeRule::PowerOfTwo, 4, false);
    for window in [WindowRule::AllBackfilled, WindowRule::Estimate] {
        let jobs = vec![
            JobSpec::rigid(1, SimTime::ZERO, 4, SimTime::from_secs(10)),
            JobSpec::rigid(2, SimTime::ZERO, 8, SimTime::from_secs(10)),
            job(3, &short, 80, 40),
        ];
        let mut e = engine_on_eight(fjt::FJT1_BFM, window, jobs);
        let mut said = Vec::new();
        while let Some(t) = e.step() {
            let s = e.snapshot();
            let all_backfilled = !s.queue.is_empty()
                && !s.running.is_empty()
                && s.running.iter().all(|r| r.jumped_ahead);
            let alert = s.policy_state.panel.alert.clone();
            assert_eq!(
                alert.is_some(),
                window == WindowRule::AllBackfilled && all_backfilled,
                "{window:?} at {t:?}: {alert:?}"
            );
            if let Some(a) = alert {
                assert_eq!(a, "! window expired: every running job was backfilled");
                said.push(t.as_secs_f64());
            }
        }
        if window == WindowRule::AllBackfilled {
            assert!(
                !said.is_empty() && said.iter().all(|t| (10.0..20.0).contains(t)),
                "said at the events in [10 s, 20 s) only: {said:?}"
            );
        } else {
            assert!(said.is_empty());
        }
    }
}
