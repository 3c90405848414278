//! Conservative backfilling.
//!
//! Every queued job holds a reservation in the availability profile (the
//! running jobs' estimated ends plus the reservations of the jobs before it
//! in the scan order). A job starts when its reservation comes due, so a
//! job starts early only into a hole that delays no reservation.
//!
//! When a job ends earlier than expected the reservations are compressed
//! in order: each job's reservation is taken out and the job placed again
//! at the earliest time it fits, with every other reservation still in
//! place. Its old slot is still free then, so with exact estimates a
//! reservation only ever moves earlier. A new job is placed with all
//! existing reservations in place. Where an estimate proved too short, the
//! profile holds fewer processors than the reservations assumed and those
//! jobs move later: the reservations are recomputed from the new facts.
//!
//! How a reservation broken by an overrun is made again is a reading
//! (`[policy.params] broken`, counted processors). Conservative
//! backfilling promises that no job is delayed by a job behind it, so by
//! default (`"in-order"`) the broken reservation and every reservation
//! after it in the scan order are given up and placed again in that
//! order, each with only the ones before it in place. Under
//! `"around-later"` only the broken reservations are placed again, around
//! the later jobs' reservations that still hold: cheaper per overrun, but
//! a wide job can then be pushed back by narrower jobs behind it again and
//! again, and the queue grows.
//!
//! The profile and the reservations are kept from one decision point to
//! the next and changed by what happened in between (ends, overruns,
//! arrivals), so a decision costs what changed, not the length of the
//! queue; only a compression walks the whole queue. Debug builds check the
//! kept profile against one built afresh at every decision point.

