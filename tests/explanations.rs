//! Explanations hold against what the policies do: every policy of the
//! catalog on every shipped scenario (and under random switches and
//! injections), wrapped in a probe that, at every round of every decision
//! point, asks the policy to explain each queued job on the very view it
//! then decides on. A job explained as starting must be started in that
//! round, and a job explained as waiting must not be.
//!
//! The probe counts both verdicts per policy and the test fails if a
//! policy of the catalog never said either: a check that never sees a
//! start predicted, or never a wait, checks nothing.

use schedscope::engine::{Command, InjectJob};
use schedscope::model::{Platform, SimTime};
use schedscope::policy::Catalogued;
use schedscope::policy::catalog;
use schedscope::scenario::Scenario;
use schedscope::sched::{
    BackfillView, Decision, Decisions, Explanation, JobKey, JobView, Policies, Policy, PolicySpec,
    PolicyState, SystemView, Verdict,
};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

mod common;

/// Jobs of each scenario's workload per run: enough for queues to form.
const JOBS: u64 = 80;
/// Queued jobs asked about at each round: the first of the queue and the
/// last.
const ASKED_HEAD: usize = 12;
const ASKED_TAIL: usize = 4;

#[derive(Default, Debug, Clone, Copy)]
struct Seen {
    starts: u64,
    waits: u64,
    rounds: u64,
}

thread_local! {
    /// Verdicts confirmed, by policy name.
    static SEEN: RefCell<BTreeMap<String, Seen>> = const { RefCell::new(BTreeMap::new()) };
    /// The run being probed, for messages.
    static WHO: RefCell<String> = const { RefCell::new(String::new()) };
}

/// A policy of the catalog, asked to explain every queued job before
/// each of its rounds.
struct Probe {
    inner: Box<dyn Policy>,
}

fn build(spec: &PolicySpec, platform: &Platform) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(Probe {
        inner: schedscope::policy::build(spec, platform)?,
    }))
}

const PROBED: Policies = Policies {
    build,
    label: catalog::label,
};

impl Policy for Probe {
    fn spec(&self) -> &PolicySpec {
        self.inner.spec()
    }

    fn decide(&mut self, view: &SystemView<'_>, out: &mut Decisions) {
        // The jobs near the head (where starts happen) and the newest
        // arrivals: each explanation runs a pass of its own, so asking
        // about every job of a long queue at every round is quadratic.
        let q = view.queue;
        let asked = q.iter().take(ASKED_HEAD).chain(
            q.iter()
                .skip(q.len().saturating_sub(ASKED_TAIL).max(ASKED_HEAD)),
        );
        let said: Vec<(JobKey, Explanation)> =
            asked.map(|&k| (k, self.inner.explain(view, k))).collect();
        let round = out.round();
        // A phased policy past its schedule step starts nothing more at
        // this decision point: what it would start is said for its next.
        let schedules = !out.past_schedule();
        self.inner.decide(view, out);
        if !schedules {
            return;
        }
        let started: HashSet<JobKey> = out
            .decisions()
            .iter()
            .filter_map(|d| match d {
                Decision::Start(s) => Some(s.job),
                _ => None,
            })
            .collect();
        // A round that only reshapes, aborts or reserves comes before the
        // starts of this decision point: what starts is said for the round
        // that starts (or, deciding nothing, starts nothing).
        if started.is_empty() && !out.decisions().is_empty() {
            return;
        }
        let name = self.inner.spec().name.as_str().to_string();
        let who = WHO.with(|w| w.borrow().clone());
        let mut seen = Seen::default();
        for (k, e) in &said {
            let id = view.job(*k).id;
            assert!(!e.text.is_empty(), "{who}: job {id}: an empty explanation");
            match e.verdict {
                Verdict::Starts => {
                    assert!(
                        started.contains(k),
                        "{who}, {name} at {:?} round {round}: job {id} explained as starting ({}) but not started",
                        view.now,
                        e.text
                    );
                    seen.starts += 1;
                }
                Verdict::Waits => {
                    assert!(
                        !started.contains(k),
                        "{who}, {name} at {:?} round {round}: job {id} explained as waiting ({}) but started",
                        view.now,
                        e.text
                    );
                    seen.waits += 1;
                }
                Verdict::Unknown => panic!(
                    "{who}: {name} gives no reason of its own for job {id}: {}",
                    e.text
                ),
            }
        }
        SEEN.with(|s| {
            let mut s = s.borrow_mut();
            let t = s.entry(name).or_default();
            t.starts += seen.starts;
            t.waits += seen.waits;
            t.rounds += 1;
        });
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        self.inner.state(view)
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        self.inner.plan(view)
    }

    fn plan_rows(&self, view: &SystemView<'_>, rows: &[JobKey]) -> Option<BackfillView> {
        self.inner.plan_rows(view, rows)
    }

