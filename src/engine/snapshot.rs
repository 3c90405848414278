//! An immutable picture of the engine for the console and reports.

use super::{Counters, Engine, JobState};
use crate::model::{ClusterIdx, SimTime};
use crate::sched::{BackfillView, PolicySpec, PolicyState};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueRow {
    pub id: u64,
    pub submit: SimTime,
    pub size: u32,
    pub components: Vec<u32>,
    pub estimate: SimTime,
    pub injected: bool,
    /// When the policy plans to start the job (backfilling reservations),
    /// if it plans one.
    pub planned_start: Option<SimTime>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunningRow {
    pub id: u64,
    pub submit: SimTime,
    pub start: SimTime,
    pub size: u32,
    pub components: Vec<u32>,
    pub clusters: Vec<ClusterIdx>,
    /// Start plus the estimate at the job's current rate.
    pub estimated_end: SimTime,
    pub estimate: SimTime,
    pub injected: bool,
    /// Started ahead of an earlier-queued job (an FPFS jump or a backfill).
    pub jumped_ahead: bool,
    /// Still running past its estimated end: an expired window.
    pub expired: bool,
}

/// One inter-cluster link: the bandwidth its co-allocated jobs ask for
/// against what it carries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkView {
    pub name: String,
    pub demand: f64,
    pub capacity: f64,
}

impl LinkView {
    pub fn saturated(&self) -> bool {
        self.demand >= self.capacity
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterView {
    pub name: String,
    pub processors: u32,
    pub speed: f64,
    pub free: u32,
    /// The id of the job on each processor, `None` where free.
    pub cells: Vec<Option<u64>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineSnapshot {
    pub now: SimTime,
    pub counters: Counters,
    pub policy: PolicySpec,
    pub policy_label: String,
    pub policy_state: PolicyState,
    pub estimates: String,
    /// The estimate model in force (what `estimates` describes).
    pub estimate_model: crate::workload::estimates::EstimateModel,
    /// Waiting jobs in queue (arrival) order; the first is the head.
    pub queue: Vec<QueueRow>,
    /// Running jobs in start order.
    pub running: Vec<RunningRow>,
    pub clusters: Vec<ClusterView>,
    /// Present under backfilling policies.
    pub backfill: Option<BackfillView>,
    /// Inter-cluster links, one per cluster to the central switch; empty
    /// where the platform has no network (no platform has one yet).
    pub links: Vec<LinkView>,
    pub done: bool,
}

pub(super) fn build(e: &Engine) -> EngineSnapshot {
    let plan = e.policy.plan(&e.view());
    let planned: std::collections::HashMap<u64, SimTime> = plan
        .as_ref()
        .map(|p| p.reservations.iter().copied().collect())
        .unwrap_or_default();
    let queue = e
        .queue
        .iter()
        .map(|k| {
            let j = &e.jobs[k.0];
            QueueRow {
                id: j.id,
                submit: j.submit,
                size: j.size,
                components: j.components.clone(),
                estimate: j.estimate,
                injected: j.injected,
                planned_start: planned.get(&j.id).copied(),
            }
        })
        .collect();
    let mut running: Vec<RunningRow> = e
        .running
        .iter()
        .map(|k| {
            let j = &e.jobs[k.0];
            debug_assert_eq!(j.state, JobState::Running);
            RunningRow {
                id: j.id,
                submit: j.submit,
                start: j.start,
                size: j.size,
                components: j.assignment.iter().map(|&(_, w)| w).collect(),
                clusters: j.assignment.iter().map(|&(c, _)| c).collect(),
                estimated_end: j.estimated_end,
                estimate: j.estimate,
                injected: j.injected,
                jumped_ahead: j.jumped_ahead,
                expired: e.now > j.estimated_end,
            }
        })
        .collect();
    running.sort_by_key(|r| (r.start, r.id));
    let clusters = e
        .platform
        .clusters
        .iter()
        .zip(&e.clusters)
        .map(|(c, s)| ClusterView {
            name: c.name.clone(),
            processors: c.processors,
            speed: c.speed,
            free: s.free,
            cells: s
                .owner
                .iter()
                .map(|&o| {
                    if o == 0 {
                        None
                    } else {
                        Some(e.jobs[o as usize - 1].id)
                    }
                })
                .collect(),
        })
        .collect();
    EngineSnapshot {
        now: e.now,
        counters: e.counters,
        policy: e.policy.spec().clone(),
        policy_label: e.policy.spec().label(),
        policy_state: e.policy_state(),
        estimates: e.estimator.model().to_string(),
        estimate_model: e.estimator.model().clone(),
        queue,
        running,
        clusters,
        backfill: plan,
        links: Vec::new(),
        done: e.is_done(),
    }
}
