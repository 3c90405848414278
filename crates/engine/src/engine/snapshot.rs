//! An immutable picture of the engine for the console and reports.

use super::{Counters, Engine, JobState};
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

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineSnapshot {
    pub now: SimTime,
    pub counters: Counters,
    pub policy: PolicySpec,
    pub policy_label: String,
    #[serde(skip)]
    pub policy_state: PolicyState,
    pub estimates: String,
    /// The estimate model in force (what `estimates` describes).
    pub estimate_model: crate::model::estimates::EstimateModel,
    /// Waiting jobs in queue (arrival) order; the first is the head. Rows
    /// only for the part of the queue asked for (see [`QueueWindow`]).
    pub queue: QueueSlice,
    /// Running jobs in start order.
    pub running: Vec<RunningRow>,
    pub clusters: Vec<ClusterView>,
    /// Present under backfilling policies.
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
}

/// The part of the queue a snapshot carries rows for: the rows from
/// position `from` (0 is the head), `rows` of them at most. A console asks
/// for what it draws, so that a snapshot of a queue of 100,000 costs what
/// a screenful costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueWindow {
    pub from: usize,
    pub rows: usize,
}

impl QueueWindow {
    /// Every queued job.
    pub const ALL: QueueWindow = QueueWindow {
        from: 0,
        rows: usize::MAX,
    };

    /// `margin` rows either side of position `at`.
    pub fn around(at: usize, margin: usize) -> QueueWindow {
        QueueWindow {
            from: at.saturating_sub(margin),
            rows: margin.saturating_mul(2).saturating_add(1),
        }
    }

    /// Whether positions `from..from + rows` lie inside this window.
    pub fn covers(&self, from: usize, rows: usize) -> bool {
        from >= self.from && from.saturating_add(rows) <= self.from.saturating_add(self.rows)
    }
}

/// The queue as a snapshot carries it: its length, its head, and rows for
/// one window of positions. Positions are those in the whole queue.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueueSlice {
    len: usize,
    from: usize,
    rows: Vec<QueueRow>,
    /// The head's row when the window does not start at the head.
    head: Option<QueueRow>,
    /// A job asked for by id (an open detail view) outside the window:
    /// its position and row.
    watched: Option<(usize, QueueRow)>,
}

impl QueueSlice {
    /// A slice holding the whole queue.
    pub fn whole(rows: Vec<QueueRow>) -> QueueSlice {
        QueueSlice {
            len: rows.len(),
            from: 0,
            rows,
            head: None,
            watched: None,
        }
    }

    /// Jobs in the queue (all of them, not only the rows carried).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The head's row (carried whatever the window).
    pub fn first(&self) -> Option<&QueueRow> {
        self.get(0).or(self.head.as_ref())
    }

    /// The row at queue position `i`, if the slice carries it.
    pub fn get(&self, i: usize) -> Option<&QueueRow> {
        i.checked_sub(self.from).and_then(|k| self.rows.get(k))
    }

    /// The positions this slice carries rows for.
    pub fn window(&self) -> std::ops::Range<usize> {
        self.from..self.from + self.rows.len()
    }

    /// The rows carried, with their queue positions.
    pub fn rows(&self) -> impl Iterator<Item = (usize, &QueueRow)> {
        (self.from..).zip(&self.rows)
    }

