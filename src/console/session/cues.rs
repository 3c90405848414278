//! A lesson's cues: where the run stops, pauses and shows a cue's box.

use super::Session;
use crate::console::format::secs;
use crate::console::snapshot::{CueJob, CueView, Message};
use crate::model::SimTime;
use std::sync::Arc;

impl Session {
    /// The time of the next cue not reached yet.
    pub(super) fn next_cue_time(&self) -> Option<SimTime> {
        self.cues.get(self.next_cue).map(|c| c.0)
    }

    /// Reaches the next cue if its time has come: every event up to and at
    /// its time handled (a cue shows the state after its instant). The
    /// clock moves to the cue's time, the run pauses and the cue's box
    /// shows. Returns what to say about it, if a cue was reached. The
    /// engine does not know of cues: moving its clock to a time before its
    /// next event changes nothing it will do.
    pub(super) fn reach_cue(&mut self) -> Option<String> {
        let (at, cue) = self.cues.get(self.next_cue).cloned()?;
        if self.engine.next_event_time().is_some_and(|n| n <= at) {
            return None;
        }
        if self.engine.now() < at {
            self.engine.step_until(at);
            self.sync_twin();
        }
        let select = cue.select.map(|id| {
            let read = self.engine.read();
            let is = |k: &crate::engine::JobKey| read.job(*k).id == id;
            let place = if let Some(pos) = read.queue().iter().position(is) {
                CueJob::Queued(pos)
            } else if read.running().iter().any(is) {
                CueJob::Running
            } else {
                CueJob::Elsewhere
            };
            (id, place)
        });
        self.cue_seq += 1;
        self.next_cue += 1;
        let view = CueView {
            number: self.next_cue,
            count: self.cues.len(),
            seq: self.cue_seq,
            at: at.as_secs_f64(),
            text: cue.text,
            select,
            pane: cue.pane,
        };
        self.shown = Some(Arc::new(view));
        self.paused = true;
        self.rushing = false;
        let more = if self.next_cue < self.cues.len() {
            "n: to the next cue · Space: run on"
        } else {
            "the last cue · Space: run on"
        };
        Some(format!(
            "cue {} of {} at t = {} · paused · {more}",
            self.next_cue,
            self.cues.len(),
            secs(at.as_secs_f64())
        ))
    }

    /// Reaches the next cue if its time has come, saying so on the
    /// message line.
    pub(super) fn reach_cue_and_say(&mut self) -> bool {
        match self.reach_cue() {
            Some(m) => {
                self.message = Some(Message::ok(m));
                true
            }
            None => false,
        }
    }
}
