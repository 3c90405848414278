//! Moldable starts, folds, expansions and aborts driven by a scripted
//! policy: every start, fold, expand and end checked, and every impossible
//! decision refused.

use super::*;
use crate::model::{AppType, Cluster, SizeRule};
use crate::sched::Phased;
use crate::sched::{Abort, Decision, Resize};
use schedscope_policies::policy::SharedParams;
use std::sync::Arc;

fn secs(s: i64) -> SimTime {
    SimTime::from_secs(s)
}

/// Linear speedup up to 16, so that the run time at `p` is `seq / p`.
fn app() -> Arc<AppType> {
    Arc::new(AppType {
        name: "lin".into(),
        sizes: SizeRule::PowerOfTwo.sizes(16),
        sequential: secs(160),
        long: true,
        parallelism: 16.0,
        sigma: 0.0,
        fold_overhead: 0.25,
        max_mpl: 4,
    })
}

fn moldable(id: u64, submit: i64, seq: i64) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: secs(submit),
        size: 16,
        components: Vec::new(),
        runtime: secs(seq),
        estimate: None,
        user: None,
        injected: false,
        app: Some(app()),
        home: None,
        graph: None,
        comm: None,
    }
}

fn rigid(id: u64, submit: i64, size: u32, runtime: i64) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: secs(submit),
        size,
        components: vec![size],
        runtime: secs(runtime),
        estimate: None,
        user: None,
        injected: false,
        app: None,
        home: None,
        graph: None,
        comm: None,
    }
}

#[derive(Clone, Debug)]
enum Act {
    /// Start job `id` with `processes` on `processors`.
    Start(u64, Option<u32>, u32),
    Resize(u64, u32, Option<Vec<u32>>),
    Abort(u64),
}

/// Carries out its script: each act at its time (seconds).
struct Scripted {
    spec: PolicySpec,
    script: Vec<(i64, Act)>,
}

fn key(view: &SystemView<'_>, id: u64) -> JobKey {
    view.jobs
        .iter()
        .find(|(_, j)| j.id == id)
        .map(|(k, _)| JobKey(k))
        .unwrap_or(JobKey(usize::MAX))
}

impl Scripted {
    fn due(&self, now: SimTime) -> impl Iterator<Item = &Act> {
        self.script
            .iter()
            .filter(move |(t, _)| secs(*t) == now)
            .map(|(_, a)| a)
    }
}

impl Phased for Scripted {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Abort>) {}
    fn reshape(&mut self, view: &SystemView<'_>, out: &mut Vec<Decision>) {
        for a in self.due(view.now) {
            match a {
                Act::Resize(id, q, chosen) => out.push(Decision::Resize(Resize {
                    job: key(view, *id),
                    processors: *q,
                    chosen: chosen.clone(),
                })),
                Act::Abort(id) => out.push(Decision::Abort(Abort {
                    job: key(view, *id),
                    requeue: true,
                })),
                Act::Start(..) => {}
            }
        }
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        for a in self.due(view.now) {
            if let Act::Start(id, p, q) = a {
                out.push(Start {
                    job: key(view, *id),
                    assignment: vec![(0, *q)],
                    kind: StartKind::Head,
                    processors: None,
                    processes: *p,
                });
            }
        }
    }
    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }
    fn state(&self, _view: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
    fn wake_at(&self) -> Option<SimTime> {
        None
    }
}

fn run(jobs: Vec<JobSpec>, script: Vec<(i64, Act)>) -> (Engine, Vec<JobRecord>) {
    run_at(1.0, jobs, script)
}

/// [`run`] on a machine of processors of speed `speed`.
fn run_at(speed: f64, jobs: Vec<JobSpec>, script: Vec<(i64, Act)>) -> (Engine, Vec<JobRecord>) {
    let mut e = engine_at(speed, jobs, script);
    e.run();
    e.check_conservation().expect("every job ended once");
    let mut r: Vec<JobRecord> = e.drain_records().collect();
    r.sort_by_key(|r| r.id);
    (e, r)
}

