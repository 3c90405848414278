//! Nothing lost: every policy of the catalog on every shipped scenario,
//! under random operator timelines (policy switches, injections, some of
//! jobs no policy could run, estimate flips, link changes), either runs
//! each job or refuses it with a reason — at validation, at the switch, at
//! the injection or when the job arrives — and the run ends with no job
//! left behind.
//!
//! The test counts the refusals of each kind over the whole catalog and
//! fails if one kind never happens: a check that nothing is lost must see
//! things that would be.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedscope::engine::{Command, InjectJob};
use schedscope::model::SimTime;
use schedscope::policy::Catalogued;
use schedscope::policy::catalog;
use schedscope::policy::{SharedParams, names};
use schedscope::scenario::Scenario;
use schedscope::workload::estimates::{EstimateModel, EstimateSource};
use std::collections::HashSet;
use std::path::PathBuf;

mod common;

/// Jobs of each scenario's workload per run: enough for queues to form.
/// A trace runs its first `JOBS` (`workload.first_jobs`): a list of jobs
/// runs whole, whatever count its engine is given.
const JOBS: u64 = 120;
/// Random timelines per scenario and policy.
const TIMELINES: u64 = 2;
/// Events a run may take before it counts as stuck.
const STEP_LIMIT: u64 = 5_000_000;

#[derive(Default, Debug)]
struct Tally {
    runs: u64,
    refused_at_validation: u64,
    refused_switches: u64,
    rejected_jobs: u64,
    impossible_injected: u64,
    ended: u64,
}

/// Every shipped scenario but the long real traces, of which two stand
/// for all: the trace scenarios differ only in their file and platform,
/// and reading each whole trace thirty times over would take minutes
/// (each run takes only its first jobs, but each load reads the file).
fn scenarios() -> Vec<PathBuf> {
    common::shipped_scenarios(|name| {
        // The reservation scheduler, chosen or switched to, serves
        // the paper scenarios' thousands of task graphs five at a time
        // half an hour apart: days of simulated time however few
        // trace jobs run (`tests/sulistio_findings.rs` runs them).
        !name.starts_with("sulistio")
            && (!name.starts_with("trace-") || name.contains("kth") || name.contains("lublin"))
    })
}

/// Whether the scenario's workload kind takes `first_jobs` (a trace).
fn takes_first_jobs(path: &std::path::Path) -> bool {
    let text = std::fs::read_to_string(path).expect("a scenario");
    let file: toml::Table = text.parse().expect("TOML");
    file.get("workload")
        .and_then(|w| w.get("kind"))
        .and_then(|k| k.as_str())
        .and_then(schedscope::scenario::kinds::find)
        .is_some_and(|k| k.keys.contains(&"first_jobs"))
}

/// A random timeline over `[0, span]` on `scenario`'s platform.
fn timeline(rng: &mut ChaCha8Rng, scenario: &Scenario, span: f64) -> Vec<(SimTime, Command)> {
    let platform = scenario.platform();
    let total = platform.total_processors() as u32;
    let names: Vec<_> = catalog::names().collect();
    let mut out = Vec::new();
    for _ in 0..rng.random_range(2..8) {
        let at = SimTime::from_secs_f64(rng.random_range(0.0..=span.max(1.0)));
        let command = match rng.random_range(0..5) {
            0 => {
                let mut policy = scenario.file.policy.clone();
                policy.name = names[rng.random_range(0..names.len())];
                Command::SetPolicy { policy }
            }
            1 | 2 => {
                let impossible = rng.random_bool(0.3);
                let size = if impossible {
                    total + rng.random_range(1..4)
                } else {
                    rng.random_range(1..=total.min(64))
                };
                Command::InjectJobs {
                    jobs: vec![InjectJob {
                        size,
                        runtime: rng.random_range(0.0..600.0),
                        estimate: None,
                        components: None,
                        count: rng.random_range(1..3),
                        site: None,
                    }],
                }
            }
            3 => Command::SetEstimateError {
                estimates: EstimateModel {
                    source: EstimateSource::UniformError,
                    error_percent: [0.0, 10.0, 30.0, 90.0][rng.random_range(0..4)],
                    ..scenario.file.estimates.clone()
                },
                queued_too: rng.random_bool(0.5),
            },
            _ => match &platform.network {
                Some(n) => Command::SetLinkBandwidth {
                    link: rng.random_range(0..n.abw.len()).to_string(),
                    abw: rng.random_range(0.05..2.0),
                },
                None => continue,
            },
        };
        out.push((at, command));
    }
    out
}

