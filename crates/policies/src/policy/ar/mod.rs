//! The advance-reservation scheduler of task graphs (AR).
//!
//! Graph jobs wait for a reservation; independent jobs are scheduled
//! first come, first served or by EASY backfilling around the
//! reservations (the `independent` parameter), on one cluster, processor
//! by processor.
//!
//! Every `interval` (on a fixed grid from time 0; at the first decision
//! point on or after a grid point where graphs wait), AR takes the oldest
//! waiting graph's family and up to `group` waiting graphs of it, in
//! arrival order, and builds one reservation with [`crate::taskgraph::ar`]:
//! each graph's schedule is rearranged and its subtasks moved to free
//! processors ([`ar::compact`](crate::taskgraph::ar::compact)), the graphs are interwoven on as many
//! processors as their target processors, and the gaps are backfilled,
//! best fit, with waiting independent jobs no wider than the reservation
//! (estimates rounded up to whole weight units). It asks the engine for
//! the earliest window of that length on that many processors that no
//! running job (by its estimated end) and no other reservation claims,
//! lowest-numbered processors first: now if they are free, else the next
//! available ones. Each graph then starts at its offset on the processors
//! of its rows, and each backfilled job at its gap.

mod entry;
mod explain;
mod graphs;
mod plan;

pub use entry::AR_ENTRY;

