//! Starting over: a new engine on the same scenario, with its seed or the
//! next one, and the clock moved to the first event.

use super::Request;
use super::Session;
use super::history::new_history;
use crate::console::snapshot::Message;
use crate::engine::Engine;
use crate::model::SimTime;

impl Session {
    /// Starts over with the scenario's seed, or with the next seed, the
    /// twin too; says which.
    pub(super) fn restart(&mut self, new_seed: bool) -> Message {
        let seed = if new_seed {
            self.seed.wrapping_add(1)
        } else {
            self.seed
        };
        match self
            .scenario
            .build_engine_with(seed, self.endless, self.policies)
        {
            Ok(mut engine) => {
                start_at_first_event(&mut engine);
                self.history = new_history(engine.now());
                self.next_sample = engine.now();
                self.engine = engine;
                self.seed = seed;
                self.metrics = self.scenario.new_metrics();
                self.warming = self.scenario.warmup_metrics();
                self.recent.clear();
                self.ended = 0;
                self.next_cue = 0;
                self.shown = None;
                self.rushing = false;
                if let Some(t) = &mut self.twin {
                    t.handle(Request::Restart { new_seed });
                }
                self.sync_twin();
                match self.reach_cue() {
                    Some(cue) => Message::ok(format!("restarted with seed {seed} · {cue}")),
                    None => Message::ok(format!("restarted with seed {seed}")),
                }
            }
            Err(e) => Message::error(format!("✗ cannot restart: {e}")),
        }
    }
}

/// Moves a new engine's clock to just before its first event: a trace
/// whose first job arrives after days starts there, not at 0. Says so
/// when that skips more than a minute.
pub(super) fn start_at_first_event(engine: &mut Engine) -> Option<Message> {
    let first = engine.next_event_time()?;
    if first <= SimTime::ZERO {
        return None;
    }
    engine.step_until(first - SimTime(1));
    (first.as_secs_f64() > 60.0).then(|| {
        Message::ok(format!(
            "the clock starts at the first event, t = {}",
            crate::console::format::secs(first.as_secs_f64())
        ))
    })
}
