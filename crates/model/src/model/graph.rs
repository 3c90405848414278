//! A task graph as a job: the graph, the schedule it brings on its target
//! processors, and its family (graphs of one family may share an advance
//! reservation).

use super::time::SimTime;
use crate::taskgraph::TaskGraph;
use crate::taskgraph::schedule::Schedule;

/// A task graph carried by one job. Under a policy without reservations
/// the job is an ordinary rigid job of its schedule's width (processors
/// used) and length; the reservation scheduler runs its subtasks inside a
/// reservation instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphJob {
    /// Which leaf of the generator's tree it comes from.
    pub family: u32,
    /// The leaf's name, e.g. `GS7_12/NoS_Low/EL_Short/LNode_LEdge`.
    pub label: String,
    pub graph: TaskGraph,
    /// Its schedule on `tpes` target processors, in weight units.
    pub schedule: Schedule,
    pub tpes: u32,
    /// Simulated time of one weight unit.
    pub unit: SimTime,
}

impl GraphJob {
    /// The schedule's width: the processors it uses.
    pub fn width(&self) -> u32 {
        self.schedule.used_procs().max(1) as u32
    }

    /// The schedule's length in weight units.
    pub fn length_units(&self) -> u64 {
        self.schedule.makespan(&self.graph)
    }

    /// The schedule's length in simulated time.
    pub fn length(&self) -> SimTime {
        SimTime(self.unit.0.saturating_mul(self.length_units() as i64))
    }
}
