//! Hand-worked EASY and conservative backfilling schedules: every start
//! time asserted.

use schedscope::engine::{Engine, EngineConfig};
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::Catalogued;
use schedscope::policy::{Machines, PolicyName, PolicySpec};
use schedscope::policy::{SharedParams, names};

/// (id, submit, size, runtime, estimate)
pub(crate) type J = (u64, i64, u32, i64, i64);

pub(crate) fn spec(&(id, submit, size, rt, est): &J) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: SimTime::from_secs(submit),
        size,
        components: vec![size],
        runtime: SimTime::from_secs(rt),
        estimate: Some(SimTime::from_secs(est)),
        user: None,
        injected: false,
        home: None,
        app: None,
        comm: None,
        graph: None,
    }
}

pub(crate) fn starts(processors: u32, jobs: &[J], name: PolicyName) -> Vec<(u64, i64)> {
    let policy = named(name);
    starts_under(processors, jobs, &policy)
}

pub(crate) fn starts_under(processors: u32, jobs: &[J], policy: &PolicySpec) -> Vec<(u64, i64)> {
    let mut e = engine(processors, jobs, policy);
    run_to_starts(&mut e)
}

/// An engine on one cluster of `processors`, before the first event.
pub(crate) fn engine(processors: u32, jobs: &[J], policy: &PolicySpec) -> Engine {
    let specs: Vec<JobSpec> = jobs.iter().map(spec).collect();
    schedscope::simulation::engine(
        Platform::uniform(1, processors),
        Box::new(specs.into_iter()),
        policy,
        EngineConfig::default(),
    )
    .unwrap()
}

/// Runs `e` to the end: (id, start in seconds) of every job, by id.
pub(crate) fn run_to_starts(e: &mut Engine) -> Vec<(u64, i64)> {
    e.run();
    let mut v: Vec<(u64, i64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000))
        .collect();
    v.sort();
    v
}

/// The policy `name` with every other setting at its default.
pub(crate) fn named(name: PolicyName) -> PolicySpec {
    PolicySpec::named(name)
}

pub(crate) const CONSERVATIVE: PolicyName = names::CONSERVATIVE;
pub(crate) const EASY: PolicyName = names::EASY;
pub(crate) const FCFS: PolicyName = names::FCFS;

#[test]
pub(crate) fn a_backfill_that_would_delay_the_head_is_refused() {
    // 4 processors. J1 holds 3 until 10; J2 (4 wide) is the head with
    // shadow time 10 and no extra processors. J3 fits now but would run to
    // 22: refused. J4 ends at 8, before the shadow: backfilled at 3.
    let jobs = [
        (1, 0, 3, 10, 10),
        (2, 1, 4, 5, 5),
        (3, 2, 1, 20, 20),
        (4, 3, 1, 5, 5),
    ];
    let want = vec![(1, 0), (2, 10), (3, 15), (4, 3)];
    assert_eq!(starts(4, &jobs, EASY), want);
    assert_eq!(starts(4, &jobs, CONSERVATIVE), want);
    assert_eq!(
        starts(4, &jobs, FCFS),
        vec![(1, 0), (2, 10), (3, 15), (4, 15)]
    );
}

#[test]
pub(crate) fn a_backfill_ending_at_the_shadow_time_may_use_the_heads_processors() {
    // 4 processors. J1 holds 2 until 10; the head J2 needs all 4 at 10.
    // J3 (2 wide, estimate 8) arrives at 2 and ends exactly at the shadow
    // time: backfilled at 2 on the two free processors, which are the
    // head's from 10 (pinned or counted alike).
    let jobs = [(1, 0, 2, 10, 10), (2, 1, 4, 5, 5), (3, 2, 2, 8, 8)];
    let want = vec![(1, 0), (2, 10), (3, 2)];
    for policy in counted_and_pinned() {
        assert_eq!(starts_under(4, &jobs, &policy), want, "{}", policy.label());
    }
    // One second longer, it would delay the head: it waits.
    let late = [(1, 0, 2, 10, 10), (2, 1, 4, 5, 5), (3, 2, 2, 9, 9)];
    for policy in counted_and_pinned() {
        assert_eq!(
            starts_under(4, &late, &policy),
            vec![(1, 0), (2, 10), (3, 15)],
            "{}",
            policy.label()
        );
    }
}

#[test]
pub(crate) fn a_backfill_on_extra_processors_only_is_allowed() {
    // 6 processors. J1 holds 4 until 10; the head J2 needs 5 at 10, which
    // leaves 1 extra processor. J3 (1 wide, 30 s) runs past the shadow time
    // but uses only the extra processor: backfilled at 2. J4 would need
    // another one: refused until the head has run.
    let jobs = [
        (1, 0, 4, 10, 10),
        (2, 1, 5, 5, 5),
        (3, 2, 1, 30, 30),
        (4, 3, 1, 30, 30),
    ];
    let want = vec![(1, 0), (2, 10), (3, 2), (4, 15)];
    assert_eq!(starts(6, &jobs, EASY), want);
    assert_eq!(starts(6, &jobs, CONSERVATIVE), want);
}

