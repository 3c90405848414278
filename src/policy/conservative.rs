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

use super::backfill::{expected_end, expected_span};
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
    /// Expected ends of the running jobs at the last decision point.
    ends: HashMap<u64, SimTime>,
    /// When the last decision was made.
    decided: SimTime,
    order: Vec<usize>,
    plan: BackfillView,
}

impl Conservative {
    pub fn new(placement: Box<dyn Placement>, spec: PolicySpec) -> Conservative {
        Conservative {
            placement,
            spec,
            slots: HashMap::new(),
            ends: HashMap::new(),
            decided: SimTime::ZERO,
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
        self.decided = now;
        let platform = view.platform;
        // What changed since the last decision point: a job that ended
        // before its expected end frees room (reservations may move
        // earlier); one that outlived its estimate takes room (they may
        // have to move later). Arrivals alone change neither.
        let mut ends: HashMap<u64, SimTime> = HashMap::with_capacity(view.running.len());
        let mut changes: Vec<(SimTime, u16, i64)> = Vec::new();
        let mut capacity_dropped = false;
        for &k in view.running {
            let j = view.job(k);
            let end = expected_end(now, j);
            if let Some(&was) = self.ends.get(&j.arrival)
                && was != end
            {
                capacity_dropped = true;
            }
            ends.insert(j.arrival, end);
            changes.extend(j.assignment.iter().map(|&(c, w)| (end, c, w as i64)));
        }
        let ended_early = self
            .ends
            .iter()
            .any(|(a, &e)| e > now && !ends.contains_key(a));
        self.ends = ends;
        // Keep the reservations of jobs still queued; drop the rest.
        let mut kept: HashMap<u64, Slot> = HashMap::with_capacity(view.queue.len());
        for &k in view.queue {
            let a = view.job(k).arrival;
            if let Some(s) = self.slots.remove(&a) {
                for &(c, w) in &s.assignment {
                    changes.push((s.start, c, -(w as i64)));
                    changes.push((s.start.saturating_add(s.span), c, w as i64));
                }
                kept.insert(a, s);
            }
        }
        self.slots = kept;
        let mut profile = Profile::from_changes(now, view.free, &mut changes);
        self.order.clear();
        self.order.extend(0..view.queue.len());
        self.spec.order.sort(view, &mut self.order);
        let single = platform.clusters.len() == 1;
        // A reservation whose time has passed without its job starting, or
        // one that no longer fits because a job outlived its estimate, is
        // given up before anything is placed, so that it blocks nobody; its
        // job is placed again in its turn.
        let mut compress = ended_early || capacity_dropped;
        // In scan order: whether a reservation still holds depends on those
        // given up before it, so the order must not be a hash map's.
        for &i in &self.order {
            let a = view.job(view.queue[i]).arrival;
            let Some(s) = self.slots.get(&a) else {
                continue;
            };
            let own = |s: &Slot| (s.start, s.start.saturating_add(s.span));
            let invalid = s.start < now
                || (capacity_dropped && {
                    let (from, to) = own(s);
                    !profile.holds(from, to, &s.assignment)
                });
            if invalid {
                let s = self.slots.remove(&a).expect("listed");
                profile.release(s.start, s.span, &s.assignment);
                compress = true;
            }
        }
        for &i in &self.order {
            let key = view.queue[i];
            let job = view.job(key);
            let estimate = job.estimate;
            let old = self.slots.get(&job.arrival).cloned();
            if let Some(old) = &old {
                if !compress {
                    continue;
                }
                if single {
                    let w = old.assignment[0].1;
                    // No step before its start has room for it: it cannot
                    // move earlier (the common case deep in a long queue).
                    if profile.max_free_before(old.start) < w as i64 {
                        continue;
                    }
                    let own = (old.start, old.start.saturating_add(old.span), w);
                    if let Some(t) = profile.earliest_single(now, old.start, w, old.span, Some(own))
                    {
                        profile.release(old.start, old.span, &old.assignment);
                        profile.reserve(t, old.span, &old.assignment);
                        self.slots.insert(
                            job.arrival,
                            Slot {
                                start: t,
                                ..old.clone()
                            },
                        );
                    }
                    continue;
                }
                profile.release(old.start, old.span, &old.assignment);
            }
            let span_of = |a: &Assignment| expected_span(platform, estimate, a);
            let found = if single {
                let w = job.spec.size;
                let span = span_of(&vec![(0, w)]);
                profile
                    .earliest_single(now, SimTime::MAX, w, span, None)
                    .map(|t| (t, vec![(0u16, w)]))
            } else {
                profile.earliest(
                    now,
                    &job.spec.components,
                    estimate,
                    self.placement.as_ref(),
                    &span_of,
                )
            };
            let Some((start, assignment)) = found else {
                continue; // can never be placed (validation prevents this)
            };
            let span = span_of(&assignment);
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
        // A job that takes no time holds no room in the profile, so several
        // may be due on the same processors at one instant: start those
        // that fit; the others start when the first end, at this instant.
        let mut free = view.free.to_vec();
        let mut first_waiting: Option<usize> = None;
        for (i, &key) in view.queue.iter().enumerate() {
            let job = view.job(key);
            let Some(slot) = self.slots.get(&job.arrival) else {
                first_waiting.get_or_insert(i);
                continue;
            };
            if slot.start <= now && slot.assignment.iter().all(|&(c, w)| free[c as usize] >= w) {
                for &(c, w) in &slot.assignment {
                    free[c as usize] -= w;
                }
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
            let job = view.job(d.job);
            // Started now: remember when it should end, so that an early
            // end is noticed at the next decision point.
            if let Some(slot) = self.slots.remove(&job.arrival) {
                self.ends.insert(job.arrival, now.saturating_add(slot.span));
            }
        }
        // What the console shows: the first waiting job's reservation and
        // the processors left over then, and every planned start.
        self.plan = BackfillView::default();
        let waiting = first_waiting.map(|i| view.job(view.queue[i]));
        if let Some((job, slot)) = waiting.and_then(|j| self.slots.get(&j.arrival).map(|s| (j, s)))
        {
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

    fn wake_at(&self) -> Option<SimTime> {
        // Reservations just after an overrunning job's expected end (one
        // tick from now) wait for its real end instead: waking every tick
        // would only watch it run.
        self.slots
            .values()
            .map(|s| s.start)
            .filter(|&t| t > self.decided.saturating_add(SimTime(1)))
            .min()
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