/// The engine [`run_at`] runs, before it starts.
fn engine_at(speed: f64, jobs: Vec<JobSpec>, script: Vec<(i64, Act)>) -> Engine {
    let mut times: Vec<i64> = script.iter().map(|(t, _)| *t).collect();
    times.sort_unstable();
    times.dedup();
    let spec = PolicySpec::fcfs();
    let mut e = Engine::with_builder(
        Platform {
            clusters: vec![Cluster {
                name: "m".into(),
                processors: 16,
                speed,
            }],
            split_overhead: 0.0,
            network: None,
        },
        Box::new(jobs.into_iter()),
        &spec,
        EngineConfig::default(),
        crate::sched::Policies::of(|spec, _| {
            Ok(Box::new(Scripted {
                spec: spec.clone(),
                script: Vec::new(),
            }))
        }),
    )
    .unwrap();
    e.seat.policy = Box::new(Scripted { spec, script });
    // The script's times are decision points.
    for t in times {
        e.events.push(secs(t), EventKind::Wake);
    }
    e
}

/// 160 s of sequential work on 8 processes takes 20 s. Folded by 4 at 4 s
/// (rate 1/(4·1.25) = 0.2) it does 4 s of work in the next 20 s; expanded
/// at 24 s it has 12 s left and ends at 36 s. It held 8·4 + 2·20 + 8·12 =
/// 168 processor-seconds, and its allowance (20 s) stretched with the
/// fold (to 84 s) and shrank back with the expansion (to 36 s).
#[test]
fn a_fold_and_an_expansion_keep_the_work() {
    let (e, r) = run(
        vec![moldable(1, 0, 160)],
        vec![
            (0, Act::Start(1, Some(8), 8)),
            (4, Act::Resize(1, 2, None)),
            (24, Act::Resize(1, 8, None)),
        ],
    );
    assert_eq!((r[0].start, r[0].end), (secs(0), secs(36)));
    assert!((r[0].held - 168.0).abs() < 1e-9, "{}", r[0].held);
    let m = r[0].moldable.as_ref().unwrap();
    assert_eq!((m.processes, m.folds, m.expands), (8, 1, 1));
    assert!((m.partition - 168.0 / 36.0).abs() < 1e-9);
    assert_eq!(m.work_lost, 0.0);
    assert_eq!((e.counters().folded, e.counters().expanded), (1, 1));
    assert_eq!(e.counters().refused, 0);
    assert_eq!(
        e.counters().overruns,
        0,
        "the allowance moved with the fold"
    );
}

/// The allowance in that run, seen between the resizes: 84 s after the
/// fold (16 s left at rate 1 become 80 s at 0.2), 36 s after the
/// expansion (60 s left at 0.2 become 12 s at 1).
#[test]
fn the_allowance_stretches_and_shrinks_with_the_folding_rate() {
    let mut e = engine_at(
        1.0,
        vec![moldable(1, 0, 160)],
        vec![
            (0, Act::Start(1, Some(8), 8)),
            (4, Act::Resize(1, 2, None)),
            (24, Act::Resize(1, 8, None)),
        ],
    );
    for (at, end) in [(1, 20), (5, 84), (25, 36)] {
        e.step_until(secs(at));
        assert_eq!(
            e.snapshot().running[0].estimated_end,
            secs(end),
            "at {at} s"
        );
    }
}