fn run_one(path: &std::path::Path, scenario: &Scenario, seed: u64, tally: &mut Tally) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let who = format!(
        "{name} under {} (seed {seed})",
        scenario.file.policy.label()
    );
    // The workload's jobs, to know what must come out.
    let mut source = scenario.job_source(seed, Some(JOBS)).expect("source");
    let mut workload = Vec::new();
    while let Some(j) = source.next_job() {
        workload.push(j);
        if workload.len() as u64 >= JOBS {
            break;
        }
    }
    let span = workload.last().map_or(0.0, |j| j.submit.as_secs_f64());
    let mut engine = scenario
        .build_engine_of(seed, Some(JOBS), schedscope::policy::CATALOG)
        .expect("engine");
    // A timeline of its own for every scenario, policy and seed.
    let mut rng = ChaCha8Rng::seed_from_u64(who.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    }));
    let commands = timeline(&mut rng, scenario, span);
    let total = scenario.platform().total_processors();
    let impossible: u64 = commands
        .iter()
        .map(|(_, c)| match c {
            Command::InjectJobs { jobs } => jobs
                .iter()
                .filter(|j| j.size as u64 > total)
                .map(|j| j.count as u64)
                .sum(),
            _ => 0,
        })
        .sum();
    // A switch to a policy that cannot run on the platform is refused.
    let unbuildable = commands
        .iter()
        .filter(|(_, c)| {
            matches!(c, Command::SetPolicy { policy }
                if policy.build(scenario.platform()).is_err())
        })
        .count();
    for (at, c) in commands {
        engine.schedule_command(at, c);
    }
    let mut records = Vec::new();
    let mut steps = 0u64;
    while engine.step().is_some() {
        steps += 1;
        assert!(
            steps < STEP_LIMIT,
            "{who}: no end after {STEP_LIMIT} events"
        );
        records.extend(engine.drain_records());
    }
    records.extend(engine.drain_records());
    if let Err(lost) = engine.check_conservation() {
        panic!("{who}: {lost}");
    }
    let c = engine.counters();
    assert_eq!(c.arrived, c.finished + c.rejected, "{who}");
    assert_eq!(records.len() as u64, c.finished, "{who}");
    // Every job of the workload ended or was rejected, under one id each.
    let ended: HashSet<u64> = records.iter().map(|r| r.id).collect();
    assert_eq!(ended.len(), records.len(), "{who}: a job id ended twice");
    let rejected: HashSet<u64> = engine.rejections().iter().map(|r| r.id).collect();
    assert!(ended.is_disjoint(&rejected), "{who}");
    for j in &workload {
        assert!(
            ended.contains(&j.id) || rejected.contains(&j.id),
            "{who}: workload job {} neither ended nor was rejected",
            j.id
        );
    }
    // An injected job wider than the platform is rejected, with a reason.
    let rejected_injected = engine.rejections().iter().filter(|r| r.injected).count() as u64;
    assert!(rejected_injected >= impossible, "{who}");
    assert!(engine.rejections().iter().all(|r| !r.reason.is_empty()));
    // Each record ran as long as its work at its rate allows: never
    // before it arrived, never ending before it started.
    for r in &records {
        assert!(
            r.start >= r.submit && r.end >= r.start,
            "{who}: job {}",
            r.id
        );
    }
    assert!(
        engine.timeline_refused().len() >= unbuildable,
        "{who}: {unbuildable} switches to policies that cannot run here, refused: {:?}",
        engine.timeline_refused()
    );
    tally.runs += 1;
    tally.ended += c.finished;
    tally.rejected_jobs += c.rejected;
    tally.impossible_injected += impossible;
    tally.refused_switches += engine
        .timeline_refused()
        .iter()
        .filter(|(_, m)| m.contains("policy"))
        .count() as u64;
}

