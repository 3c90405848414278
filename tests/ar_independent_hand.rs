//! The reservation scheduler's independent jobs by hand: FCFS or EASY
//! around a reservation, every start and end asserted. EASY's shadow time
//! must count the reserved processors as busy until the window ends.
//!
//! Four processors. At 0 a graph G (two independent subtasks of 20 s on
//! two target processors: length 20, width 2) and job A (2 wide, 10 s)
//! arrive; AR's first request (grid point 0) reserves the lowest free
//! processors p0, p1 over [0, 20) for G, and A takes p2, p3 until 10.
//! B (3 wide, 5 s) arrives at 1, C (1 wide, 8 s) at 2, D (1 wide, 15 s)
//! at 3.
//!
//! * EASY: B's shadow is 20 (at 10 only p2, p3 are free, p0 and p1 being
//!   reserved until 20), holding p0, p1, p2. At 10 C ends by 20 and
//!   backfills onto p2; D, ending at 25, may not use p0–p2 and takes p3.
//!   At 20 B starts on p0–p2. Starts G 0, A 0, C 10, D 10, B 20.
//!   (A shadow blind to the reservation would be 10, and C could not
//!   start at 10 on B's processors.)
//! * FCFS: B blocks C and D: B at 20 on p0–p2, C at 20 on p3, D at 25
//!   when B ends. Starts G 0, A 0, B 20, C 20, D 25.

use schedscope::engine::{Engine, EngineConfig};
use schedscope::model::graph::GraphJob;
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::SharedParams;
use schedscope::sched::{ParamValue, PolicyName, PolicySpec};
use schedscope::taskgraph::TaskGraph;
use schedscope::taskgraph::schedule::Schedule;
use std::collections::BTreeMap;
use std::sync::Arc;

const G: u64 = 100;

fn job(id: u64, submit: i64, size: u32, runtime: i64) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: SimTime::from_secs(submit),
        size,
        components: vec![size],
        runtime: SimTime::from_secs(runtime),
        estimate: Some(SimTime::from_secs(runtime)),
        user: None,
        injected: false,
        home: None,
        comm: None,
        graph: None,
        app: None,
    }
}

fn graph() -> JobSpec {
    let g = TaskGraph::new(vec![20, 20], &[]).unwrap();
    let schedule = Schedule {
        procs: 2,
        proc: vec![0, 1],
        start: vec![0, 0],
    };
    let gj = GraphJob {
        family: 0,
        label: "hand".into(),
        graph: g,
        schedule,
        tpes: 2,
        unit: SimTime::from_secs(1),
    };
    assert_eq!((gj.width(), gj.length()), (2, SimTime::from_secs(20)));
    JobSpec {
        graph: Some(Arc::new(gj)),
        ..job(G, 0, 2, 20)
    }
}

/// (start, end) of every job by id.
type Spans = BTreeMap<u64, (i64, i64)>;

/// The processors every job ran on, by id.
type Places = BTreeMap<u64, Vec<u32>>;

/// An engine under `ar` on one cluster of `procs` processors, with the
/// parameters `params`.
fn under_ar(procs: u32, jobs: Vec<JobSpec>, params: &[(&str, ParamValue)]) -> Engine {
    let mut spec = PolicySpec::named(PolicyName::new("ar"));
    for (key, value) in params {
        spec.params.insert(key.to_string(), value.clone());
    }
    schedscope::simulation::engine(
        Platform::uniform(1, procs),
        Box::new(jobs.into_iter()),
        &spec,
        EngineConfig::default(),
    )
    .unwrap()
}

/// (processors, start, finish, holds) of a reservation.
type Reserved = (Vec<u32>, SimTime, SimTime, Vec<u64>);

