//! Shortest job first with EASY's reservation, written against schedscope's
//! protocol alone: a policy of your own, in a crate of your own.
//!
//! The queue is taken in order of estimate (shortest first, then arrival).
//! Jobs start in that order while the first fits. When it does not, it gets
//! a reservation at the earliest time it fits given the running jobs'
//! estimated ends (the shadow time), and the processors left over then on
//! each cluster are the extra ones; a later job starts now if it fits now
//! and either is expected to end by the shadow time or uses extra
//! processors only. Each job's components go to distinct clusters, widest
//! first to the freest (worst fit). Run times are taken at speed 1: on
//! clusters of other speeds the reservation is approximate.
//!
//! Three things make it a schedscope policy: the [`Policy`] trait (its one
//! decision call: what it starts, given a [`SystemView`]), a [`PolicyEntry`] (its name, what it
//! is, the parameters it reads, its label and its builder) and one call to
//! [`catalog::register`] before the command line is read. It also says why
//! a job waits ([`Policy::explain`]): its own pass run on a copy of it.
//!
//! It places by worst fit whatever the scenario says. To follow the
//! scenario's `placement` (a key several policies share, written in
//! `[policy]` itself), list `catalog::common::PLACEMENT` among the entry's
//! `params` and read `spec.placement()` through
//! `schedscope::policy::SharedParams` (the types, such as
//! `schedscope::policy::PlacementName`, are the policies crate's; the
//! protocol's [`PolicySpec`] only carries the keys).

use schedscope::model::{Platform, SimTime};
use schedscope::policy::PolicyName;
use schedscope::policy::backfill::HeadPlan;
use schedscope::policy::catalog::{self, PolicyEntry};
use schedscope::sched::explain;
use schedscope::sched::{
    BackfillView, Decision, Decisions, Explanation, JobKey, Policy, PolicySpec, PolicyState, Start,
    StartKind, SystemView,
};

/// The policy's name in scenarios, commands and the picker.
pub const NAME: PolicyName = PolicyName::new("sjf-easy");

/// Its catalog entry.
pub fn entry() -> PolicyEntry {
    PolicyEntry {
        name: NAME,
        summary: "shortest job first with EASY's reservation: the shortest \
                  estimate holds a reservation, later jobs backfill around it",
        params: &[],
        label: |_| "SJF + EASY reservation".to_string(),
        build: |spec, _platform: &Platform| Ok(Box::new(SjfEasy::new(spec.clone()))),
    }
}

/// Adds `sjf-easy` to schedscope's catalog.
pub fn register() -> Result<(), String> {
    catalog::register(entry())
}

/// Processors per cluster a job takes: (cluster, width) per component.
type Assignment = Vec<(u16, u32)>;

#[derive(Clone)]
pub struct SjfEasy {
    spec: PolicySpec,
    plan: BackfillView,
}

impl SjfEasy {
    pub fn new(spec: PolicySpec) -> SjfEasy {
        SjfEasy {
            spec,
            plan: BackfillView::default(),
        }
    }
}

/// Worst fit: each component, widest first, on the freest cluster not yet
/// used by the job; `None` when some component fits nowhere.
fn place(widths: &[u32], free: &[u32]) -> Option<Assignment> {
    let mut order: Vec<usize> = (0..widths.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(widths[i]));
    let mut assignment = vec![(0u16, 0u32); widths.len()];
    let mut used = vec![false; free.len()];
    for i in order {
        let c = (0..free.len())
            .filter(|&c| !used[c] && free[c] >= widths[i])
            .max_by_key(|&c| (free[c], std::cmp::Reverse(c)))?;
        used[c] = true;
        assignment[i] = (c as u16, widths[i]);
    }
    Some(assignment)
}

fn take(free: &mut [u32], a: &Assignment) {
    for &(c, w) in a {
        free[c as usize] -= w;
    }
}

