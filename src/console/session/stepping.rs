//! Running the engine: one event, a run of events within a budget, up to
//! a time, past a quiet stretch or to the end, the twin kept alongside.

use super::{Budget, RECENT_LEN, Session};
use crate::console::format::secs;
use crate::console::snapshot::Message;
use crate::model::SimTime;

impl Session {
    /// Handles one event, folding ended jobs into the metrics. Returns
    /// false when no event is left.
    pub fn step(&mut self) -> bool {
        let Some(t) = self.engine.next_event_time() else {
            return false;
        };
        // The cue's box shows while the run stands at it.
        self.shown = None;
        self.sample_until(t);
        let refused = self.engine.counters().refused;
        let rejected = self.engine.counters().rejected;
        let timeline_refused = self.engine.timeline_refused().len();
        self.engine.step();
        if self.engine.counters().rejected != rejected {
            // A job the policy could never run: rejected, not lost.
            let n = self.engine.counters().rejected;
            let why = self
                .engine
                .rejections()
                .last()
                .map(|r| format!("job {} rejected by {}: {}", r.id, r.policy, r.reason))
                .unwrap_or_default();
            self.message = Some(Message::error(format!("✗ {why} ({n} rejected so far)")));
        }
        if let Some((at, m)) = self.engine.timeline_refused().get(timeline_refused) {
            self.message = Some(Message::error(format!(
                "✗ timeline command at t = {} {m}",
                secs(at.as_secs_f64())
            )));
        }
        if self.engine.counters().refused != refused
            && let Some((at, r)) = self.engine.last_refusal()
        {
            self.message = Some(Message::error(format!(
                "✗ the policy's decision was refused at t = {}: {r}",
                secs(at.as_secs_f64())
            )));
        }
        for r in self.engine.drain_records() {
            self.ended += 1;
            self.metrics.record(&r);
            if let Some(w) = &mut self.warming {
                w.record(&r);
                if self.metrics.excluded >= self.scenario.file.run.warmup_jobs {
                    self.warming = None;
                }
            }
            if self.recent.len() == RECENT_LEN {
                self.recent.pop_front();
            }
            self.recent.push_back(r);
        }
        if let Some(stopped) = self.stopped() {
            self.message = Some(stopped);
        } else if self.engine.is_done()
            && let Err(lost) = self.engine.check_conservation()
        {
            // The figures on screen cannot be trusted: say so, in place of
            // a quiet "finished".
            tracing::error!(%lost, "run ended with jobs lost");
            self.message = Some(Message::error(format!("✗ {lost}")));
        }
        true
    }

    /// Handles events up to `t` (at most `budget` of them), then moves the
    /// clock to `t` if every event up to it was handled. Returns whether `t`
    /// was reached.
    pub fn advance_to(&mut self, t: SimTime, budget: usize) -> bool {
        let mut left = budget;
        self.advance_while(t, &mut || {
            left = left.wrapping_sub(1);
            left != usize::MAX
        })
    }

    /// Skips a quiet stretch: where nothing happens for longer than
    /// `longer_than` (no arrival, end or command, here or in the twin, and
    /// no cue), the clock moves to just before the next event, as it does
    /// at the start, and says so. A trace's quiet days pass at once rather
    /// than minutes of a still screen. Returns whether it skipped.
    pub fn skip_quiet(&mut self, longer_than: SimTime) -> bool {
        let now = self.engine.now();
        let next = [
            self.engine.next_event_time(),
            self.twin.as_ref().and_then(|t| t.engine.next_event_time()),
            self.next_cue_time(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next else {
            return false;
        };
        if next <= now || next - now <= longer_than {
            return false;
        }
        let to = next - SimTime(1);
        self.engine.step_until(to);
        self.sync_twin();
        self.message = Some(Message::ok(format!(
            "nothing happens for {}: skipped to t = {}",
            secs((to - now).as_secs_f64()),
            secs(next.as_secs_f64())
        )));
        true
    }

    /// Like [`Session::advance_to`], for about `budget`'s wall time.
    pub fn advance_within(&mut self, t: SimTime, budget: &mut Budget) -> bool {
        self.advance_while(t, &mut || budget.go_on())
    }

    /// A lesson's cue on the way stops the run there: the clock goes no
    /// further than the next cue's time.
    fn advance_while(&mut self, t: SimTime, go_on: &mut dyn FnMut() -> bool) -> bool {
        let t = match self.next_cue_time() {
            Some(c) if c < t => c.max(self.engine.now()),
            _ => t,
        };
        loop {
            match self.engine.next_event_time() {
                Some(n) if n <= t => {
                    if !go_on() {
                        self.sync_twin();
                        return false;
                    }
                    self.step();
                    if self.reach_cue_and_say() {
                        return true;
                    }
                }
                _ => {
                    self.engine.step_until(t);
                    self.sync_twin();
                    self.reach_cue_and_say();
                    return true;
                }
            }
        }
    }

    /// Handles up to `n` events; returns how many. In compare mode the
    /// twin follows to the same time, and runs on alone once this
    /// session has no event left.
    pub fn step_events(&mut self, n: usize) -> usize {
        let mut left = n;
        self.step_while(&mut || {
            left = left.wrapping_sub(1);
            left != usize::MAX
        })
    }

    /// Handles events for about `budget`'s wall time (at least one event);
    /// returns how many.
    pub fn step_within(&mut self, budget: &mut Budget) -> usize {
        self.step_while(&mut || budget.go_on())
    }

    fn step_while(&mut self, go_on: &mut dyn FnMut() -> bool) -> usize {
        // A cue already due (another at the same instant as the one just
        // shown) is reached before any further event.
        if self.reach_cue_and_say() {
            return 0;
        }
        let mut k = 0;
        while go_on() && self.step() {
            k += 1;
            if self.reach_cue_and_say() {
                self.sync_twin();
                return k;
            }
        }
        // The last event handled: a cue after it is reached now.
        if k > 0 {
            self.reach_cue_and_say();
        }
        self.sync_twin();
        if k == 0
            && let Some(t) = &mut self.twin
        {
            return t.step_while(go_on);
        }
        k
    }

    /// Runs until no event is left (a finite workload), past every cue.
    pub fn run_to_end(&mut self) {
        while self.step() {}
        self.next_cue = self.cues.len();
        self.shown = None;
        if let Some(t) = &mut self.twin {
            t.run_to_end();
        }
    }

    /// Why the policy stopped the run (an external scheduler gone, say),
    /// if it did.
    pub(super) fn stopped(&self) -> Option<Message> {
        let (at, reason) = self.engine.failure()?;
        Some(Message::error(format!(
            "✗ the run stopped at t = {}: {reason}",
            secs(at.as_secs_f64())
        )))
    }
}