/// Runs `e` to the end: every reservation it granted, in order, and every
/// job's start; no job killed, none refused.
fn reservations_and_starts(e: &mut Engine) -> (Vec<Reserved>, BTreeMap<u64, SimTime>) {
    let mut reserved = Vec::new();
    let mut starts = BTreeMap::new();
    while e.step().is_some() {
        for r in e.reservations() {
            reserved.push((r.processors.clone(), r.start, r.finish, r.holds.clone()));
        }
        for rec in e.drain_records() {
            assert!(!rec.killed, "job {} killed", rec.id);
            starts.insert(rec.id, rec.start);
        }
    }
    e.check_conservation().unwrap();
    assert_eq!(e.counters().refused, 0);
    reserved.sort();
    reserved.dedup();
    (reserved, starts)
}

/// When every job ran, and where.
fn run(independent: &str) -> (Spans, Places) {
    let jobs = vec![
        graph(),
        job(1, 0, 2, 10),
        job(2, 1, 3, 5),
        job(3, 2, 1, 8),
        job(4, 3, 1, 15),
    ];
    let mut e = under_ar(
        4,
        jobs,
        &[("independent", ParamValue::Text(independent.into()))],
    );
    let mut out = BTreeMap::new();
    let mut on = BTreeMap::new();
    let mut reserved = Vec::new();
    while e.step().is_some() {
        for r in e.reservations() {
            reserved.push((r.processors.clone(), r.start, r.finish, r.holds.clone()));
        }
        for (id, ps) in e.running_processors() {
            on.entry(id)
                .or_insert_with(|| ps.iter().flat_map(|(_, p)| p.clone()).collect());
        }
        for rec in e.drain_records() {
            assert!(!rec.killed, "job {} killed", rec.id);
            out.insert(
                rec.id,
                (rec.start.as_secs_f64() as i64, rec.end.as_secs_f64() as i64),
            );
        }
    }
    e.check_conservation().unwrap();
    // One reservation: p0, p1 over [0, 20) for G alone.
    reserved.dedup();
    assert_eq!(
        reserved,
        vec![(vec![0, 1], SimTime::ZERO, SimTime::from_secs(20), vec![G])]
    );
    (out, on)
}

#[test]
fn easy_around_a_reservation_every_start() {
    let (got, on) = run("easy");
    // C, done by B's shadow time, backfills onto p2, one of B's; D, not
    // done by then, only onto p3.
    let want: Places = [
        (G, vec![0, 1]),
        (1, vec![2, 3]),
        (2, vec![0, 1, 2]),
        (3, vec![2]),
        (4, vec![3]),
    ]
    .into_iter()
    .collect();
    assert_eq!(on, want);
    let want: BTreeMap<u64, (i64, i64)> = [
        (G, (0, 20)),
        (1, (0, 10)),
        (2, (20, 25)),
        (3, (10, 18)),
        (4, (10, 25)),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);
}

#[test]
fn fcfs_around_a_reservation_every_start() {
    let (got, _) = run("fcfs");
    let want: BTreeMap<u64, (i64, i64)> = [
        (G, (0, 20)),
        (1, (0, 10)),
        (2, (20, 25)),
        (3, (20, 28)),
        (4, (25, 40)),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);
}

/// A job past its estimate may end at any moment, but it has not ended
/// yet: a reservation asked for while it runs begins on its processors at
/// the next instant at the earliest, never at the instant of the request.
///
/// Two processors. Job 1 (both, 100 s, estimated 10 s) starts at 0; at 30
/// the graph arrives and AR asks for its reservation at once.
#[test]
fn a_reservation_waits_an_instant_for_a_job_past_its_estimate() {
    let mut late = job(1, 0, 2, 100);
    late.estimate = Some(SimTime::from_secs(10));
    let jobs = vec![
        late,
        JobSpec {
            submit: SimTime::from_secs(30),
            ..graph()
        },
    ];
    let mut e = under_ar(2, jobs, &[]);
    e.step_until(SimTime::from_secs(30));
    let starts: Vec<SimTime> = e.reservations().iter().map(|r| r.start).collect();
    assert_eq!(starts, [SimTime::from_secs(30) + SimTime(1)]);
}