impl Policy for SjfEasy {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn decide(&mut self, view: &SystemView<'_>, out: &mut Decisions) {
        self.plan = BackfillView::default();
        if view.queue.is_empty() {
            return;
        }
        let now = view.now;
        let mut free = view.free.to_vec();
        let mut order: Vec<JobKey> = view.queue.to_vec();
        order.sort_by_key(|&k| (view.job(k).estimate, view.job(k).arrival));
        // Releases to come: (expected end, processors), the jobs started
        // now included. A job past its estimate is expected to end a tick
        // from now.
        let mut releases: Vec<(SimTime, Assignment)> = view
            .running
            .iter()
            .map(|&k| {
                let j = view.job(k);
                let end = j.estimated_end.max(now + SimTime(1));
                (end, j.assignment.clone())
            })
            .collect();
        let mut started = vec![false; view.queue.len()];
        let mut start = |key: JobKey, assignment: Assignment, out: &mut Decisions| {
            // At the head when every job that arrived before it has started.
            let pos = view.queue.iter().position(|&q| q == key).expect("queued");
            started[pos] = true;
            let kind = if started[..pos].iter().all(|&s| s) {
                StartKind::Head
            } else {
                StartKind::Ahead
            };
            out.start(Start {
                job: key,
                assignment,
                kind,
                processors: None,
                processes: None,
            });
        };
        let mut rest = order.into_iter();
        // The shortest jobs start while they fit.
        let head = loop {
            let Some(key) = rest.next() else { return };
            let job = view.job(key);
            match place(&job.widths(view.platform), &free) {
                Some(a) => {
                    take(&mut free, &a);
                    releases.push((now + job.estimate, a.clone()));
                    start(key, a, out);
                }
                None => break key,
            }
        };
        // The first that does not fit: its reservation.
        let job = view.job(head);
        let widths = job.widths(view.platform);
        releases.sort_by_key(|r| r.0);
        let mut then = free.clone();
        let mut shadow = None;
        for (t, a) in &releases {
            for &(c, w) in a {
                then[c as usize] += w;
            }
            if let Some(a) = place(&widths, &then) {
                take(&mut then, &a);
                shadow = Some(*t);
                break;
            }
        }
        self.plan.head = Some(job.id);
        self.plan.shadow = shadow;
        let Some(shadow) = shadow else {
            return; // it fits nowhere even on an idle machine
        };
        self.plan.reservations = vec![(job.id, shadow)];
        self.plan.reserved = 1;
        // `then` holds the processors left over at the shadow time.
        let mut extra = then;
        for key in rest {
            let job = view.job(key);
            let Some(a) = place(&job.widths(view.platform), &free) else {
                continue;
            };
            let ends_in_time = now + job.estimate <= shadow;
            let in_extra = a.iter().all(|&(c, w)| extra[c as usize] >= w);
            if ends_in_time || in_extra {
                take(&mut free, &a);
                if !ends_in_time {
                    take(&mut extra, &a);
                }
                start(key, a, out);
            }
        }
        self.plan.extra = extra;
    }

    fn state(&self, _view: &SystemView<'_>) -> PolicyState {
        match self.plan.head {
            Some(head) => HeadPlan {
                head,
                shadow: self.plan.shadow,
            }
            .state(),
            None => PolicyState::default(),
        }
    }

    fn plan(&self, _view: &SystemView<'_>) -> Option<BackfillView> {
        Some(self.plan.clone())
    }

    /// Its own decision pass, run on a copy: the job starts if the copy
    /// starts it; else the shortest job waiting holds the reservation,
    /// and this one either is that job or waits for it.
    fn explain(&self, view: &SystemView<'_>, job: JobKey) -> Explanation {
        let mut pass = self.clone();
        let mut out = Decisions::default();
        pass.decide(view, &mut out);
        let started = out
            .decisions()
            .iter()
            .any(|d| matches!(d, Decision::Start(s) if s.job == job));
        if started {
            return Explanation::starts(
                "it fits now, shortest estimates first or around the reservation",
            );
        }
        let j = view.job(job);
        let rank = view
            .queue
            .iter()
            .filter(|&&k| {
                let o = view.job(k);
                (o.estimate, o.arrival) < (j.estimate, j.arrival)
            })
            .count();
        let reservation = match (pass.plan.head, pass.plan.shadow) {
            (Some(h), Some(t)) if h == j.id => {
                return Explanation::waits(format!(
                    "Its estimate, {}, is the shortest of those waiting: it holds the reservation at {}, when the running jobs' estimates free what it needs.",
                    explain::span(j.estimate),
                    explain::ahead(view.now, t)
                ));
            }
            (Some(h), Some(t)) => format!(
                "job {h} holds the reservation at {}",
                explain::ahead(view.now, t)
            ),
            _ => "no job holds a reservation".to_string(),
        };
        Explanation::waits(format!(
            "SJF takes the queue shortest estimate first: its estimate, {}, ranks {} of {}; {reservation}, and it cannot start now without delaying that reservation.",
            explain::span(j.estimate),
            explain::ordinal(rank + 1),
            view.queue.len()
        ))
    }
}