use super::{Phased, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::model::SimTime;
use crate::sched::Panel;
use crate::sched::{Explanation, JobKey, ReservationPlanView, Reserve, ReservedBlock};
use crate::taskgraph::ar::{self as tg, RearrangeOrder};
use graphs::QueuedGraphs;
use plan::{backfill_candidates, plan_blocks, plan_entries};
use std::collections::{HashMap, HashSet};

/// A reservation asked for: when each job it holds starts, and where.
#[derive(Clone, Debug)]
struct Plan {
    start: SimTime,
    finish: SimTime,
    holds: Vec<u64>,
    /// (job id, start, processors).
    entries: Vec<(u64, SimTime, Vec<u32>)>,
    started: Vec<bool>,
    granted: bool,
    blocks: Vec<ReservedBlock>,
    stats: (u64, u64, f64, f64, f64),
}

/// Task graphs interwoven into one reservation, before it is backfilled.
struct Woven {
    r: tg::Reservation,
    /// The graphs it took: (job, its placement in `r`).
    placed: Vec<(JobKey, usize)>,
    /// Their efficiencies after compaction, summed.
    efficiency: f64,
}

#[derive(Clone)]
pub struct Ar {
    spec: PolicySpec,
    interval: SimTime,
    group: usize,
    easy: bool,
    order: RearrangeOrder,
    plans: Vec<Plan>,
    next_tick: SimTime,
    now: SimTime,
    waiting_graphs: usize,
    done: ReservationPlanView,
    /// The queued graph jobs, kept across decision points.
    queued_graphs: QueuedGraphs,
}

impl Ar {
    pub fn new(
        spec: PolicySpec,
        interval: SimTime,
        group: usize,
        easy: bool,
        order: RearrangeOrder,
    ) -> Ar {
        Ar {
            spec,
            interval: interval.max(SimTime(1)),
            group: group.max(1),
            easy,
            order,
            plans: Vec::new(),
            next_tick: SimTime::ZERO,
            now: SimTime::ZERO,
            waiting_graphs: 0,
            done: ReservationPlanView::default(),
            queued_graphs: QueuedGraphs::default(),
        }
    }

    fn planned(&self, id: u64) -> bool {
        self.plans.iter().any(|p| p.holds.contains(&id))
    }

    /// Queued jobs no reservation holds and no plan names: (graphs,
    /// independent jobs), in queue order.
    fn waiting(&self, view: &SystemView<'_>) -> (Vec<JobKey>, Vec<JobKey>) {
        let claimed = self.claimed(view);
        let mut graphs = Vec::new();
        let mut jobs = Vec::new();
        for &k in view.queue {
            let j = view.job(k);
            if claimed.contains(&j.id) {
                continue;
            }
            if j.graph.is_some() {
                graphs.push(k);
            } else {
                jobs.push(k);
            }
        }
        (graphs, jobs)
    }

    /// The ids of the jobs a reservation holds or a plan names.
    fn claimed(&self, view: &SystemView<'_>) -> HashSet<u64> {
        view.reservations
            .iter()
            .flat_map(|r| r.holds.iter().copied())
            .chain(self.plans.iter().flat_map(|p| p.holds.iter().copied()))
            .collect()
    }

    /// [`Ar::waiting`]'s graphs alone, from the graphs kept across
    /// decision points (brought up to date first): no look at every
    /// queued job.
    fn waiting_graphs(&mut self, view: &SystemView<'_>, claimed: &HashSet<u64>) -> Vec<JobKey> {
        self.queued_graphs.sync(view);
        self.queued_graphs
            .keys()
            .filter(|&k| !claimed.contains(&view.job(k).id))
            .collect()
    }

    /// The processors' running jobs' estimated ends (now when free),
    /// a running job inside a reservation left out.
    fn busy_until(view: &SystemView<'_>) -> Vec<Option<SimTime>> {
        let n = view.platform.clusters[0].processors as usize;
        let mut until = vec![None; n];
        for &k in view.running {
            let j = view.job(k);
            if view.reservations.iter().any(|r| r.holds(j.id)) {
                continue;
            }
            for &p in j.processors.first().into_iter().flatten() {
                // Past its estimate: it may end any moment.
                let end = j.estimated_end.max(view.now + SimTime(1));
                until[p as usize] = Some(end);
            }
        }
        until
    }

    /// The earliest window of `len` on `k` processors from now that no
    /// running job and no reservation claims, lowest processors first.
    fn earliest(view: &SystemView<'_>, k: usize, len: SimTime) -> Option<(SimTime, Vec<u32>)> {
        let until = Ar::busy_until(view);
        let mut times: Vec<SimTime> = std::iter::once(view.now)
            .chain(until.iter().flatten().copied())
            .chain(view.reservations.iter().map(|r| r.finish))
            .filter(|&t| t >= view.now)
            .collect();
        times.sort_unstable();
        times.dedup();
        for t in times {
            let procs: Vec<u32> = (0..until.len() as u32)
                .filter(|&p| until[p as usize].is_none_or(|e| e <= t))
                .filter(|&p| !view.reservations.iter().any(|r| r.covers(0, p, t, t + len)))
                .take(k)
                .collect();
            if procs.len() == k {
                return Some((t, procs));
            }
        }
        None
    }

    /// Builds the next reservation request from the waiting graphs.
    fn request(
        &mut self,
        view: &SystemView<'_>,
        graphs: &[JobKey],
        jobs: &[JobKey],
    ) -> Option<Reserve> {
        let first = view.job(graphs[0]).graph.clone()?;
        let total = view.platform.clusters[0].processors as usize;
        let width = (first.tpes as usize).clamp(1, total);
        let unit = first.unit.max(SimTime(1));
        let Woven {
            mut r,
            placed,
            efficiency,
        } = self.interweave(view, graphs, first.family, width)?;
        let filled = r.backfill(&backfill_candidates(view, jobs, unit));
        let len = SimTime(unit.0.saturating_mul(r.length() as i64));
        let (start, procs) = Ar::earliest(view, width, len)?;
        let at = |u: u64| start + SimTime(unit.0.saturating_mul(u as i64));
        let entries = plan_entries(view, &r, &placed, &filled, jobs, &procs, &at);
        let blocks = plan_blocks(view, &r, &placed, jobs, &procs, &at);
        let holds: Vec<u64> = entries.iter().map(|e| e.0).collect();
        let backfill_secs = r.backfill_time() as f64 * unit.as_secs_f64();
        self.plans.push(Plan {
            start,
            finish: start + len,
            holds: holds.clone(),
            started: vec![false; entries.len()],
            entries,
            granted: false,
            blocks,
            stats: (
                placed.len() as u64,
                filled.len() as u64,
                r.reduction_pct(),
                backfill_secs,
                efficiency,
            ),
        });
        Some(Reserve {
            cluster: 0,
            processors: procs,
            start,
            finish: start + len,
            holds,
        })
    }

    /// Up to `group` of the waiting `graphs` of `family`, in arrival
    /// order, each rearranged and compacted, interwoven on `width`
    /// processors. `None` when it took none.
    fn interweave(
        &self,
        view: &SystemView<'_>,
        graphs: &[JobKey],
        family: u32,
        width: usize,
    ) -> Option<Woven> {
        let chosen: Vec<JobKey> = graphs
            .iter()
            .copied()
            .filter(|&k| {
                view.job(k)
                    .graph
                    .as_ref()
                    .is_some_and(|g| g.family == family)
            })
            .take(self.group)
            .collect();
        let mut r = tg::Reservation::new(width);
        let mut placed = Vec::new();
        let mut efficiency = 0.0;
        for &k in &chosen {
            let gj = view.job(k).graph.clone()?;
            let c = tg::compact(&gj.graph, &gj.schedule, self.order);
            if let Ok(i) = r.interweave(&gj.graph, &c) {
                efficiency += c.efficiency(&gj.graph);
                placed.push((k, i));
            }
        }
        if placed.is_empty() {
            return None;
        }
        Some(Woven {
            r,
            placed,
            efficiency,
        })
    }

    /// First come, first served or EASY over `jobs` on the processors no
    /// job and no reservation claims.
    fn independent(
        &self,
        view: &SystemView<'_>,
        jobs: impl Iterator<Item = JobKey>,
        out: &mut Vec<Start>,
    ) {
        let until = Ar::busy_until(view);
        let n = until.len() as u32;
        let now = view.now;
        // Free now: no job on it (the reservations are checked per job).
        let mut taken: Vec<bool> = until.iter().map(|u| u.is_some()).collect();
        // Active reservations hold their processors.
        let mut ends: Vec<Option<SimTime>> = until.clone();
        let free_for = |taken: &[bool], p: u32, to: SimTime| {
            !taken[p as usize] && !view.reservations.iter().any(|r| r.covers(0, p, now, to))
        };
        let mut shadow: Option<(SimTime, Vec<u32>)> = None;
        // Processors no job holds: a job larger than that does not fit,
        // and a long queue is passed over without a processor scan each.
        let mut untaken = taken.iter().filter(|&&t| !t).count();
        for k in jobs {
            let j = view.job(k);
            let end = now.saturating_add(j.estimate);
            let size = j.size as usize;
            let procs: Vec<u32> = if size > untaken {
                Vec::new()
            } else {
                (0..n)
                    .filter(|&p| free_for(&taken, p, end))
                    .filter(|&p| match &shadow {
                        Some((t, head)) => end <= *t || !head.contains(&p),
                        None => true,
                    })
                    .take(size)
                    .collect()
            };
            if procs.len() == size {
                untaken -= size;
                for &p in &procs {
                    taken[p as usize] = true;
                    ends[p as usize] = Some(end.max(now + SimTime(1)));
                }
                out.push(Start {
                    job: k,
                    assignment: vec![(0, j.size)],
                    kind: if shadow.is_some() {
                        StartKind::Ahead
                    } else {
                        StartKind::Head
                    },
                    processors: Some(vec![procs]),
                    processes: None,
                });
                continue;
            }
            if shadow.is_some() {
                continue;
            }
            if !self.easy {
                return;
            }
            // The head: its earliest window, held against backfilling.
            let mut times: Vec<SimTime> = ends
                .iter()
                .flatten()
                .copied()
                .chain(view.reservations.iter().map(|r| r.finish))
                .filter(|&t| t > now)
                .collect();
            times.sort_unstable();
            times.dedup();
            shadow = times.into_iter().find_map(|t| {
                let head: Vec<u32> = (0..n)
                    .filter(|&p| ends[p as usize].is_none_or(|e| e <= t))
                    .filter(|&p| {
                        !view
                            .reservations
                            .iter()
                            .any(|r| r.covers(0, p, t, t.saturating_add(j.estimate)))
                    })
                    .take(size)
                    .collect();
                (head.len() == size).then_some((t, head))
            });
            if shadow.is_none() {
                // It never fits: nothing is held for it.
                shadow = Some((SimTime::MAX, Vec::new()));
            }
        }
    }

    /// What ar has done and plans, at `now`: the plans still in force.
    /// The engine asks no policy anything while the queue is empty, so a
    /// plan whose window ended since the last decision point is still
    /// kept, and left out here.
    fn view_of(&self, now: SimTime) -> ReservationPlanView {
        let mut v = self.done.clone();
        v.waiting_graphs = self.waiting_graphs;
        v.next_request = (self.waiting_graphs > 0).then_some(self.next_tick.max(self.now));
        // The earliest granted plans only: a picture as small as a pane.
        let mut shown: Vec<&Plan> = self
            .plans
            .iter()
            .filter(|p| p.granted && p.finish > now)
            .collect();
        shown.sort_by_key(|p| p.start);
        v.blocks = shown
            .into_iter()
            .take(crate::sched::SHOWN_RESERVATIONS)
            .flat_map(|p| p.blocks.iter().cloned())
            .collect();
        v
    }

    /// One decision point: the plans the engine granted stay (a refused one
    /// is dropped: its jobs wait again), the jobs whose planned start has come
    /// start, and the independent jobs are scheduled around the reservations.
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.now = view.now;
        // The plans the engine granted stay; a refused one is dropped (its
        // jobs wait again).
        let done = &mut self.done;
        self.plans.retain_mut(|p| {
            if !p.granted {
                p.granted = view
                    .reservations
                    .iter()
                    .any(|r| r.start == p.start && r.holds == p.holds);
                if p.granted {
                    done.reservations += 1;
                    done.graphs += p.stats.0;
                    done.backfilled += p.stats.1;
                    done.reduction_pct_sum += p.stats.2;
                    done.backfill_secs += p.stats.3;
                    done.efficiency_sum += p.stats.4;
                }
            }
            p.granted && p.finish > view.now
        });
        // The queue by job id, when a planned start has come.
        let due = self.plans.iter().any(|p| {
            p.entries
                .iter()
                .zip(&p.started)
                .any(|(e, &s)| !s && e.1 <= view.now)
        });
        let keys: HashMap<u64, JobKey> = if due {
            view.queue.iter().map(|&k| (view.job(k).id, k)).collect()
        } else {
            HashMap::new()
        };
        for p in &mut self.plans {
            for (i, (id, at, procs)) in p.entries.iter().enumerate() {
                if p.started[i] || *at > view.now {
                    continue;
                }
                p.started[i] = true;
                if let Some(&k) = keys.get(id) {
                    out.push(Start {
                        job: k,
                        assignment: vec![(0, procs.len() as u32)],
                        kind: StartKind::Ahead,
                        processors: Some(vec![procs.clone()]),
                        processes: None,
                    });
                }
            }
        }
        let claimed = self.claimed(view);
        self.waiting_graphs = self.waiting_graphs(view, &claimed).len();
        // The independent jobs in queue order, looked at only as far as
        // the pass goes (first come, first served stops at the first
        // that does not fit).
        let jobs = view.queue.iter().copied().filter(|&k| {
            let j = view.job(k);
            j.graph.is_none() && !claimed.contains(&j.id)
        });
        self.independent(view, jobs, out);
    }
}

