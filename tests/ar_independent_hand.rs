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
use schedscope::sched::{ParamValue, PolicyName, PolicySpec};
use schedscope::taskgraph::TaskGraph;
use schedscope::taskgraph::schedule::Schedule;
use std::collections::BTreeMap;
use std::sync::Arc;

const G: u64 = 100;

fn job(id: u64, submit: i64, size: u32, runtime: i64) -> JobSpec {
    JobSpec {
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

/// (start, end) of every job by id, and the processors each started on.
fn run(independent: &str) -> BTreeMap<u64, (i64, i64)> {
    let jobs = vec![
        graph(),
        job(1, 0, 2, 10),
        job(2, 1, 3, 5),
        job(3, 2, 1, 8),
        job(4, 3, 1, 15),
    ];
    let mut spec = PolicySpec {
        name: PolicyName::new("ar"),
        ..PolicySpec::default()
    };
    spec.params
        .insert("independent".into(), ParamValue::Text(independent.into()));
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(jobs.into_iter()),
        &spec,
        EngineConfig::default(),
    )
    .unwrap();
    let mut out = BTreeMap::new();
    let mut reserved = Vec::new();
    while e.step().is_some() {
        for r in e.reservations() {
            reserved.push((r.processors.clone(), r.start, r.finish, r.holds.clone()));
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
    out
}

#[test]
fn easy_around_a_reservation_every_start() {
    let got = run("easy");
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
    let got = run("fcfs");
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
    let spec = PolicySpec {
        name: PolicyName::new("ar"),
        ..PolicySpec::default()
    };
    let mut e = Engine::new(
        Platform::uniform(1, 2),
        Box::new(jobs.into_iter()),
        &spec,
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(30));
    let starts: Vec<SimTime> = e.reservations().iter().map(|r| r.start).collect();
    assert_eq!(starts, [SimTime::from_secs(30) + SimTime(1)]);
}