    /// The rows carried.
    pub fn iter(&self) -> std::slice::Iter<'_, QueueRow> {
        self.rows.iter()
    }

    /// Whether every job in the queue has a row here.
    pub fn is_whole(&self) -> bool {
        self.from == 0 && self.rows.len() == self.len
    }

    /// The carried row of job `id` and its queue position.
    pub fn find(&self, id: u64) -> Option<(usize, &QueueRow)> {
        self.rows().find(|(_, q)| q.id == id).or_else(|| {
            self.watched
                .as_ref()
                .filter(|(_, q)| q.id == id)
                .map(|(i, q)| (*i, q))
        })
    }

    /// Sets the planned start of the row at queue position `i`, if carried.
    pub fn set_planned_start(&mut self, i: usize, start: Option<SimTime>) {
        if let Some(k) = i.checked_sub(self.from)
            && let Some(r) = self.rows.get_mut(k)
        {
            r.planned_start = start;
        }
    }

    /// Appends a row at the end of the queue (a whole slice stays whole).
    pub fn push(&mut self, row: QueueRow) {
        if self.from + self.rows.len() == self.len {
            self.rows.push(row);
        }
        self.len += 1;
    }

    /// Takes the row at queue position `i` out of the queue.
    pub fn remove(&mut self, i: usize) -> Option<QueueRow> {
        let k = i.checked_sub(self.from)?;
        (k < self.rows.len()).then(|| {
            self.len -= 1;
            self.rows.remove(k)
        })
    }
}

/// The row at queue position `i`; panics when the slice does not carry it
/// (as indexing a `Vec` past its end does): use [`QueueSlice::get`] where
/// it may not.
impl std::ops::Index<usize> for QueueSlice {
    type Output = QueueRow;

    fn index(&self, i: usize) -> &QueueRow {
        match self.get(i) {
            Some(r) => r,
            None => panic!(
                "queue position {i} is not in the rows carried ({:?})",
                self.window()
            ),
        }
    }
}

fn queue_row(e: &Engine, k: crate::sched::JobKey, planned: Option<SimTime>) -> QueueRow {
    let j = &e.jobs[k.0];
    QueueRow {
        id: j.id,
        submit: j.submit,
        size: j.size,
        components: j.components.clone(),
        estimate: j.estimate,
        injected: j.injected,
        planned_start: planned,
        graph: j.graph.clone(),
    }
}

pub(super) fn build(e: &Engine, window: QueueWindow, watched: Option<u64>) -> EngineSnapshot {
    let (queue, plan) = queue_slice(e, window, watched);
    let abw = e.link_bandwidth();
    let load = e.link_load();
    let running = running_rows(e, abw, &load);
    let clusters = cluster_views(e);
    EngineSnapshot {
        now: e.now,
        counters: e.counters,
        policy: e.policy.spec().clone(),
        policy_label: e.policy_label(),
        policy_state: e.policy_state(),
        estimates: e.estimator.model().to_string(),
        estimate_model: e.estimator.model().clone(),
        queue,
        running,
        clusters,
        backfill: plan,
        links: link_views(e, abw, &load),
        reservations: earliest_reservations(e.reservations()),
        reservations_total: e.reservations().len(),
        done: e.is_done(),
    }
}

/// The rows of the queue the console draws (`window`, the head and a
/// watched job), with the policy's plan for them.
fn queue_slice(
    e: &Engine,
    window: QueueWindow,
    watched: Option<u64>,
) -> (QueueSlice, Option<BackfillView>) {
    use crate::sched::JobKey;
    let view = e.view();
    let from = window.from.min(e.queue.len());
    let keys: Vec<JobKey> = e
        .queue
        .iter()
        .skip(from)
        .take(window.rows)
        .copied()
        .collect();
    // The head when the window does not carry it (it starts behind it or
    // carries no rows); a watched job outside the window (one pass over the
    // queue, only while its detail is open).
    let head = (from > 0 || keys.is_empty())
        .then(|| e.queue.first().copied())
        .flatten();
    let watched = watched
        .filter(|id| !keys.iter().any(|k| e.jobs[k.0].id == *id))
        .and_then(|id| e.queue.iter().position(|k| e.jobs[k.0].id == id))
        .map(|i| (i, e.queue[i]));
    let mut asked = keys.clone();
    asked.extend(head);
    asked.extend(watched.map(|(_, k)| k));
    let plan = e.policy.plan_rows(&view, &asked);
    let planned: std::collections::HashMap<u64, SimTime> = plan
        .as_ref()
        .map(|p| p.reservations.iter().copied().collect())
        .unwrap_or_default();
    let row = |k: JobKey| queue_row(e, k, planned.get(&e.jobs[k.0].id).copied());
    let queue = QueueSlice {
        len: e.queue.len(),
        from,
        rows: keys.iter().map(|&k| row(k)).collect(),
        head: head.map(row),
        watched: watched.map(|(i, k)| (i, row(k))),
    };
    (queue, plan)
}