#[test]
pub(crate) fn conservative_refuses_what_easy_accepts() {
    // 4 processors. A holds 2 until 20, B 1 until 5. The head H (4 wide)
    // waits for 20. Q (2 wide, 10 s) fits the hole [5, 15). C (1 wide,
    // 10 s) fits now and ends by H's shadow time, so EASY starts it at 2 —
    // which takes a processor Q needs at 5, so Q waits until after H.
    // Conservative protects Q's reservation too: C waits for 25.
    let jobs = [
        (1, 0, 2, 20, 20), // A
        (2, 0, 1, 5, 5),   // B
        (3, 1, 4, 5, 5),   // H
        (4, 1, 2, 10, 10), // Q
        (5, 2, 1, 10, 10), // C
    ];
    assert_eq!(
        starts(4, &jobs, EASY),
        vec![(1, 0), (2, 0), (3, 20), (4, 25), (5, 2)]
    );
    assert_eq!(
        starts(4, &jobs, CONSERVATIVE),
        vec![(1, 0), (2, 0), (3, 20), (4, 5), (5, 25)]
    );
}

#[test]
pub(crate) fn early_completion_moves_reservations_forward() {
    // J1 is estimated at 10 s but ends at 5. J2 was reserved for 10; J3,
    // behind it, for 15. When J1 ends early both move forward: J2 starts at
    // 5, J3 at 10.
    let jobs = [(1, 0, 4, 5, 10), (2, 1, 4, 5, 5), (3, 2, 4, 5, 5)];
    for p in [EASY, CONSERVATIVE] {
        assert_eq!(starts(4, &jobs, p), vec![(1, 0), (2, 5), (3, 10)], "{p:?}");
    }
}

#[test]
pub(crate) fn reservations_are_visible_in_the_snapshot() {
    let jobs = [
        (1, 0, 2, 20, 20),
        (2, 0, 1, 5, 5),
        (3, 1, 4, 5, 5),
        (4, 1, 2, 10, 10),
        (5, 2, 1, 10, 10),
    ];
    let policy = named(CONSERVATIVE);
    let mut e = schedscope::simulation::engine(
        Platform::uniform(1, 4),
        Box::new(jobs.iter().map(spec).collect::<Vec<_>>().into_iter()),
        &policy,
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(3));
    let s = e.snapshot();
    let b = s.backfill.expect("a backfilling policy plans");
    assert_eq!(b.head, Some(3));
    assert_eq!(b.shadow, Some(SimTime::from_secs(20)));
    let planned: Vec<(u64, Option<i64>)> = s
        .queue
        .iter()
        .map(|q| (q.id, q.planned_start.map(|t| t.0 / 1_000_000)))
        .collect();
    assert_eq!(planned, vec![(3, Some(20)), (4, Some(5)), (5, Some(25))]);
}

/// EASY and conservative backfilling, each with counted and with pinned
/// processors: the aborts for the head are the same rule in all four.
pub(crate) fn counted_and_pinned() -> Vec<PolicySpec> {
    [EASY, CONSERVATIVE]
        .into_iter()
        .flat_map(|name| {
            let counted = named(name);
            let pinned = counted.clone().with_machines(Machines::Pinned);
            [counted, pinned]
        })
        .collect()
}

/// (id, start, end, requeues) of every job under `on_overrun = "requeue"`.
pub(crate) fn requeue_run(
    processors: u32,
    jobs: &[J],
    policy: &PolicySpec,
) -> Vec<(u64, i64, i64, u32)> {
    let specs: Vec<JobSpec> = jobs.iter().map(spec).collect();
    requeue_run_ticks(processors, specs, policy)
        .into_iter()
        .map(|(id, start, end, requeues)| (id, start.0 / 1_000_000, end.0 / 1_000_000, requeues))
        .collect()
}

/// [`requeue_run`] of any jobs, to the tick: (id, start, end, requeues).
pub(crate) fn requeue_run_ticks(
    processors: u32,
    specs: Vec<JobSpec>,
    policy: &PolicySpec,
) -> Vec<(u64, SimTime, SimTime, u32)> {
    use schedscope::workload::estimates::{EstimateModel, OnOverrun};
    let config = EngineConfig {
        estimates: EstimateModel {
            on_overrun: OnOverrun::Requeue,
            ..EstimateModel::default()
        },
        ..EngineConfig::default()
    };
    let mut e = schedscope::simulation::engine(
        Platform::uniform(1, processors),
        Box::new(specs.into_iter()),
        policy,
        config,
    )
    .unwrap();
    e.run();
    e.check_conservation().expect("every job ended");
    // Nor does the policy ask for anything the engine will not do, such
    // as deciding again at once while nothing changes.
    assert_eq!(
        e.last_refusal(),
        None,
        "{}: a refused decision",
        policy.label()
    );
    let mut v: Vec<_> = e
        .drain_records()
        .map(|r| (r.id, r.start, r.end, r.requeues))
        .collect();
    v.sort();
    v
}

