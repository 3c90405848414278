use crate::engine::{Engine, EngineConfig};
use crate::model::estimates::{EstimateModel, OnOverrun};
use crate::model::{JobSpec, Platform, SimTime};
use crate::sched::Phased;
use crate::sched::{JobKey, Policy, PolicySpec, PolicyState, Start, StartKind, SystemView};
use schedscope_policies::policy::SharedParams;

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

impl Phased for Faulty {
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

impl Phased for Clumsy {
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
