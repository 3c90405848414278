//! What the backfilling policies share: the scan order, how long a job is
//! expected to hold its processors, and when running jobs are expected to
//! let theirs go.

use super::placement::Assignment;
use super::{PolicyState, SystemView};
use crate::model::SimTime;
pub use crate::policy::BackfillOrder;
use crate::sched::{Abort, BackfillView, JobKey, JobView};

/// A backfilling order at work: the protocol names the orders, the
/// policies sort by them.
pub trait SortQueue {
    /// Sorts queue positions into this order (stable: arrival breaks ties).
    fn sort(self, view: &SystemView<'_>, positions: &mut [usize]);
}

impl SortQueue for BackfillOrder {
    fn sort(self, view: &SystemView<'_>, positions: &mut [usize]) {
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
        Some(&k) => HeadPlan {
            head: view.job(k).id,
            shadow: plan.shadow.filter(|_| plan.head == Some(view.job(k).id)),
        }
        .state(),
        None => PolicyState::default(),
    }
}

/// A backfilling policy's head and its reservation (the shadow time), if
/// it has one: the typed state ([`PolicyState::detail`]) of EASY,
/// conservative backfilling and the moldable policies, which their
/// aborts of expired jobs read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadPlan {
    pub head: u64,
    pub shadow: Option<SimTime>,
}

impl HeadPlan {
    /// A state that keeps this plan (the console draws a backfilling
    /// policy from its [`BackfillView`], not from its state).
    pub fn state(self) -> PolicyState {
        PolicyState::default().with_detail(self)
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
        Some(&k) => HeadPlan {
            head: view.job(k).id,
            shadow: start(k),
        }
        .state(),
        None => PolicyState::default(),
    }
}

/// What the console shows of such a policy: its last plan with the
/// reservations of the queued jobs `rows` (every queued job's from
/// `reserved_plan`), and how many queued jobs hold one.
pub fn reserved_plan_rows(
    view: &SystemView<'_>,
    plan: &BackfillView,
    rows: &[JobKey],
    reserved: usize,
    start: impl Fn(JobKey) -> Option<SimTime>,
) -> Option<BackfillView> {
    let mut p = plan.clone();
    p.reservations = rows
        .iter()
        .filter_map(|&k| start(k).map(|t| (view.job(k).id, t)))
        .collect();
    p.reserved = reserved;
    Some(p)
}

/// [`reserved_plan_rows`] for every queued job.
pub fn reserved_plan(
    view: &SystemView<'_>,
    plan: &BackfillView,
    start: impl Fn(JobKey) -> Option<SimTime>,
) -> Option<BackfillView> {
    let mut p = reserved_plan_rows(view, plan, view.queue, 0, start)?;
    p.reserved = p.reservations.len();
    Some(p)
}

/// Running jobs started ahead of the queue that have outlived their
/// estimates, oldest start first: what aborts may take back.
pub(super) fn expired_ahead(view: &SystemView<'_>) -> Vec<JobKey> {
    let mut v: Vec<JobKey> = view
        .running
        .iter()
        .copied()
        .filter(|&k| {
            let j = view.job(k);
            j.jumped_ahead && j.estimated_end <= view.now
        })
        .collect();
    v.sort_by_key(|&k| (view.job(k).start, view.job(k).arrival));
    v
}

/// The latest reservation time that waits only for jobs that have
/// outlived their estimates. Such a job is expected to end one tick from
/// now, at every decision point; a reservation behind it (or behind
/// reservations made behind it) is due, for all the profile knows, as soon
/// as it ends, while one at or after the next estimated end of a job still
/// within its estimate waits for that job.
fn overrun_horizon(view: &SystemView<'_>) -> SimTime {
    let now = view.now;
    match view.next_estimated_end([]) {
        Some(t) => (t - SimTime(1)).max(now + SimTime(1)),
        None => SimTime::MAX,
    }
}

