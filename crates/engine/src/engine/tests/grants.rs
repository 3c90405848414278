use super::protocol::job;
use crate::engine::{Engine, EngineConfig, Refusal};
use crate::model::{JobSpec, Platform, SimTime};
use crate::sched::{PolicySpec, Reserve};
use schedscope_policies::policy::SharedParams;

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
    assert_eq!(e.table.queue.len(), 1);
    let held = e.table.queue[0];
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
