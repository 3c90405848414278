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
    /// Work done per tick now (1 on a dedicated speed-1 machine).
    pub rate: f64,
    /// SP, SC and SD on a platform with a network.
    pub slowdown: Option<crate::sched::slowdown::Slowdown>,
    /// Processes per processor now: above 1 for a folded moldable job
    /// (its `size` processes on the processors of `components`).
    #[serde(skip_serializing_if = "is_one")]
    pub fold: u32,
    /// Times this run was folded, and earlier runs aborted (requeued).
    #[serde(skip_serializing_if = "is_zero")]
    pub folds: u32,
    #[serde(skip_serializing_if = "is_zero")]
    pub requeues: u32,
}

fn is_one(x: &u32) -> bool {
    *x == 1
}

fn is_zero(x: &u32) -> bool {
    *x == 0
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
    /// More asked of the link than it carries: its jobs slow down.
    pub fn saturated(&self) -> bool {
        self.demand > self.capacity
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterView {
    pub name: String,
    pub processors: u32,
    pub speed: f64,
    pub free: u32,
    /// Processors per cell: 1 up to [`MAX_CELLS`] processors, more beyond,
    /// so that a snapshot of a huge cluster stays as small as a screen.
    pub per_cell: u32,
    /// The cluster's processors in order, `per_cell` to a cell (the last
    /// may hold fewer).
    pub cells: Vec<CellView>,
}

/// The most cells a cluster's map has in a snapshot.
pub const MAX_CELLS: u32 = 256;

/// Processors of one cell of a cluster map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CellView {
    /// The job on the lowest-numbered busy processor of the cell.
    pub job: Option<u64>,
    /// Busy processors in the cell.
    pub busy: u32,
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
    /// where the platform has no network.
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
    let abw = e.link_bandwidth();
    let load = e.link_load();
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
                rate: j.rate,
                fold: j.mpl(),
                folds: j.folds,
                requeues: j.requeues,
                slowdown: abw.map(|abw| {
                    crate::sched::slowdown::slowdown(
                        &e.platform,
                        abw,
                        &load,
                        j.comm.as_ref(),
                        j.size,
                        &j.assignment,
                    )
                }),
            }
        })
        .collect();
    running.sort_by_key(|r| (r.start, r.id));
    // Cells from the running jobs' processors, never one per processor of
    // the platform: the work is that of the busy processors.
    let per_cell: Vec<u32> = e
        .platform
        .clusters
        .iter()
        .map(|c| c.processors.div_ceil(MAX_CELLS).max(1))
        .collect();
    let mut cells: Vec<Vec<CellView>> = e
        .platform
        .clusters
        .iter()
        .zip(&per_cell)
        .map(|(c, &k)| vec![CellView::default(); c.processors.div_ceil(k) as usize])
        .collect();
    let mut lowest: Vec<Vec<u32>> = cells.iter().map(|c| vec![u32::MAX; c.len()]).collect();
    for k in &e.running {
        let j = &e.jobs[k.0];
        for (&(c, _), procs) in j.assignment.iter().zip(&j.processors) {
            let c = c as usize;
            for &p in procs {
                let i = (p / per_cell[c]) as usize;
                let cell = &mut cells[c][i];
                cell.busy += 1;
                if p < lowest[c][i] {
                    lowest[c][i] = p;
                    cell.job = Some(j.id);
                }
            }
        }
    }
    let clusters = e
        .platform
        .clusters
        .iter()
        .zip(&e.clusters)
        .zip(cells.into_iter().zip(per_cell))
        .map(|((c, s), (cells, per_cell))| ClusterView {
            name: c.name.clone(),
            processors: c.processors,
            speed: c.speed,
            free: s.free,
            per_cell,
            cells,
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
        links: abw.map_or_else(Vec::new, |abw| {
            e.platform
                .clusters
                .iter()
                .zip(abw.iter().zip(&load))
                .map(|(c, (&capacity, &demand))| LinkView {
                    name: c.name.clone(),
                    demand,
                    capacity,
                })
                .collect()
        }),
        done: e.is_done(),
    }
}
