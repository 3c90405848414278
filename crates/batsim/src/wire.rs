//! Batsim's messages as schedscope writes and reads them: times in
//! seconds, resources numbered over the whole platform, interval sets.

use schedscope_protocol::model::{ClusterIdx, Platform, SimTime};
use serde_json::{Value, json};

/// A time as the protocol writes it: seconds, as a float.
pub fn secs(t: SimTime) -> f64 {
    t.0 as f64 / 1e6
}

/// A time the protocol wrote, to schedscope's microseconds: exact for
/// every time [`secs`] wrote (up to about 70 years).
pub fn time(s: f64) -> Result<SimTime, String> {
    if !(0.0..=9.0e12).contains(&s) {
        return Err(format!("{s} is not a time in seconds"));
    }
    Ok(SimTime((s * 1e6).round() as i64))
}

/// The resources of a platform numbered 0..n for the protocol: cluster by
/// cluster in the platform's order, each cluster's processors in their
/// own order (cluster 0's processors first).
#[derive(Clone, Debug)]
pub struct Numbering {
    /// The first resource number of each cluster, and the total last.
    first: Vec<u32>,
}

impl Numbering {
    pub fn of(platform: &Platform) -> Numbering {
        let mut first = vec![0];
        for c in &platform.clusters {
            first.push(first.last().copied().unwrap_or(0) + c.processors);
        }
        Numbering { first }
    }

    /// Resources in all.
    pub fn total(&self) -> u32 {
        self.first.last().copied().unwrap_or(0)
    }

    /// The resource number of processor `p` of cluster `c`.
    pub fn id(&self, c: ClusterIdx, p: u32) -> u32 {
        self.first[c as usize] + p
    }

    /// The cluster and processor of resource `id`.
    pub fn locate(&self, id: u32) -> Option<(ClusterIdx, u32)> {
        if id >= self.total() {
            return None;
        }
        let c = self.first.partition_point(|&f| f <= id) - 1;
        Some((c as ClusterIdx, id - self.first[c]))
    }
}

/// Resource numbers, in order and each once, written as an interval set:
/// `"0-3 5 7-8"`.
pub fn format_set(ids: &[u32]) -> String {
    schedscope_protocol::sched::explain::runs(ids, " ")
}

/// An interval set as the protocol writes it (`"1 2 4-8"`), in order,
/// each number once.
pub fn parse_set(text: &str) -> Result<Vec<u32>, String> {
    let mut ids = Vec::new();
    for part in text.split([' ', ',']).filter(|p| !p.is_empty()) {
        let number = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("\"{part}\" is not a resource number or range"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if a > b {
                    return Err(format!("\"{part}\" is a range from high to low"));
                }
                ids.extend(a..=b);
            }
            None => ids.push(number(part)?),
        }
    }
    if ids.is_empty() {
        return Err("the allocation names no resource".to_string());
    }
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    if ids.len() != n {
        return Err(format!("\"{text}\" names a resource twice"));
    }
    Ok(ids)
}

/// The workload every job belongs to in the protocol's job ids.
pub const WORKLOAD: &str = "w0";

/// The profile every job is submitted with, forwarded empty: the run time
/// is the simulator's to know (a `delay` profile would tell it), and an
/// untyped profile is one pybatsim takes as unknown.
pub const PROFILE: &str = "schedscope";

/// A job's id in the protocol: `w0!17` for schedscope's job 17.
pub fn job_id(id: u64) -> String {
    format!("{WORKLOAD}!{id}")
}

/// schedscope's id of a protocol job id.
pub fn parse_job_id(text: &str) -> Option<u64> {
    text.strip_prefix(WORKLOAD)?.strip_prefix('!')?.parse().ok()
}

/// One event.
pub fn event(at: SimTime, kind: &str, data: Value) -> Value {
    json!({ "timestamp": secs(at), "type": kind, "data": data })
}

/// `SIMULATION_BEGINS` for `platform`: its processors as compute
/// resources (named `CLUSTER-P`, with their cluster and speed as
/// properties), the configuration pybatsim reads, one workload.
pub fn begins(platform: &Platform) -> Value {
    let numbering = Numbering::of(platform);
    let mut resources = Vec::with_capacity(numbering.total() as usize);
    for (c, cluster) in platform.clusters.iter().enumerate() {
        for p in 0..cluster.processors {
            resources.push(json!({
                "id": numbering.id(c as ClusterIdx, p),
                "name": format!("{}-{p}", cluster.name),
                "state": "idle",
                "properties": { "cluster": cluster.name, "speed": cluster.speed.to_string() },
            }));
        }
    }
    let n = numbering.total();
    event(
        SimTime::ZERO,
        "SIMULATION_BEGINS",
        json!({
            "nb_resources": n,
            "nb_compute_resources": n,
            "nb_storage_resources": 0,
            "allow_compute_sharing": false,
            "allow_storage_sharing": false,
            "config": {
                "redis-enabled": false,
                "profiles-forwarded-on-submission": true,
                "dynamic-jobs-enabled": false,
                "dynamic-jobs-acknowledged": false,
                "forward-unknown-events": false,
            },
            "compute_resources": resources,
            "storage_resources": [],
            "workloads": { WORKLOAD: "schedscope" },
            "profiles": { WORKLOAD: {} },
        }),
    )
}

