//! Backfilling by hand, continued: pinned processors, a switch mid-run,
//! clusters of different speeds, the edges where a job ends at the head's
//! start, and what the plan shows.

use crate::backfill_hand::*;
use schedscope::engine::EngineConfig;
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::BackfillOrder;
use schedscope::policy::Catalogued;
use schedscope::policy::SharedParams;
use schedscope::policy::backfill::HeadPlan;
use schedscope::policy::{Machines, PolicySpec};

#[test]
fn pinned_processors_refuse_a_backfill_that_counted_ones_allow() {
    // 4 processors. J1 holds 0–1 until 10, J2 holds 2–3 until 100. J3 (3
    // wide) is the head from t = 1: its reservation is at 100, when 4 are
    // free, so 1 is extra. At 10 processors 0 and 1 come free and J4 (1
    // wide, runs to 210) asks to start. Counted: 1 extra processor, it
    // starts. Pinned: the reservation holds the lowest-numbered processors
    // free at 100, 0–2, and J4 would run past 100 on 0 or 1: it waits, and
    // starts at 100 on processor 3 beside J3.
    let jobs = [
        (1, 0, 2, 10, 10),
        (2, 0, 2, 100, 100),
        (3, 1, 3, 50, 50),
        (4, 2, 1, 200, 200),
    ];
    for name in [EASY, CONSERVATIVE] {
        let counted = named(name);
        let pinned = counted.clone().with_machines(Machines::Pinned);
        assert_eq!(
            starts_under(4, &jobs, &counted),
            vec![(1, 0), (2, 0), (3, 100), (4, 10)],
            "{name:?}, counted"
        );
        assert!(pinned.label().ends_with("backfilling, pinned processors"));
        // The engine reports the policy it runs, pinned machines included.
        assert_eq!(engine(4, &jobs, &pinned).policy(), &pinned);
        assert_eq!(
            starts_under(4, &jobs, &pinned),
            vec![(1, 0), (2, 0), (3, 100), (4, 100)],
            "{name:?}, pinned"
        );
    }
}

#[test]
fn pinned_processors_need_one_cluster_and_a_backfilling_policy() {
    let policy = PolicySpec::named(EASY).with_machines(Machines::Pinned);
    let err = schedscope::simulation::engine(
        Platform::uniform(2, 4),
        Box::new(std::iter::empty()),
        &policy,
        EngineConfig::default(),
    )
    .err()
    .expect("two clusters are refused")
    .to_string();
    assert!(err.contains("one cluster"), "{err}");
    let policy = PolicySpec {
        name: FCFS,
        ..policy
    };
    let err = schedscope::simulation::engine(
        Platform::uniform(1, 4),
        Box::new(std::iter::empty()),
        &policy,
        EngineConfig::default(),
    )
    .err()
    .expect("FCFS is refused")
    .to_string();
    assert!(
        err.contains("is for easy and conservative, not fcfs"),
        "{err}"
    );
}

/// The teaching example's five jobs, switched from EASY to conservative
/// backfilling at `at`: (id, start, end) of each, in id order.
fn teach_backfill_switched_at(at: f64) -> Vec<(u64, i64, i64)> {
    use schedscope::engine::Command;
    let jobs: [J; 5] = [
        (1, 0, 2, 20, 20),
        (2, 0, 1, 5, 5),
        (3, 1, 4, 5, 5),
        (4, 1, 2, 10, 10),
        (5, 2, 1, 10, 10),
    ];
    let specs: Vec<JobSpec> = jobs.iter().map(spec).collect();
    let mut e = schedscope::simulation::engine(
        Platform::uniform(1, 4),
        Box::new(specs.into_iter()),
        &named(EASY),
        EngineConfig::default(),
    )
    .unwrap();
    e.schedule_command(
        SimTime::from_secs_f64(at),
        Command::SetPolicy {
            policy: named(CONSERVATIVE),
        },
    );
    e.run();
    e.check_conservation().expect("every job ended");
    let mut v: Vec<(u64, i64, i64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000))
        .collect();
    v.sort();
    v
}