/// Whether aborting every job of `expired` would let the head start now.
/// Where it would not, none is aborted: their work would be lost for
/// nothing, and a job started ahead again into the processors given back
/// could be aborted again and again while the head waits.
fn aborts_free_head(
    view: &SystemView<'_>,
    head: JobKey,
    expired: &[JobKey],
    fits: &dyn Fn(&[u32], &[u32]) -> bool,
) -> bool {
    let mut free = view.free.to_vec();
    for &k in expired {
        for &(c, w) in &view.job(k).assignment {
            free[c as usize] += w;
        }
    }
    fits(&view.job(head).widths(view.platform), &free)
}

/// Aggressive backfilling with aborts (the malleability paper's launcher:
/// it "looks for expired windows of previously backfilled jobs starting
/// with the oldest one, until there are no more backfilled jobs or the
/// just freed partition is suitable for the job at the head of the wait
/// queue"). The head needs them once its reservation (`state`, the
/// policy's last plan) is due: it waits on nothing but jobs past their
/// estimates. Before that, or when the head can start anyway, or when
/// aborting them all would not let it start, expired jobs keep running.
pub fn aborts_for_head(
    view: &SystemView<'_>,
    state: &PolicyState,
    fits: &dyn Fn(&[u32], &[u32]) -> bool,
    out: &mut Vec<Abort>,
) {
    if !view.requeue_expired {
        return;
    }
    let expired = expired_ahead(view);
    let Some(&head) = view.queue.first() else {
        return;
    };
    if expired.is_empty() {
        return;
    }
    let due = match state.detail::<HeadPlan>() {
        Some(&HeadPlan {
            head: id,
            shadow: Some(t),
        }) if id == view.job(head).id => t <= overrun_horizon(view),
        _ => true,
    };
    if !due || !aborts_free_head(view, head, &expired, fits) {
        return;
    }
    let mut free = view.free.to_vec();
    for k in expired {
        if fits(&view.job(head).widths(view.platform), &free) {
            break;
        }
        for &(c, w) in &view.job(k).assignment {
            free[c as usize] += w;
        }
        out.push(Abort {
            job: k,
            requeue: true,
        });
    }
}

/// After the starts of a decision point: expired jobs wait for the head's
/// reservation to come due, so decide again then; or at once (to abort
/// them) when it is due already and the head cannot start.
pub fn recheck_for_head(
    view: &SystemView<'_>,
    state: &PolicyState,
    fits: &dyn Fn(&[u32], &[u32]) -> bool,
) -> Option<SimTime> {
    if !view.requeue_expired {
        return None;
    }
    let expired = expired_ahead(view);
    if expired.is_empty() {
        return None;
    }
    let &head = view.queue.first()?;
    let Some(&HeadPlan {
        head: id,
        shadow: Some(t),
    }) = state.detail::<HeadPlan>()
    else {
        return None;
    };
    if id != view.job(head).id {
        return None;
    }
    if t > overrun_horizon(view) {
        Some(t)
    } else if !fits(&view.job(head).widths(view.platform), view.free)
        && aborts_free_head(view, head, &expired, fits)
    {
        // Such a round aborts expired jobs until the head fits.
        Some(view.now)
    } else {
        None
    }
}

/// A placement rule as a function: widths and free counts in, where they
/// go out (or `None`).
pub type PlaceFn<'a> = dyn Fn(&[u32], &[u32]) -> Option<Assignment> + 'a;

/// The processors free per cluster once `starts` are carried out.
pub fn free_after(view: &SystemView<'_>, starts: &[crate::sched::Start]) -> Vec<u32> {
    let mut free = view.free.to_vec();
    for s in starts {
        for &(c, w) in &s.assignment {
            free[c as usize] = free[c as usize].saturating_sub(w);
        }
    }
    free
}