    fn sees_running_ends(&self) -> bool {
        self.inner.sees_running_ends()
    }

    fn admits(&self, job: &JobView, platform: &Platform) -> Result<(), String> {
        self.inner.admits(job, platform)
    }

    fn explain(&self, view: &SystemView<'_>, job: JobKey) -> Explanation {
        self.inner.explain(view, job)
    }
}

/// The shipped scenarios but the real traces (their rigid jobs on one
/// cluster are the default scenario's kind, and they run whole) and the
/// reservation papers' (days of simulated time per run; the reservation
/// scheduler is probed on the lessons and by switches).
fn scenarios() -> Vec<PathBuf> {
    common::shipped_scenarios(|name| !name.starts_with("sulistio") && !name.starts_with("trace-"))
}

/// A few operator commands over the run: a switch to the next policy of
/// the catalog and back, and an injection, so that policies explain
/// queues they did not build.
fn commands(scenario: &Scenario, span: f64) -> Vec<(SimTime, Command)> {
    let names: Vec<_> = catalog::names().collect();
    let own = scenario.file.policy.clone();
    let i = names.iter().position(|&n| n == own.name).unwrap_or(0);
    let mut other = own.clone();
    other.name = names[(i + 1) % names.len()];
    let size = (scenario.platform().largest_cluster() / 2).max(1);
    vec![
        (
            SimTime::from_secs_f64(span * 0.3),
            Command::InjectJobs {
                jobs: vec![InjectJob {
                    size,
                    count: 3,
                    ..InjectJob::times(120.0, Some(150.0))
                }],
            },
        ),
        (
            SimTime::from_secs_f64(span * 0.5),
            Command::SetPolicy { policy: other },
        ),
        (
            SimTime::from_secs_f64(span * 0.7),
            Command::SetPolicy { policy: own },
        ),
    ]
}

fn run(path: &std::path::Path, scenario: &Scenario, switches: bool) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    WHO.with(|w| {
        *w.borrow_mut() = format!(
            "{name} under {}{}",
            scenario.file.policy.label(),
            if switches { " with switches" } else { "" }
        )
    });
    let mut engine = scenario
        .build_engine_of(1, Some(JOBS), PROBED)
        .expect("engine");
    if switches {
        let mut source = scenario.job_source(1, Some(JOBS)).expect("source");
        let mut last = 0.0;
        while let Some(j) = source.next_job() {
            last = j.submit.as_secs_f64();
        }
        for (at, c) in commands(scenario, last) {
            engine.schedule_command(at, c);
        }
    }
    let mut steps = 0u64;
    while engine.step().is_some() {
        steps += 1;
        assert!(steps < 2_000_000, "no end");
        engine.drain_records().for_each(drop);
    }
}

#[test]
fn every_policy_explains_what_it_then_does() {
    let has_data = common::shared_data("swf").is_some();
    for path in scenarios() {
        for policy in catalog::names() {
            let set = format!("policy.name={}", policy.as_str());
            let scenario = match Scenario::load_with(&path, &[set]) {
                Ok(s) => s,
                Err(e) if e.to_string().contains("shared/data") && !has_data => continue,
                Err(_) => continue, // refused at validation (tests/nothing_lost.rs)
            };
            let t = std::time::Instant::now();
            run(&path, &scenario, false);
            run(&path, &scenario, true);
            let took = t.elapsed().as_secs_f64();
            if took > 2.0 {
                eprintln!("{} under {}: {took:.1} s", path.display(), policy.as_str());
            }
        }
    }
    // EASY and conservative backfilling with reservations pinned to
    // numbered processors (a policy of its own each), on one cluster.
    let pinned_before = SEEN.with(|s| s.borrow().clone());
    for path in [
        "scenarios/teach-backfill.toml",
        "scenarios/batsim-medium-late.toml",
    ] {
        for policy in ["easy", "conservative"] {
            let sets = [
                format!("policy.name={policy}"),
                "policy.machines=pinned".to_string(),
            ];
            let scenario = Scenario::load_with(std::path::Path::new(path), &sets).expect(path);
            run(std::path::Path::new(path), &scenario, false);
        }
    }
    let seen = SEEN.with(|s| s.borrow().clone());
    for policy in ["easy", "conservative"] {
        let (a, b) = (pinned_before[policy], seen[policy]);
        assert!(
            b.starts > a.starts && b.waits > a.waits,
            "pinned {policy}: the property saw too little"
        );
    }
    for policy in catalog::names() {
        let s = seen.get(policy.as_str()).copied().unwrap_or_default();
        assert!(
            s.starts > 0 && s.waits > 0,
            "{}: starts foreseen {}, waits {} over {} rounds: the property saw too little",
            policy.as_str(),
            s.starts,
            s.waits,
            s.rounds
        );
    }
    eprintln!("{seen:#?}");
}