#[test]
fn a_switch_to_conservative_mid_run_keeps_every_job() {
    // A and B run from 0 under EASY. At 1.5 conservative backfilling takes
    // over with them running: H is reserved at 20 (A's end), Q at 5 (B's
    // end) until 15, and C, arriving at 2, would delay Q: it waits for H,
    // to 25. The same as conservative from the start, and the same when
    // the switch comes at 0.
    let want = vec![(1, 0, 20), (2, 0, 5), (3, 20, 25), (4, 5, 15), (5, 25, 35)];
    assert_eq!(teach_backfill_switched_at(1.5), want);
    assert_eq!(teach_backfill_switched_at(0.0), want);
    // After C has been backfilled by EASY (at 2), the switch at 3 keeps C
    // running: Q waits for C's end and the head's, to 25.
    assert_eq!(
        teach_backfill_switched_at(3.0),
        vec![(1, 0, 20), (2, 0, 5), (3, 20, 25), (4, 25, 35), (5, 2, 12)]
    );
}

#[test]
fn easy_on_clusters_of_different_speeds_judges_a_backfill_where_it_would_run() {
    // c0: 4 processors at half speed; c1: 2 at full speed. J1 takes c0
    // until 20 (10 s of work at half speed). The head J2 asks for 3 + 2:
    // shadow time 20, no processor extra on c1. J3 (2 wide, 15 s) fits on
    // c1 now and ends there at 17, by the shadow time: started at 2 (on
    // c0 it would run 30 s, so where it goes decides). J4 (18 s) fits on c1
    // when J3 ends at 17 but would run to 35: refused; it waits for the
    // head (20 to 30, at the slow cluster's speed).
    let mut platform = Platform::uniform(2, 4);
    platform.clusters[0].speed = 0.5;
    platform.clusters[1].processors = 2;
    let job = |id: u64, submit: i64, components: Vec<u32>, rt: i64| JobSpec {
        work: None,
        id,
        submit: SimTime::from_secs(submit),
        size: components.iter().sum(),
        components,
        runtime: SimTime::from_secs(rt),
        estimate: Some(SimTime::from_secs(rt)),
        user: None,
        injected: false,
        home: None,
        app: None,
        comm: None,
        graph: None,
    };
    let jobs = vec![
        job(1, 0, vec![4], 10),
        job(2, 1, vec![3, 2], 5),
        job(3, 2, vec![2], 15),
        job(4, 3, vec![2], 18),
    ];
    let policy = named(EASY);
    let mut e = schedscope::simulation::engine(
        platform,
        Box::new(jobs.into_iter()),
        &policy,
        EngineConfig::default(),
    )
    .unwrap();
    e.run();
    let mut v: Vec<(u64, i64, i64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000))
        .collect();
    v.sort();
    assert_eq!(v, vec![(1, 0, 20), (2, 20, 30), (3, 2, 17), (4, 30, 66)]);
}

#[test]
fn a_job_turned_away_before_starts_when_the_new_heads_shadow_is_later() {
    // 9 processors. At 0, J1 (4 wide, estimated 100, really 2) and J2 (2
    // wide, until 5) start. At 1 the head J3 (5 wide) gets shadow time 5
    // with no extra processors; J4 (9 wide) does not fit and J5 (2 wide,
    // 10 s) would run past 5: both turned away. At 2, J1 ends early and
    // J3 starts, leaving 2 processors free. The new head J4 can start only
    // when J3 ends, at 12: J5 now ends by the shadow time and starts at 2,
    // although nothing grew that the scan at 1 depended on but the shadow.
    let jobs = [
        (1, 0, 4, 2, 100),
        (2, 0, 2, 5, 5),
        (3, 1, 5, 10, 10),
        (4, 1, 9, 1, 1),
        (5, 1, 2, 10, 10),
    ];
    let want = vec![(1, 0), (2, 0), (3, 2), (4, 12), (5, 2)];
    for order in BackfillOrder::ALL {
        let policy = PolicySpec::named(EASY).with_order(order);
        assert_eq!(starts_under(9, &jobs, &policy), want, "{order:?}");
    }
}

#[test]
fn a_job_ending_at_the_heads_start_leaves_its_processors_extra_when_pinned() {
    // 4 processors, pinned conservative. J1 holds 0–2 until exactly 10;
    // the head J2 (2 wide) reserves 0–1 at 10. Then J1's processors are
    // free again: 2 and 3 are extra at the shadow time.
    assert_eq!(
        pinned_plan_at_1(&[(1, 0, 3, 10, 10), (2, 1, 2, 5, 5)]),
        (Some(2), Some(SimTime::from_secs(10)), vec![2])
    );
}

#[test]
fn a_reservation_ending_at_the_heads_start_leaves_its_processors_extra() {
    // 4 processors, pinned conservative. J1 holds 0–1 until 20, J2 2–3
    // until 5. The head J3 (3 wide) reserves 0–2 at 20; J4 (2 wide, 15 s)
    // reserves 2–3 from 5 to exactly 20. At the shadow time J4 is over:
    // processor 3 is extra.
    assert_eq!(
        pinned_plan_at_1(&[
            (1, 0, 2, 20, 20),
            (2, 0, 2, 5, 5),
            (3, 1, 3, 5, 5),
            (4, 1, 2, 15, 15),
        ]),
        (Some(3), Some(SimTime::from_secs(20)), vec![1])
    );
}

