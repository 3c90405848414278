//! EASY (aggressive) backfilling.
//!
//! Jobs start in queue order while the head fits. When it does not, the
//! head gets a reservation: the earliest time (the *shadow time*) at which
//! the placement can place all its components, given the running jobs'
//! *estimated* ends; the processors left over on each cluster at that time
//! are the *extra* processors. A later job may then start now if it fits now
//! and either is expected to end by the shadow time or uses only extra
//! processors (which it then takes from the extra). Everything is
//! recomputed at every decision point.

use super::backfill::{self, expected_span, releases};
use super::placement::{Assignment, Placement};
use super::profile::Profile;
use super::{Policy, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::model::SimTime;
use crate::sched::{BackfillView, JobKey};

pub struct Easy {
    placement: Box<dyn Placement>,
    spec: PolicySpec,
    free: Vec<u32>,
    started: Vec<(JobKey, Assignment)>,
    candidates: Vec<usize>,
    /// The head's reservation from the last decision point.
    plan: BackfillView,
}

/// The head job's reservation: when and where it can start, and the
/// processors per cluster left over then.
#[derive(Clone, Debug, PartialEq)]
pub struct Reservation {
    pub shadow: SimTime,
    pub assignment: Assignment,
    pub extra: Vec<u32>,
}

impl Easy {
    pub fn new(placement: Box<dyn Placement>, spec: PolicySpec) -> Easy {
        Easy {
            placement,
            spec,
            free: Vec::new(),
            started: Vec::new(),
            candidates: Vec::new(),
            plan: BackfillView::default(),
        }
    }
}

/// The head's reservation given the free processors now, the running jobs
/// and those started in this pass; `None` if it can never be placed.
pub fn reserve_head(
    view: &SystemView<'_>,
    placement: &dyn Placement,
    head: JobKey,
    free: &[u32],
    started: &[(JobKey, Assignment)],
) -> Option<Reservation> {
    let rel = releases(view, started);
    let profile = Profile::new(view.now, free, &rel);
    let widths = &view.job(head).components;
    // The head needs its processors from the shadow time on, for as long
    // as it runs; only what is free for good at that time counts, so a
    // step's free counts are enough: they never fall later (no other
    // reservation exists under EASY).
    for k in 0..profile.steps() {
        let f = profile.free_at(k);
        if let Some(a) = placement.place(widths, &f) {
            let mut extra = f;
            for &(c, w) in &a {
                extra[c as usize] -= w;
            }
            return Some(Reservation {
                shadow: profile.time(k),
                assignment: a,
                extra,
            });
        }
    }
    None
}

impl Policy for Easy {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        self.placement.place(widths, free).is_some()
    }

    fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<crate::sched::Abort>) {
        let state = self.state(view);
        super::backfill::aborts_for_head(view, &state, &|w, f| self.fits_now(w, f), out);
    }

    fn recheck_at(&self, view: &SystemView<'_>) -> Option<crate::model::SimTime> {
        super::backfill::recheck_for_head(view, &self.state(view), &|w, f| self.fits_now(w, f))
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.free.clear();
        self.free.extend_from_slice(view.free);
        self.started.clear();
        self.plan = BackfillView::default();
        // Start jobs in queue order while the head fits.
        let mut head = 0;
        while head < view.queue.len() {
            let key = view.queue[head];
            let Some(a) = self.placement.place(&view.job(key).components, &self.free) else {
                break;
            };
            for &(c, w) in &a {
                self.free[c as usize] -= w;
            }
            self.started.push((key, a.clone()));
            out.push(Start {
                job: key,
                assignment: a,
                kind: StartKind::Head,
                processors: None,
                processes: None,
            });
            head += 1;
        }
        if head >= view.queue.len() {
            return;
        }
        let head_key = view.queue[head];
        let Some(mut r) = reserve_head(
            view,
            self.placement.as_ref(),
            head_key,
            &self.free,
            &self.started,
        ) else {
            return;
        };
        self.plan = BackfillView {
            head: Some(view.job(head_key).id),
            shadow: Some(r.shadow),
            extra: r.extra.clone(),
            reservations: vec![(view.job(head_key).id, r.shadow)],
        };
        // Backfill the rest in the configured order.
        self.candidates.clear();
        self.candidates.extend(head + 1..view.queue.len());
        self.spec.order.sort(view, &mut self.candidates);
        let mut within = vec![0u32; self.free.len()];
        // On clusters of one speed a job's expected span does not depend on
        // where it goes: whether it ends by the shadow time is known before
        // placing it, and a job that does not is tried on the extra only.
        let one_speed = view
            .platform
            .clusters
            .windows(2)
            .all(|w| w[0].speed == w[1].speed);
        let anywhere: Assignment = vec![(0, 0)];
        for &i in &self.candidates {
            if self.free.iter().all(|&f| f == 0) {
                break;
            }
            let key = view.queue[i];
            let job = view.job(key);
            let widths = &job.components;
            let by_shadow = one_speed.then(|| {
                view.now + expected_span(view.platform, job.estimate, &anywhere) <= r.shadow
            });
            // Ends by the shadow time: anything free now will do.
            let mut chosen = None;
            if by_shadow != Some(false)
                && let Some(a) = self.placement.place(widths, &self.free)
                && view.now + expected_span(view.platform, job.estimate, &a) <= r.shadow
            {
                chosen = Some(a);
            }
            // Otherwise only processors that are extra at the shadow time.
            if chosen.is_none() {
                for (w, (&f, &x)) in within.iter_mut().zip(self.free.iter().zip(&r.extra)) {
                    *w = f.min(x);
                }
                if let Some(a) = self.placement.place(widths, &within) {
                    for &(c, w) in &a {
                        r.extra[c as usize] -= w;
                    }
                    chosen = Some(a);
                }
            }
            if let Some(a) = chosen {
                for &(c, w) in &a {
                    self.free[c as usize] -= w;
                }
                out.push(Start {
                    job: key,
                    assignment: a,
                    kind: StartKind::Ahead,
                    processors: None,
                    processes: None,
                });
            }
        }
        self.plan.extra = r.extra;
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        backfill::head_state(view, &self.plan)
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        backfill::head_plan(view, &self.plan)
    }
}
