//! Conservative backfilling.
//!
//! Every queued job holds a reservation in the availability profile (the
//! running jobs' estimated ends plus the reservations of the jobs before it
//! in the scan order). A job starts when its reservation comes due, so a
//! job starts early only into a hole that delays no reservation.
//!
//! At every decision point the reservations are compressed in order: each
//! job's reservation is taken out and the job placed again at the earliest
//! time it fits, with every other reservation still in place. Its old slot
//! is still free then, so with exact estimates a reservation only ever
//! moves earlier. A new job is placed after all existing reservations.
//! Where an estimate proved too short, the profile holds fewer processors
//! than the reservations assumed and those jobs move later: the
//! reservations are recomputed from the new facts.

use super::backfill::{expected_span, releases};
use super::placement::{Assignment, Placement};
use super::profile::Profile;
use super::{Decision, Policy, PolicySpec, PolicyState, StartKind, SystemView};
use crate::engine::BackfillView;
use crate::model::SimTime;
use std::collections::HashMap;

#[derive(Clone, Debug)]
struct Slot {
    start: SimTime,
    span: SimTime,
    assignment: Assignment,
}

pub struct Conservative {
    placement: Box<dyn Placement>,
    spec: PolicySpec,
    /// Reservations by arrival number.
    slots: HashMap<u64, Slot>,
    order: Vec<usize>,
    plan: BackfillView,
}

impl Conservative {
    pub fn new(placement: Box<dyn Placement>, spec: PolicySpec) -> Conservative {
        Conservative {
            placement,
            spec,
            slots: HashMap::new(),
            order: Vec::new(),
            plan: BackfillView::default(),
        }
    }
}

impl Policy for Conservative {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Decision>) {
        let now = view.now;
        let rel = releases(view, &[]);
        let mut profile = Profile::new(now, view.free, &rel);
        // Keep the reservations of jobs still queued; drop the rest.
        let mut kept: HashMap<u64, Slot> = HashMap::with_capacity(view.queue.len());
        for &k in view.queue {
            let a = view.job(k).arrival;
            if let Some(s) = self.slots.remove(&a) {
                profile.reserve(s.start, s.span, &s.assignment);
                kept.insert(a, s);
            }
        }
        self.slots = kept;
        self.order.clear();
        self.order.extend(0..view.queue.len());
        self.spec.order.sort(view, &mut self.order);
        let platform = view.platform;
        for &i in &self.order {
            let key = view.queue[i];
            let job = view.job(key);
            if let Some(old) = self.slots.remove(&job.arrival) {
                profile.release(old.start, old.span, &old.assignment);
            }
            let estimate = job.estimate;
            let span_of = |a: &Assignment| expected_span(platform, estimate, a);
            let found = profile.earliest(
                now,
                &job.spec.components,
                estimate,
                self.placement.as_ref(),
                &span_of,
            );
            let Some((start, assignment)) = found else {
                continue; // can never be placed (validation prevents this)
            };
            let span = span_of(&assignment).max(SimTime(1));
            profile.reserve(start, span, &assignment);
            self.slots.insert(
                job.arrival,
                Slot {
                    start,
                    span,
                    assignment,
                },
            );
        }
        // Start the jobs whose reservation is due, in queue order.
        let mut first_waiting: Option<usize> = None;
        for (i, &key) in view.queue.iter().enumerate() {
            let job = view.job(key);
            let slot = &self.slots[&job.arrival];
            if slot.start == now {
                out.push(Decision {
                    job: key,
                    assignment: slot.assignment.clone(),
                    kind: if first_waiting.is_none() {
                        StartKind::Head
                    } else {
                        StartKind::Ahead
                    },
                });
            } else if first_waiting.is_none() {
                first_waiting = Some(i);
            }
        }
        for d in out.iter() {
            self.slots.remove(&view.job(d.job).arrival);
        }
        // What the console shows: the first waiting job's reservation and
        // the processors left over then, and every planned start.
        self.plan = BackfillView::default();
        if let Some(i) = first_waiting {
            let job = view.job(view.queue[i]);
            let slot = &self.slots[&job.arrival];
            let k = (0..profile.steps())
                .rev()
                .find(|&k| profile.time(k) <= slot.start)
                .unwrap_or(0);
            self.plan.head = Some(job.spec.id);
            self.plan.shadow = Some(slot.start);
            self.plan.extra = profile.free_at(k);
        }
        self.plan.reservations = view
            .queue
            .iter()
            .filter_map(|&k| {
                let j = view.job(k);
                self.slots.get(&j.arrival).map(|s| (j.spec.id, s.start))
            })
            .collect();
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        match view.queue.first() {
            Some(&k) => {
                let j = view.job(k);
                PolicyState::Backfill {
                    head: j.spec.id,
                    shadow: self.slots.get(&j.arrival).map(|s| s.start),
                }
            }
            None => PolicyState::Idle,
        }
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        let mut p = self.plan.clone();
        let queued: std::collections::HashSet<u64> =
            view.queue.iter().map(|&k| view.job(k).spec.id).collect();
        p.reservations.retain(|(id, _)| queued.contains(id));
        Some(p)
    }
}
