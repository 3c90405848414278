//! The decision pass: when the policy is asked, what it answered, and
//! how often a pass is asked for again at one instant. [`DecisionPass`]
//! holds the pass's own state; the engine asks the policy and carries its
//! decisions out.

use super::*;

/// The state of the decision points: whether one is due, the buffers of
/// the current one, and the bounds on passes at one instant.
#[derive(Debug, Default)]
pub(super) struct DecisionPass {
    /// Something changed since the last decision point: the policy is to
    /// decide again once the instant is settled.
    pub(super) dirty: bool,
    /// The policy's answer at the current decision point (a buffer).
    pub(super) decisions: Decisions,
    /// The jobs started in the current round (a buffer).
    pub(super) started: Vec<JobKey>,
    /// The instant of the last retry after a refused decision, and how
    /// many there were then.
    retried: (SimTime, u32),
    /// The instant of the last recheck the policy asked for at once, and
    /// how many passes in a row at that instant changed nothing.
    rechecked: (SimTime, u32),
    /// The last wake-up the policy asked for.
    wake: Option<SimTime>,
    /// The last decision refused, for the console's message line.
    last_refusal: Option<(SimTime, Refusal)>,
}

impl DecisionPass {
    /// Whether a pass at `now` with a refused decision is to be asked for
    /// again, up to [`REFUSAL_RETRIES`] times while jobs wait.
    fn retry(&mut self, now: SimTime, queue_empty: bool) -> bool {
        let tries = match self.retried {
            (t, n) if t == now => n,
            _ => 0,
        };
        if tries < REFUSAL_RETRIES && !queue_empty {
            self.retried = (now, tries + 1);
            return true;
        }
        false
    }

    /// Counts a pass at `now` that asks for another at once: `Err` with the
    /// passes in a row that changed nothing when there are too many.
    fn recheck(&mut self, now: SimTime, changed: bool) -> Result<(), u32> {
        let idle = match self.rechecked {
            (t, n) if t == now && !changed => n,
            _ => 0,
        };
        let idle = idle + u32::from(!changed);
        if idle > RECHECK_RETRIES {
            return Err(idle);
        }
        self.rechecked = (now, idle);
        Ok(())
    }

    /// Whether a wake-up at `t`, ahead, is new (one event per time).
    fn wake_ahead(&mut self, t: SimTime) -> bool {
        if self.wake == Some(t) {
            return false;
        }
        self.wake = Some(t);
        true
    }

    /// Whether what was refused last, at `now`, is the policy's ask for
    /// yet another pass.
    fn refused_recheck_at(&self, now: SimTime) -> bool {
        matches!(
            &self.last_refusal,
            Some((t, Refusal::Recheck { .. })) if *t == now
        )
    }

    /// Keeps `r`, refused at `at`, for the console's message line.
    pub(super) fn refused(&mut self, at: SimTime, r: Refusal) {
        self.last_refusal = Some((at, r));
    }

    pub(super) fn last_refusal(&self) -> Option<&(SimTime, Refusal)> {
        self.last_refusal.as_ref()
    }
}

impl Engine {
    /// The decision point of this instant, when one is due; a pass that
    /// refused a decision is tried again, unless what was refused last is
    /// the policy's ask for yet another pass.
    pub(super) fn decide_if_due(&mut self) {
        if self.pass.dirty && self.instant_settled() {
            let refused = self.counters.refused;
            self.schedule();
            if self.counters.refused > refused && !self.pass.refused_recheck_at(self.now) {
                self.retry_after_refusal();
            }
        }
    }

    /// A pass with a refused decision is asked for again at the same
    /// instant, up to [`REFUSAL_RETRIES`] times: a job whose start was
    /// refused would otherwise wait for an unrelated event, and be left
    /// queued for ever if none came.
    fn retry_after_refusal(&mut self) {
        if self.pass.retry(self.now, self.table.queue.is_empty()) {
            self.events.push(self.now, EventKind::Wake);
        }
    }

    /// Whether the policy's ask to decide again at this instant is taken:
    /// always after a pass that changed something, and after up to
    /// [`RECHECK_RETRIES`] passes in a row that changed nothing; after one
    /// more it is refused, and the clock moves on to the next event.
    fn recheck_now(&mut self, changed: bool) -> bool {
        match self.pass.recheck(self.now, changed) {
            Ok(()) => true,
            Err(passes) => {
                self.refuse(Refusal::Recheck { passes });
                false
            }
        }
    }

    /// A decision point: ask the policy, carry out what it decided, and
    /// ask again in further rounds while it asks to see its decisions
    /// done; then add the wake-ups it asked for.
    pub(super) fn schedule(&mut self) {
        self.pass.dirty = false;
        self.tick_reservations();
        let mut out = std::mem::take(&mut self.pass.decisions);
        out.begin_point();
        // Whether this point aborted, reserved or started anything.
        let mut changed = false;
        loop {
            self.seat.policy.decide(&system_view!(self), &mut out);
            if let Some(reason) = out.take_failure() {
                self.stop(reason);
                break;
            }
            let (carried, again) = self.carry_out(&mut out);
            changed |= carried.starts + carried.aborts + carried.grants > 0;
            out.set_carried(carried);
            if !again {
                break;
            }
            if out.round() >= Decisions::MAX_ROUNDS {
                self.refuse(Refusal::Rounds {
                    rounds: out.round(),
                });
                break;
            }
        }
        if self.failure.is_none() {
            for &t in out.wakes() {
                self.wake_for(t, changed);
            }
        }
        self.pass.decisions = out;
    }

    /// Carries out one round of the policy's decisions, in order; returns
    /// what was carried out and whether the policy asked again.
    fn carry_out(&mut self, out: &mut Decisions) -> (Carried, bool) {
        let mut carried = Carried::default();
        let mut started = std::mem::take(&mut self.pass.started);
        started.clear();
        let (round, again) = out.take_round();
        for d in round {
            let done = match &d {
                Decision::Start(s) => self.start(s).map(|()| {
                    started.push(s.job);
                    carried.starts += 1;
                }),
                Decision::Abort(a) => self.abort(a).map(|()| carried.aborts += 1),
                Decision::Resize(r) => self.resize(r).map(|()| carried.resizes += 1),
                Decision::Reserve(r) => self.grant(r).map(|_| carried.grants += 1),
            };
            if let Err(r) = done {
                carried.refused += 1;
                self.refuse(r);
            }
        }
        if !started.is_empty() {
            self.table.leave_queue(&started);
        }
        self.pass.started = started;
        (carried, again)
    }

    /// A wake-up the policy asked for: an event at `t` when it is ahead
    /// (once per time), or another decision point at this instant, which
    /// [`Engine::recheck_now`] bounds.
    fn wake_for(&mut self, t: SimTime, changed: bool) {
        if t > self.now {
            if self.pass.wake_ahead(t) {
                self.events.push(t, EventKind::Wake);
            }
        } else if self.recheck_now(changed) {
            self.events.push(self.now, EventKind::Wake);
        }
    }

    /// The last decision the engine refused, with its time.
    pub fn last_refusal(&self) -> Option<&(SimTime, Refusal)> {
        self.pass.last_refusal()
    }
}
