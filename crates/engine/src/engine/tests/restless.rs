use super::protocol::job;
use crate::engine::{Engine, EngineConfig};
use crate::model::estimates::{EstimateModel, OnOverrun};
use crate::model::{Platform, SimTime};
use crate::sched::Phased;
use crate::sched::{Abort, Policy, PolicySpec, PolicyState, Refusal, Start, StartKind, SystemView};
use schedscope_policies::policy::SharedParams;

/// FCFS that asks, after every decision, to decide again at once,
/// whether or not anything changed: a policy bug that would hold the
/// clock at one instant for ever.
struct Restless {
    spec: PolicySpec,
}

impl Phased for Restless {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
    fn recheck_at(&self, view: &SystemView<'_>) -> Option<SimTime> {
        Some(view.now)
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        fcfs_starts(view, out);
    }
    fn state(&self, _v: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
}

/// FCFS on one cluster: the queue in order while the jobs fit.
fn fcfs_starts(view: &SystemView<'_>, out: &mut Vec<Start>) {
    let mut free = view.free[0];
    for &k in view.queue {
        let w = view.job(k).size;
        if w > free {
            break;
        }
        free -= w;
        out.push(Start {
            job: k,
            assignment: vec![(0, w)],
            kind: StartKind::Head,
            processors: None,
            processes: None,
        });
    }
}

/// FCFS that at 2 s aborts every running job for its head, and then
/// starts nothing before 5 s.
struct Hesitant {
    spec: PolicySpec,
}

impl Phased for Hesitant {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<Abort>) {
        if view.now == SimTime::from_secs(2) {
            out.extend(view.running.iter().map(|&job| Abort { job, requeue: true }));
        }
    }
    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        let now = view.now;
        if now < SimTime::from_secs(2) || now >= SimTime::from_secs(5) {
            fcfs_starts(view, out);
        }
    }
    fn state(&self, _v: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
}

/// An engine on one cluster of 4 under `on_overrun = "requeue"`, with
/// the test policy `build` makes.
fn requeue_engine(jobs: Vec<crate::model::JobSpec>, build: crate::sched::PolicyBuilder) -> Engine {
    Engine::with_builder(
        Platform::uniform(1, 4),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig {
            estimates: EstimateModel::exact().with_overrun(OnOverrun::Requeue),
            ..EngineConfig::default()
        },
        crate::sched::Policies::of(build),
    )
    .unwrap()
}

fn hesitant(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(Hesitant { spec: spec.clone() }))
}

/// A job aborted for the head stays out of the queue until the head
/// has started, even when the policy lets time pass first: job 1 (the
/// whole cluster, 100 s) is aborted at 2 s for job 2, which the policy
/// starts only at 5 s, after arrivals at 3 and 5 s. Were job 1 back in
/// the queue at 3 s, it would be first again and start at 5 s in job
/// 2's place, which it was aborted to give.
#[test]
fn an_aborted_job_stays_out_until_the_head_it_made_room_for_starts() {
    let jobs = vec![
        job(1, 0, 4, 100),
        job(2, 1, 4, 10),
        job(3, 2, 1, 1),
        job(4, 3, 1, 1),
        job(5, 5, 1, 1),
    ];
    let mut e = requeue_engine(jobs, hesitant);
    e.run();
    e.check_conservation().expect("every job ended");
    assert_eq!(e.last_refusal(), None);
    let mut ends: Vec<(u64, i64, i64, u32)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000, r.requeues))
        .collect();
    ends.sort();
    assert_eq!(
        ends,
        vec![
            (1, 15, 115, 1),
            (2, 5, 15, 0),
            (3, 115, 116, 0),
            (4, 115, 116, 0),
            (5, 115, 116, 0)
        ]
    );
}