/// A graph of independent subtasks of `weights` units of `unit_secs` each,
/// one to a target processor.
fn graph_of(id: u64, family: u32, weights: &[u64], unit_secs: i64) -> JobSpec {
    let n = weights.len();
    let gj = GraphJob {
        family,
        label: "hand".into(),
        graph: TaskGraph::new(weights.to_vec(), &[]).unwrap(),
        schedule: Schedule {
            procs: n,
            proc: (0..n).collect(),
            start: vec![0; n],
        },
        tpes: n as u32,
        unit: SimTime::from_secs(unit_secs),
    };
    let len = gj.length().as_secs_f64() as i64;
    JobSpec {
        graph: Some(Arc::new(gj)),
        ..job(id, 0, n as u32, len)
    }
}

/// Two graphs of two families, one reservation each, a second apart.
///
/// Four processors, a request every second. At 0 graph G1 (family 0:
/// subtasks of 10 and 5 units of 2 s, so 20 s on two processors, the
/// second row idle for its last 10 s), graph G2 (family 1: 10 and 10
/// units of 2 s) and job J (1 wide, 10 s) arrive. The first request takes
/// G1's family alone: p0, p1 over [0, 20), J backfilled into the idle
/// row at 10. The request at 1 takes G2; p0 and p1 are G1's until 20, so
/// it gets p2, p3 over [1, 21). Efficiency: G1 15 of 20 units, G2 20 of
/// 20; backfilled 5 units, 10 s.
#[test]
fn a_second_reservation_goes_beside_the_first_with_its_figures() {
    let (g1, g2) = (G, G + 1);
    let jobs = vec![
        graph_of(g1, 0, &[10, 5], 2),
        graph_of(g2, 1, &[10, 10], 2),
        job(1, 0, 1, 10),
    ];
    let mut e = under_ar(4, jobs, &[("interval", ParamValue::Int(1))]);
    let (reserved, starts) = reservations_and_starts(&mut e);
    let s = SimTime::from_secs;
    assert_eq!(
        reserved,
        vec![
            (vec![0, 1], s(0), s(20), vec![g1, 1]),
            (vec![2, 3], s(1), s(21), vec![g2]),
        ]
    );
    assert_eq!(
        starts.into_iter().collect::<Vec<_>>(),
        [(1, s(10)), (g1, s(0)), (g2, s(1))]
    );
    let Some(v) = e.policy_state().panel.plan else {
        panic!("ar reports its reservations");
    };
    assert_eq!((v.reservations, v.graphs, v.backfilled), (2, 2, 1));
    assert_eq!(v.efficiency_sum, 0.75 + 1.0);
    assert_eq!(v.backfill_secs, 10.0);
}

/// The engine of `a_reservation_is_not_placed_across_a_later_one`, before
/// its first event.
fn one_reservation_after_the_other() -> Engine {
    let mut b = job(2, 0, 2, 5);
    b.runtime = SimTime::from_secs_f64(1.5);
    let jobs = vec![
        job(1, 0, 2, 30),
        b,
        JobSpec {
            submit: SimTime::from_secs(1),
            ..graph_of(G, 0, &[20, 20], 1)
        },
        JobSpec {
            submit: SimTime::from_secs(2),
            ..graph_of(G + 1, 1, &[20, 20], 1)
        },
    ];
    under_ar(4, jobs, &[("interval", ParamValue::Int(1))])
}

/// A window is free only if no reservation claims any part of it, one
/// that begins later included.
///
/// Four processors, a request every second. At 0 A (2 wide, 30 s) takes
/// p0, p1 and B (2 wide, estimated 5 s, done in 1.5) takes p2, p3. G1
/// (20 s on two processors) arrives at 1: p2, p3 over [5, 25). B ends at
/// 1.5; G2 (another family, also 20 s on two) arrives at 2: p2 and p3 are
/// free then, but G1's window begins at 5, so G2 gets them over [25, 45).
#[test]
fn a_reservation_is_not_placed_across_a_later_one() {
    let (g1, g2) = (G, G + 1);
    let mut e = one_reservation_after_the_other();
    let (reserved, starts) = reservations_and_starts(&mut e);
    let s = SimTime::from_secs;
    assert_eq!(
        reserved,
        vec![
            (vec![2, 3], s(5), s(25), vec![g1]),
            (vec![2, 3], s(25), s(45), vec![g2]),
        ]
    );
    assert_eq!(starts[&g1], s(5));
    assert_eq!(starts[&g2], s(25));
}