/// The fold's rate and the machine's speed compose by product (one rule,
/// `sched::rate::running_rate`): on processors of speed 0.5, 20 s of work
/// on 8 processes do 2 s by the fold at 4 s, then run at 0.5 · 0.2 = 0.1
/// (2 s of work in 20 s); expanded at 24 s, 16 s of work are left at 0.5:
/// the job ends at 56 s, having held 8·4 + 2·20 + 8·32 = 328
/// processor-seconds.
#[test]
fn folding_composes_with_the_speed_of_the_processors() {
    let (e, r) = run_at(
        0.5,
        vec![moldable(1, 0, 160)],
        vec![
            (0, Act::Start(1, Some(8), 8)),
            (4, Act::Resize(1, 2, None)),
            (24, Act::Resize(1, 8, None)),
        ],
    );
    assert_eq!((r[0].start, r[0].end), (secs(0), secs(56)));
    assert!((r[0].held - 328.0).abs() < 1e-9, "{}", r[0].held);
    assert_eq!(r[0].moldable.as_ref().unwrap().work_lost, 0.0);
    assert_eq!(e.counters().refused, 0);
}

/// A job may start folded: 16 processes on 4 processors run at 0.2, so
/// 10 s of work take 50 s.
#[test]
fn a_job_may_start_folded() {
    let (_, r) = run(
        vec![moldable(1, 0, 160)],
        vec![(0, Act::Start(1, Some(16), 4))],
    );
    assert_eq!((r[0].start, r[0].end), (secs(0), secs(50)));
    assert!((r[0].held - 200.0).abs() < 1e-9);
    assert_eq!(r[0].moldable.as_ref().unwrap().partition, 4.0);
}

/// An abort loses exactly the work done: 4 processes (20 s of work)
/// aborted at 10 s lose 10 s; the job comes back and runs again in full
/// from 12 s on 8 processes (10 s), ending at 22 s.
#[test]
fn an_abort_loses_the_work_done() {
    let (e, r) = run(
        vec![moldable(1, 0, 80)],
        vec![
            (0, Act::Start(1, Some(4), 4)),
            (10, Act::Abort(1)),
            (12, Act::Start(1, Some(8), 8)),
        ],
    );
    assert_eq!((r[0].start, r[0].end), (secs(12), secs(22)));
    let m = r[0].moldable.as_ref().unwrap();
    assert!((m.work_lost - 10.0).abs() < 1e-9);
    assert_eq!(m.processes, 8);
    assert!((r[0].held - (40.0 + 80.0)).abs() < 1e-9);
    assert_eq!(r[0].requeues, 1);
    assert_eq!(e.counters().refused, 0);
}

/// A folded job aborted loses the work it did at its folded rate: 8
/// processes (20 s of work) on 2 processors (rate 0.2) for 10 s lose 2 s;
/// started again on 8 at 12 s, the job runs its 20 s in full.
#[test]
fn an_abort_of_a_folded_job_loses_the_work_it_did() {
    let (e, r) = run(
        vec![moldable(1, 0, 160)],
        vec![
            (0, Act::Start(1, Some(8), 2)),
            (10, Act::Abort(1)),
            (12, Act::Start(1, Some(8), 8)),
        ],
    );
    assert_eq!((r[0].start, r[0].end), (secs(12), secs(32)));
    let m = r[0].moldable.as_ref().unwrap();
    assert!((m.work_lost - 2.0).abs() < 1e-9, "{}", m.work_lost);
    assert!((r[0].held - (20.0 + 160.0)).abs() < 1e-9);
    assert_eq!(e.counters().refused, 0);
}

/// A job with no work ends at its start; its partition is the processors
/// it held, not a rate over no time.
#[test]
fn a_job_of_no_work_ends_at_its_start_on_its_partition() {
    let (e, r) = run(
        vec![moldable(1, 0, 0)],
        vec![(0, Act::Start(1, Some(8), 4))],
    );
    assert_eq!((r[0].start, r[0].end), (secs(0), secs(0)));
    assert_eq!(r[0].moldable.as_ref().unwrap().partition, 4.0);
    assert_eq!(e.counters().refused, 0);
}

