//! Task graphs: parallel programs made of subtasks with run times (node
//! weights) and dependencies with communication costs (edge weights), paid
//! only when parent and child run on different processors.
//!
//! * [`stg`] reads the Kasahara Standard Task Graph format and its tables of
//!   optimal makespans;
//! * [`generate`] draws graphs in the spirit of Hönig and Schiffmann's test
//!   bench (graph size, meshing degree, edge length, node and edge weights);
//! * [`schedule`] is a graph's schedule on k target processors (TPEs) and
//!   the check that it keeps every dependency;
//! * [`list`] holds the list schedulers HLFET, ETF and MCP, and [`bnb`] an
//!   exact branch-and-bound for small graphs;
//! * [`ar`] holds the advance-reservation steps on schedules: rearrange,
//!   move, interweave and backfill.
//!
//! Times are whole units (the STG files' unit; seconds when a graph joins a
//! simulated workload).

pub mod ar;
pub mod bnb;
pub mod gaps;
pub mod generate;
pub mod list;
pub mod schedule;
pub mod stg;
pub mod study;

/// A directed acyclic graph of subtasks. Subtasks are numbered `0..n`;
/// every edge goes from a lower to a higher number (a topological order),
/// which the readers and the generator guarantee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskGraph {
    /// Run time of each subtask.
    pub weights: Vec<u64>,
    /// Parents of each subtask with the edge's communication cost.
    pub preds: Vec<Vec<(usize, u64)>>,
    /// Children of each subtask with the edge's communication cost.
    pub succs: Vec<Vec<(usize, u64)>>,
}

/// Why a graph cannot be built from its parts.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GraphError {
    #[error("edge {from} -> {to} names a subtask outside 0..{n}")]
    OutOfRange { from: usize, to: usize, n: usize },
    #[error("edge {from} -> {to} does not go forward (subtasks must be in topological order)")]
    Backward { from: usize, to: usize },
    #[error("edge {from} -> {to} appears twice")]
    Duplicate { from: usize, to: usize },
}

impl TaskGraph {
    /// The graph of `weights` and `edges` (from, to, communication cost).
    pub fn new(weights: Vec<u64>, edges: &[(usize, usize, u64)]) -> Result<Self, GraphError> {
        let n = weights.len();
        let mut preds = vec![Vec::new(); n];
        let mut succs = vec![Vec::new(); n];
        for &(from, to, c) in edges {
            if from >= n || to >= n {
                return Err(GraphError::OutOfRange { from, to, n });
            }
            if from >= to {
                return Err(GraphError::Backward { from, to });
            }
            if succs[from].iter().any(|&(s, _)| s == to) {
                return Err(GraphError::Duplicate { from, to });
            }
            succs[from].push((to, c));
            preds[to].push((from, c));
        }
        Ok(TaskGraph {
            weights,
            preds,
            succs,
        })
    }

    /// Number of subtasks.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Whether the graph has no subtasks.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.succs.iter().map(Vec::len).sum()
    }

    /// Every edge as (from, to, communication cost), by `from` then `to` order of insertion.
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize, u64)> + '_ {
        self.succs
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.iter().map(move |&(j, c)| (i, j, c)))
    }

    /// Sum of the run times (the work).
    pub fn work(&self) -> u64 {
        self.weights.iter().sum()
    }

    /// Static bottom level of each subtask: the largest sum of run times on
    /// a path from it to an exit, itself included, communication ignored.
    pub fn static_levels(&self) -> Vec<u64> {
        self.bottom_levels(false)
    }

    /// Bottom level of each subtask with every edge's communication cost
    /// counted (as if every edge crossed processors).
    pub fn comm_bottom_levels(&self) -> Vec<u64> {
        self.bottom_levels(true)
    }

    fn bottom_levels(&self, comm: bool) -> Vec<u64> {
        let n = self.len();
        let mut bl = vec![0u64; n];
        for i in (0..n).rev() {
            let tail = self.succs[i]
                .iter()
                .map(|&(j, c)| bl[j] + if comm { c } else { 0 })
                .max()
                .unwrap_or(0);
            bl[i] = self.weights[i] + tail;
        }
        bl
    }

    /// Length of the critical path without communication: a lower bound
    /// of every schedule's makespan on any number of processors (all
    /// subtasks on one processor pay no communication, so this is the
    /// tight bound when communication is free).
    pub fn critical_path(&self) -> u64 {
        self.static_levels().into_iter().max().unwrap_or(0)
    }

    /// max(critical path, ⌈work ÷ p⌉): no schedule on `p` processors is shorter.
    pub fn lower_bound(&self, p: usize) -> u64 {
        let p = p.max(1) as u64;
        self.critical_path().max(self.work().div_ceil(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_bounds_of_a_diamond() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3
        let g = TaskGraph::new(
            vec![2, 3, 1, 4],
            &[(0, 1, 5), (0, 2, 1), (1, 3, 1), (2, 3, 9)],
        )
        .unwrap();
        assert_eq!(g.static_levels(), vec![9, 7, 5, 4]);
        assert_eq!(g.comm_bottom_levels(), vec![17, 8, 14, 4]);
        assert_eq!(g.critical_path(), 9);
        assert_eq!(g.work(), 10);
        assert_eq!(g.lower_bound(1), 10);
        assert_eq!(g.lower_bound(2), 9);
        assert_eq!(g.edge_count(), 4);
    }

    #[test]
    fn bad_edges_are_errors() {
        assert_eq!(
            TaskGraph::new(vec![1, 1], &[(1, 0, 0)]),
            Err(GraphError::Backward { from: 1, to: 0 })
        );
        assert_eq!(
            TaskGraph::new(vec![1, 1], &[(0, 2, 0)]),
            Err(GraphError::OutOfRange {
                from: 0,
                to: 2,
                n: 2
            })
        );
        assert_eq!(
            TaskGraph::new(vec![1, 1], &[(0, 1, 0), (0, 1, 3)]),
            Err(GraphError::Duplicate { from: 0, to: 1 })
        );
    }
}
