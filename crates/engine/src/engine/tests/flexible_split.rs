use crate::engine::{Engine, EngineConfig};
use crate::model::{JobSpec, Platform, SimTime};
use crate::sched::Phased;
use crate::sched::{
    Abort, JobKey, Policy, PolicySpec, PolicyState, Refusal, Start, StartKind, SystemView,
};
use schedscope_policies::policy::SharedParams;

/// Splits every job over the two clusters as 3 + (size − 3), after one
/// split that does not add up.
struct Splitter {
    spec: PolicySpec,
    tried: bool,
}

impl Phased for Splitter {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }
    fn aborts(&mut self, _v: &SystemView<'_>, _o: &mut Vec<Abort>) {}
    fn recheck_at(&self, _v: &SystemView<'_>) -> Option<SimTime> {
        None
    }
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        for &k in view.queue {
            let n = view.job(k).size;
            if !self.tried {
                self.tried = true;
                out.push(Start {
                    job: k,
                    assignment: vec![(0, 3), (1, n)],
                    kind: StartKind::Head,
                    processors: None,
                    processes: None,
                });
            }
            out.push(Start {
                job: k,
                assignment: vec![(0, 3), (1, n - 3)],
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

fn build(spec: &PolicySpec, _p: &Platform) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(Splitter {
        spec: spec.clone(),
        tried: false,
    }))
}

/// A job of 7 processors that names no components is split by the
/// policy as 3 + 4 over two clusters of 4; a split that does not add up
/// to 7 is refused with the widths it gave.
#[test]
fn the_policy_splits_a_job_that_names_no_components() {
    let job = JobSpec {
        components: Vec::new(),
        ..JobSpec::rigid(1, SimTime::ZERO, 7, SimTime::from_secs(5))
    };
    let mut e = Engine::with_builder(
        Platform::uniform(2, 4),
        Box::new(vec![job].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
        crate::sched::Policies::of(build),
    )
    .unwrap();
    e.step();
    let (_, refusal) = e.last_refusal().expect("the bad split is refused").clone();
    assert_eq!(
        refusal,
        Refusal::Split {
            job: 1,
            given: vec![3, 7],
            size: 7
        }
    );
    assert_eq!(e.free_processors(), &[1, 0]);
    let _ = JobKey(0);
    e.run();
    e.check_conservation().unwrap();
    let r: Vec<_> = e.drain_records().collect();
    assert_eq!(
        (r[0].clusters.clone(), r[0].end),
        (vec![0, 1], SimTime::from_secs(5))
    );
}
