//! Advance reservations in the protocol: what a policy may ask for (a
//! [`Reserve`]) and what it sees of the reservations the engine holds (a
//! [`ReservationView`]).
//!
//! A reservation holds named processors of one cluster over a window
//! ⟨processors, start, finish⟩ for the jobs it names. The engine enforces
//! it: no other job may take a reserved processor inside the window, and
//! the jobs it holds start only there, on its processors, inside its window.

use crate::model::{ClusterIdx, SimTime};
use serde::Serialize;

/// Ask the engine to reserve `processors` of `cluster` over
/// [`start`, `finish`) for the jobs whose workload ids are `holds`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reserve {
    pub cluster: ClusterIdx,
    pub processors: Vec<u32>,
    pub start: SimTime,
    pub finish: SimTime,
    /// Workload ids of the jobs that may run inside it.
    pub holds: Vec<u64>,
}

/// A reservation the engine holds, as policies and the console see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReservationView {
    /// Numbered from 1 in the order the engine granted them.
    pub id: u64,
    pub cluster: ClusterIdx,
    pub processors: Vec<u32>,
    pub start: SimTime,
    pub finish: SimTime,
    pub holds: Vec<u64>,
    /// Its window has begun: its processors are taken from the free pool.
    pub active: bool,
}

impl ReservationView {
    /// Whether processor `p` of `cluster` is reserved at some time in
    /// [`from`, `to`).
    pub fn covers(&self, cluster: ClusterIdx, p: u32, from: SimTime, to: SimTime) -> bool {
        self.cluster == cluster
            && from < self.finish
            && to.max(from + SimTime(1)) > self.start
            && self.processors.contains(&p)
    }

    /// Whether the job with workload id `id` may run inside it.
    pub fn holds(&self, id: u64) -> bool {
        self.holds.contains(&id)
    }
}

/// The first reservation of `list` other than one holding job `id` that
/// reserves processor `p` of `cluster` at some time in [`from`, `to`).
pub fn blocking(
    list: &[ReservationView],
    id: u64,
    cluster: ClusterIdx,
    p: u32,
    from: SimTime,
    to: SimTime,
) -> Option<&ReservationView> {
    list.iter()
        .find(|r| !r.holds(id) && r.covers(cluster, p, from, to))
}

/// The most reservations whose blocks a policy shows (the earliest in
/// force): what a console pane can draw, so that its picture stays small
/// however many reservations are booked ahead.
pub const SHOWN_RESERVATIONS: usize = 8;

/// One busy stretch inside a reservation, for display: a graph's subtask
/// row or a backfilled job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReservedBlock {
    pub processor: u32,
    pub start: SimTime,
    pub end: SimTime,
    /// The job's workload id.
    pub job: u64,
    /// A graph's subtask (else a backfilled independent job).
    pub graph: bool,
}

/// What the reservation scheduler has done so far and plans, for the
/// console and for checks.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReservationPlanView {
    /// Reservations asked for and granted so far.
    pub reservations: u64,
    /// Graphs placed in them.
    pub graphs: u64,
    /// Independent jobs backfilled into their gaps.
    pub backfilled: u64,
    /// Σ over reservations of the reduction of their length by
    /// interweaving (% of the graphs' lengths one after another).
    pub reduction_pct_sum: f64,
    /// Processor-seconds of backfilled jobs inside reservations.
    pub backfill_secs: f64,
    /// Σ over graphs of their compacted schedule's efficiency.
    pub efficiency_sum: f64,
    /// Graphs queued and not yet in a reservation.
    pub waiting_graphs: usize,
    /// When the next reservation request is due.
    pub next_request: Option<SimTime>,
    /// The busy stretches of the reservations not over, those of the
    /// [`SHOWN_RESERVATIONS`] earliest at most.
    pub blocks: Vec<ReservedBlock>,
}
