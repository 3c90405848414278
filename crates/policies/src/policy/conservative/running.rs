//! The running jobs as the kept profile holds them: the profile at the
//! first decision point, and the profile following the jobs' expected ends
//! from one decision point to the next.

use super::super::backfill::expected_end;
use super::super::profile::Profile;
use super::{Conservative, Held};
use crate::model::SimTime;
use crate::sched::SystemView;

impl Conservative {
    /// The profile built afresh from the running jobs as held and the
    /// reservations (debug builds check the kept one against it).
    #[cfg(debug_assertions)]
    pub(super) fn fresh_profile(&self, now: SimTime, free: &[u32]) -> Profile {
        let mut changes: Vec<(SimTime, u16, i64)> =
            Vec::with_capacity(self.holding.len() + 2 * self.reserved);
        for &k in &self.holding {
            let h = self.held[k].as_ref().expect("listed");
            changes.extend(h.assignment.iter().map(|&(c, w)| (h.end, c, w as i64)));
        }
        for &(_, _, k) in &self.by_start {
            let s = self.slots[k].as_ref().expect("listed");
            for &(c, w) in &s.assignment {
                changes.push((s.start, c, -(w as i64)));
                changes.push((s.start.saturating_add(s.span), c, w as i64));
            }
        }
        Profile::from_changes(now, free, &mut changes)
    }

    /// The profile at the first decision point, which may come in the
    /// middle of a run (a policy switch): the free processors now, and
    /// each running job's processors back at its expected end. The running
    /// jobs are held from here on like the ones this policy starts.
    pub(super) fn first_profile(&mut self, view: &SystemView<'_>) -> Profile {
        let now = view.now;
        let mut changes = Vec::with_capacity(view.running.len());
        for &k in view.running {
            let j = view.job(k);
            let end = expected_end(now, j);
            changes.extend(j.assignment.iter().map(|&(c, w)| (end, c, w as i64)));
            self.hold(
                k.0,
                Held {
                    arrival: j.arrival,
                    end,
                    assignment: j.assignment.clone(),
                    seen: self.epoch,
                },
            );
        }
        Profile::from_changes(now, view.free, &mut changes)
    }

    /// Brings the held running jobs up to date with the view: jobs that
    /// ended before their expected end give room back, jobs whose expected
    /// end moved later take more. Returns (room given back, room taken).
    pub(super) fn follow_running(
        &mut self,
        view: &SystemView<'_>,
        profile: &mut Profile,
    ) -> (bool, bool) {
        self.epoch += 1;
        let (freed, taken) = self.follow_seen(view, profile);
        let ended = self.drop_unseen(view.now, profile);
        (freed || ended, taken)
    }

    /// The running jobs of the view, each marked seen at this decision
    /// point: a held one whose expected end moved gives room back or takes
    /// more; one not held yet is held from now on. Returns (room given
    /// back, room taken).
    fn follow_seen(&mut self, view: &SystemView<'_>, profile: &mut Profile) -> (bool, bool) {
        let now = view.now;
        let epoch = self.epoch;
        let (mut freed, mut taken) = (false, false);
        for &k in view.running {
            let j = view.job(k);
            let end = expected_end(now, j);
            match self.held.get_mut(k.0).and_then(Option::as_mut) {
                Some(h) if h.arrival == j.arrival => {
                    h.seen = epoch;
                    if h.end < end {
                        let from = h.end.max(now);
                        profile.reserve(from, end - from, &h.assignment);
                        taken = true;
                    } else if h.end > end {
                        let from = end.max(now);
                        self.given.give(profile, from, h.end - from, &h.assignment);
                        freed = true;
                    }
                    h.end = end;
                }
                other => {
                    // Started by another policy (or the slot was reused):
                    // it holds its processors from now on.
                    if let Some(h) = other
                        && h.end > now
                    {
                        self.given.give(profile, now, h.end - now, &h.assignment);
                        freed = true;
                    }
                    profile.reserve(now, end - now, &j.assignment);
                    taken = true;
                    self.hold(
                        k.0,
                        Held {
                            arrival: j.arrival,
                            end,
                            assignment: j.assignment.clone(),
                            seen: epoch,
                        },
                    );
                }
            }
        }
        (freed, taken)
    }

    /// Held jobs not seen running at this decision point (ended, killed,
    /// or put back in the queue) give their room from `now` back and are
    /// held no more. Whether any room was given back.
    fn drop_unseen(&mut self, now: SimTime, profile: &mut Profile) -> bool {
        let epoch = self.epoch;
        let mut freed = false;
        let mut i = 0;
        while i < self.holding.len() {
            let k = self.holding[i];
            let h = self.held[k].as_ref().expect("listed");
            if h.seen == epoch {
                i += 1;
                continue;
            }
            // Ended (or killed, or put back in the queue).
            if h.end > now {
                self.given.give(profile, now, h.end - now, &h.assignment);
                freed = true;
            }
            self.held[k] = None;
            self.holding.swap_remove(i);
        }
        freed
    }
}