/// A job estimated to take no time still holds its processors until the
/// next instant: EASY's head may count on them then, and a job that would
/// run past that may not take the head's other processors.
///
/// Five processors, no graphs, independent jobs by EASY. At 0: A (3 wide,
/// 10 s) takes p0–p2, Z (1 wide, 0 s) p3; the head H (2 wide, 10 s) does
/// not fit, and its shadow is the next instant on p3 and p4; C (1 wide,
/// 5 s) may not take p4. Z ends at 0, H starts at 0 on p3, p4, and C at 10
/// when A ends.
#[test]
fn a_job_of_no_time_holds_its_processors_until_the_next_instant() {
    let jobs = vec![
        job(1, 0, 3, 10),
        job(2, 0, 1, 0),
        job(3, 0, 2, 10),
        job(4, 0, 1, 5),
    ];
    let mut e = under_ar(5, jobs, &[("independent", ParamValue::Text("easy".into()))]);
    let mut starts = BTreeMap::new();
    while e.step().is_some() {
        for rec in e.drain_records() {
            starts.insert(rec.id, rec.start.as_secs_f64());
        }
    }
    assert_eq!(
        starts.into_iter().collect::<Vec<_>>(),
        [(1, 0.0), (2, 0.0), (3, 0.0), (4, 10.0)]
    );
}

/// Requests come on the interval's grid only: a graph arriving between
/// two grid points waits for the next one.
///
/// Four processors, the default interval of 1,800 s. G1 arrives at 0 and
/// is reserved at once on p0, p1 over [0, 20); G2 (another family)
/// arrives at 5 and is reserved at 1,800.
#[test]
fn a_graph_arriving_between_requests_waits_for_the_next_one() {
    let jobs = vec![
        graph_of(G, 0, &[20, 20], 1),
        JobSpec {
            submit: SimTime::from_secs(5),
            ..graph_of(G + 1, 1, &[20, 20], 1)
        },
    ];
    let mut e = under_ar(4, jobs, &[]);
    let mut reserved = Vec::new();
    while e.step().is_some() {
        for r in e.reservations() {
            reserved.push((r.start, r.holds.clone()));
        }
    }
    reserved.dedup();
    let s = SimTime::from_secs;
    assert_eq!(reserved, [(s(0), vec![G]), (s(1_800), vec![G + 1])]);
}

/// The blocks ar shows are those of the reservations in force: a plan
/// leaves the picture at its window's end, the instant the engine gives
/// its processors back.
///
/// The two reservations of `a_reservation_is_not_placed_across_a_later_one`
/// (p2, p3 over [5, 25) for G1, then over [25, 45) for G2): both plans'
/// blocks at 5, only G2's at 25, none at 45 when G2 ends with nothing
/// queued (no decision point then: the plan is kept until the next one,
/// and must not be shown).
#[test]
fn the_blocks_shown_are_those_of_the_reservations_in_force() {
    let (g1, g2) = (G, G + 1);
    let mut e = one_reservation_after_the_other();
    let mut shown_at = BTreeMap::new();
    while let Some(now) = e.step() {
        let Some(v) = e.policy_state().panel.plan else {
            panic!("ar reports its reservations");
        };
        for block in &v.blocks {
            assert!(
                e.reservations()
                    .iter()
                    .any(|r| r.processors.contains(&block.processor)
                        && r.start <= block.start
                        && block.end <= r.finish),
                "at {now:?}: {block:?} lies in no reservation in force"
            );
        }
        let mut jobs: Vec<u64> = v.blocks.iter().map(|b| b.job).collect();
        jobs.sort_unstable();
        jobs.dedup();
        shown_at.insert(now, jobs);
    }
    let s = SimTime::from_secs;
    assert_eq!(shown_at[&s(5)], [g1, g2]);
    assert_eq!(shown_at[&s(25)], [g2]);
    assert_eq!(shown_at.last_key_value().unwrap(), (&s(45), &vec![]));
}
