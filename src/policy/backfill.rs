//! What the backfilling policies share: the scan order, how long a job is
//! expected to hold its processors, and when running jobs are expected to
//! let theirs go.

use super::placement::Assignment;
use super::{PolicyState, SystemView};
use crate::engine::{ActiveJob, BackfillView, JobKey};
use crate::model::{Platform, SimTime};
use serde::{Deserialize, Serialize};

/// The order in which queued jobs are considered for backfilling (and, under
/// conservative backfilling, given their reservations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackfillOrder {
    /// Arrival order.
    #[default]
    Arrival,
    /// Shortest estimate first (ties: arrival order).
    ShortestEstimate,
    /// Fewest processors first (ties: arrival order).
    Smallest,
}

impl BackfillOrder {
    pub const ALL: [BackfillOrder; 3] = [
        BackfillOrder::Arrival,
        BackfillOrder::ShortestEstimate,
        BackfillOrder::Smallest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BackfillOrder::Arrival => "arrival",
            BackfillOrder::ShortestEstimate => "shortest-estimate",
            BackfillOrder::Smallest => "smallest",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            BackfillOrder::Arrival => "arrival",
            BackfillOrder::ShortestEstimate => "shortest estimate",
            BackfillOrder::Smallest => "smallest",
        }
    }

    /// Sorts queue positions into this order (stable: arrival breaks ties).
    pub fn sort(self, view: &SystemView<'_>, positions: &mut [usize]) {
        let job = |i: usize| view.job(view.queue[i]);
        match self {
            BackfillOrder::Arrival => {}
            BackfillOrder::ShortestEstimate => positions.sort_by_key(|&i| job(i).estimate),
            BackfillOrder::Smallest => positions.sort_by_key(|&i| job(i).spec.size),
        }
    }
}

/// How long a job is expected to hold the processors of `assignment`: its
/// estimate at the slowest speed among them.
pub fn expected_span(platform: &Platform, estimate: SimTime, assignment: &Assignment) -> SimTime {
    let speed = assignment
        .iter()
        .map(|&(c, _)| platform.clusters[c as usize].speed)
        .fold(f64::INFINITY, f64::min);
    if !speed.is_finite() || speed == 1.0 || speed <= 0.0 {
        estimate
    } else {
        SimTime((estimate.0 as f64 / speed).ceil() as i64)
    }
}

/// When a running job is expected to end: its estimated end, or just after
/// now for a job that has outlived its estimate (it may end any moment).
pub fn expected_end(now: SimTime, job: &ActiveJob) -> SimTime {
    job.estimated_end().max(now + SimTime(1))
}

/// The next estimated end after now of a running job still within its
/// estimate, with the ends of jobs started in the current pass. Before
/// it, only jobs past their estimates (expected to end one tick ahead at
/// every decision point) can give processors back.
pub fn next_estimated_end(
    view: &SystemView<'_>,
    started: impl IntoIterator<Item = SimTime>,
) -> Option<SimTime> {
    view.running
        .iter()
        .map(|&k| view.job(k).estimated_end())
        .chain(started)
        .filter(|&t| t > view.now)
        .min()
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
            head: view.job(k).spec.id,
            shadow: plan
                .shadow
                .filter(|_| plan.head == Some(view.job(k).spec.id)),
        },
        None => PolicyState::Idle,
    }
}

/// What the console shows of such a policy: its last plan while that
/// plan's head is still first in the queue.
pub fn head_plan(view: &SystemView<'_>, plan: &BackfillView) -> Option<BackfillView> {
    let head = view.queue.first().map(|&k| view.job(k).spec.id);
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
            head: view.job(k).spec.id,
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
        .filter_map(|&k| start(k).map(|t| (view.job(k).spec.id, t)))
        .collect();
    Some(p)
}