use super::backfill::{self, expected_end, expected_span};
use super::placement::{Assignment, Placement};
use super::profile::Profile;
use super::{Phased, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::model::SimTime;
use crate::policy::SortQueue;
use crate::sched::{BackfillView, JobKey};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A queued job's reservation.
#[derive(Clone, Debug)]
struct Slot {
    arrival: u64,
    start: SimTime,
    span: SimTime,
    /// The estimate the reservation was made for.
    estimate: SimTime,
    assignment: Assignment,
    /// The count of room given back (`GivenBack::count`) when the job was
    /// last placed at the earliest time it fits.
    seen: u64,
}

/// Room given back to the profile, in order: a job placed at the earliest
/// time it fits can start earlier later only if room was given back since
/// over the window it would move to (room only ever shrinks otherwise, and
/// whether a window fits is monotone in the free counts). What a search
/// needs of the releases since a job was placed is kept summarised: their
/// earliest start and latest end.
#[derive(Debug, Default)]
struct GivenBack {
    /// Releases so far.
    count: u64,
    /// Releases before this one are forgotten: every queued job was placed
    /// after them.
    floor: u64,
    /// (release number, start) with starts rising: the earliest start of
    /// the releases from a number on is the first entry at or after it.
    starts: Vec<(u64, SimTime)>,
    /// (release number, end) with ends falling, likewise for the latest end.
    ends: Vec<(u64, SimTime)>,
    /// Releases since the profile was last compacted.
    since_compact: usize,
}

impl GivenBack {
    /// Gives `assignment`'s processors over [from, from + span) back to the
    /// profile and notes it.
    fn give(
        &mut self,
        profile: &mut Profile,
        from: SimTime,
        span: SimTime,
        assignment: &Assignment,
    ) {
        profile.release(from, span, assignment);
        self.since_compact += 1;
        let to = from.saturating_add(span);
        if to <= from {
            return;
        }
        let n = self.count;
        self.count += 1;
        while self.starts.last().is_some_and(|&(_, a)| a >= from) {
            self.starts.pop();
        }
        self.starts.push((n, from));
        while self.ends.last().is_some_and(|&(_, b)| b <= to) {
            self.ends.pop();
        }
        self.ends.push((n, to));
    }

    /// The earliest start and the latest end of the room given back from
    /// release `seen` on; `None` when none was.
    fn since(&self, seen: u64) -> Option<(SimTime, SimTime)> {
        if seen >= self.count {
            return None;
        }
        if seen < self.floor {
            return Some((SimTime(i64::MIN), SimTime::MAX));
        }
        let i = self.starts.partition_point(|&(n, _)| n < seen);
        let j = self.ends.partition_point(|&(n, _)| n < seen);
        Some((self.starts.get(i)?.1, self.ends.get(j)?.1))
    }

    /// Forgets the releases before `seen`.
    fn forget_before(&mut self, seen: u64) {
        self.floor = self.floor.max(seen);
        let i = self.starts.partition_point(|&(n, _)| n < seen);
        self.starts.drain(..i);
        let j = self.ends.partition_point(|&(n, _)| n < seen);
        self.ends.drain(..j);
    }
}

/// A running job as the profile holds it: its processors until `end`.
#[derive(Clone, Debug)]
struct Held {
    arrival: u64,
    end: SimTime,
    assignment: Assignment,
    /// The decision point that last saw it running.
    seen: u64,
}

pub struct Conservative {
    placement: Box<dyn Placement>,
    spec: PolicySpec,
    /// Free processors over time from now, with every running job and
    /// every reservation in it; `None` until the first decision point.
    profile: Option<Profile>,
    /// Reservations of queued jobs, by job key.
    slots: Vec<Option<Slot>>,
    reserved: usize,
    /// Reservations by (start, arrival, key): what comes due next.
    by_start: BTreeSet<(SimTime, u64, usize)>,
    /// Running jobs as the profile holds them, by job key.
    held: Vec<Option<Held>>,
    holding: Vec<usize>,
    /// The engine's queue-edit count at the last decision point.
    queue_edits: u64,
    /// Start points so far.
    epoch: u64,
    /// Reservations and holds given back. Each may also leave two steps
    /// behind where nothing changes any more.
    given: GivenBack,
    /// One cluster: earliest starts found by `place` since room was last
    /// given back, by width and span. Until room is given back the profile
    /// only fills up, so a job of the same width and at least that span
    /// cannot start before the start found (the earliest start rises with
    /// the span).
    found: HashMap<u32, BTreeMap<SimTime, SimTime>>,
    found_at: u64,
    /// The next time a reservation can start without anything ending
    /// first (see `wake_at`).
    wake: Option<SimTime>,
    order: Vec<usize>,
    plan: BackfillView,
    /// Whether the engine held advance reservations at the last decision
    /// point (see `forget`).
    saw_reservations: bool,
    /// `broken = "in-order"`: a reservation an overrun broke is placed
    /// again after the ones before it only (see the module's notes).
    in_order: bool,
    /// Whether every job runs at rate 1 wherever it is placed (known at
    /// the first decision point).
    full_rate: bool,
}

impl Conservative {
    /// Whether the placement puts `widths` on the processors `free` now
    /// (the test behind aborting expired jobs for the head).
    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        self.placement.place(widths, free).is_some()
    }

    pub fn new(placement: Box<dyn Placement>, spec: PolicySpec) -> Conservative {
        let in_order = super::catalog::choice(&spec, "broken").as_deref() != Some("around-later");
        Conservative {
            placement,
            spec,
            profile: None,
            slots: Vec::new(),
            reserved: 0,
            by_start: BTreeSet::new(),
            held: Vec::new(),
            holding: Vec::new(),
            queue_edits: 0,
            epoch: 0,
            given: GivenBack::default(),
            found: HashMap::new(),
            found_at: 0,
            wake: None,
            order: Vec::new(),
            plan: BackfillView::default(),
            saw_reservations: false,
            full_rate: false,
            in_order,
        }
    }

    /// Drops the kept profile and every reservation of queued jobs: the
    /// next decision point plans afresh from the processors free then.
    /// Advance reservations the engine holds (made by a policy this one
    /// replaced mid-run) take processors from the free pool and give them
    /// back at their windows' edges without any job starting or ending, so
    /// a kept profile cannot follow them; while any is held, and at the
    /// first decision point after the last one is over, the plan is made
    /// afresh.
    fn forget(&mut self) {
        self.profile = None;
        self.slots.clear();
        self.reserved = 0;
        self.by_start.clear();
        self.held.clear();
        self.holding.clear();
        self.given = GivenBack::default();
        self.found.clear();
        self.found_at = 0;
        self.wake = None;
    }

    fn slot(&self, key: JobKey) -> Option<&Slot> {
        self.slots.get(key.0).and_then(Option::as_ref)
    }

    fn put_slot(&mut self, key: JobKey, slot: Slot) {
        if self.slots.len() <= key.0 {
            self.slots.resize(key.0 + 1, None);
        }
        self.by_start.insert((slot.start, slot.arrival, key.0));
        if self.slots[key.0].replace(slot).is_none() {
            self.reserved += 1;
        }
    }

    fn take_slot(&mut self, key: JobKey) -> Option<Slot> {
        let s = self.slots.get_mut(key.0)?.take()?;
        self.by_start.remove(&(s.start, s.arrival, key.0));
        self.reserved -= 1;
        Some(s)
    }

    fn hold(&mut self, key: usize, held: Held) {
        if self.held.len() <= key {
            self.held.resize(key + 1, None);
        }
        if self.held[key].replace(held).is_none() {
            self.holding.push(key);
        }
    }

    /// The profile built afresh from the running jobs as held and the
    /// reservations (debug builds check the kept one against it).
    #[cfg(debug_assertions)]
    fn fresh_profile(&self, now: SimTime, free: &[u32]) -> Profile {
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
    fn first_profile(&mut self, view: &SystemView<'_>) -> Profile {
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
    fn follow_running(&mut self, view: &SystemView<'_>, profile: &mut Profile) -> (bool, bool) {
        let now = view.now;
        self.epoch += 1;
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
        (freed, taken)
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
        let now = view.now;
        if view.platform.clusters.len() == 1 {
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
                (from < before
                    && (profile.is_short() || profile.max_free_before(before) >= w as i64))
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
            return;
        }
        if !self.full_rate {
            let old = self.take_slot(key).expect("has a reservation");
            self.given
                .give(profile, old.start, old.span, &old.assignment);
            self.place(view, profile, key);
            return;
        }
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
    fn next_wake(&self, view: &SystemView<'_>, out: &[Start], free: &[u32]) -> Option<SimTime> {
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

    /// The queue positions in scan order.
    fn scan_order(&mut self, view: &SystemView<'_>) -> Vec<usize> {
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..view.queue.len());
        self.spec.order.sort(view, &mut order);
        order
    }
}

impl Phased for Conservative {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<crate::sched::Abort>) {
        let state = self.state(view);
        super::backfill::aborts_for_head(view, &state, &|w, f| self.fits_now(w, f), out);
    }

    fn recheck_at(&self, view: &SystemView<'_>) -> Option<crate::model::SimTime> {
        super::backfill::recheck_for_head(view, &self.state(view), &|w, f| self.fits_now(w, f))
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        let now = view.now;
        let reservations = !view.reservations.is_empty();
        if reservations || self.saw_reservations {
            self.forget();
        }
        self.saw_reservations = reservations;
        // What changed since the last decision point: a job that ended
        // before its expected end frees room (reservations may move
        // earlier); one that outlived its estimate takes room (they may
        // have to move later). Arrivals alone change neither.
        let mut profile = match self.profile.take() {
            Some(mut p) => {
                p.advance(now);
                p
            }
            None => {
                self.full_rate = crate::sched::rate::full_rate_everywhere(view.platform);
                self.first_profile(view)
            }
        };
        let (freed, taken) = self.follow_running(view, &mut profile);
        let mut compress = freed || taken;
        if view.queue_edits != self.queue_edits {
            // A job was put back in the queue or estimates changed: a
            // reservation made for another estimate is given up, and the
            // reservations are compressed.
            self.queue_edits = view.queue_edits;
            for &k in view.queue {
                let j = view.job(k);
                if let Some(s) = self.slot(k)
                    && s.estimate != j.estimate
                {
                    let s = self.take_slot(k).expect("has one");
                    self.given
                        .give(&mut profile, s.start, s.span, &s.assignment);
                }
            }
            compress = true;
        }
        // A reservation whose time has passed without its job starting, or
        // one that no longer fits because a job outlived its estimate, is
        // given up before anything is placed, so that it blocks nobody; its
        // job is placed again in its turn. In scan order: whether a
        // reservation still holds depends on those given up before it.
        let overdue = self.by_start.first().is_some_and(|&(t, _, _)| t < now);
        let order = if compress || overdue {
            let order = self.scan_order(view);
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
            for &i in &order {
                let key = view.queue[i];
                let Some(s) = self.slot(key) else {
                    continue;
                };
                let broken = !cascade
                    && negative.is_some_and(|(lo, hi)| {
                        let to = s.start.saturating_add(s.span);
                        to > lo
                            && s.start.max(now) < hi
                            && !profile.holds(s.start, to, &s.assignment)
                    });
                cascade |= broken && self.in_order;
                if cascade || broken || s.start < now {
                    let s = self.take_slot(key).expect("has one");
                    self.given
                        .give(&mut profile, s.start, s.span, &s.assignment);
                    compress = true;
                }
            }
            Some(order)
        } else {
            None
        };
        if compress {
            let order = order.expect("computed when compressing");
            // Every queued job is placed anew or looked at again below:
            // what was given back before now is accounted for.
            let pass = self.given.count;
            for &i in &order {
                let key = view.queue[i];
                if self.slot(key).is_some() {
                    self.compress_one(view, &mut profile, key);
                } else {
                    self.place(view, &mut profile, key);
                }
            }
            self.given.forget_before(pass);
            self.order = order;
        } else if self.reserved < view.queue.len() {
            // Only arrivals: they are at the end of the queue; place them
            // in scan order among themselves.
            let missing = view.queue.len() - self.reserved;
            let tail = view.queue.len() - missing;
            let mut new: Vec<usize> = if view.queue[tail..].iter().all(|&k| self.slot(k).is_none())
            {
                (tail..view.queue.len()).collect()
            } else {
                (0..view.queue.len())
                    .filter(|&i| self.slot(view.queue[i]).is_none())
                    .collect()
            };
            self.spec.order.sort(view, &mut new);
            for i in new {
                self.place(view, &mut profile, view.queue[i]);
            }
        }
        #[cfg(debug_assertions)]
        {
            let fresh = self.fresh_profile(now, view.free);
            debug_assert!(
                profile.same_counts(&fresh),
                "the kept profile drifted from the reservations at {now:?}"
            );
        }
        // Start the jobs whose reservation is due, in queue order.
        // A job that takes no time holds no room in the profile, so several
        // may be due on the same processors at one instant: start those
        // that fit; the others are given up at the next decision point
        // (the first end, at this instant) and placed again.
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
        for d in out.iter() {
            // Started now: it holds its reservation's processors until its
            // expected end, so the profile stays as it is.
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
        self.wake = self.next_wake(view, out, &free);
        // What the console shows: the first waiting job's reservation and
        // the processors left over then.
        self.plan = BackfillView::default();
        let heads = out.iter().filter(|d| d.kind == StartKind::Head).count();
        if let Some(&k) = view.queue.get(heads)
            && let Some(start) = self.slot(k).map(|s| s.start)
        {
            self.plan.head = Some(view.job(k).id);
            self.plan.shadow = Some(start);
            self.plan.extra = profile.free_at_time(start);
        }
        // Kept across decision points, the profile collects steps where
        // nothing changes any more (a moved reservation leaves its old
        // boundaries behind). They change no answer but every search
        // walks them: merge them away once the releases since the last
        // time could have left a quarter of the steps stale.
        if self.given.since_compact * 8 > profile.steps() + 256 {
            self.given.since_compact = 0;
            profile.compact();
        }
        self.profile = Some(profile);
    }

    fn wake_at(&self) -> Option<SimTime> {
        self.wake
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        backfill::reserved_state(view, |k| self.slot(k).map(|s| s.start))
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        backfill::reserved_plan(view, &self.plan, |k| self.slot(k).map(|s| s.start))
    }

    fn plan_rows(&self, view: &SystemView<'_>, rows: &[JobKey]) -> Option<BackfillView> {
        backfill::reserved_plan_rows(view, &self.plan, rows, self.reserved, |k| {
            self.slot(k).map(|s| s.start)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::JobView;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn s(x: i64) -> SimTime {
        SimTime::from_secs(x)
    }

    /// One cluster (of 4 processors unless said) and the policy's decision points,
    /// driven with views built by hand: the jobs running and their
    /// estimated ends are whatever a test says the engine shows.
    struct World {
        platform: crate::model::Platform,
        jobs: slab::Slab<crate::sched::JobView>,
        running: Vec<JobKey>,
        policy: Conservative,
        processors: u32,
    }

    fn view<'a>(
        platform: &'a crate::model::Platform,
        jobs: &'a slab::Slab<JobView>,
        running: &'a [JobKey],
        free: &'a [u32],
        now: i64,
        queue: &'a [JobKey],
    ) -> SystemView<'a> {
        SystemView {
            now: s(now),
            platform,
            free,
            queue,
            running,
            jobs,
            queue_edits: 0,
            requeue_expired: false,
            reservations: &[],
            seed: 0,
        }
    }

    impl World {
        fn new() -> World {
            World::of(4)
        }

        /// Under `[policy.params] broken = reading`.
        fn reading(mut self, reading: &str) -> World {
            let mut spec = PolicySpec {
                name: crate::sched::PolicyName::Conservative,
                ..PolicySpec::default()
            };
            spec.params.insert(
                "broken".to_string(),
                crate::sched::ParamValue::Text(reading.to_string()),
            );
            self.policy = Conservative::new(Box::new(super::super::placement::WorstFit), spec);
            self
        }

        fn of(processors: u32) -> World {
            World {
                processors,
                platform: crate::model::Platform::uniform(1, processors),
                jobs: slab::Slab::new(),
                running: Vec::new(),
                policy: Conservative::new(
                    Box::new(super::super::placement::WorstFit),
                    PolicySpec::default(),
                ),
            }
        }

        /// A job as the engine shows it: queued, or running on `size`
        /// processors until `end` (estimated) when `end` is given.
        fn job(&self, arrival: u64, size: u32, estimate: i64, end: Option<i64>) -> JobView {
            let mut j = JobView {
                id: arrival,
                size,
                estimate: s(estimate),
                arrival,
                rate: 1.0,
                ..JobView::default()
            };
            if let Some(end) = end {
                j.state = crate::sched::JobState::Running;
                j.assignment = vec![(0, size)];
                j.estimated_end = s(end);
            }
            j
        }

        fn run(&mut self, j: JobView) -> JobKey {
            let k = JobKey(self.jobs.insert(j));
            self.running.push(k);
            k
        }

        fn free(&self) -> [u32; 1] {
            let held: u32 = self.running.iter().map(|&k| self.jobs[k.0].size).sum();
            [self.processors - held]
        }

        /// A decision point at `now` with `queue` waiting: the ids started.
        fn decide(&mut self, now: i64, queue: &[JobKey]) -> Vec<u64> {
            let free = self.free();
            let view = view(&self.platform, &self.jobs, &self.running, &free, now, queue);
            let mut out = Vec::new();
            self.policy.schedule(&view, &mut out);
            out.iter().map(|d| self.jobs[d.job.0].id).collect()
        }

        /// The engine starts a job the policy started at `now`.
        fn start(&mut self, key: JobKey, now: i64) {
            let j = &mut self.jobs[key.0];
            j.state = crate::sched::JobState::Running;
            j.assignment = vec![(0, j.size)];
            j.estimated_end = s(now) + j.estimate;
            self.running.push(key);
        }

        /// What the console is shown at `now` with `queue` waiting.
        fn plan(&self, now: i64, queue: &[JobKey]) -> Option<BackfillView> {
            let free = self.free();
            let view = view(&self.platform, &self.jobs, &self.running, &free, now, queue);
            self.policy.plan(&view)
        }

        fn reserved_at(&self, key: JobKey) -> Option<SimTime> {
            self.policy.slot(key).map(|slot| slot.start)
        }
    }

    /// A running job's estimated end can move earlier (a job expanded, or
    /// running faster than its placement's speed): the room after it is
    /// given back and the reservation behind it moves up.
    #[test]
    fn a_running_job_ending_earlier_than_held_gives_the_room_back() {
        let mut w = World::new();
        let r = w.run(w.job(1, 4, 100, Some(100)));
        let q = JobKey(w.jobs.insert(w.job(2, 4, 10, None)));
        assert!(w.decide(0, &[q]).is_empty());
        assert_eq!(w.reserved_at(q), Some(s(100)));
        w.jobs[r.0].estimated_end = s(50);
        assert!(w.decide(1, &[q]).is_empty());
        assert_eq!(w.reserved_at(q), Some(s(50)));
        // And later again: the reservation follows it.
        w.jobs[r.0].estimated_end = s(70);
        assert!(w.decide(2, &[q]).is_empty());
        assert_eq!(w.reserved_at(q), Some(s(70)));
    }

    /// A job running that the policy never started nor saw (started by
    /// another policy before a switch) holds its processors from the
    /// decision point that first sees it until its expected end.
    #[test]
    fn a_running_job_never_seen_holds_its_processors_until_its_end() {
        let mut w = World::new();
        w.run(w.job(1, 2, 50, Some(50)));
        assert!(w.decide(0, &[]).is_empty());
        w.run(w.job(2, 2, 80, Some(80)));
        let q = JobKey(w.jobs.insert(w.job(3, 4, 10, None)));
        assert!(w.decide(10, &[q]).is_empty());
        assert_eq!(w.reserved_at(q), Some(s(80)));
    }

    /// A queue long enough that the profile is searched block by block:
    /// when the running job ends early every reservation moves up by what
    /// it gave back, the last one too.
    #[test]
    fn a_long_queue_moves_up_when_a_job_ends_early() {
        let mut w = World::new();
        let r = w.run(w.job(0, 4, 100, Some(100)));
        // Three and four wide in turn: a step at every boundary.
        let queue: Vec<JobKey> = (1..=150)
            .map(|a| JobKey(w.jobs.insert(w.job(a, 3 + a as u32 % 2, 10, None))))
            .collect();
        assert!(w.decide(0, &queue).is_empty());
        assert_eq!(w.reserved_at(queue[149]), Some(s(100 + 1490)));
        assert!(!w.policy.profile.as_ref().expect("kept").is_short());
        w.running.retain(|&k| k != r);
        assert_eq!(w.decide(50, &queue), vec![1]);
        for (i, &q) in queue.iter().enumerate().skip(1) {
            assert_eq!(w.reserved_at(q), Some(s(50 + 10 * i as i64)), "{i}");
        }
    }

    /// A reservation an overrun breaks is placed again before the
    /// reservations of the jobs behind it (`broken = "in-order"`), not
    /// around them (`"around-later"`). On 4 processors S (2, expected to
    /// end at 100) and B (2, until 1,000) run; A (2 for 500 s) is reserved
    /// on S's processors at 100 and C (2 for 50 s), behind it, at 600. At
    /// 200 S is still running: A's reservation no longer holds. In order,
    /// A follows S and C follows A; around the later ones, C (behind A)
    /// takes the room first and A waits for it.
    #[test]
    fn a_reservation_an_overrun_breaks_goes_before_the_later_ones() {
        let tick = SimTime(1);
        for (reading, a_at, c_at) in [
            (None, s(200) + tick, s(700) + tick),
            (Some("in-order"), s(200) + tick, s(700) + tick),
            // C moves up into the room A gave up, and A goes after it.
            (Some("around-later"), s(650), s(200) + tick),
        ] {
            let mut w = match reading {
                Some(r) => World::new().reading(r),
                None => World::new(),
            };
            w.run(w.job(0, 2, 100, Some(100)));
            w.run(w.job(0, 2, 1000, Some(1000)));
            let a = JobKey(w.jobs.insert(w.job(1, 2, 500, None)));
            let c = JobKey(w.jobs.insert(w.job(2, 2, 50, None)));
            assert!(w.decide(0, &[a, c]).is_empty());
            assert_eq!(
                (w.reserved_at(a), w.reserved_at(c)),
                (Some(s(100)), Some(s(600)))
            );
            assert!(w.decide(200, &[a, c]).is_empty());
            assert_eq!(
                (w.reserved_at(a), w.reserved_at(c)),
                (Some(a_at), Some(c_at)),
                "{reading:?}"
            );
        }
    }

    /// It wakes for the first reservation that fits the processors free
    /// now, but not for one chained to a job past its estimate: that job
    /// is expected to end a tick from now at every decision point, and
    /// the chain moves on with it.
    #[test]
    fn it_wakes_for_a_reservation_that_fits_but_not_behind_an_overrun() {
        for (end, wake) in [(300, Some(s(310))), (100, None)] {
            let mut w = World::new();
            w.run(w.job(0, 2, end, Some(end)));
            let a = JobKey(w.jobs.insert(w.job(1, 4, 10, None)));
            let b = JobKey(w.jobs.insert(w.job(2, 2, 1000, None)));
            assert!(w.decide(200, &[a, b]).is_empty());
            // B fits the two processors free now, after A's reservation.
            let after_a = w.reserved_at(a).expect("placed") + s(10);
            assert_eq!(w.reserved_at(b), Some(after_a), "{end}");
            assert_eq!(w.policy.wake_at(), wake, "{end}");
        }
    }

    /// A reservation at the next estimated end of a job within its
    /// estimate is not chained behind the job past its estimate, though
    /// it begins where a chained one ends: it wakes the policy when it
    /// fits the processors free now. At 200, O (1 processor) is past its
    /// estimate, expected to end a tick from now; R1 (3 for 10 s) waits
    /// for it. W (1) is expected to end with R1. R2 (2 for 1,000 s) fits
    /// the two free now but not beside R1, so it waits for R1 and W.
    #[test]
    fn a_reservation_at_the_next_estimated_end_is_not_chained() {
        let tick = SimTime(1);
        let mut w = World::new();
        w.run(w.job(0, 1, 100, Some(100)));
        let end = s(210) + tick;
        let wj = w.run(w.job(0, 1, 300, Some(300)));
        w.jobs[wj.0].estimated_end = end;
        let r1 = JobKey(w.jobs.insert(w.job(1, 3, 10, None)));
        let r2 = JobKey(w.jobs.insert(w.job(2, 2, 1000, None)));
        assert!(w.decide(200, &[r1, r2]).is_empty());
        assert_eq!(w.reserved_at(r1), Some(s(200) + tick));
        assert_eq!(w.reserved_at(r2), Some(end));
        assert_eq!(w.policy.wake_at(), Some(end));
    }

    #[test]
    fn it_keeps_the_spec_it_was_built_with() {
        let spec = PolicySpec {
            name: crate::sched::PolicyName::Conservative,
            order: backfill::BackfillOrder::Smallest,
            ..PolicySpec::default()
        };
        assert_ne!(spec, PolicySpec::default());
        let c = Conservative::new(Box::new(super::super::placement::WorstFit), spec.clone());
        assert_eq!(c.spec(), &spec);
    }

    /// Jobs outliving their estimates leave two stretches short of room
    /// with one between where every reservation still holds. Under
    /// `broken = "around-later"` the one there is kept (the jobs before it
    /// in the scan order may not take its room), those over the short
    /// stretches are placed again: in the scan order, the first is given
    /// up, the second holds, the third is given up, and the fourth holds
    /// once the third's room is back; the first is placed again after the
    /// fourth, the second moves up into the room the first left, the third
    /// goes after them all and the fourth moves up behind the second. Under
    /// `"in-order"` (the default) every reservation from the first broken
    /// one on is placed again in order: the queue keeps its order.
    #[test]
    fn reservations_broken_by_shortfalls_under_each_reading() {
        for (reading, want) in [
            ("around-later", [230, 130, 250, 180]),
            ("in-order", [130, 180, 230, 230]),
        ] {
            let mut w = World::of(6).reading(reading);
            let r1 = w.run(w.job(0, 2, 100, Some(100)));
            let r2 = w.run(w.job(0, 2, 200, Some(200)));
            w.run(w.job(0, 2, 1000, Some(1000)));
            let queue: Vec<JobKey> = (1..=4)
                .map(|a| JobKey(w.jobs.insert(w.job(a, 2, 50, None))))
                .collect();
            let at = |w: &World| queue.iter().map(|&q| w.reserved_at(q)).collect::<Vec<_>>();
            assert!(w.decide(0, &queue).is_empty());
            assert_eq!(at(&w), [100, 150, 200, 200].map(|t| Some(s(t))));
            w.jobs[r1.0].estimated_end = s(130);
            w.jobs[r2.0].estimated_end = s(230);
            assert!(w.decide(10, &queue).is_empty());
            assert_eq!(at(&w), want.map(|t| Some(s(t))), "{reading}");
        }
    }

    /// Jobs that take no time hold no room, so two may be due at once on
    /// the same processors: only the one that fits is started.
    #[test]
    fn of_two_jobs_due_on_the_same_processors_one_starts() {
        let mut w = World::new();
        let a = JobKey(w.jobs.insert(w.job(1, 4, 0, None)));
        let b = JobKey(w.jobs.insert(w.job(2, 4, 0, None)));
        assert_eq!(w.decide(0, &[a, b]), vec![1]);
    }

    /// The console is shown the first job still waiting once the jobs
    /// started now are gone, its reservation and what is left beside it,
    /// and every queued job's reservation.
    #[test]
    fn the_plan_shows_the_first_waiting_job_and_every_reservation() {
        let mut w = World::new();
        w.run(w.job(0, 2, 100, Some(100)));
        let q: Vec<JobKey> = [(1, 2, 10), (2, 3, 10), (3, 1, 5)]
            .map(|(a, size, est)| JobKey(w.jobs.insert(w.job(a, size, est, None))))
            .to_vec();
        assert_eq!(w.decide(0, &q), vec![1]);
        w.start(q[0], 0);
        let plan = w.plan(0, &q[1..]).expect("a plan");
        assert_eq!(plan.head, Some(2));
        assert_eq!(plan.shadow, Some(s(100)));
        assert_eq!(plan.extra, vec![1]);
        assert_eq!(plan.reservations, vec![(2, s(100)), (3, s(10))]);
        assert_eq!(plan.reserved, 2);
    }

    /// Reservations moved again and again leave none of their old
    /// boundaries in the kept profile: it stays as long as the boundaries
    /// of the reservations in it.
    #[test]
    fn moved_reservations_leave_no_stale_steps() {
        let mut w = World::new();
        let r = w.run(w.job(0, 4, 200, Some(200)));
        let queue: Vec<JobKey> = (1..=150)
            .map(|a| JobKey(w.jobs.insert(w.job(a, 3 + a as u32 % 2, 10, None))))
            .collect();
        assert!(w.decide(0, &queue).is_empty());
        let live = w.policy.profile.as_ref().expect("kept").steps();
        for i in 1..=20 {
            let end = 200 - 5 * i;
            w.jobs[r.0].estimated_end = s(end);
            assert!(w.decide(i, &queue).is_empty());
            assert_eq!(w.reserved_at(queue[149]), Some(s(end + 1490)));
            let steps = w.policy.profile.as_ref().expect("kept").steps();
            assert_eq!(steps, live, "round {i}");
        }
    }

    /// A job's slot taken by another job running (the first one gone, the
    /// slot reused) between two decision points: the first job's room is
    /// given back and the new one holds its own processors to its own end.
    #[test]
    fn a_reused_slot_holds_the_new_job_not_the_old() {
        let mut w = World::new();
        let k = w.run(w.job(1, 2, 100, Some(100)));
        assert!(w.decide(0, &[]).is_empty());
        w.jobs[k.0] = w.job(7, 3, 60, Some(60));
        let q = JobKey(w.jobs.insert(w.job(8, 2, 10, None)));
        let q2 = JobKey(w.jobs.insert(w.job(9, 3, 10, None)));
        assert!(w.decide(10, &[q, q2]).is_empty());
        // One processor free until 60, all four after.
        assert_eq!(w.reserved_at(q), Some(s(60)));
        assert_eq!(w.reserved_at(q2), Some(s(70)));
    }

    /// The summary of room given back from a release on agrees with the
    /// releases themselves, through forgetting.
    #[test]
    fn given_back_bounds_the_releases_since() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut next = |m: u64| rng.random_range(0..m);
        let mut g = GivenBack::default();
        let mut p = Profile::new(s(0), &[1000], &[]);
        let mut log: Vec<(SimTime, SimTime)> = Vec::new();
        let mut checked = 0;
        for round in 0..2000 {
            let from = s(next(10_000) as i64);
            let span = s(next(50) as i64);
            p.reserve(from, span, &vec![(0, 1)]);
            g.give(&mut p, from, span, &vec![(0, 1)]);
            if span > SimTime(0) {
                log.push((from, from + span));
            }
            if round % 97 == 0 {
                let floor = log.len() as u64 / 2;
                g.forget_before(floor);
                assert!(g.floor >= floor);
                let kept = g.starts.iter().chain(&g.ends);
                assert!(kept.map(|e| e.0).all(|n| n >= floor), "forgotten");
            }
            let seen = next(log.len() as u64 + 2);
            let want = log.get(seen as usize..).filter(|l| !l.is_empty()).map(|l| {
                (
                    l.iter().map(|r| r.0).min().expect("some"),
                    l.iter().map(|r| r.1).max().expect("some"),
                )
            });
            match g.since(seen) {
                Some((lo, hi)) if seen < g.floor => {
                    assert_eq!((lo, hi), (SimTime(i64::MIN), SimTime::MAX))
                }
                got => {
                    assert_eq!(got, want, "from release {seen}");
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 1000 && g.starts.len() < log.len() / 10,
            "{checked}"
        );
        assert!(g.floor > 0, "some releases forgotten");
        // Every release counts towards the next compaction of the profile,
        // the empty ones too.
        assert_eq!(g.since_compact, 2000);
    }
}
