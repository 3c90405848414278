//! The one decision call. At a decision point the engine asks the policy
//! [`Policy::decide`] with the view and a [`Decisions`] to fill: the
//! decisions to carry out now, in order (start, abort, resize, reserve),
//! whether to be asked again at once when they are in (to see their
//! effect), and when to be woken if nothing else happens.
//!
//! A policy that thinks in steps (reshape running jobs, abort for the
//! head, reserve, start, reshape again) writes them as a [`Phased`]
//! policy and is a [`Policy`] by that alone: each step sees the effect of
//! the one before, as the rounds of one decision point.

use super::{
    Abort, BackfillView, Decision, Explanation, JobKey, JobView, Policy, PolicySpec, PolicyState,
    Reserve, Start, SystemView, admits_widths, explain,
};
use crate::model::{Platform, SimTime};

/// What the engine carried out of a round's decisions (refused ones
/// aside).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Carried {
    pub starts: u32,
    pub aborts: u32,
    pub resizes: u32,
    pub grants: u32,
    pub refused: u32,
}

/// A policy's answer at a decision point, filled by
/// [`Policy::decide`]; the engine owns it and reuses it across decision
/// points.
#[derive(Debug, Default)]
pub struct Decisions {
    list: Vec<Decision>,
    again: bool,
    wakes: Vec<SimTime>,
    step: u32,
    round: u32,
    carried: Carried,
    failed: Option<String>,
    // A phased policy's buffers, kept to spare allocations.
    starts: Vec<Start>,
    aborts: Vec<Abort>,
    asks: Vec<Reserve>,
}

impl Decisions {
    /// Starts `start` (its job leaves the queue).
    pub fn start(&mut self, start: Start) {
        self.list.push(Decision::Start(start));
    }

    /// Any decision, carried out in the order given.
    pub fn push(&mut self, decision: Decision) {
        self.list.push(decision);
    }

    /// Asks to decide again at this instant once this round's decisions
    /// are carried out, with a view that shows them. The engine bounds the
    /// rounds of one decision point ([`Decisions::MAX_ROUNDS`]).
    pub fn again(&mut self) {
        self.again = true;
    }

    /// Asks to decide again at `at` even if nothing else happens then. A
    /// time not ahead of now asks for another decision point at this
    /// instant, after its other events; the engine refuses it after a few
    /// in a row that changed nothing.
    pub fn wake_at(&mut self, at: SimTime) {
        self.wakes.push(at);
    }

    /// Stops the run: the policy cannot go on (an external scheduler that
    /// stopped answering, say). The engine carries out nothing more, ends
    /// the run at this instant and reports `reason` as the run's error.
    pub fn fail(&mut self, reason: impl Into<String>) {
        self.failed.get_or_insert_with(|| reason.into());
    }

    /// The decisions of this round so far.
    pub fn decisions(&self) -> &[Decision] {
        &self.list
    }

    /// Which round of this decision point this is (0 for the first).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// What the engine carried out of the previous round's decisions
    /// (nothing in the first round).
    pub fn carried(&self) -> Carried {
        self.carried
    }

    /// A policy's own marker of where it is in this decision point's
    /// rounds: 0 in the first round, kept from round to round.
    pub fn step(&self) -> u32 {
        self.step
    }

    /// Whether a [`Phased`] policy has passed its schedule step at this
    /// decision point: its later rounds start nothing.
    pub fn past_schedule(&self) -> bool {
        self.step > step::SCHEDULE && (self.step != step::DONE || self.round > 0)
    }

    /// Sets [`Decisions::step`].
    pub fn set_step(&mut self, step: u32) {
        self.step = step;
    }

    /// The most rounds of one decision point: past them the engine stops
    /// asking and refuses the ask.
    pub const MAX_ROUNDS: u32 = 16;

    // The engine's side.

    /// Readies for a new decision point.
    pub fn begin_point(&mut self) {
        self.step = 0;
        self.round = 0;
        self.carried = Carried::default();
        self.wakes.clear();
        self.list.clear();
        self.again = false;
    }

    /// Takes this round's decisions for carrying out, and whether the
    /// policy asked again; readies the next round.
    pub fn take_round(&mut self) -> (std::vec::Drain<'_, Decision>, bool) {
        let again = std::mem::take(&mut self.again);
        self.round += 1;
        (self.list.drain(..), again)
    }

    /// Records what the engine carried out of the round just taken.
    pub fn set_carried(&mut self, carried: Carried) {
        self.carried = carried;
    }

    /// Why the policy stopped the run, if it did ([`Decisions::fail`]).
    pub fn take_failure(&mut self) -> Option<String> {
        self.failed.take()
    }

    /// The wake-up times asked at this decision point, in order.
    pub fn wakes(&self) -> &[SimTime] {
        &self.wakes
    }
}

/// The steps of a [`Phased`] policy's decision point, in order.
mod step {
    pub const RESHAPE: u32 = 0;
    pub const ABORTS: u32 = 1;
    pub const RESERVE: u32 = 2;
    pub const SCHEDULE: u32 = 3;
    pub const RESHAPE_AFTER: u32 = 4;
    pub const WAKE: u32 = 5;
    pub const DONE: u32 = 6;
}

