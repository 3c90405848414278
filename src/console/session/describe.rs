//! What one stepped event did, in words for the message line.

use crate::engine::EngineSnapshot;
use crate::model::JobRecord;
use std::collections::HashSet;

/// What one event did, from the engine before and after it: who arrived,
/// ended, passed its estimate or went back to the queue, the timeline
/// command applied, and the jobs the policy started on it.
pub(super) fn describe(
    before: &EngineSnapshot,
    after: &EngineSnapshot,
    ended: &[&JobRecord],
    timeline: Option<&str>,
) -> String {
    let ids = |s: &EngineSnapshot| -> HashSet<u64> {
        s.queue
            .iter()
            .map(|q| q.id)
            .chain(s.running.iter().map(|r| r.id))
            .collect()
    };
    let running = |s: &EngineSnapshot| -> HashSet<u64> { s.running.iter().map(|r| r.id).collect() };
    let (known, was_running) = (ids(before), running(before));
    let mut parts: Vec<String> = Vec::new();
    for r in ended {
        parts.push(if r.killed {
            format!("job {} was killed at its estimate", r.id)
        } else {
            format!("job {} ended", r.id)
        });
    }
    let mut arrived: Vec<u64> = ids(after).difference(&known).copied().collect();
    arrived.sort_unstable();
    for id in &arrived {
        parts.push(format!("job {id} arrived"));
    }
    if let Some(m) = timeline {
        parts.push(format!("timeline: {m}"));
    }
    let mut back: Vec<u64> = after
        .queue
        .iter()
        .map(|q| q.id)
        .filter(|id| was_running.contains(id))
        .collect();
    back.sort_unstable();
    for id in &back {
        parts.push(format!("job {id} went back to the queue"));
    }
    let expired_before: HashSet<u64> = before
        .running
        .iter()
        .filter(|r| r.expired)
        .map(|r| r.id)
        .collect();
    for r in after.running.iter().filter(|r| r.expired) {
        if was_running.contains(&r.id) && !expired_before.contains(&r.id) {
            parts.push(format!("job {} passed its estimate", r.id));
        }
    }
    if parts.is_empty() {
        parts.push("the policy looked again".to_string());
    }
    let mut started: Vec<u64> = after
        .running
        .iter()
        .map(|r| r.id)
        .filter(|id| !was_running.contains(id))
        .collect();
    started.sort_unstable();
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    match started.len() {
        0 => {}
        1 => parts.push(format!("job {} started", started[0])),
        _ => parts.push(format!("jobs {} started", list(&started))),
    }
    parts.join("; ")
}
