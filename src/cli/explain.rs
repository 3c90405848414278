//! `schedscope run SCENARIO --explain JOB@TIME`: the policy's reason for a
//! job at a moment of the run, headless, so that a lesson's claims can be
//! checked in CI and a researcher can ask about any job of any run.

use crate::model::{SimTime, rng::replication_seed};
use crate::scenario::{Scenario, ScenarioError};
use crate::sched::{Verdict, explain::span};
use serde::Serialize;
use std::collections::HashMap;

/// What was said of one job at one moment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Said {
    pub job: u64,
    /// Seconds.
    pub at: f64,
    /// `queued`, `running`, `ended` or `absent`.
    pub state: &'static str,
    /// The policy's verdict on a queued job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    pub text: String,
}

/// Runs the first replication of `scenario` (its base seed `seed`) and
/// says, for each `(job, seconds)` asked, what the job is doing then and,
/// queued, why by the policy in force: after every event up to that time,
/// the policy's decisions then included. Answers come in the order asked.
pub fn explain(
    scenario: &Scenario,
    seed: u64,
    asks: &[(u64, f64)],
) -> Result<Vec<Said>, ScenarioError> {
    let mut engine = scenario.build_engine(replication_seed(seed, 0), false)?;
    let mut order: Vec<usize> = (0..asks.len()).collect();
    order.sort_by(|&a, &b| asks[a].1.total_cmp(&asks[b].1));
    let mut ended: HashMap<u64, (SimTime, SimTime)> = HashMap::new();
    let mut said: Vec<Option<Said>> = vec![None; asks.len()];
    for i in order {
        let (job, secs) = asks[i];
        let at = SimTime::from_secs_f64(secs);
        engine.step_until(at);
        for r in engine.drain_records() {
            ended.insert(r.id, (r.start, r.end));
        }
        if let Some((t, reason)) = engine.failure() {
            return Err(ScenarioError::Stopped {
                at: *t,
                reason: reason.clone(),
            });
        }
        let read = engine.read();
        let when = span(at);
        let s = match read.key_of(job) {
            Some(k) if read.queue().contains(&k) => {
                let e = read.explain(k).expect("queued");
                Said {
                    job,
                    at: secs,
                    state: "queued",
                    verdict: Some(e.verdict),
                    text: e.text,
                }
            }
            Some(k) => {
                let j = read.job(k);
                let on: Vec<String> = j
                    .assignment
                    .iter()
                    .map(|&(c, w)| {
                        let name = &read.platform().clusters[c as usize].name;
                        format!("{w} on {name}")
                    })
                    .collect();
                Said {
                    job,
                    at: secs,
                    state: "running",
                    verdict: None,
                    text: format!(
                        "running since {} ({}) at {when}",
                        span(j.start),
                        on.join(", ")
                    ),
                }
            }
            None => match ended.get(&job) {
                Some(&(start, end)) => Said {
                    job,
                    at: secs,
                    state: "ended",
                    verdict: None,
                    text: format!("ended at {} (it started at {})", span(end), span(start)),
                },
                None => Said {
                    job,
                    at: secs,
                    state: "absent",
                    verdict: None,
                    text: format!(
                        "not in the system at {when}: it has not arrived yet, or the run has no such job"
                    ),
                },
            },
        };
        said[i] = Some(s);
    }
    Ok(said.into_iter().map(|s| s.expect("answered")).collect())
}

/// One line per answer: `job 5 at 2 s waits: …`.
pub fn lines(said: &[Said]) -> String {
    let mut out = String::new();
    for s in said {
        let what = match s.verdict {
            Some(v) => v.word(),
            None => s.state,
        };
        out.push_str(&format!(
            "job {} at {} {what}: {}\n",
            s.job,
            span(SimTime::from_secs_f64(s.at)),
            s.text
        ));
    }
    out
}
