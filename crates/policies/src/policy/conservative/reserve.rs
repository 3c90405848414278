//! Reservations made and moved: a job placed at the earliest time it
//! fits, reservations that no longer hold given up, and the queue's
//! reservations compressed in scan order.

use super::super::backfill::expected_span;
use super::super::profile::Profile;
use super::{Assignment, Conservative, Slot};
use crate::model::SimTime;
use crate::policy::SharedParams;
use crate::policy::SortQueue;
use crate::sched::{JobKey, SystemView};

impl Conservative {
    /// The reservations brought up to date with what changed since the
    /// last decision point (`changed`; `taken`: room was taken by a job
    /// outliving its estimate). A reservation whose time has passed
    /// without its job starting, or one that no longer fits because a job
    /// outlived its estimate, is given up before anything is placed, so
    /// that it blocks nobody; its job is placed again in its turn. After
    /// any change every reservation is looked at again in scan order;
    /// otherwise only the arrivals are placed.
    pub(super) fn replan(
        &mut self,
        view: &SystemView<'_>,
        profile: &mut Profile,
        changed: bool,
        taken: bool,
    ) {
        let mut compress = changed;
        let overdue = self.by_start.first().is_some_and(|&(t, _, _)| t < view.now);
        let order = if compress || overdue {
            let order = self.scan_order(view);
            if self.give_up_broken(view, profile, &order, taken) {
                compress = true;
            }
            Some(order)
        } else {
            None
        };
        if compress {
            let order = order.expect("computed when compressing");
            self.compress(view, profile, order);
        } else if self.reserved < view.queue.len() {
            self.place_arrivals(view, profile);
        }
    }

    /// Gives up, in scan `order`, the reservations whose time has passed
    /// and those an overrun broke (under `broken = "in-order"`, with every
    /// one after the first broken): whether a reservation still holds
    /// depends on those given up before it. Whether any was given up.
    fn give_up_broken(
        &mut self,
        view: &SystemView<'_>,
        profile: &mut Profile,
        order: &[usize],
        taken: bool,
    ) -> bool {
        let now = view.now;
        // Only a reservation over a step with a count below zero can
        // fail to hold: those lie between these bounds.
        let negative = if taken {
            profile.negative_bounds()
        } else {
            None
        };
        // Under `broken = "in-order"`, once an overrun has broken one
        // reservation every later one is given up too.
        let mut cascade = false;
        let mut gave_up = false;
        for &i in order {
            let key = view.queue[i];
            let Some(s) = self.slot(key) else {
                continue;
            };
            let broken = !cascade
                && negative.is_some_and(|(lo, hi)| {
                    let to = s.start.saturating_add(s.span);
                    to > lo && s.start.max(now) < hi && !profile.holds(s.start, to, &s.assignment)
                });
            cascade |= broken && self.in_order;
            if cascade || broken || s.start < now {
                let s = self.take_slot(key).expect("has one");
                self.given.give(profile, s.start, s.span, &s.assignment);
                gave_up = true;
            }
        }
        gave_up
    }

    /// Every queued job, in scan `order`, placed anew (no reservation) or
    /// moved to the earliest time it fits.
    fn compress(&mut self, view: &SystemView<'_>, profile: &mut Profile, order: Vec<usize>) {
        // Every queued job is placed anew or looked at again below:
        // what was given back before now is accounted for.
        let pass = self.given.count;
        for &i in &order {
            let key = view.queue[i];
            if self.slot(key).is_some() {
                self.compress_one(view, profile, key);
            } else {
                self.place(view, profile, key);
            }
        }
        self.given.forget_before(pass);
        self.order = order;
    }

    /// Only arrivals: they are at the end of the queue; they are placed in
    /// scan order among themselves.
    fn place_arrivals(&mut self, view: &SystemView<'_>, profile: &mut Profile) {
        let missing = view.queue.len() - self.reserved;
        let tail = view.queue.len() - missing;
        let mut new: Vec<usize> = if view.queue[tail..].iter().all(|&k| self.slot(k).is_none()) {
            (tail..view.queue.len()).collect()
        } else {
            (0..view.queue.len())
                .filter(|&i| self.slot(view.queue[i]).is_none())
                .collect()
        };
        self.spec.order().sort(view, &mut new);
        for i in new {
            self.place(view, profile, view.queue[i]);
        }
    }

    /// Places a job without a reservation at the earliest time it fits.
    fn place(&mut self, view: &SystemView<'_>, profile: &mut Profile, key: JobKey) {
        let now = view.now;
        let platform = view.platform;
        let job = view.job(key);
        let estimate = job.estimate;
        let span_of = |a: &Assignment| expected_span(platform, estimate, a);
        let found = if platform.clusters.len() == 1 {
            let w = job.size;
            let span = span_of(&vec![(0, w)]);
            if self.found_at != self.given.count {
                self.found.clear();
                self.found_at = self.given.count;
            }
            let known = self.found.entry(w).or_default();
            let from = known
                .range(..=span)
                .next_back()
                .map_or(now, |(_, &t)| t.max(now));
            let t = profile.earliest_single(from, SimTime::MAX, w, span, None);
            debug_assert_eq!(
                t,
                profile.earliest_single(now, SimTime::MAX, w, span, None),
                "a start found before bounds a later search wrongly"
            );
            if let Some(t) = t {
                known.insert(span, t);
            }
            t.map(|t| (t, vec![(0u16, w)]))
        } else {
            profile.earliest(
                now,
                &job.widths(view.platform),
                estimate,
                self.placement.as_ref(),
                &span_of,
            )
        };
        let Some((start, assignment)) = found else {
            return; // can never be placed (validation prevents this)
        };
        let span = span_of(&assignment);
        profile.reserve(start, span, &assignment);
        self.put_slot(
            key,
            Slot {
                arrival: job.arrival,
                start,
                span,
                estimate,
                assignment,
                seen: self.given.count,
            },
        );
    }