/// A fold may name which of its own processors the job keeps: 8
/// processes on processors 0–7 folded at 4 s onto 6 and 7 (rate 0.2) have
/// 16 s of work left, done by 84 s.
#[test]
fn a_fold_may_name_the_processors_it_keeps() {
    let (e, r) = run(
        vec![moldable(1, 0, 160)],
        vec![
            (0, Act::Start(1, Some(8), 8)),
            (4, Act::Resize(1, 2, Some(vec![6, 7]))),
        ],
    );
    assert_eq!(e.counters().refused, 0, "{:?}", e.last_refusal());
    assert_eq!(e.counters().folded, 1);
    assert_eq!((r[0].start, r[0].end), (secs(0), secs(84)));
}

/// A resize to the processors the job holds changes nothing: no fold, no
/// expansion, the same end.
#[test]
fn a_resize_to_the_same_width_is_neither_a_fold_nor_an_expansion() {
    let (e, r) = run(
        vec![moldable(1, 0, 160)],
        vec![(0, Act::Start(1, Some(8), 8)), (4, Act::Resize(1, 8, None))],
    );
    assert_eq!(e.counters().refused, 0, "{:?}", e.last_refusal());
    assert_eq!((e.counters().folded, e.counters().expanded), (0, 0));
    let m = r[0].moldable.as_ref().unwrap();
    assert_eq!((m.folds, m.expands), (0, 0));
    assert_eq!(r[0].end, secs(20));
}

/// A fold gives its processors back to the cluster, no more: job 1 (8 on
/// 8) and job 2 (8 wide) fill the 16 processors; job 1 folds to 2 at 4 s
/// and job 3 (5 wide) takes 5 of the 6 freed. At 6 s job 1 cannot grow
/// by 4 (1 is free) but can by 1.
#[test]
fn an_expansion_after_a_fold_counts_the_processors_others_took() {
    let (e, r) = run(
        vec![
            moldable(1, 0, 160),
            rigid(2, 0, 8, 100),
            rigid(3, 0, 5, 100),
        ],
        vec![
            (0, Act::Start(1, Some(8), 8)),
            (0, Act::Start(2, None, 8)),
            (4, Act::Resize(1, 2, None)),
            (5, Act::Start(3, None, 5)),
            (6, Act::Resize(1, 6, None)),
            (6, Act::Resize(1, 3, None)),
        ],
    );
    assert_eq!(e.counters().refused, 1, "{:?}", e.counters());
    assert!(matches!(
        e.last_refusal(),
        Some((
            _,
            Refusal::TooFew {
                wanted: 4,
                free: 1,
                ..
            }
        ))
    ));
    assert_eq!((e.counters().folded, e.counters().expanded), (1, 1));
    assert_eq!(r[2].start, secs(5));
}

/// A fold of a job already past its allowance leaves the allowance where
/// it was: 80 s of estimated sequential work on 8 processes allow 10 s;
/// folded at 15 s, the job's estimated end stays 10 s.
#[test]
fn a_fold_past_the_allowance_leaves_it_where_it_was() {
    let job = JobSpec {
        estimate: Some(secs(80)),
        ..moldable(1, 0, 160)
    };
    let mut e = engine_at(
        1.0,
        vec![job],
        vec![
            (0, Act::Start(1, Some(8), 8)),
            (15, Act::Resize(1, 2, None)),
        ],
    );
    e.step_until(secs(16));
    assert_eq!(e.counters().folded, 1);
    let s = e.snapshot();
    assert_eq!(s.running[0].estimated_end, secs(10));
    assert!(s.running[0].expired);
}