#[test]
pub(crate) fn an_expired_backfilled_job_is_aborted_only_when_the_head_is_due() {
    // 4 processors. J1 holds 2 until 10; the head J2 (4 wide) has its
    // reservation at 10. J3 (2 wide, estimate 5) is backfilled at 2 and
    // outlives its estimate at 7, but the head is not due until 10: it
    // keeps running and ends at 8, never aborted.
    let ends_before = [(1, 0, 2, 10, 10), (2, 1, 4, 5, 5), (3, 2, 2, 6, 5)];
    for policy in counted_and_pinned() {
        assert_eq!(
            requeue_run(4, &ends_before, &policy),
            vec![(1, 0, 10, 0), (2, 10, 15, 0), (3, 2, 8, 0)],
            "{}",
            policy.label()
        );
    }
    // J3 needs 20 s: at 10 it holds processors the head needs, so it is
    // aborted then, the head starts, and J3 runs again from the start at
    // 15, now in order (it keeps running past its estimate this time).
    let blocks = [(1, 0, 2, 10, 10), (2, 1, 4, 5, 5), (3, 2, 2, 20, 5)];
    for policy in counted_and_pinned() {
        assert_eq!(
            requeue_run(4, &blocks, &policy),
            vec![(1, 0, 10, 0), (2, 10, 15, 0), (3, 15, 35, 1)],
            "{}",
            policy.label()
        );
    }
}

#[test]
pub(crate) fn an_expired_job_is_aborted_only_where_that_lets_the_head_start() {
    // 6 processors. J1 (2 wide, estimate 10, runs 30) and J2 (2 wide, to
    // 100) start in order; the head J3 needs 4, reserved at 10. J4 (2
    // wide, estimate 5) is backfilled at 2 and expires at 7. At 10 the
    // head is due (only J1, past its estimate, is in its way), but J4's
    // 2 processors and the 0 free are not 4: J4 is not aborted, and ends
    // at 27 with its work done.
    let not_enough = [
        (1, 0, 2, 30, 10),
        (2, 0, 2, 100, 100),
        (3, 1, 4, 10, 10),
        (4, 2, 2, 25, 5),
    ];
    for policy in counted_and_pinned() {
        assert_eq!(
            requeue_run(6, &not_enough, &policy),
            vec![(1, 0, 30, 0), (2, 0, 100, 0), (3, 30, 40, 0), (4, 2, 27, 0)],
            "{}",
            policy.label()
        );
    }
    // 4 processors. J1 holds 1 until 10; the head J2 needs all 4; J3 (3
    // wide, estimate 5) is backfilled at 2. At 10 the 1 free and J3's 3
    // are the head's 4: J3 is aborted and runs again after the head.
    let enough = [(1, 0, 1, 10, 10), (2, 1, 4, 5, 5), (3, 2, 3, 20, 5)];
    // FPFS jumps J3 ahead of the head the same way, and aborts it the same.
    for policy in counted_and_pinned().into_iter().chain([named(names::FPFS)]) {
        assert_eq!(
            requeue_run(4, &enough, &policy),
            vec![(1, 0, 10, 0), (2, 10, 15, 0), (3, 15, 35, 1)],
            "{}",
            policy.label()
        );
    }
}

/// A time `secs` seconds and `ticks` ticks from the start.
pub(crate) fn at(secs: i64, ticks: i64) -> SimTime {
    SimTime(secs * 1_000_000 + ticks)
}

/// A job of any run time and estimate, to the tick.
pub(crate) fn job(id: u64, submit: i64, size: u32, runtime: SimTime, estimate: SimTime) -> JobSpec {
    JobSpec {
        runtime,
        estimate: Some(estimate),
        ..spec(&(id, submit, size, 1, 1))
    }
}