/// A policy is asked for aborts only under `on_overrun = "requeue"`,
/// and only while a job waits and a job runs. Hesitant asks to abort
/// every running job at 2 s: not heard when estimates are only
/// estimates (job 1 runs its 100 s; job 2, arrived at 1 s, after it);
/// nor under requeue when the event at 2 s (job 2's end) leaves
/// nothing waiting.
#[test]
fn aborts_are_asked_for_only_under_requeue_and_for_a_waiting_job() {
    let under = |overrun: Option<OnOverrun>, jobs: Vec<crate::model::JobSpec>| {
        let estimates = match overrun {
            Some(o) => EstimateModel::exact().with_overrun(o),
            None => EstimateModel::exact(),
        };
        let mut e = Engine::with_builder(
            Platform::uniform(1, 4),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig {
                estimates,
                ..EngineConfig::default()
            },
            crate::sched::Policies::of(hesitant),
        )
        .unwrap();
        e.run();
        e.check_conservation().expect("every job ended");
        let mut ends: Vec<(u64, i64, i64, u32)> = e
            .drain_records()
            .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000, r.requeues))
            .collect();
        ends.sort();
        ends
    };
    let waiting = || vec![job(1, 0, 4, 100), job(2, 1, 4, 10), job(3, 2, 1, 1)];
    let run_through = vec![(1, 0, 100, 0), (2, 100, 110, 0), (3, 110, 111, 0)];
    assert_eq!(under(None, waiting()), run_through);
    assert_eq!(under(Some(OnOverrun::Kill), waiting()), run_through);
    let none_waiting = vec![job(1, 0, 2, 100), job(2, 0, 2, 2)];
    assert_eq!(
        under(Some(OnOverrun::Requeue), none_waiting),
        vec![(1, 0, 100, 0), (2, 0, 2, 0)]
    );
}

/// Under requeue, a policy that takes one job a pass: it starts the
/// first queued job and asks to decide again at once, and from `from`
/// on only; until then it asks to decide again at `from`.
struct OneAtATime {
    spec: PolicySpec,
    from: SimTime,
}

impl Phased for OneAtATime {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
    fn recheck_at(&self, view: &SystemView<'_>) -> Option<SimTime> {
        Some(view.now.max(self.from))
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        if view.now < self.from {
            return;
        }
        let Some(&k) = view.queue.first() else {
            return;
        };
        let w = view.job(k).size;
        if w <= view.free[0] {
            out.push(Start {
                job: k,
                assignment: vec![(0, w)],
                kind: StartKind::Head,
                processors: None,
                processes: None,
            });
        }
    }
    fn state(&self, _v: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
}

/// The jobs of [`OneAtATime`] starting from `FROM` seconds, on one
/// cluster of 8: (id, start, end) in seconds, in id order.
fn one_at_a_time<const FROM: i64>(jobs: Vec<crate::model::JobSpec>) -> Vec<(u64, i64, i64)> {
    let mut e = Engine::with_builder(
        Platform::uniform(1, 8),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig {
            estimates: EstimateModel::exact().with_overrun(OnOverrun::Requeue),
            ..EngineConfig::default()
        },
        crate::sched::Policies::of(|spec, _p| {
            Ok(Box::new(OneAtATime {
                spec: spec.clone(),
                from: SimTime::from_secs(FROM),
            }))
        }),
    )
    .unwrap();
    let mut steps = 0;
    while e.step().is_some() {
        steps += 1;
        assert!(steps < 1_000, "still at {:?} after {steps} steps", e.now());
    }
    e.check_conservation().expect("every job ended");
    assert_eq!(e.last_refusal(), None);
    let mut ends: Vec<(u64, i64, i64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000))
        .collect();
    ends.sort();
    ends
}

/// A pass that started a job changed something, however many passes
/// came before it at the instant: a policy that starts one job a pass
/// starts all six 1-wide jobs arrived at 0 s, on 8 processors, at 0 s.
#[test]
fn passes_that_start_jobs_are_not_idle() {
    let jobs = (1..=6).map(|id| job(id, 0, 1, 10)).collect();
    let ends = one_at_a_time::<0>(jobs);
    assert_eq!(ends, (1..=6).map(|id| (id, 0, 10)).collect::<Vec<_>>());
}

