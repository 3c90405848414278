//! Batsim's JSON workload format: `nb_res`, `jobs` (`id`, `subtime`, `res`,
//! `walltime`, `profile`) and `profiles`, of which `delay` profiles give a
//! job's run time. Batsim users can bring their workloads as they are.

use crate::model::{JobSpec, SimTime};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum BatsimError {
    #[error("{path}: cannot read the workload: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: job {job} (number {index} in `jobs`): {message}")]
    Job {
        path: String,
        job: String,
        index: usize,
        message: String,
    },
}

#[derive(Deserialize)]
struct RawWorkload {
    nb_res: Option<u32>,
    jobs: Vec<RawJob>,
    #[serde(default)]
    profiles: HashMap<String, RawProfile>,
}

#[derive(Deserialize)]
struct RawJob {
    id: serde_json::Value,
    subtime: f64,
    res: u32,
    #[serde(default)]
    walltime: Option<f64>,
    profile: String,
}

#[derive(Deserialize)]
struct RawProfile {
    #[serde(rename = "type")]
    kind: String,
    delay: Option<f64>,
}

/// A Batsim workload: its jobs in submit order (equal submit times keep the
/// file's order) and the number of resources it was made for.
#[derive(Clone, Debug)]
pub struct BatsimWorkload {
    pub nb_res: Option<u32>,
    pub jobs: Vec<JobSpec>,
}

/// A job id as a number: `42`, `"42"`, or the part after `!` in
/// `"workload!42"`.
fn numeric_id(v: &serde_json::Value) -> Option<u64> {
    match v {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.rsplit('!').next()?.parse().ok(),
        _ => None,
    }
}

pub fn read_path(path: &Path) -> Result<BatsimWorkload, BatsimError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| BatsimError::Read {
        path: name.clone(),
        source,
    })?;
    parse(&text, &name)
}

pub fn parse(text: &str, name: &str) -> Result<BatsimWorkload, BatsimError> {
    let raw: RawWorkload = serde_json::from_str(text).map_err(|e| BatsimError::Json {
        path: name.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let mut jobs = Vec::with_capacity(raw.jobs.len());
    for (index, j) in raw.jobs.iter().enumerate() {
        let err = |message: String| BatsimError::Job {
            path: name.to_string(),
            job: j.id.to_string(),
            index: index + 1,
            message,
        };
        let id = numeric_id(&j.id)
            .ok_or_else(|| err("`id` must be a whole number or end in `!NUMBER`".to_string()))?;
        if !(j.subtime.is_finite() && j.subtime >= 0.0) {
            return Err(err(format!("`subtime` must be ≥ 0, found {}", j.subtime)));
        }
        if j.res == 0 {
            return Err(err("`res` must be at least 1".to_string()));
        }
        let profile = raw
            .profiles
            .get(&j.profile)
            .ok_or_else(|| err(format!("profile \"{}\" is not in `profiles`", j.profile)))?;
        let delay = match (profile.kind.as_str(), profile.delay) {
            ("delay", Some(d)) if d.is_finite() && d >= 0.0 => d,
            ("delay", _) => {
                return Err(err(format!(
                    "profile \"{}\" needs a `delay` ≥ 0 in seconds",
                    j.profile
                )));
            }
            (kind, _) => {
                return Err(err(format!(
                    "profile \"{}\" is of type \"{kind}\"; only \"delay\" profiles give a run time",
                    j.profile
                )));
            }
        };
        let estimate = j
            .walltime
            .filter(|w| w.is_finite() && *w > 0.0)
            .map(SimTime::from_secs_f64);
        jobs.push(JobSpec {
            work: None,
            id,
            submit: SimTime::from_secs_f64(j.subtime),
            size: j.res,
            components: vec![j.res],
            runtime: SimTime::from_secs_f64(delay),
            estimate,
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: None,
            graph: None,
        });
    }
    jobs.sort_by_key(|j| j.submit);
    Ok(BatsimWorkload {
        nb_res: raw.nb_res,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: &str = r#"{
      "nb_res": 4,
      "jobs": [
        {"id": "w!7", "subtime": 5.5, "res": 2, "walltime": 100, "profile": "p"},
        {"id": 3, "subtime": 1, "res": 1, "walltime": -1, "profile": "p"}
      ],
      "profiles": {"p": {"type": "delay", "delay": 12.25}}
    }"#;

    #[test]
    fn reads_jobs_in_submit_order() {
        let w = parse(W, "w.json").unwrap();
        assert_eq!(w.nb_res, Some(4));
        assert_eq!(w.jobs.len(), 2);
        assert_eq!(w.jobs[0].id, 3);
        assert_eq!(w.jobs[0].estimate, None);
        assert_eq!(w.jobs[1].id, 7);
        assert_eq!(w.jobs[1].submit, SimTime::from_secs_f64(5.5));
        assert_eq!(w.jobs[1].runtime, SimTime::from_secs_f64(12.25));
        assert_eq!(w.jobs[1].estimate, Some(SimTime::from_secs(100)));
    }

    #[test]
    fn errors_name_the_file_and_the_job() {
        let e = parse(
            &W.replace("\"delay\", \"delay\"", "\"parallel\", \"delay\""),
            "w.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("w.json") && e.contains("\"parallel\""), "{e}");
        let e = parse("{\"jobs\": [}", "w.json").unwrap_err().to_string();
        assert!(e.starts_with("w.json:1:"), "{e}");
        let e = parse(&W.replace("\"res\": 2", "\"res\": 0"), "w.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("job \"w!7\"") && e.contains("`res`"), "{e}");
    }
}
