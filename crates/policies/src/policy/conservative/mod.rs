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
//!
//! Here are the policy's state and its decision point; the room given back
//! since a reservation was made is summarised in `given_back`, the running
//! jobs are followed in `running`, reservations are made and moved in
//! `reserve`, and what a decision point starts and shows is in `starts`.

mod given_back;
mod reserve;
mod running;
mod starts;

use super::backfill;
use super::placement::{Assignment, Placement};
use super::profile::Profile;
use super::{Phased, PolicySpec, PolicyState, Start, SystemView};
use crate::model::SimTime;
use crate::policy::BuildPlacement;
use crate::policy::Machines;
use crate::policy::SortQueue;
use crate::policy::catalog::common::{MACHINES, ORDER, PLACEMENT, backfill_label, one_cluster};
use crate::policy::catalog::{Param, ParamKind, PolicyEntry};
use crate::policy::{SharedParams, names};
use crate::sched::{BackfillView, JobKey};
use given_back::GivenBack;
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

/// A running job as the profile holds it: its processors until `end`.
#[derive(Clone, Debug)]
struct Held {
    arrival: u64,
    end: SimTime,
    assignment: Assignment,
    /// The decision point that last saw it running.
    seen: u64,
}

#[derive(Clone)]
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

    /// Conservative backfilling with `placement`, its reading of broken
    /// reservations that of `spec`.
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

    /// The queue positions in scan order.
    fn scan_order(&mut self, view: &SystemView<'_>) -> Vec<usize> {
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..view.queue.len());
        self.spec.order().sort(view, &mut order);
        order
    }

    /// One decision point (see the module's notes): the kept profile and
    /// the reservations follow what changed since the last one, then the
    /// jobs whose reservation is due start.
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
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
        let mut profile = self.kept_profile(view);
        let (freed, taken) = self.follow_running(view, &mut profile);
        let edited = self.follow_edits(view, &mut profile);
        self.replan(view, &mut profile, freed || taken || edited, taken);
        #[cfg(debug_assertions)]
        {
            let fresh = self.fresh_profile(now, view.free);
            debug_assert!(
                profile.same_counts(&fresh),
                "the kept profile drifted from the reservations at {now:?}"
            );
        }
        let free = self.start_due(view, out);
        self.hold_started(now, out);
        self.wake = self.next_wake(view, out, &free);
        self.plan = self.head_plan(view, out, &profile);
        self.compact_if_stale(&mut profile);
        self.profile = Some(profile);
    }

    /// The profile kept from the last decision point, advanced to now; at
    /// the first decision point, one built from the running jobs.
    fn kept_profile(&mut self, view: &SystemView<'_>) -> Profile {
        match self.profile.take() {
            Some(mut p) => {
                p.advance(view.now);
                p
            }
            None => {
                self.full_rate = crate::sched::rate::full_rate_everywhere(view.platform);
                self.first_profile(view)
            }
        }
    }

    /// A job was put back in the queue or estimates changed: a reservation
    /// made for another estimate is given up. Whether the queue was edited
    /// (the reservations are then compressed).
    fn follow_edits(&mut self, view: &SystemView<'_>, profile: &mut Profile) -> bool {
        if view.queue_edits == self.queue_edits {
            return false;
        }
        self.queue_edits = view.queue_edits;
        for &k in view.queue {
            let j = view.job(k);
            if let Some(s) = self.slot(k)
                && s.estimate != j.estimate
            {
                let s = self.take_slot(k).expect("has one");
                self.given.give(profile, s.start, s.span, &s.assignment);
            }
        }
        true
    }

    /// Kept across decision points, the profile collects steps where
    /// nothing changes any more (a moved reservation leaves its old
    /// boundaries behind). They change no answer but every search walks
    /// them: they are merged away once the releases since the last time
    /// could have left a quarter of the steps stale.
    fn compact_if_stale(&mut self, profile: &mut Profile) {
        if self.given.since_compact * 8 > profile.steps() + 256 {
            self.given.since_compact = 0;
            profile.compact();
        }
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
        self.starts(view, out);
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

    /// The pass run on a copy: the job starts if the copy starts it, else
    /// its reservation says when and where.
    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> crate::sched::Explanation {
        let mut pass = self.clone();
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        let slot = pass
            .slot(key)
            .map(|s| (s.start, s.estimate, s.assignment.clone()));
        backfill::explain_reserved(view, key, &starts, slot)
    }
}

/// How a reservation an overrun broke is placed again.
pub const BROKEN: Param = Param {
    key: "broken",
    title: "broken",
    hint: "re-placing a reservation an overrun broke",
    kind: ParamKind::Choice {
        values: &["in-order", "around-later"],
        default: "in-order",
        shown: &[],
    },
};

/// Its catalog entry.
pub const CONSERVATIVE_ENTRY: PolicyEntry = PolicyEntry {
    name: names::CONSERVATIVE,
    summary: "conservative backfilling: every queued job holds a \
              reservation, a job starts early only if it delays none",
    params: &[ORDER, PLACEMENT, MACHINES, BROKEN],
    label: |s| backfill_label("conservative backfilling", s),
    build: |s, p| match s.machines() {
        Machines::Pinned => {
            one_cluster(p)?;
            Ok(Box::new(crate::policy::pinned::PinnedConservative::new(
                s.clone(),
            )))
        }
        Machines::Counted => Ok(Box::new(Conservative::new(
            s.placement().build(),
            s.clone(),
        ))),
    },
};

#[cfg(test)]
mod tests;
