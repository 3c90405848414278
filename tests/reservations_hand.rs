//! Hand-worked advance reservations enforced by the engine: every start
//! and end asserted, and every kind of refusal seen.
//!
//! A scripted policy asks for the reservations of its script at the first
//! decision point, starts the jobs they hold at the times and on the
//! processors the script says, and starts every other job first come,
//! first served by the free count alone, naming no processor (so that the
//! engine's own pick, which leaves reserved processors out, decides).

use schedscope::engine::{Engine, EngineConfig};
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::SharedParams;
use schedscope::sched::{
    Phased, Policy, PolicySpec, PolicyState, Refusal, Reserve, Start, StartKind, SystemView,
};
use std::cell::RefCell;

/// (id, submit, size, runtime = estimate) in seconds.
type J = (u64, i64, u32, i64);

/// The script: reservations to ask for, and (job id, time, processors)
/// for the held jobs.
#[derive(Clone, Default)]
struct Script {
    reserve: Vec<Reserve>,
    plan: Vec<(u64, i64, Vec<u32>)>,
}

thread_local! {
    static SCRIPT: RefCell<Script> = RefCell::new(Script::default());
}

struct Scripted {
    spec: PolicySpec,
    script: Script,
    asked: bool,
    now: SimTime,
}

fn secs(s: i64) -> SimTime {
    SimTime::from_secs(s)
}

impl Phased for Scripted {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, _: &SystemView<'_>, _: &mut Vec<schedscope::sched::Abort>) {}
    fn reserve(&mut self, _: &SystemView<'_>, out: &mut Vec<Reserve>) {
        if !self.asked {
            self.asked = true;
            out.extend(self.script.reserve.iter().cloned());
        }
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.now = view.now;
        let planned = |id: u64| self.script.plan.iter().find(|p| p.0 == id);
        let mut free = view.free[0];
        for &k in view.queue {
            let job = view.job(k);
            if planned(job.id).is_some() {
                continue;
            }
            if job.size > free {
                break;
            }
            free -= job.size;
            out.push(Start {
                job: k,
                assignment: vec![(0, job.size)],
                kind: StartKind::Head,
                processors: None,
                processes: None,
            });
        }
        for &k in view.queue {
            let job = view.job(k);
            if let Some((_, at, procs)) = planned(job.id)
                && secs(*at) <= view.now
            {
                out.push(Start {
                    job: k,
                    assignment: vec![(0, job.size)],
                    kind: StartKind::Ahead,
                    processors: Some(vec![procs.clone()]),
                    processes: None,
                });
            }
        }
    }
    fn recheck_at(&self, _: &SystemView<'_>) -> Option<SimTime> {
        None
    }
    fn state(&self, _: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
    fn wake_at(&self) -> Option<SimTime> {
        self.script
            .plan
            .iter()
            .map(|p| secs(p.1))
            .filter(|&t| t > self.now)
            .min()
    }
}

fn build(spec: &PolicySpec, _: &Platform) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(Scripted {
        spec: spec.clone(),
        script: SCRIPT.with(|s| s.borrow().clone()),
        asked: false,
        now: SimTime::ZERO,
    }))
}