/// `JOB_SUBMITTED` of job `id`: `size` resources for `walltime`.
pub fn submitted(id: u64, submit: SimTime, size: u32, walltime: SimTime) -> Value {
    let jid = job_id(id);
    event(
        submit,
        "JOB_SUBMITTED",
        json!({
            "job_id": jid,
            "job": {
                "id": jid,
                "subtime": secs(submit),
                "walltime": secs(walltime),
                "res": size,
                "profile": PROFILE,
            },
            "profile": {},
        }),
    )
}

/// `JOB_COMPLETED` of job `id`, which ran on `alloc`, ended on its own or
/// killed at its `walltime`.
pub fn completed(at: SimTime, id: u64, alloc: &str, walltime: bool) -> Value {
    let (state, code, reason) = if walltime {
        ("COMPLETED_WALLTIME_REACHED", -1, "Walltime reached")
    } else {
        ("COMPLETED_SUCCESSFULLY", 0, "")
    };
    event(
        at,
        "JOB_COMPLETED",
        json!({
            "job_id": job_id(id),
            "job_state": state,
            "return_code": code,
            "kill_reason": reason,
            "alloc": alloc,
        }),
    )
}

/// What a reply's event asks, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    Execute {
        job: u64,
        alloc: Vec<u32>,
    },
    Reject {
        job: u64,
    },
    Kill {
        jobs: Vec<u64>,
    },
    CallMeLater {
        at: SimTime,
    },
    Metadata {
        job: u64,
        metadata: String,
    },
    /// A notification that needs nothing here (`registration_finished`).
    Noted(String),
}

/// A reply: its time and what it asks, in order, each at its event's
/// timestamp.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub now: SimTime,
    pub asks: Vec<(SimTime, Ask)>,
}

/// Reads a scheduler's reply, or says exactly what is wrong with it.
pub fn parse_reply(text: &str) -> Result<Reply, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        let shown: String = text.chars().take(120).collect();
        format!("the scheduler's reply is not JSON ({e}): {shown}")
    })?;
    let now = v
        .get("now")
        .and_then(Value::as_f64)
        .ok_or("the scheduler's reply has no number \"now\"")?;
    let now = time(now).map_err(|e| format!("the scheduler's reply: now {e}"))?;
    let events = v
        .get("events")
        .and_then(Value::as_array)
        .ok_or("the scheduler's reply has no array \"events\"")?;
    let mut asks = Vec::with_capacity(events.len());
    let mut last = SimTime::ZERO;
    for (i, e) in events.iter().enumerate() {
        let at = |what: &str| format!("the scheduler's event {i}: {what}");
        let kind = e
            .get("type")
            .and_then(Value::as_str)
            .ok_or(at("no \"type\""))?;
        let stamp = e
            .get("timestamp")
            .and_then(Value::as_f64)
            .ok_or(at(&format!("{kind} has no number \"timestamp\"")))
            .and_then(|t| time(t).map_err(|m| at(&m)))?;
        if stamp < last || stamp > now {
            return Err(at(&format!(
                "{kind} at {} is out of order (events in ascending time, none after the reply's now {})",
                secs(stamp),
                secs(now)
            )));
        }
        last = stamp;
        let data = e.get("data").cloned().unwrap_or(Value::Null);
        asks.push((stamp, ask(kind, &data).map_err(|m| at(&m))?));
    }
    Ok(Reply { now, asks })
}