/// Pinned conservative on 4 processors: the head, its shadow time and the
/// extra processors the plan shows at t = 1.
fn pinned_plan_at_1(jobs: &[J]) -> (Option<u64>, Option<SimTime>, Vec<u32>) {
    let specs: Vec<JobSpec> = jobs.iter().map(spec).collect();
    let policy = PolicySpec::named(CONSERVATIVE).with_machines(Machines::Pinned);
    let mut e = schedscope::simulation::engine(
        Platform::uniform(1, 4),
        Box::new(specs.into_iter()),
        &policy,
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(1));
    let plan = e.snapshot().backfill.expect("a plan");
    (plan.head, plan.shadow, plan.extra)
}

#[test]
fn a_job_turned_away_is_tried_again_when_queued_estimates_change() {
    // 4 processors under EASY. J1 holds 3 until 20; the head J2 (4 wide)
    // gets shadow time 20 with no extra processor. J3 (1 wide, 5 s,
    // estimated 50) would run past it: turned away at 2. At 3 the operator
    // makes estimates exact, queued jobs too: J3's estimate is now 5, it
    // ends by 20 and starts at 3 (nothing else changed but the queue's
    // estimates).
    use schedscope::engine::Command;
    use schedscope::workload::estimates::EstimateModel;
    let jobs = [(1, 0, 3, 20, 20), (2, 1, 4, 5, 5), (3, 2, 1, 5, 50)];
    // Every EASY scan order, then conservative backfilling, counted or
    // pinned to processors: J3's reservation is placed again, at 3.
    let easy = BackfillOrder::ALL.map(|order| PolicySpec::named(EASY).with_order(order));
    for policy in easy.into_iter().chain(counted_and_pinned()) {
        let mut e = engine(4, &jobs, &policy);
        e.schedule_command(
            SimTime::from_secs(3),
            Command::SetEstimateError {
                estimates: EstimateModel::exact(),
                queued_too: true,
            },
        );
        assert_eq!(
            run_to_starts(&mut e),
            vec![(1, 0), (2, 20), (3, 3)],
            "{}, {:?}",
            policy.label(),
            policy.order()
        );
    }
}

#[test]
fn a_reservation_moves_into_a_window_that_runs_into_room_given_back() {
    // 4 processors under conservative backfilling, smallest first. J1
    // holds 2 until 100. J2 (4 wide, 20 s, estimated 50) is reserved at
    // [100, 150). J3 (2 wide, 120 s) fits beside J1 now but would run into
    // J2's reservation: it is reserved at 150. At 10 the operator makes
    // estimates exact, queued jobs too: J2's reservation is given up, and
    // J3, scanned first, now fits from 10 on, a window that starts before
    // the room given back and runs into it. J2 is placed again after it,
    // at 130.
    use schedscope::engine::Command;
    use schedscope::workload::estimates::EstimateModel;
    let jobs = [(1, 0, 2, 100, 100), (2, 1, 4, 20, 50), (3, 2, 2, 120, 120)];
    let policy = PolicySpec::named(CONSERVATIVE).with_order(BackfillOrder::Smallest);
    let mut e = engine(4, &jobs, &policy);
    e.step_until(SimTime::from_secs(5));
    let planned: Vec<(u64, Option<i64>)> = e
        .snapshot()
        .queue
        .iter()
        .map(|q| (q.id, q.planned_start.map(|t| t.0 / 1_000_000)))
        .collect();
    assert_eq!(planned, vec![(2, Some(100)), (3, Some(150))]);
    e.schedule_command(
        SimTime::from_secs(10),
        Command::SetEstimateError {
            estimates: EstimateModel::exact(),
            queued_too: true,
        },
    );
    assert_eq!(run_to_starts(&mut e), vec![(1, 0), (2, 130), (3, 10)]);
}