/// The running jobs, by start (then id).
fn running_rows(e: &Engine, abw: Option<&[f64]>, load: &[f64]) -> Vec<RunningRow> {
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
fn cluster_views(e: &Engine) -> Vec<ClusterView> {
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
    e.platform
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
        .collect()
}

/// Each cluster's link, its demand against its capacity (none on a
/// platform without links).
fn link_views(e: &Engine, abw: Option<&[f64]>, load: &[f64]) -> Vec<LinkView> {
    abw.map_or_else(Vec::new, |abw| {
        e.platform
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

    fn row(id: u64) -> QueueRow {
        QueueRow {
            id,
            submit: SimTime::ZERO,
            size: 1,
            components: vec![1],
            estimate: SimTime::from_secs(10),
            injected: false,
            planned_start: None,
            graph: None,
        }
    }

    #[test]
    fn a_window_covers_the_positions_inside_it_only() {
        // Positions 7..14.
        let w = QueueWindow::around(10, 3);
        assert_eq!(w, QueueWindow { from: 7, rows: 7 });
        assert!(w.covers(7, 7), "the whole window");
        assert!(w.covers(9, 2));
        assert!(!w.covers(6, 1), "a row before it");
        assert!(!w.covers(6, 8), "starts before it, ends inside");
        assert!(!w.covers(8, 7), "starts inside, ends past it");
        assert!(!w.covers(14, 1), "the row after it");
        assert!(QueueWindow::ALL.covers(100_000, usize::MAX));
    }

    #[test]
    fn a_slice_knows_its_length_and_window_beyond_the_rows_it_carries() {
        let empty = QueueSlice::whole(Vec::new());
        assert!(empty.is_empty());
        assert_eq!(empty.window(), 0..0);
        assert!(empty.is_whole());
        // Rows for positions 3..5 of a queue of 9.
        let mut part = QueueSlice {
            len: 9,
            from: 3,
            rows: vec![row(13), row(14)],
            head: Some(row(10)),
            watched: Some((7, row(17))),
        };
        assert!(!part.is_empty());
        assert_eq!(part.len(), 9);
        assert_eq!(part.window(), 3..5);
        assert!(!part.is_whole());
        assert_eq!(part.first().map(|r| r.id), Some(10));
        assert_eq!(part.get(4).map(|r| r.id), Some(14));
        assert!(part.get(2).is_none() && part.get(5).is_none());
        assert_eq!(part.find(14).map(|(i, r)| (i, r.id)), Some((4, 14)));
        assert_eq!(part.find(17).map(|(i, r)| (i, r.id)), Some((7, 17)));
        assert!(part.find(10).is_none(), "the head is not a found row");
        // A row pushed at the end of a queue not carried to its end is
        // counted, not carried.
        part.push(row(19));
        assert_eq!((part.len(), part.window()), (10, 3..5));
        assert!(part.remove(8).is_none(), "not carried: nothing removed");
        assert!(part.remove(5).is_none(), "just past the rows carried");
        assert_eq!(part.remove(3).map(|r| r.id), Some(13));
        assert_eq!((part.len(), part.window()), (9, 3..4));
        // Rows from the head, not to the end, are not the whole queue.
        let head = QueueSlice {
            len: 3,
            rows: vec![row(1)],
            ..QueueSlice::default()
        };
        assert!(!head.is_whole());
        // A whole slice stays whole.
        let mut whole = QueueSlice::whole(vec![row(1)]);
        whole.push(row(2));
        assert!(whole.is_whole() && whole.window() == (0..2));
    }

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