/// Why EASY starts or keeps `key`, from a pass run on a copy of the
/// policy: its `starts` and its `plan` (the head's reservation and the
/// extra processors left once the backfilled jobs took theirs). `place`
/// is the policy's placement.
pub fn explain_easy(
    view: &SystemView<'_>,
    key: JobKey,
    starts: &[crate::sched::Start],
    plan: &BackfillView,
    place: &PlaceFn<'_>,
) -> crate::sched::Explanation {
    use crate::sched::explain::{self, ahead, asks, counts, free_now, on_clusters};
    use crate::sched::{Explanation, StartKind};
    if let Some(s) = starts.iter().find(|s| s.job == key) {
        return Explanation::starts(match s.kind {
            StartKind::Head => format!(
                "it fits in arrival order: {}",
                on_clusters(view, &s.assignment)
            ),
            _ => format!(
                "it is backfilled ahead of the head, which it does not delay: {}",
                on_clusters(view, &s.assignment)
            ),
        });
    }
    let free = free_after(view, starts);
    let (Some(head_id), Some(shadow)) = (plan.head, plan.shadow) else {
        return explain::generic(view, key);
    };
    let job = view.job(key);
    if job.id == head_id {
        return Explanation::waits(format!(
            "It is the head and does not fit now: it needs {}; {}. It holds the reservation: it starts at the shadow time {}, when the running jobs' estimates say enough is free.",
            asks(view, key),
            free_now(&free),
            ahead(view.now, shadow)
        ));
    }
    let widths = job.widths(view.platform);
    let Some(a) = place(&widths, &free) else {
        return Explanation::waits(format!(
            "It does not fit in the processors free now: it needs {}; {}. (The head, job {head_id}, holds the reservation at {}.)",
            asks(view, key),
            free_now(&free),
            ahead(view.now, shadow)
        ));
    };
    let end = view.now + expected_span(view.platform, job.estimate, &a);
    let extra: Vec<u32> = free
        .iter()
        .zip(&plan.extra)
        .map(|(&f, &x)| f.min(x))
        .collect();
    let extra_text = if extra.len() == 1 {
        format!(
            "only {} {} extra",
            extra[0],
            if extra[0] == 1 { "is" } else { "are" }
        )
    } else {
        format!("the clusters have only {} extra", counts(&extra))
    };
    Explanation::waits(format!(
        "Backfilling it would delay the head, job {head_id}: its estimated end {} is after the head's shadow time {}, and it needs {}, where {extra_text} beyond that time.",
        ahead(view.now, end),
        ahead(view.now, shadow),
        asks(view, key),
    ))
}

/// Why conservative backfilling starts or keeps `key`, from a pass run on
/// a copy of the policy: its `starts`, and the job's reservation after it
/// (start, the estimate it was made for, where), if it holds one.
pub fn explain_reserved(
    view: &SystemView<'_>,
    key: JobKey,
    starts: &[crate::sched::Start],
    slot: Option<(SimTime, SimTime, Assignment)>,
) -> crate::sched::Explanation {
    use crate::sched::Explanation;
    use crate::sched::explain::{self, ahead, asks, on_clusters, span};
    if let Some(s) = starts.iter().find(|s| s.job == key) {
        let first = view.queue.first() == Some(&key);
        return Explanation::starts(format!(
            "{}: {}",
            if first {
                "its reservation has come due"
            } else {
                "it starts early, delaying no reservation"
            },
            on_clusters(view, &s.assignment)
        ));
    }
    let Some((start, estimate, assignment)) = slot else {
        return explain::generic(view, key);
    };
    let before = view.queue.iter().take_while(|&&k| k != key).count();
    Explanation::waits(format!(
        "Its reservation is at {} {}: the earliest time its {} {} free for its estimated {}, given the running jobs' estimates and the reservations of the {before} job{} queued before it.",
        ahead(view.now, start),
        on_clusters(view, &assignment),
        asks(view, key),
        if view.job(key).size == 1 { "is" } else { "are" },
        span(estimate),
        if before == 1 { "" } else { "s" },
    ))
}