/// Each impossible decision is refused with its reason; the run goes on.
#[test]
fn impossible_moldable_decisions_are_refused() {
    let (e, r) = run(
        vec![moldable(1, 0, 160), rigid(2, 0, 4, 10)],
        vec![
            // Not an allowed size.
            (0, Act::Start(1, Some(3), 3)),
            // Folded beyond the multiprogramming level (16 on 2 = 8).
            (0, Act::Start(1, Some(16), 2)),
            // More processors than processes, and none.
            (0, Act::Start(1, Some(4), 8)),
            (0, Act::Start(1, Some(4), 0)),
            // A rigid job has no sizes.
            (0, Act::Start(2, Some(4), 4)),
            (0, Act::Start(2, None, 4)),
            (0, Act::Start(1, Some(8), 8)),
            // A rigid job cannot be resized.
            (1, Act::Resize(2, 2, None)),
            // Beyond the level, more processors than processes, none.
            (1, Act::Resize(1, 1, None)),
            (1, Act::Resize(1, 9, None)),
            (1, Act::Resize(1, 0, None)),
            // A processor held by job 2.
            (1, Act::Resize(1, 2, Some(vec![0, 1]))),
            // Named processors that do not match the count.
            (1, Act::Resize(1, 2, Some(vec![4]))),
            // Not running.
            (15, Act::Resize(2, 4, None)),
        ],
    );
    assert_eq!((r[0].start, r[0].end), (secs(0), secs(20)));
    assert_eq!((r[1].start, r[1].end), (secs(0), secs(10)));
    assert_eq!(e.counters().refused, 12, "{:?}", e.counters());
    assert_eq!(e.counters().folded, 0);
}

/// An expansion needs free processors: with 4 of 16 free a job folded to
/// 2 may grow to 6 but not to 8; named processors move it.
#[test]
fn an_expansion_takes_only_free_processors() {
    let (e, r) = run(
        vec![moldable(1, 0, 160), rigid(2, 0, 10, 100)],
        vec![
            (0, Act::Start(2, None, 10)),
            (0, Act::Start(1, Some(8), 2)),
            (5, Act::Resize(1, 8, None)),
            (5, Act::Resize(1, 4, Some(vec![12, 13, 14, 15]))),
        ],
    );
    assert_eq!(e.counters().refused, 1, "{:?}", e.last_refusal());
    assert_eq!(e.counters().expanded, 1);
    // 8 processes on 2 (rate 0.2) for 5 s: 1 s of 20 done; then on 4
    // processors (rate 1/(2·1.25) = 0.4): 19 s more take 47.5 s.
    assert_eq!(r[0].end, SimTime::from_secs_f64(52.5));
    assert!((r[0].held - (10.0 + 4.0 * 47.5)).abs() < 1e-6);
    assert_eq!(r[1].end, secs(100));
}

/// The lost-jobs check before a run, in the middle of an abort and after
/// a policy that leaves jobs queued: it fails each time, naming where the
/// jobs are. Job 1, aborted at 10 s while job 2 (which the script never
/// starts) heads the queue, is "aborted, not back": it waits for the head
/// to start, so the script's start at 12 s is refused, and it comes back
/// only once nothing else is left to happen. Both are then "queued".
#[test]
fn the_conservation_check_says_where_each_job_left_is() {
    let mut e = engine_at(
        1.0,
        vec![moldable(1, 0, 160), rigid(2, 0, 4, 10)],
        vec![
            (0, Act::Start(1, Some(8), 8)),
            (10, Act::Abort(1)),
            (12, Act::Start(1, Some(8), 8)),
        ],
    );
    let before = e.check_conservation().expect_err("nothing has arrived yet");
    assert_eq!((before.arrived, before.finished), (0, 0));
    assert!(before.events_left > 0 && before.left.is_empty());
    e.step_until(secs(10));
    let mid = e.check_conservation().expect_err("jobs are in the system");
    assert_eq!(mid.left, vec![(1, "aborted, not back"), (2, "queued")]);
    e.run();
    let stuck = e.check_conservation().expect_err("both jobs wait");
    assert_eq!(stuck.events_left, 0);
    assert_eq!(stuck.left, vec![(1, "queued"), (2, "queued")]);
    assert_eq!((stuck.arrived, stuck.finished), (2, 0));
    // The start at 12 s, refused, and asked again at that instant.
    assert!(e.counters().refused > 0);
}