/// A policy told in steps, each seeing the effect of the one before
/// (the engine carries out each step's decisions and asks again): at a
/// decision point, [`Phased::reshape`] while jobs run, [`Phased::aborts`]
/// when overrunning jobs are requeued, then, with jobs queued,
/// [`Phased::reserve`] and [`Phased::schedule`], [`Phased::reshape`] again
/// after starts, and last the times to be woken. Every such type is a
/// [`Policy`].
pub trait Phased: Send {
    fn spec(&self) -> &PolicySpec;

    /// Appends the running jobs to abort now, before anything starts
    /// (asked only when overrunning jobs are requeued, jobs wait and jobs
    /// run).
    fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Abort>) {}

    /// Appends the jobs to start now, in order. The free counts in `view`
    /// do not change while the policy runs; it must account for its own
    /// decisions.
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>);

    /// Once its starts are carried out (`view` shows them), when overrunning
    /// jobs are requeued: when to decide again for the sake of aborts to
    /// come, if at all (now, to abort at once; or when the head's
    /// reservation comes due).
    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }

    /// The policy's state for display.
    fn state(&self, view: &SystemView<'_>) -> PolicyState;

    /// See [`Policy::plan`].
    fn plan(&self, _view: &SystemView<'_>) -> Option<BackfillView> {
        None
    }

    /// See [`Policy::plan_rows`].
    fn plan_rows(&self, view: &SystemView<'_>, rows: &[JobKey]) -> Option<BackfillView> {
        let _ = rows;
        self.plan(view)
    }

    /// See [`Policy::sees_running_ends`].
    fn sees_running_ends(&self) -> bool {
        false
    }

    /// Appends aborts and resizes (folds and expansions) to carry out now,
    /// at every decision point with jobs running, before starts, and once
    /// more after them when some started.
    fn reshape(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Decision>) {}

    /// A time ahead of now at which the policy must decide again even if
    /// nothing else happens then.
    fn wake_at(&self) -> Option<SimTime> {
        None
    }

    /// See [`Policy::admits`].
    fn admits(&self, job: &JobView, platform: &Platform) -> Result<(), String> {
        admits_widths(job, platform)
    }

    /// Appends the advance reservations to ask for now, before any start
    /// of this decision point (the granted ones are in the view when
    /// [`Phased::schedule`] runs).
    fn reserve(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Reserve>) {}

    /// See [`Policy::explain`].
    fn explain(&self, view: &SystemView<'_>, job: JobKey) -> Explanation {
        explain::generic(view, job)
    }
}

impl<P: Phased + ?Sized> Policy for P {
    fn spec(&self) -> &PolicySpec {
        Phased::spec(self)
    }

    fn decide(&mut self, view: &SystemView<'_>, out: &mut Decisions) {
        // Each step runs on the view it is given; one that decides
        // something ends the round, so that the next step sees it done.
        loop {
            match out.step {
                step::RESHAPE => {
                    out.step = step::ABORTS;
                    if !view.running.is_empty() {
                        self.reshape(view, &mut out.list);
                        if !out.list.is_empty() {
                            return out.again();
                        }
                    }
                }
                step::ABORTS => {
                    out.step = step::RESERVE;
                    if view.requeue_expired && !view.queue.is_empty() && !view.running.is_empty() {
                        let mut aborts = std::mem::take(&mut out.aborts);
                        self.aborts(view, &mut aborts);
                        out.list.extend(aborts.drain(..).map(Decision::Abort));
                        out.aborts = aborts;
                        if !out.list.is_empty() {
                            return out.again();
                        }
                    }
                }
                step::RESERVE => {
                    if view.queue.is_empty() {
                        out.step = step::DONE;
                        return;
                    }
                    out.step = step::SCHEDULE;
                    let mut asks = std::mem::take(&mut out.asks);
                    self.reserve(view, &mut asks);
                    out.list.extend(asks.drain(..).map(Decision::Reserve));
                    out.asks = asks;
                    if !out.list.is_empty() {
                        return out.again();
                    }
                }
                step::SCHEDULE => {
                    let mut starts = std::mem::take(&mut out.starts);
                    self.schedule(view, &mut starts);
                    out.list.extend(starts.drain(..).map(Decision::Start));
                    out.starts = starts;
                    if !out.list.is_empty() {
                        out.step = step::RESHAPE_AFTER;
                        return out.again();
                    }
                    out.step = step::WAKE;
                }
                step::RESHAPE_AFTER => {
                    out.step = step::WAKE;
                    if out.carried.starts > 0 && !view.running.is_empty() {
                        self.reshape(view, &mut out.list);
                        if !out.list.is_empty() {
                            return out.again();
                        }
                    }
                }
                step::WAKE => {
                    out.step = step::DONE;
                    if view.requeue_expired
                        && let Some(t) = self.recheck_at(view)
                    {
                        out.wake_at(t);
                    }
                    if let Some(t) = self.wake_at().filter(|&t| t > view.now) {
                        out.wake_at(t);
                    }
                    return;
                }
                _ => return,
            }
        }
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        Phased::state(self, view)
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        Phased::plan(self, view)
    }

    fn plan_rows(&self, view: &SystemView<'_>, rows: &[JobKey]) -> Option<BackfillView> {
        Phased::plan_rows(self, view, rows)
    }

    fn sees_running_ends(&self) -> bool {
        Phased::sees_running_ends(self)
    }

    fn admits(&self, job: &JobView, platform: &Platform) -> Result<(), String> {
        Phased::admits(self, job, platform)
    }

    fn explain(&self, view: &SystemView<'_>, job: JobKey) -> Explanation {
        Phased::explain(self, view, job)
    }
}
