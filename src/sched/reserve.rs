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
