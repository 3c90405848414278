//! The task graphs waiting in the queue, kept from one decision point to
//! the next. An overloaded trace holds tens of thousands of queued jobs
//! and few or no graphs: a look at every queued job at every decision
//! point, only to find the graphs, was most of a run's time.
//!
//! The queue is in arrival order (the engine keeps it so), which makes
//! both updates a binary search: jobs that arrived since the last look
//! are the queue's tail after the last arrival seen, and a kept graph is
//! still queued when its arrival number is found in the queue. Jobs put
//! back in the queue (aborted ones) come back inside it: after any queue
//! edit the graphs are looked for afresh.

use crate::sched::{JobKey, SystemView};

#[derive(Clone, Debug, Default)]
pub(super) struct QueuedGraphs {
    /// The queued graph jobs in queue order, with their arrival numbers.
    keys: Vec<(JobKey, u64)>,
    /// The latest arrival number looked at, once the queue was looked at.
    last: Option<Option<u64>>,
    /// The engine's queue-edit count then.
    queue_edits: u64,
}

impl QueuedGraphs {
    /// Brought up to date with the view's queue.
    pub(super) fn sync(&mut self, view: &SystemView<'_>) {
        let arrival = |k: &JobKey| view.job(*k).arrival;
        let is_graph = |k: &JobKey| view.job(*k).graph.is_some();
        match self.last {
            Some(last) if self.queue_edits == view.queue_edits => {
                let queue = view.queue;
                self.keys.retain(|&(k, a)| {
                    queue
                        .binary_search_by_key(&a, arrival)
                        .is_ok_and(|i| queue[i] == k)
                });
                let from = last.map_or(0, |l| queue.partition_point(|k| arrival(k) <= l));
                let new = &queue[from..];
                self.keys.extend(
                    new.iter()
                        .filter(|k| is_graph(k))
                        .map(|&k| (k, arrival(&k))),
                );
                if let Some(k) = new.last() {
                    self.last = Some(Some(arrival(k)));
                }
            }
            _ => {
                self.keys = view
                    .queue
                    .iter()
                    .filter(|k| is_graph(k))
                    .map(|&k| (k, arrival(&k)))
                    .collect();
                self.last = Some(view.queue.last().map(arrival));
                self.queue_edits = view.queue_edits;
            }
        }
        debug_assert!(
            view.queue.len() > 4096
                || self.keys.iter().map(|&(k, _)| k).eq(view
                    .queue
                    .iter()
                    .copied()
                    .filter(|k| is_graph(k))),
            "the kept graphs no longer mirror the queue"
        );
    }

    /// The queued graph jobs, in queue order.
    pub(super) fn keys(&self) -> impl Iterator<Item = JobKey> + '_ {
        self.keys.iter().map(|&(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::graph::GraphJob;
    use crate::model::{Platform, SimTime};
    use crate::sched::JobView;
    use crate::taskgraph::{TaskGraph, list::mcp};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use slab::Slab;
    use std::sync::Arc;

    /// Over random queues (arrivals, graphs among them, starts from any
    /// place, aborted jobs out of the queue and put back at their arrival
    /// position, slots reused), the kept graphs are the queue's graphs in
    /// queue order at every decision point.
    #[test]
    fn the_kept_graphs_are_the_queues_graphs() {
        let g = TaskGraph::new(vec![2, 3], &[(0, 1, 1)]).expect("a chain");
        let graph = Arc::new(GraphJob {
            family: 0,
            label: "chain".into(),
            schedule: mcp(&g, 2),
            graph: g,
            tpes: 2,
            unit: SimTime::from_secs(1),
        });
        let platform = Platform::uniform(1, 8);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut kept_some, mut edits_seen) = (0, 0);
        for _ in 0..40 {
            let mut jobs: Slab<JobView> = Slab::new();
            let mut q: Vec<JobKey> = Vec::new();
            let mut out: Vec<(u64, bool)> = Vec::new();
            let (mut arrival, mut edits) = (0u64, 0u64);
            let mut kept = QueuedGraphs::default();
            for _ in 0..300 {
                for _ in 0..rng.random_range(0..4) {
                    arrival += 1;
                    let is_graph = rng.random_range(0..4) == 0;
                    q.push(JobKey(jobs.insert(JobView {
                        id: arrival,
                        size: 1,
                        arrival,
                        graph: is_graph.then(|| graph.clone()),
                        ..JobView::default()
                    })));
                }
                // Starts from anywhere in the queue: the slot is freed
                // (and may be reused by the next arrival).
                for _ in 0..rng.random_range(0..3) {
                    if !q.is_empty() {
                        let k = q.remove(rng.random_range(0..q.len()));
                        jobs.remove(k.0);
                    }
                }
                // An abort: out of the queue, still queued in the table.
                if rng.random_range(0..10) == 0 && !q.is_empty() {
                    let k = q.remove(rng.random_range(0..q.len()));
                    let j = jobs.remove(k.0);
                    out.push((j.arrival, j.graph.is_some()));
                }
                // Put back, at their arrival positions: a queue edit.
                if rng.random_range(0..8) == 0 && !out.is_empty() {
                    for (a, is_graph) in out.drain(..) {
                        let k = JobKey(jobs.insert(JobView {
                            id: a,
                            size: 1,
                            arrival: a,
                            graph: is_graph.then(|| graph.clone()),
                            ..JobView::default()
                        }));
                        let at = q.partition_point(|&x| jobs[x.0].arrival < a);
                        q.insert(at, k);
                    }
                    edits += 1;
                    edits_seen += 1;
                }
                let view = SystemView {
                    now: SimTime::ZERO,
                    platform: &platform,
                    free: &[8],
                    queue: &q,
                    running: &[],
                    jobs: &jobs,
                    queue_edits: edits,
                    requeue_expired: false,
                    kill_expired: false,
                    reservations: &[],
                    seed: 0,
                };
                kept.sync(&view);
                let want: Vec<JobKey> = q
                    .iter()
                    .copied()
                    .filter(|k| jobs[k.0].graph.is_some())
                    .collect();
                assert_eq!(kept.keys().collect::<Vec<_>>(), want);
                kept_some += usize::from(!want.is_empty());
            }
        }
        assert!(
            kept_some > 1000 && edits_seen > 100,
            "{kept_some} {edits_seen}"
        );
    }
}
