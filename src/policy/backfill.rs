//! What the backfilling policies share: the scan order, how long a job is
//! expected to hold its processors, and when running jobs are expected to
//! let theirs go.

use super::placement::Assignment;
use super::{PolicyState, SystemView};
use crate::model::SimTime;
pub use crate::sched::BackfillOrder;
use crate::sched::{BackfillView, JobKey, JobView};

impl BackfillOrder {
    /// Sorts queue positions into this order (stable: arrival breaks ties).
    pub fn sort(self, view: &SystemView<'_>, positions: &mut [usize]) {
        let job = |i: usize| view.job(view.queue[i]);
        match self {
            BackfillOrder::Arrival => {}
            BackfillOrder::ShortestEstimate => positions.sort_by_key(|&i| job(i).estimate),
            BackfillOrder::Smallest => positions.sort_by_key(|&i| job(i).size),
        }
    }
}

pub use crate::sched::rate::expected_span;

/// When a running job is expected to end: its estimated end, or just after
/// now for a job that has outlived its estimate (it may end any moment).
pub fn expected_end(now: SimTime, job: &JobView) -> SimTime {
    job.estimated_end.max(now + SimTime(1))
}

/// Processors released per (time, cluster), for the running jobs and any
/// started in the current pass: `(end, cluster, width)`, sorted by end.
pub fn releases(
    view: &SystemView<'_>,
    started: &[(JobKey, Assignment)],
) -> Vec<(SimTime, u16, u32)> {
    let mut v: Vec<(SimTime, u16, u32)> = Vec::new();
    for &k in view.running {
        let j = view.job(k);
        let end = expected_end(view.now, j);
        v.extend(j.assignment.iter().map(|&(c, w)| (end, c, w)));
    }
    for (k, a) in started {
        let j = view.job(*k);
        let end = view.now + expected_span(view.platform, j.estimate, a);
        v.extend(a.iter().map(|&(c, w)| (end, c, w)));
    }
    v.sort_unstable();
    v
}

/// The state of a policy that reserves for the head alone (EASY), from
/// its last plan: the head and, while it is still first, its reservation.
pub fn head_state(view: &SystemView<'_>, plan: &BackfillView) -> PolicyState {
    match view.queue.first() {
        Some(&k) => PolicyState::Backfill {
            head: view.job(k).id,
            shadow: plan.shadow.filter(|_| plan.head == Some(view.job(k).id)),
        },
        None => PolicyState::Idle,
    }
}

/// What the console shows of such a policy: its last plan while that
/// plan's head is still first in the queue.
pub fn head_plan(view: &SystemView<'_>, plan: &BackfillView) -> Option<BackfillView> {
    let head = view.queue.first().map(|&k| view.job(k).id);
    if head.is_some() && head == plan.head {
        Some(plan.clone())
    } else {
        Some(BackfillView {
            head,
            ..BackfillView::default()
        })
    }
}

/// The state of a policy that reserves for every queued job
/// (conservative): the head and its reservation.
pub fn reserved_state(
    view: &SystemView<'_>,
    start: impl Fn(JobKey) -> Option<SimTime>,
) -> PolicyState {
    match view.queue.first() {
        Some(&k) => PolicyState::Backfill {
            head: view.job(k).id,
            shadow: start(k),
        },
        None => PolicyState::Idle,
    }
}

/// What the console shows of such a policy: its last plan with every
/// queued job's reservation.
pub fn reserved_plan(
    view: &SystemView<'_>,
    plan: &BackfillView,
    start: impl Fn(JobKey) -> Option<SimTime>,
) -> Option<BackfillView> {
    let mut p = plan.clone();
    p.reservations = view
        .queue
        .iter()
        .filter_map(|&k| start(k).map(|t| (view.job(k).id, t)))
        .collect();
    Some(p)
}