/// A later time a policy asks to decide again at is a decision point
/// of its own: job 1, arrived at 0 s, starts at the 5 s asked for,
/// with no other event then.
#[test]
fn a_later_time_asked_for_is_a_decision_point() {
    let ends = one_at_a_time::<5>(vec![job(1, 0, 2, 10)]);
    assert_eq!(ends, vec![(1, 5, 15)]);
}

/// FCFS that writes down when it is asked to reshape (`'R'`) and to
/// schedule (`'S'`), and asks for a wake at the instant it last
/// scheduled — a time not ahead of now, which is no decision point.
/// What it writes down goes to [`CALLS`] (one test uses it).
struct Recorder {
    spec: PolicySpec,
    last: Option<SimTime>,
}

static CALLS: std::sync::Mutex<Vec<(i64, char)>> = std::sync::Mutex::new(Vec::new());

fn call(now: SimTime, what: char) {
    CALLS.lock().unwrap().push((now.0 / 1_000_000, what));
}

impl Phased for Recorder {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
    fn recheck_at(&self, _v: &SystemView<'_>) -> Option<SimTime> {
        None
    }
    fn reshape(&mut self, view: &SystemView<'_>, _out: &mut Vec<crate::sched::Decision>) {
        call(view.now, 'R');
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        call(view.now, 'S');
        self.last = Some(view.now);
        fcfs_starts(view, out);
    }
    fn wake_at(&self) -> Option<SimTime> {
        self.last
    }
    fn state(&self, _v: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
}

fn recorder(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(Recorder {
        spec: spec.clone(),
        last: None,
    }))
}

/// What the trait promises a policy: at every decision point with jobs
/// running it is asked to reshape before it schedules, and once more
/// after, only when something started; a wake asked for at now (not
/// ahead of it) adds no decision point. Job 1 (2 of 4 processors,
/// 10 s) arrives at 0 s and starts, job 2 (4 wide) at 1 s waits for
/// it, and starts at 10 s.
#[test]
fn reshape_is_asked_before_the_starts_and_after_them_when_some_started() {
    let jobs = vec![job(1, 0, 2, 10), job(2, 1, 4, 10)];
    let mut e = Engine::with_builder(
        Platform::uniform(1, 4),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
        crate::sched::Policies::of(recorder),
    )
    .unwrap();
    e.run();
    e.check_conservation().expect("every job ended");
    // Nothing runs at 0 s before job 1 starts, nor at 10 s before job
    // 2 does; at 1 s nothing starts; at 20 s nothing is left to decide.
    assert_eq!(
        *CALLS.lock().unwrap(),
        vec![(0, 'S'), (0, 'R'), (1, 'R'), (1, 'S'), (10, 'S'), (10, 'R')]
    );
    assert_eq!(e.counters().events, 4);
}

fn restless(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(Restless { spec: spec.clone() }))
}

/// FCFS that at 2 s aborts job 1 while it runs, and after that pass
/// asks once to decide again at the same instant.
struct AgainAfterAbort {
    spec: PolicySpec,
    asked: bool,
    again: bool,
}

impl Phased for AgainAfterAbort {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<Abort>) {
        if view.now == SimTime::from_secs(2) {
            let first = view.running.iter().filter(|&&k| view.job(k).id == 1);
            out.extend(first.map(|&job| Abort { job, requeue: true }));
        }
    }
    fn recheck_at(&self, view: &SystemView<'_>) -> Option<SimTime> {
        self.again.then_some(view.now)
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.again = view.now == SimTime::from_secs(2) && !self.asked;
        self.asked |= self.again;
        fcfs_starts(view, out);
    }
    fn state(&self, _v: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
}