    /// Moves a job's reservation to the earliest time it fits, with every
    /// other reservation in place.
    fn compress_one(&mut self, view: &SystemView<'_>, profile: &mut Profile, key: JobKey) {
        if view.platform.clusters.len() == 1 {
            self.compress_single(view.now, profile, key);
        } else if !self.full_rate {
            let old = self.take_slot(key).expect("has a reservation");
            self.given
                .give(profile, old.start, old.span, &old.assignment);
            self.place(view, profile, key);
        } else {
            self.compress_full_rate(view, profile, key);
        }
    }

    /// [`Conservative::compress_one`] on one cluster: the reservation
    /// moves earlier, in place, only into a window that overlaps room given
    /// back since it was made.
    fn compress_single(&mut self, now: SimTime, profile: &mut Profile, key: JobKey) {
        let count = self.given.count;
        let s = self.slots[key.0].as_mut().expect("has a reservation");
        let (start, span, w, seen) = (s.start, s.span, s.assignment[0].1, s.seen);
        s.seen = count;
        let own = (start, start.saturating_add(span), w);
        // It was placed at the earliest time it fitted: it can move
        // only into a window that overlaps room given back since.
        let bounds = self.given.since(seen).and_then(|(lo, hi)| {
            let from = now.max(SimTime(lo.0.saturating_sub(span.0)));
            let before = start.min(hi);
            // No step before then has room for it: it cannot move
            // earlier (the common case deep in a long queue; on a
            // short profile the search itself is as cheap).
            (from < before && (profile.is_short() || profile.max_free_before(before) >= w as i64))
                .then_some((from, before))
        });
        let Some((from, before)) = bounds else {
            debug_assert_eq!(
                profile.earliest_single(now, start, w, span, Some(own)),
                None,
                "a reservation that could move earlier was left"
            );
            return;
        };
        let moved = profile.earliest_single(from, before, w, span, Some(own));
        debug_assert_eq!(
            moved,
            profile.earliest_single(now, start, w, span, Some(own)),
            "the bounded search missed an earlier start"
        );
        if let Some(t) = moved {
            let mut slot = self.take_slot(key).expect("has a reservation");
            // Only what changes: where the two windows overlap, the
            // processors stay held.
            let moved_by = (start - t).min(span);
            let end = t.saturating_add(span);
            self.given
                .give(profile, end.max(start), moved_by, &slot.assignment);
            profile.reserve(t, moved_by, &slot.assignment);
            slot.start = t;
            slot.seen = self.given.count;
            self.put_slot(key, slot);
        }
    }

    /// [`Conservative::compress_one`] on several clusters where every job
    /// runs at rate 1 wherever it is placed: the reservation is taken out
    /// and the job placed again, searching before its old start only where
    /// room was given back since.
    fn compress_full_rate(&mut self, view: &SystemView<'_>, profile: &mut Profile, key: JobKey) {
        let now = view.now;
        // Every job runs at rate 1 wherever it is placed, so whether a
        // window fits is monotone in the free counts (each placement finds
        // a place whenever one exists). The job was placed at the earliest
        // start it fitted: a start before its own fits now only in a
        // window that overlaps room given back since. Its own start still
        // fits (a reservation that no longer holds was given up), but the
        // placement there may differ now: it is looked at again.
        let given = self
            .given
            .since(self.slots[key.0].as_ref().expect("has one").seen);
        let old = self.take_slot(key).expect("has a reservation");
        let (start, span) = (old.start, old.span);
        self.given
            .give(profile, old.start, old.span, &old.assignment);
        let job = view.job(key);
        let widths = job.widths(view.platform);
        let full = |_: &Assignment| span;
        let placement = self.placement.as_ref();
        let size: i64 = widths.iter().map(|&w| w as i64).sum();
        let widest = widths.iter().copied().max().unwrap_or(0) as i64;
        let earlier = given.and_then(|(lo, hi)| {
            let from = now.max(SimTime(lo.0.saturating_sub(span.0)));
            let before = start.min(hi);
            if from >= before {
                return None;
            }
            // No step before then has room for it: it cannot move earlier
            // (the common case deep in a long queue).
            let (room, top) = profile.max_room_before(before);
            if room < size || top < widest {
                return None;
            }
            profile.earliest_before(from, before, &widths, span, placement, &full)
        });
        let found =
            earlier.or_else(|| profile.earliest(start.max(now), &widths, span, placement, &full));
        debug_assert_eq!(
            found,
            profile.earliest(now, &widths, span, placement, &full),
            "the bounded search missed an earlier start"
        );
        let Some((start, assignment)) = found else {
            return;
        };
        profile.reserve(start, span, &assignment);
        self.put_slot(
            key,
            Slot {
                arrival: old.arrival,
                start,
                span,
                estimate: old.estimate,
                assignment,
                seen: self.given.count,
            },
        );
    }
}