#[test]
fn a_job_past_its_estimate_is_expected_to_end_any_moment() {
    // 4 processors. J1 (3 wide, estimate 10) runs on past its estimate
    // until 20; J2 (4 wide) is the head from 1. At 12, J1 is expected to
    // end any moment (just after now), so that is J2's shadow time. J3
    // (1 wide, estimate and run time 0) ends by then: backfilled at 12.
    // Had J1 been expected to end at its estimate, in the past,
    // conservative backfilling would have found no room before J2's
    // reservation and J3 would have waited for J2, to 30.
    let jobs = [(1, 0, 3, 20, 10), (2, 1, 4, 10, 10), (3, 12, 1, 0, 0)];
    for name in [EASY, CONSERVATIVE] {
        assert_eq!(
            starts(4, &jobs, name),
            vec![(1, 0), (2, 20), (3, 12)],
            "{name:?}"
        );
    }
}

#[test]
fn both_show_their_head_and_the_heads_shadow_time() {
    // 4 processors. J1 holds 2 until 20 and J2 1 until 5; J3 (4 wide) is
    // the head from 1, with shadow time 20 under both policies. EASY
    // backfills J5 at 2; conservative reserves for J4 and J5 too.
    let jobs = [
        (1, 0, 2, 20, 20),
        (2, 0, 1, 5, 5),
        (3, 1, 4, 5, 5),
        (4, 1, 2, 10, 10),
        (5, 2, 1, 10, 10),
    ];
    for (name, starts) in [
        (EASY, vec![(1, 0), (2, 0), (3, 20), (4, 25), (5, 2)]),
        (CONSERVATIVE, vec![(1, 0), (2, 0), (3, 20), (4, 5), (5, 25)]),
    ] {
        let policy = named(name);
        let mut e = engine(4, &jobs, &policy);
        e.step_until(SimTime::from_secs(3));
        match e.policy_state().detail::<HeadPlan>().copied() {
            Some(HeadPlan { head, shadow }) => {
                assert_eq!(
                    (head, shadow),
                    (3, Some(SimTime::from_secs(20))),
                    "{name:?}"
                )
            }
            other => panic!("{name:?}: {other:?}"),
        }
        assert_eq!(run_to_starts(&mut e), starts, "{name:?}");
    }
}

#[test]
fn easy_shows_a_new_head_before_it_plans_for_it() {
    // J1 (4 wide) and J2 arrive together at 0 on 4 processors. After the
    // first arrival, before the instant is over and EASY plans, the
    // console already shows J1 as the head, with no shadow time yet.
    let jobs = [(1, 0, 4, 10, 10), (2, 0, 1, 5, 5)];
    let policy = named(EASY);
    let mut e = engine(4, &jobs, &policy);
    e.step();
    let b = e.snapshot().backfill.expect("a backfilling policy plans");
    assert_eq!((b.head, b.shadow), (Some(1), None));
    assert_eq!(run_to_starts(&mut e), vec![(1, 0), (2, 10)]);
}

/// A recorded schedule, not worked by hand: conservative backfilling on
/// 8 processors with estimates short both ways, under `on_overrun =
/// "requeue"`. Job 3 (backfilled at 5 s, expired at 10 s) is aborted at
/// 10 s for job 2 and comes back at 16 s; the policy must hear that the
/// queue changed other than by arrivals and starts and plan again. A plan
/// kept across the return gives job 5 a later reservation at 16 s (27 s
/// instead of 24 s) and every later start moves: jobs 3 and 4 swap.
/// Recorded under `broken = "around-later"`, the rule for broken
/// reservations it was recorded with; the default reading's schedule is
/// recorded below it.
#[test]
fn conservative_plans_again_when_an_aborted_job_comes_back() {
    let jobs = [
        (1, 2, 3, 8, 11),
        (2, 3, 8, 10, 8),
        (3, 5, 5, 11, 5),
        (4, 7, 2, 6, 6),
        (5, 7, 7, 10, 8),
        (6, 7, 2, 10, 6),
    ];
    let starts = |spec: &PolicySpec| -> Vec<(u64, i64, u32)> {
        requeue_run(8, &jobs, spec)
            .into_iter()
            .map(|(id, start, _, requeues)| (id, start, requeues))
            .collect()
    };
    let mut around = named(CONSERVATIVE);
    around.params.insert(
        "broken".to_string(),
        schedscope::sched::ParamValue::Text("around-later".to_string()),
    );
    assert_eq!(
        starts(&around),
        vec![
            (1, 2, 0),
            (2, 10, 0),
            (3, 34, 1),
            (4, 31, 0),
            (5, 53, 1),
            (6, 63, 2)
        ]
    );
    assert_eq!(
        starts(&named(CONSERVATIVE)),
        vec![
            (1, 2, 0),
            (2, 10, 0),
            (3, 32, 1),
            (4, 34, 0),
            (5, 54, 1),
            (6, 64, 2)
        ]
    );
}
