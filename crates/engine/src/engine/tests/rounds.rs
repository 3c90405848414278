//! The one decision call: a policy that decides in rounds sees each
//! round's decisions carried out, and one that asks again without end is
//! stopped, told, and the run goes on.

use crate::engine::{Engine, EngineConfig};
use crate::model::{JobSpec, Platform, SimTime};
use crate::sched::{
    Carried, Decisions, Policy, PolicySpec, PolicyState, Refusal, Start, StartKind, SystemView,
};
use schedscope_policies::policy::SharedParams;
use std::sync::{Arc, Mutex};

/// What the policy saw at each call: (round, running jobs, carried last
/// round).
type Seen = Arc<Mutex<Vec<(u32, usize, Carried)>>>;

/// Starts the head when it fits, one job a round, asking again after
/// each start; with `greedy`, it asks again whatever happens.
struct OneARound {
    spec: PolicySpec,
    greedy: bool,
    seen: Seen,
}

impl Policy for OneARound {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn decide(&mut self, view: &SystemView<'_>, out: &mut Decisions) {
        let seen = (out.round(), view.running.len(), out.carried());
        self.seen.lock().unwrap().push(seen);
        if let Some(&head) = view.queue.first() {
            let job = view.job(head);
            if view.free[0] >= job.size {
                out.start(Start {
                    job: head,
                    assignment: vec![(0, job.size)],
                    kind: StartKind::Head,
                    processors: None,
                    processes: None,
                });
                out.again();
            }
        }
        if self.greedy {
            out.again();
        }
    }

    fn state(&self, _view: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
}

/// Three one-processor jobs of 10 s at 0 s on four processors.
fn run(greedy: bool) -> (Engine, Vec<(u32, usize, Carried)>) {
    let jobs: Vec<JobSpec> = (1..=3)
        .map(|id| JobSpec::rigid(id, SimTime(0), 1, SimTime::from_secs(10)))
        .collect();
    let mut e = Engine::new(
        Platform::uniform(1, 4),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    let seen = Seen::default();
    e.seat.policy = Box::new(OneARound {
        spec: PolicySpec::fcfs(),
        greedy,
        seen: seen.clone(),
    });
    e.run();
    let seen = seen.lock().unwrap().clone();
    (e, seen)
}

/// Each round sees the last one's start carried out: one decision point
/// at 0 s starts the three jobs in three rounds, the fourth finding them
/// running and nothing to start; each job runs its 10 s.
#[test]
fn each_round_sees_the_last_rounds_decisions_carried_out() {
    let (mut e, seen) = run(false);
    // The first decision point's calls: up to the next round 0.
    let calls = 1 + seen[1..].iter().take_while(|s| s.0 > 0).count();
    let first: Vec<(u32, usize, u32)> = seen[..calls]
        .iter()
        .map(|(round, running, carried)| (*round, *running, carried.starts))
        .collect();
    assert_eq!(first, vec![(0, 0, 0), (1, 1, 1), (2, 2, 1), (3, 3, 1)]);
    let records: Vec<_> = e.drain_records().collect();
    assert_eq!(records.len(), 3);
    for r in &records {
        assert_eq!((r.start, r.end), (SimTime(0), SimTime::from_secs(10)));
    }
    assert_eq!(e.counters().refused, 0);
}

/// A policy that asks again after every round is stopped after
/// [`Decisions::MAX_ROUNDS`] rounds of one decision point, told why, and
/// the run goes on: every job runs as it would have.
#[test]
fn a_policy_that_always_asks_again_is_stopped_and_the_run_goes_on() {
    let (mut e, seen) = run(true);
    let longest = seen.iter().map(|s| s.0).max().unwrap();
    assert_eq!(longest + 1, Decisions::MAX_ROUNDS);
    let records: Vec<_> = e.drain_records().collect();
    assert_eq!(records.len(), 3);
    for r in &records {
        assert_eq!((r.start, r.end), (SimTime(0), SimTime::from_secs(10)));
    }
    assert!(e.counters().refused > 0);
    assert_eq!(
        e.last_refusal().map(|(_, r)| r.clone()),
        Some(Refusal::Rounds {
            rounds: Decisions::MAX_ROUNDS
        })
    );
}