/// Runs `jobs` on `processors` under `script`: the (id, start, end) of
/// every job in id order, and every distinct refusal seen, in order.
fn run(processors: u32, jobs: &[J], script: Script) -> (Vec<(u64, i64, i64)>, Vec<Refusal>) {
    SCRIPT.with(|s| *s.borrow_mut() = script);
    let specs: Vec<JobSpec> = jobs
        .iter()
        .map(|&(id, submit, size, rt)| JobSpec {
            work: None,
            id,
            submit: secs(submit),
            size,
            components: vec![size],
            runtime: secs(rt),
            estimate: Some(secs(rt)),
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: None,
            graph: None,
        })
        .collect();
    let mut e = Engine::with_builder(
        Platform::uniform(1, processors),
        Box::new(specs.into_iter()),
        &PolicySpec::scenario_default(),
        EngineConfig::default(),
        schedscope::sched::Policies::of(build),
    )
    .unwrap();
    let mut refusals = Vec::new();
    let mut ends = Vec::new();
    while e.step().is_some() {
        if let Some((_, r)) = e.last_refusal()
            && refusals.last() != Some(r)
        {
            refusals.push(r.clone());
        }
        ends.extend(
            e.drain_records()
                .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000, r.killed)),
        );
    }
    e.check_conservation().unwrap();
    assert!(e.reservations().is_empty(), "every window is over");
    assert!(ends.iter().all(|r| !r.3), "nothing killed: {ends:?}");
    let mut v: Vec<(u64, i64, i64)> = ends.into_iter().map(|r| (r.0, r.1, r.2)).collect();
    v.sort();
    (v, refusals)
}

fn window(procs: &[u32], start: i64, finish: i64, holds: &[u64]) -> Reserve {
    Reserve {
        cluster: 0,
        processors: procs.to_vec(),
        start: secs(start),
        finish: secs(finish),
        holds: holds.to_vec(),
    }
}

#[test]
fn a_reservation_keeps_its_processors_for_the_jobs_it_holds() {
    // 4 processors; a reservation of processors 2 and 3 over [10, 30)
    // holds graph G (2 wide, 15 s) at 10 and job B (1 wide, 5 s) at 25 on
    // processor 2. J1 takes 0 and 1 until 8. J2 (2 wide, 20 s) would run
    // into the window on 2 and 3: refused at 0, it starts at 8 on 0 and 1.
    // J3 (1 wide, 2 s) ends at 10, when the window begins: it may use
    // processor 2 from 8. J4 (5 s) would cross into the window from 8:
    // refused, and only once J2 gives 0 and 1 back, at 28, does it start.
    let jobs = [
        (1, 0, 2, 8),
        (2, 0, 2, 20),
        (3, 1, 1, 2),
        (4, 2, 1, 5),
        (100, 0, 2, 15),
        (101, 0, 1, 5),
    ];
    let script = Script {
        reserve: vec![window(&[2, 3], 10, 30, &[100, 101])],
        plan: vec![(100, 10, vec![2, 3]), (101, 25, vec![2])],
    };
    let (runs, refusals) = run(4, &jobs, script);
    assert_eq!(
        runs,
        vec![
            (1, 0, 8),
            (2, 8, 28),
            (3, 8, 10),
            (4, 28, 33),
            (100, 10, 25),
            (101, 25, 30),
        ]
    );
    assert!(!refusals.is_empty());
    assert!(
        refusals
            .iter()
            .all(|r| matches!(r, Refusal::TooFew { job: 2 | 4, .. })),
        "{refusals:?}"
    );
    assert!(refusals.iter().any(|r| matches!(
        r,
        Refusal::TooFew {
            job: 4,
            free: 0,
            ..
        }
    )));
}

#[test]
fn held_jobs_start_only_inside_their_window() {
    // 2 processors; a reservation of processor 1 over [5, 15) holds G
    // (1 wide, 10 s), which the script starts from 2 on processor 0:
    // refused while the reservation holds it. J1 runs on 0 from 0 to 20;
    // J2 (6 s) would cross into the window: refused until it is over at
    // 15. Once the window is over G is held no more and is an ordinary job:
    // it takes processor 0 when J1 gives it back, at 20 (until then too
    // few are free: J2 took processor 1 at 15).
    let jobs = [(1, 0, 1, 20), (2, 0, 1, 6), (100, 0, 1, 10)];
    let script = Script {
        reserve: vec![window(&[1], 5, 15, &[100])],
        plan: vec![(100, 2, vec![0])],
    };
    let (runs, refusals) = run(2, &jobs, script);
    assert_eq!(runs, vec![(1, 0, 20), (2, 15, 21), (100, 20, 30)]);
    assert_eq!(
        refusals[..2],
        [
            Refusal::TooFew {
                job: 2,
                cluster: 0,
                wanted: 1,
                free: 0
            },
            Refusal::OutsideReservation {
                job: 100,
                reservation: 1
            },
        ]
    );
    assert!(
        refusals.iter().any(|r| matches!(
            r,
            Refusal::TooFew {
                job: 100,
                free: 0,
                ..
            }
        )),
        "{refusals:?}"
    );
}

