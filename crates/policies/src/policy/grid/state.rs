//! What the grid shows the console: each processor's job and queue, the
//! grid queue, the gangs waiting on processor queues and those running
//! split across sites.

use super::{Entry, Grid};
use crate::model::ClusterIdx;
use crate::policy::grid_view::{GridProcView, GridStateView};
use crate::sched::{JobKey, PolicyState, SystemView};

impl Grid {
    /// The grid's state as [`GridStateView`], its panel drawn from it.
    pub(super) fn grid_state(&self, view: &SystemView<'_>) -> PolicyState {
        let id = |k: JobKey| view.jobs.get(k.0).map_or(0, |j| j.id);
        let sites = self
            .sites
            .iter()
            .map(|s| {
                s.iter()
                    .map(|p| GridProcView {
                        running: p.exec.map(|e| id(e.key)),
                        depth: p.queue.len() as u32,
                        head: p.queue.front().map(|e| match *e {
                            Entry::Local(k) => (id(k), false),
                            Entry::Gang(k) => (id(k), true),
                        }),
                    })
                    .collect()
            })
            .collect();
        let waiting = self
            .dispatched
            .iter()
            .map(|d| {
                let a = d
                    .parts
                    .iter()
                    .map(|(s, ps)| (*s as ClusterIdx, ps.len() as u32))
                    .collect();
                (id(d.key), a)
            })
            .collect();
        let split = view
            .running
            .iter()
            .map(|&k| view.job(k))
            .filter(|j| j.assignment.len() > 1)
            .map(|j| (j.id, j.assignment.clone()))
            .collect();
        let g = GridStateView {
            sites,
            grid_queue: self
                .grid_queue
                .iter()
                .map(|&k| (id(k), view.job(k).size))
                .collect(),
            waiting,
            split,
        };
        PolicyState::new(g.panel(view.platform)).with_detail(g)
    }
}