#[test]
pub(crate) fn a_head_reserved_at_an_estimated_end_is_not_due_before_it() {
    // 6 processors. J1 (ends early, at 8 s) and J2 (runs to 30 s) are both
    // estimated to end at 20 s; the head J3 needs 4, reserved at 20 s. J4
    // (2 wide, estimate 5 s) is backfilled at 2 s and expires at 7 s. When
    // J1 ends at 8 s, the last plan still has the head at 20 s, the
    // estimated end of J2, which is still within its estimate: the head is
    // not due, and nothing is aborted then. The new plan has the head one
    // tick later (J4 may end any moment), so J5 (1 wide, one tick long)
    // backfills into that tick; then the head is due, J4 is aborted and
    // the head starts.
    let specs = vec![
        job(1, 0, 2, at(8, 0), at(20, 0)),
        job(2, 0, 2, at(30, 0), at(20, 0)),
        job(3, 1, 4, at(10, 0), at(10, 0)),
        job(4, 2, 2, at(100, 0), at(5, 0)),
        job(5, 3, 1, at(0, 1), at(0, 1)),
    ];
    for policy in counted_and_pinned() {
        let v = requeue_run_ticks(6, specs.clone(), &policy);
        assert_eq!(
            v.iter()
                .map(|&(id, s, _, r)| (id, s, r))
                .collect::<Vec<_>>(),
            vec![
                (1, at(0, 0), 0),
                (2, at(0, 0), 0),
                (3, at(8, 1), 0),
                (4, at(18, 1), 1),
                (5, at(8, 0), 0)
            ],
            "{}",
            policy.label()
        );
    }
}

#[test]
pub(crate) fn a_head_reserved_one_tick_from_now_is_due_now() {
    // As above, but J1 and J2 are estimated to end one tick after 8 s, and
    // J1 ends at 8 s. Then the last plan's reservation is one tick away,
    // at the next estimated end, and J4 (expired at 7 s) is all the head
    // waits for: it is aborted at 8 s and the head starts at once, not a
    // tick later.
    let specs = vec![
        job(1, 0, 2, at(8, 0), at(8, 1)),
        job(2, 0, 2, at(30, 0), at(8, 1)),
        job(3, 1, 4, at(10, 0), at(10, 0)),
        job(4, 2, 2, at(100, 0), at(5, 0)),
    ];
    for policy in counted_and_pinned() {
        let v = requeue_run_ticks(6, specs.clone(), &policy);
        assert_eq!(
            v.iter()
                .map(|&(id, s, _, r)| (id, s, r))
                .collect::<Vec<_>>(),
            vec![
                (1, at(0, 0), 0),
                (2, at(0, 0), 0),
                (3, at(8, 0), 0),
                (4, at(18, 0), 1)
            ],
            "{}",
            policy.label()
        );
    }
}

#[test]
pub(crate) fn expired_jobs_are_aborted_oldest_first_until_the_head_fits() {
    // 4 processors. J1 holds 2 until 10; the head J2 needs 3. J3 and J4
    // (1 wide each, estimate 5) are backfilled at 2 and 3 and expire. At
    // 10 the 2 free and J3's 1 are the head's 3: J3, the oldest, is
    // aborted, J4 keeps running, and J3 runs again once the head ends.
    let jobs = [
        (1, 0, 2, 10, 10),
        (2, 1, 3, 5, 5),
        (3, 2, 1, 100, 5),
        (4, 3, 1, 100, 5),
    ];
    for policy in counted_and_pinned() {
        assert_eq!(
            requeue_run(4, &jobs, &policy),
            vec![
                (1, 0, 10, 0),
                (2, 10, 15, 0),
                (3, 15, 115, 1),
                (4, 3, 103, 0)
            ],
            "{}",
            policy.label()
        );
    }
}

#[test]
pub(crate) fn a_head_that_waits_only_for_expired_jobs_takes_their_processors_at_once() {
    // 6 processors. J1 (ends early, at 8 s) and J2 (runs to 30 s) are both
    // estimated to end at `estimated`; the head J3 needs 4. J4 (2 wide,
    // estimate 5 s) is backfilled at 2 s and expires at 7 s. When J1 ends
    // at 8 s, the last plan has the head at `estimated`, not due yet; the
    // new plan has it one tick later, behind J4 alone. The policy decides
    // again at once: J4 is aborted and the head starts at 8 s, whether J2's
    // estimated end is far off or two ticks away.
    for estimated in [at(20, 0), at(8, 2)] {
        let specs = vec![
            job(1, 0, 2, at(8, 0), estimated),
            job(2, 0, 2, at(30, 0), estimated),
            job(3, 1, 4, at(10, 0), at(10, 0)),
            job(4, 2, 2, at(100, 0), at(5, 0)),
        ];
        for policy in counted_and_pinned() {
            let v = requeue_run_ticks(6, specs.clone(), &policy);
            assert_eq!(
                v.iter()
                    .map(|&(id, s, _, r)| (id, s, r))
                    .collect::<Vec<_>>(),
                vec![
                    (1, at(0, 0), 0),
                    (2, at(0, 0), 0),
                    (3, at(8, 0), 0),
                    (4, at(18, 0), 1)
                ],
                "{}, J2 estimated to end at {estimated:?}",
                policy.label()
            );
        }
    }
}