#[test]
fn overlapping_requests_and_named_reserved_processors_are_refused() {
    // 2 processors; a reservation of processor 1 over [5, 15) holds G
    // (10 s, started at 5 on 1). A second request for both processors over
    // [14, 16) overlaps it: refused. J2 (6 s) names processor 1 from 1: it
    // would run into the window, refused until the window is over.
    let jobs = [(1, 0, 1, 20), (2, 0, 1, 6), (100, 0, 1, 10)];
    let script = Script {
        reserve: vec![window(&[1], 5, 15, &[100]), window(&[0, 1], 14, 16, &[])],
        plan: vec![(2, 1, vec![1]), (100, 5, vec![1])],
    };
    let (runs, refusals) = run(2, &jobs, script);
    assert_eq!(runs, vec![(1, 0, 20), (2, 15, 21), (100, 5, 15)]);
    assert!(
        matches!(refusals[0], Refusal::Reservation(_)),
        "{refusals:?}"
    );
    // Before the window, the reservation refuses it; inside, the
    // reservation has taken processor 1 from the free pool.
    assert_eq!(
        refusals[1..],
        [
            Refusal::Reserved {
                job: 2,
                cluster: 0,
                processor: 1,
                reservation: 1
            },
            Refusal::TooFew {
                job: 2,
                cluster: 0,
                wanted: 1,
                free: 0
            }
        ]
    );
}

#[test]
fn a_named_reserved_processor_is_refused_for_its_reservation_while_another_is_free() {
    // 2 processors; a reservation of processor 1 over [5, 15) holds G
    // (5 s), started at 8 on 1. J2 (2 s) names processor 1 from 6, while
    // processor 0 stands free: the free count has room, so what refuses
    // it is the reservation, at 6, at 8 (J2 is asked for before G) and at
    // 13 (G has ended, the window is still in force). J2 starts at the
    // window's end.
    let jobs = [(2, 0, 1, 2), (100, 0, 1, 5)];
    let script = Script {
        reserve: vec![window(&[1], 5, 15, &[100])],
        plan: vec![(2, 6, vec![1]), (100, 8, vec![1])],
    };
    let (runs, refusals) = run(2, &jobs, script);
    assert_eq!(runs, vec![(2, 15, 17), (100, 8, 13)]);
    assert_eq!(
        refusals,
        [Refusal::Reserved {
            job: 2,
            cluster: 0,
            processor: 1,
            reservation: 1,
        }]
    );
}

#[test]
fn a_job_outside_every_reservation_gets_the_processors_it_names() {
    // 4 processors; a reservation of processor 3 over [50, 60) holds G
    // (5 s, started at 50 on 3). Outside it, J1 (10 s) names processor 2
    // at 0 and J3 (4 s) names processor 0 at 1. Each gets what it named,
    // so J3 finds processor 0 free: had the engine picked for J1 (the
    // lowest free processor the reservation does not claim, 0), J3 would
    // be refused until J1 ends.
    let jobs = [(1, 0, 1, 10), (3, 0, 1, 4), (100, 0, 1, 5)];
    let script = Script {
        reserve: vec![window(&[3], 50, 60, &[100])],
        plan: vec![(1, 0, vec![2]), (3, 1, vec![0]), (100, 50, vec![3])],
    };
    let (runs, refusals) = run(4, &jobs, script);
    assert_eq!(runs, vec![(1, 0, 10), (3, 1, 5), (100, 50, 55)]);
    assert_eq!(refusals, []);
}