#[test]
fn every_policy_on_every_scenario_runs_each_job_or_refuses_it() {
    let mut tally = Tally::default();
    let has_data = common::shared_data("swf").is_some();
    for path in scenarios() {
        let started = std::time::Instant::now();
        for name in catalog::names() {
            let mut sets = vec![format!("policy.name={}", name.as_str())];
            if takes_first_jobs(&path) {
                sets.push(format!("workload.first_jobs={JOBS}"));
            }
            let scenario = match Scenario::load_with(&path, &sets) {
                Ok(s) => s,
                Err(e) => {
                    let m = e.to_string();
                    if m.contains("shared/data") && !has_data {
                        continue;
                    }
                    // Refused at validation: it must say why, at the policy.
                    assert!(
                        m.contains("[policy]") || m.contains("policy"),
                        "{}: {m}",
                        path.display()
                    );
                    tally.refused_at_validation += 1;
                    continue;
                }
            };
            for seed in 1..=TIMELINES {
                run_one(&path, &scenario, seed, &mut tally);
            }
        }
        println!("{}: {:.1?}", path.display(), started.elapsed());
    }
    println!("{tally:?}");
    assert!(tally.runs > 100, "{tally:?}");
    assert!(tally.ended > 10_000, "{tally:?}");
    // Every kind of refusal happened somewhere.
    assert!(tally.refused_at_validation > 0, "{tally:?}");
    assert!(tally.refused_switches > 0, "{tally:?}");
    assert!(tally.impossible_injected > 0, "{tally:?}");
    assert!(
        tally.rejected_jobs >= tally.impossible_injected,
        "{tally:?}"
    );
}

/// A switch to a policy that could never run a job that waits is refused
/// with the job named; the run goes on under the policy it had, and ends
/// with every job run.
#[test]
fn a_switch_that_would_strand_a_waiting_job_is_refused() {
    use schedscope::engine::{CommandError, Engine, EngineConfig};
    use schedscope::model::{JobSpec, Platform};
    use schedscope::policy::MaxJumps;
    use schedscope::sched::{
        Abort, JobView, Phased, Policy, PolicySpec, PolicyState, Start, SystemView,
    };
    // A policy that runs only jobs of one processor.
    struct Ones(PolicySpec);
    impl Phased for Ones {
        fn spec(&self) -> &PolicySpec {
            &self.0
        }
        fn aborts(&mut self, _: &SystemView<'_>, _: &mut Vec<Abort>) {}
        fn schedule(&mut self, _: &SystemView<'_>, _: &mut Vec<Start>) {}
        fn recheck_at(&self, _: &SystemView<'_>) -> Option<SimTime> {
            None
        }
        fn state(&self, _: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
        fn admits(&self, job: &JobView, _: &Platform) -> Result<(), String> {
            match job.size {
                1 => Ok(()),
                n => Err(format!(
                    "job {} has {n} tasks; this policy runs one",
                    job.id
                )),
            }
        }
    }
    fn build(spec: &PolicySpec, p: &Platform) -> Result<Box<dyn Policy>, String> {
        match spec.name {
            names::FPFS => Ok(Box::new(Ones(spec.clone()))),
            _ => schedscope::policy::build(spec, p),
        }
    }
    let job = |id, submit, components: Vec<u32>, runtime| JobSpec {
        size: components.iter().sum(),
        components,
        ..JobSpec::rigid(
            id,
            SimTime::from_secs(submit),
            0,
            SimTime::from_secs(runtime),
        )
    };
    let jobs = vec![
        job(1, 0, vec![4], 10),
        job(2, 0, vec![4], 5),
        job(3, 1, vec![4, 4], 2),
        job(4, 2, vec![2], 3),
    ];
    let mut e = Engine::with_builder(
        Platform::uniform(2, 4),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
        schedscope::sched::Policies::of(build),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(2));
    assert_eq!(e.queue_len(), 2);
    let err = e
        .apply(Command::SetPolicy {
            policy: PolicySpec::fpfs(MaxJumps::Unlimited),
        })
        .unwrap_err();
    assert!(
        matches!(&err, CommandError::PolicyUnsupported { reason, .. }
            if reason.contains("could never run a job that waits: job 3 has 8 tasks")),
        "{err}"
    );
    assert_eq!(e.policy().name, names::FCFS);
    e.run();
    assert_eq!(e.check_conservation(), Ok(()));
    assert_eq!(e.drain_records().count(), 4);
}
