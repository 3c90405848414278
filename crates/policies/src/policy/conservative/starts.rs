//! What a decision point ends with: the jobs whose reservation is due
//! start, when to decide again with nothing else happening first, and
//! the head's reservation as the console shows it.

use super::super::profile::Profile;
use super::{Conservative, Held, Slot};
use crate::model::SimTime;
use crate::sched::{BackfillView, JobKey, Start, StartKind, SystemView};
use std::collections::BTreeSet;

impl Conservative {
    /// Starts the jobs whose reservation is due, in queue order; the
    /// processors free after them. A job that takes no time holds no room
    /// in the profile, so several may be due on the same processors at one
    /// instant: those that fit start; the others are given up at the next
    /// decision point (the first end, at this instant) and placed again.
    pub(super) fn start_due(&self, view: &SystemView<'_>, out: &mut Vec<Start>) -> Vec<u32> {
        let now = view.now;
        let mut due: Vec<(u64, usize)> = self
            .by_start
            .range(..(now.saturating_add(SimTime(1)), 0, 0))
            .map(|&(_, a, k)| (a, k))
            .collect();
        due.sort_unstable();
        let mut free = view.free.to_vec();
        for (arrival, k) in due {
            let key = JobKey(k);
            let slot = self.slot(key).expect("listed");
            if !slot.assignment.iter().all(|&(c, w)| free[c as usize] >= w) {
                continue;
            }
            for &(c, w) in &slot.assignment {
                free[c as usize] -= w;
            }
            // At the head when every job before it starts too: the queue
            // is in arrival order.
            let pos = view
                .queue
                .partition_point(|&q| view.job(q).arrival < arrival);
            let kind = if pos == out.len() {
                StartKind::Head
            } else {
                StartKind::Ahead
            };
            out.push(Start {
                job: key,
                assignment: slot.assignment.clone(),
                kind,
                processors: None,
                processes: None,
            });
        }
        free
    }

    /// The jobs started now (`out`) leave their reservations: each holds
    /// its reservation's processors until its expected end, so the profile
    /// stays as it is.
    pub(super) fn hold_started(&mut self, now: SimTime, out: &[Start]) {
        for d in out {
            let slot = self.take_slot(d.job).expect("started from a reservation");
            let epoch = self.epoch;
            self.hold(
                d.job.0,
                Held {
                    arrival: slot.arrival,
                    end: now.saturating_add(slot.span),
                    assignment: slot.assignment,
                    seen: epoch,
                },
            );
        }
    }

    /// When to decide again with nothing else happening first: at the
    /// first reservation that can start on the processors free now (free
    /// processors change only when a job ends, itself a decision point)
    /// and that does not wait on a job past its estimate.
    ///
    /// A job past its estimate is expected to end one tick from now, at
    /// every decision point: a reservation made for then, or for the end of
    /// a reservation made so, moves on with it at each decision point, and
    /// waking for it would only watch the jobs run (that job's real end is
    /// a decision point). Reservations at or after the next estimated end
    /// of a job within its estimate are left as they are: that end is a
    /// decision point too.
    pub(super) fn next_wake(
        &self,
        view: &SystemView<'_>,
        out: &[Start],
        free: &[u32],
    ) -> Option<SimTime> {
        let now = view.now;
        if free.iter().all(|&f| f == 0) {
            return None;
        }
        let fits = |s: &Slot| s.assignment.iter().all(|&(c, w)| free[c as usize] >= w);
        let overrunning = view
            .running
            .iter()
            .any(|&k| view.job(k).estimated_end <= now);
        let mut chain: BTreeSet<SimTime> = BTreeSet::new();
        let mut within = SimTime::MAX;
        if overrunning {
            chain.insert(now.saturating_add(SimTime(1)));
            // Jobs started now count too: held until their reservation's end.
            let started = out
                .iter()
                .map(|d| self.held[d.job.0].as_ref().expect("held").end);
            within = view.next_estimated_end(started).unwrap_or(SimTime::MAX);
        }
        for &(t, _, k) in self
            .by_start
            .range((now.saturating_add(SimTime(1)), 0, 0)..)
        {
            let s = self.slots[k].as_ref().expect("listed");
            if t < within && chain.contains(&t) {
                chain.insert(t.saturating_add(s.span));
                continue;
            }
            if fits(s) {
                return Some(t);
            }
        }
        None
    }

    /// What the console shows: the first waiting job's reservation and
    /// the processors left over then.
    pub(super) fn head_plan(
        &self,
        view: &SystemView<'_>,
        out: &[Start],
        profile: &Profile,
    ) -> BackfillView {
        let mut plan = BackfillView::default();
        let heads = out.iter().filter(|d| d.kind == StartKind::Head).count();
        if let Some(&k) = view.queue.get(heads)
            && let Some(start) = self.slot(k).map(|s| s.start)
        {
            plan.head = Some(view.job(k).id);
            plan.shadow = Some(start);
            plan.extra = profile.free_at_time(start);
        }
        plan
    }
}