impl Phased for Ar {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, _: &SystemView<'_>, _: &mut Vec<crate::sched::Abort>) {}

    fn reserve(&mut self, view: &SystemView<'_>, out: &mut Vec<Reserve>) {
        self.now = view.now;
        if view.now < self.next_tick {
            return;
        }
        let graphs = self.waiting_graphs(view, &self.claimed(view));
        if graphs.is_empty() {
            return;
        }
        let (_, jobs) = self.waiting(view);
        let grid = self.interval.0;
        self.next_tick = SimTime((view.now.0 / grid + 1).saturating_mul(grid));
        if let Some(r) = self.request(view, &graphs, &jobs) {
            out.push(r);
        }
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.starts(view, out);
    }

    fn recheck_at(&self, _: &SystemView<'_>) -> Option<SimTime> {
        None
    }

    /// The pass run on a copy: see `Ar::explanation`.
    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> Explanation {
        self.explanation(view, key)
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        PolicyState::new(Panel {
            title: Some("reservations".into()),
            plan: Some(Box::new(self.view_of(view.now))),
            ..Panel::default()
        })
    }

    fn wake_at(&self) -> Option<SimTime> {
        let next_start = self
            .plans
            .iter()
            .flat_map(|p| p.entries.iter().zip(&p.started))
            .filter(|(e, s)| !**s && e.1 > self.now)
            .map(|(e, _)| e.1)
            .min();
        let tick = (self.waiting_graphs > 0).then_some(self.next_tick.max(self.now + SimTime(1)));
        next_start.into_iter().chain(tick).min()
    }
}