fn ask(kind: &str, data: &Value) -> Result<Ask, String> {
    let text = |key: &str| {
        data.get(key)
            .and_then(Value::as_str)
            .ok_or(format!("{kind} has no text \"{key}\""))
    };
    let job = |t: &str| {
        parse_job_id(t).ok_or(format!(
            "{kind} names job \"{t}\", not one of schedscope's ({WORKLOAD}!ID)"
        ))
    };
    Ok(match kind {
        "EXECUTE_JOB" => Ask::Execute {
            job: job(text("job_id")?)?,
            alloc: parse_set(text("alloc")?).map_err(|m| format!("{kind}: {m}"))?,
        },
        "REJECT_JOB" => Ask::Reject {
            job: job(text("job_id")?)?,
        },
        "KILL_JOB" => {
            let ids = data
                .get("job_ids")
                .and_then(Value::as_array)
                .ok_or(format!("{kind} has no array \"job_ids\""))?;
            let jobs = ids
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or(format!("{kind}: a job id is not text"))
                        .and_then(job)
                })
                .collect::<Result<_, _>>()?;
            Ask::Kill { jobs }
        }
        "CALL_ME_LATER" => Ask::CallMeLater {
            at: data
                .get("timestamp")
                .and_then(Value::as_f64)
                .ok_or(format!("{kind} has no number \"timestamp\""))
                .and_then(|t| time(t).map_err(|m| format!("{kind}: {m}")))?,
        },
        "SET_JOB_METADATA" => Ask::Metadata {
            job: job(text("job_id")?)?,
            metadata: text("metadata")?.to_string(),
        },
        "NOTIFY" => match text("type")? {
            t @ ("registration_finished" | "continue_registration") => Ask::Noted(t.to_string()),
            t => return Err(format!("NOTIFY \"{t}\" is not one schedscope knows")),
        },
        "REGISTER_JOB" | "REGISTER_PROFILE" => {
            return Err(format!(
                "{kind}: schedscope does not take jobs registered by the scheduler (the workload is the scenario's)"
            ));
        }
        "SET_RESOURCE_STATE" => {
            return Err(format!(
                "{kind}: schedscope does not model resource power states"
            ));
        }
        "QUERY" => {
            return Err(format!(
                "{kind}: schedscope answers no queries (no energy model)"
            ));
        }
        other => return Err(format!("{other} is not an event schedscope supports")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use schedscope_protocol::model::Cluster;

    fn platform(sizes: &[u32]) -> Platform {
        Platform {
            clusters: sizes
                .iter()
                .enumerate()
                .map(|(i, &n)| Cluster {
                    name: format!("c{i}"),
                    processors: n,
                    speed: 1.0,
                })
                .collect(),
            ..Platform::default()
        }
    }

    proptest! {
        /// Every time schedscope writes reads back to itself, through the
        /// text a JSON peer would parse and write again.
        #[test]
        fn times_round_trip(us in 0i64..2_000_000_000_000_000) {
            let t = SimTime(us);
            let text = serde_json::to_string(&json!(secs(t))).unwrap();
            let back: f64 = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(time(back).unwrap(), t);
        }

        #[test]
        fn interval_sets_round_trip(mut ids in proptest::collection::vec(0u32..200, 1..60)) {
            ids.sort_unstable();
            ids.dedup();
            prop_assert_eq!(parse_set(&format_set(&ids)).unwrap(), ids);
        }
    }

    #[test]
    fn resources_are_numbered_cluster_by_cluster() {
        let n = Numbering::of(&platform(&[4, 2, 3]));
        assert_eq!(n.total(), 9);
        assert_eq!(n.id(1, 0), 4);
        assert_eq!(n.locate(3), Some((0, 3)));
        assert_eq!(n.locate(4), Some((1, 0)));
        assert_eq!(n.locate(6), Some((2, 0)));
        assert_eq!(n.locate(8), Some((2, 2)));
        assert_eq!(n.locate(9), None);
    }

    #[test]
    fn interval_sets_are_read_as_batsim_writes_them() {
        assert_eq!(parse_set("1 2 4-8").unwrap(), vec![1, 2, 4, 5, 6, 7, 8]);
        assert_eq!(format_set(&[0, 1, 2, 3, 5, 7, 8]), "0-3 5 7-8");
        assert!(parse_set("").unwrap_err().contains("no resource"));
        assert!(parse_set("3-1").unwrap_err().contains("high to low"));
        assert!(parse_set("1 1").unwrap_err().contains("twice"));
        assert!(parse_set("a").unwrap_err().contains("\"a\""));
    }

    #[test]
    fn replies_are_read_or_refused_with_the_reason() {
        let r = parse_reply(
            r#"{"now": 12.5, "events": [
                {"timestamp": 12.5, "type": "EXECUTE_JOB", "data": {"job_id": "w0!3", "alloc": "0-1"}},
                {"timestamp": 12.5, "type": "CALL_ME_LATER", "data": {"timestamp": 20.25}}]}"#,
        )
        .unwrap();
        assert_eq!(r.now, SimTime(12_500_000));
        assert_eq!(
            r.asks,
            vec![
                (
                    r.now,
                    Ask::Execute {
                        job: 3,
                        alloc: vec![0, 1]
                    }
                ),
                (
                    r.now,
                    Ask::CallMeLater {
                        at: SimTime(20_250_000)
                    }
                )
            ]
        );
        let err = |t: &str| parse_reply(t).unwrap_err();
        assert!(err("{oops").contains("not JSON"));
        assert!(err(r#"{"events": []}"#).contains("\"now\""));
        assert!(
            err(r#"{"now": 1, "events": [{"timestamp": 1, "type": "REGISTER_JOB", "data": {}}]}"#)
                .contains("REGISTER_JOB")
        );
        assert!(err(r#"{"now": 1, "events": [{"timestamp": 2, "type": "REJECT_JOB", "data": {"job_id": "w0!1"}}]}"#)
            .contains("out of order"));
        assert!(err(r#"{"now": 1, "events": [{"timestamp": 1, "type": "EXECUTE_JOB", "data": {"job_id": "x!1", "alloc": "0"}}]}"#)
            .contains("not one of schedscope's"));
    }
}