fn again_after_abort(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(AgainAfterAbort {
        spec: spec.clone(),
        asked: false,
        again: false,
    }))
}

/// An aborted job is back in the queue only after the instant of its
/// abort, even when a decision at that instant leaves an event at it.
/// Job 1 (2 processors of 4, 100 s) is aborted at 2 s, when job 2
/// (1 wide, 10 s) arrives and starts; the policy then asks to decide
/// again at 2 s, with room for job 1. Job 1 is not in the queue for
/// that pass: it is back at job 2's end, 12 s, and starts then.
#[test]
fn an_aborted_job_is_back_only_after_the_instant_of_its_abort() {
    let jobs = vec![job(1, 0, 2, 100), job(2, 2, 1, 10)];
    let mut e = requeue_engine(jobs, again_after_abort);
    let mut times = Vec::new();
    while let Some(t) = e.step() {
        times.push(t.0 / 1_000_000);
        assert!(times.len() < 1_000, "still at {t:?} after 1,000 steps");
    }
    e.check_conservation().expect("every job ended");
    assert_eq!(e.last_refusal(), None);
    let mut ends: Vec<(u64, i64, i64, u32)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000, r.requeues))
        .collect();
    ends.sort();
    assert_eq!(ends, vec![(1, 12, 112, 1), (2, 2, 12, 0)]);
    // Arrivals at 0 and 2 s, the pass asked for at 2 s, job 2's end,
    // the end job 1's first run would have had (stale), job 1's end.
    assert_eq!(times, vec![0, 2, 2, 12, 100, 112]);
}

/// A policy that keeps asking to decide again at the same instant
/// while nothing changes is refused after a few passes, and the clock
/// moves on: every job ends, at the times FCFS gives. The run is
/// stepped with a bound, so that a livelock fails the test instead of
/// hanging it.
#[test]
fn a_policy_asking_again_and_again_at_one_instant_does_not_hold_the_clock() {
    let jobs = vec![job(1, 0, 3, 5), job(2, 1, 2, 5), job(3, 2, 1, 5)];
    let mut e = requeue_engine(jobs, restless);
    // (instant, events at it, refusals at it)
    let mut instants: Vec<(i64, u32, u64)> = Vec::new();
    let mut steps = 0;
    while let Some(t) = e.step() {
        steps += 1;
        assert!(steps < 1_000, "still at {:?} after {steps} steps", e.now());
        let (t, refused) = (t.0 / 1_000_000, e.counters().refused);
        match instants.last_mut() {
            Some((at, n, _)) if *at == t => *n += 1,
            _ => instants.push((t, 1, 0)),
        }
        let before: u64 = instants.iter().rev().skip(1).map(|i| i.2).sum();
        instants.last_mut().unwrap().2 = refused - before;
    }
    // The count of passes that changed nothing starts afresh at each
    // instant. At 1 s and at 2 s alike: the arrival's pass, three
    // passes asked for that changed nothing, and the fourth ask
    // refused — a refusal that is not retried, or the policy would be
    // asked three times more.
    assert_eq!(
        instants,
        vec![(0, 2, 0), (1, 4, 1), (2, 4, 1), (5, 2, 0), (10, 2, 0)]
    );
    e.check_conservation().expect("every job ended");
    let mut ends: Vec<(u64, i64, i64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.0 / 1_000_000, r.end.0 / 1_000_000))
        .collect();
    ends.sort();
    assert_eq!(ends, vec![(1, 0, 5), (2, 5, 10), (3, 5, 10)]);
    let (at, last) = e.last_refusal().expect("the endless asking is refused");
    assert_eq!(
        last,
        &Refusal::Recheck {
            passes: crate::engine::RECHECK_RETRIES + 1
        }
    );
    assert!(last.to_string().contains("changed nothing"), "{last}");
    assert_eq!(*at, SimTime::from_secs(2));
}
