//! An immutable picture of the engine for the console and reports, built
//! from the engine's read-only view alone ([`EngineRead`]).

use super::{Counters, EngineRead, JobState};
use crate::model::graph::GraphJob;
use crate::model::{ClusterIdx, SimTime};
use crate::sched::ReservationView;
use crate::sched::{BackfillView, PolicySpec, PolicyState};
use serde::Serialize;
use std::sync::Arc;

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
    /// The task graph a graph job carries (shared, not copied).
    #[serde(skip)]
    pub graph: Option<Arc<GraphJob>>,
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
    /// The task graph a graph job carries (shared, not copied).
    #[serde(skip)]
    pub graph: Option<Arc<GraphJob>>,
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

/// The most advance reservations a snapshot carries: the earliest ones
/// in force (a pane draws a few rows of each).
pub const MAX_RESERVATIONS: usize = crate::sched::SHOWN_RESERVATIONS;

/// Processors of one cell of a cluster map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CellView {
    /// The job on the lowest-numbered busy processor of the cell.
    pub job: Option<u64>,
    /// Busy processors in the cell.
    pub busy: u32,
}

/// The picture of the engine: its state now, with the queue carried as
/// `Q`, every row of it by default (as [`super::Engine::snapshot`] gives
/// it) or such part of it as a reader projects from [`EngineRead`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineSnapshot<Q = Vec<QueueRow>> {
    pub now: SimTime,
    pub counters: Counters,
    pub policy: PolicySpec,
    pub policy_label: String,
    #[serde(skip)]
    pub policy_state: PolicyState,
    pub estimates: String,
    /// The estimate model in force (what `estimates` describes).
    pub estimate_model: crate::model::estimates::EstimateModel,
    /// Waiting jobs in queue (arrival) order; the first is the head.
    pub queue: Q,
    /// Running jobs in start order.
    pub running: Vec<RunningRow>,
    pub clusters: Vec<ClusterView>,
    /// Present under backfilling policies: the plan for the queue's rows
    /// carried.
    pub backfill: Option<BackfillView>,
    /// Inter-cluster links, one per cluster to the central switch; empty
    /// where the platform has no network.
    pub links: Vec<LinkView>,
    /// The advance reservations in force (granted, not over), earliest
    /// start first, at most [`MAX_RESERVATIONS`] of them.
    pub reservations: Vec<ReservationView>,
    /// How many reservations are in force in all.
    pub reservations_total: usize,
    pub done: bool,
    /// The policy stopped the run ([`Engine::failure`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
}

/// The picture of `e` with `queue` for the queue's rows and `plan` the
/// policy's plan for them.
pub(super) fn build<Q>(
    e: EngineRead<'_>,
    queue: Q,
    plan: Option<BackfillView>,
) -> EngineSnapshot<Q> {
    let abw = e.link_bandwidth();
    let load = e.link_load();
    let running = running_rows(e, abw, &load);
    let clusters = cluster_views(e);
    EngineSnapshot {
        now: e.now(),
        counters: e.counters(),
        policy: e.policy().clone(),
        policy_label: e.policy_label(),
        policy_state: e.policy_state(),
        estimates: e.estimates().to_string(),
        estimate_model: e.estimates().clone(),
        queue,
        running,
        clusters,
        backfill: plan,
        links: link_views(e, abw, &load),
        reservations: earliest_reservations(e.reservations()),
        reservations_total: e.reservations().len(),
        done: e.is_done(),
        stopped: e.failure().is_some(),
    }
}

/// The running jobs, by start (then id).
fn running_rows(e: EngineRead<'_>, abw: Option<&[f64]>, load: &[f64]) -> Vec<RunningRow> {
    let mut running: Vec<RunningRow> = e
        .running()
        .iter()
        .map(|&k| {
            let j = e.job(k);
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
                expired: e.now() > j.estimated_end,
                rate: j.rate,
                fold: j.mpl(),
                folds: j.folds,
                requeues: j.requeues,
                slowdown: abw.map(|abw| {
                    crate::sched::slowdown::slowdown(
                        e.platform(),
                        abw,
                        load,
                        j.comm.as_ref(),
                        j.size,
                        &j.assignment,
                    )
                }),
                graph: j.graph.clone(),
            }
        })
        .collect();
    running.sort_by_key(|r| (r.start, r.id));
    running
}

/// Each cluster with its cells of processors.
fn cluster_views(e: EngineRead<'_>) -> Vec<ClusterView> {
    // Cells from the running jobs' processors, never one per processor of
    // the platform: the work is that of the busy processors.
    let clusters = &e.platform().clusters;
    let per_cell: Vec<u32> = clusters
        .iter()
        .map(|c| c.processors.div_ceil(MAX_CELLS).max(1))
        .collect();
    let mut cells: Vec<Vec<CellView>> = clusters
        .iter()
        .zip(&per_cell)
        .map(|(c, &k)| vec![CellView::default(); c.processors.div_ceil(k) as usize])
        .collect();
    let mut lowest: Vec<Vec<u32>> = cells.iter().map(|c| vec![u32::MAX; c.len()]).collect();
    for &k in e.running() {
        let j = e.job(k);
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
    clusters
        .iter()
        .zip(e.free())
        .zip(cells.into_iter().zip(per_cell))
        .map(|((c, &free), (cells, per_cell))| ClusterView {
            name: c.name.clone(),
            processors: c.processors,
            speed: c.speed,
            free,
            per_cell,
            cells,
        })
        .collect()
}

/// Each cluster's link, its demand against its capacity (none on a
/// platform without links).
fn link_views(e: EngineRead<'_>, abw: Option<&[f64]>, load: &[f64]) -> Vec<LinkView> {
    abw.map_or_else(Vec::new, |abw| {
        e.platform()
            .clusters
            .iter()
            .zip(abw.iter().zip(load))
            .map(|(c, (&capacity, &demand))| LinkView {
                name: c.name.clone(),
                demand,
                capacity,
            })
            .collect()
    })
}

/// The first [`MAX_RESERVATIONS`] of `all` by start (then id).
fn earliest_reservations(all: &[ReservationView]) -> Vec<ReservationView> {
    let mut order: Vec<&ReservationView> = all.iter().collect();
    order.sort_by_key(|r| (r.start, r.id));
    order.into_iter().take(MAX_RESERVATIONS).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_of_a_running_row_names_folds_and_requeues_only_when_there_are_some() {
        let rigid = RunningRow {
            id: 4,
            submit: SimTime::ZERO,
            start: SimTime::from_secs(1),
            size: 8,
            components: vec![8],
            clusters: vec![0],
            estimated_end: SimTime::from_secs(11),
            estimate: SimTime::from_secs(10),
            injected: false,
            jumped_ahead: false,
            expired: false,
            rate: 1.0,
            slowdown: None,
            graph: None,
            fold: 1,
            folds: 0,
            requeues: 0,
        };
        let json = |r: &RunningRow| serde_json::to_value(r).unwrap();
        let plain = json(&rigid);
        for key in ["fold", "folds", "requeues"] {
            assert!(plain.get(key).is_none(), "{key} in {plain}");
        }
        assert_eq!(plain["size"], 8);
        let folded = RunningRow {
            fold: 4,
            folds: 2,
            requeues: 1,
            ..rigid
        };
        let v = json(&folded);
        assert_eq!(
            (&v["fold"], &v["folds"], &v["requeues"]),
            (&4.into(), &2.into(), &1.into())
        );
    }
}
