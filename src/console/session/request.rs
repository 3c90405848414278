//! The operator's requests and how a session carries them out.

use super::Session;
use super::describe::describe;
use crate::console::format::secs;
use crate::console::projection::QueueWindow;
use crate::console::snapshot::Message;
use crate::engine::Command;
use crate::model::JobRecord;

/// What the operator asks of the running engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// An engine command, applied now and recorded in the command log.
    Apply(Command),
    TogglePause,
    Faster,
    Slower,
    /// Handle one event, then stay paused.
    StepEvent,
    /// Run to the next start or end of this job, then stay paused.
    StepJob(u64),
    /// Run flat out to the lesson's next cue, where the run pauses.
    NextCue,
    /// Start over with the scenario's seed, or with the next seed.
    Restart {
        new_seed: bool,
    },
    /// Write the scenario plus the command log as a new scenario file.
    Save,
    /// What the console draws: the queue positions to carry rows for, and
    /// the job whose detail is open (its row is carried wherever it waits).
    /// Changes no state of the run and no message.
    View {
        queue: QueueWindow,
        job: Option<u64>,
        /// The queued job whose policy's reason the console shows (the
        /// one selected, or whose detail is open).
        explain: Option<u64>,
    },
}

/// The most events `n` handles while looking for the job's next event.
const STEP_JOB_LIMIT: u32 = 200_000;

impl Session {
    /// Carries out an operator request and sets the message line.
    pub fn handle(&mut self, request: Request) {
        let message = match request {
            Request::View {
                queue,
                job,
                explain,
            } => {
                self.set_view(queue, job, explain);
                return;
            }
            Request::Apply(command) => self.apply(command),
            Request::TogglePause => self.toggle_pause(),
            Request::NextCue => self.rush_to_next_cue(),
            Request::Faster => {
                self.speed = self.speed.faster();
                Message::ok(format!("speed {}", self.speed.label()))
            }
            Request::Slower => {
                self.speed = self.speed.slower();
                Message::ok(format!("speed {}", self.speed.label()))
            }
            Request::StepEvent => self.step_one_event(),
            Request::StepJob(id) => {
                self.paused = true;
                let m = self.step_job(id);
                self.sync_twin();
                m
            }
            Request::Restart { new_seed } => self.restart(new_seed),
            Request::Save => self.save_and_say(),
        };
        self.message = Some(message);
    }

    /// What the console draws (see [`Request::View`]), here and in the
    /// twin.
    fn set_view(&mut self, queue: QueueWindow, job: Option<u64>, explain: Option<u64>) {
        self.window = queue;
        self.watched = job;
        self.explained = explain;
        if let Some(t) = &mut self.twin {
            t.handle(Request::View {
                queue,
                job,
                explain,
            });
        }
    }

    /// Applies an engine command, here and in the twin unless it switches
    /// the policy; says how it went on each side.
    fn apply(&mut self, command: Command) -> Message {
        // A policy switch is for the left side: the right one keeps
        // the policy it is compared under.
        let both = !matches!(command, Command::SetPolicy { .. });
        let twin = match (&mut self.twin, both) {
            (Some(t), true) => Some(t.engine.apply(command.clone())),
            _ => None,
        };
        match (self.engine.apply(command), twin) {
            // The command's own decision point may be where the
            // policy stopped the run: that is the news.
            _ if self.engine.failure().is_some() => self.stopped().expect("the engine stopped"),
            (Ok(outcome), None | Some(Ok(_))) => Message::ok(format!("✓ {}", outcome.message)),
            (Ok(outcome), Some(Err(e))) => {
                Message::error(format!("✓ {} · ✗ on the right: {e}", outcome.message))
            }
            (Err(e), _) => Message::error(format!("✗ {e}")),
        }
    }

    fn toggle_pause(&mut self) -> Message {
        self.paused = !self.paused;
        self.rushing = false;
        if !self.paused {
            self.shown = None;
        }
        Message::ok(if self.paused { "paused" } else { "running" })
    }

    /// Runs flat out to the lesson's next cue, if one is left.
    fn rush_to_next_cue(&mut self) -> Message {
        match self.next_cue_time() {
            Some(at) => {
                self.shown = None;
                self.paused = false;
                self.rushing = true;
                Message::ok(format!(
                    "running to cue {} of {} at t = {}",
                    self.next_cue + 1,
                    self.cues.len(),
                    secs(at.as_secs_f64())
                ))
            }
            None if self.cues.is_empty() => Message::error(
                "this scenario has no cues (a lesson's [[timeline]] entries with action = \"cue\")",
            ),
            None => Message::error("no cue is left: that was the last one · Space runs on"),
        }
    }

    /// Handles one event (the twin's once this side has none left), or
    /// reaches a cue due first, and stays paused.
    fn step_one_event(&mut self) -> Message {
        self.paused = true;
        if let Some(cue) = self.reach_cue() {
            return Message::ok(cue);
        }
        let m = match (self.engine.is_done(), &mut self.twin) {
            (true, Some(t)) => t.step_event(),
            _ => self.step_event(),
        };
        self.sync_twin();
        match self.reach_cue() {
            Some(cue) => Message::ok(format!("{} · {cue}", m.text)),
            None => m,
        }
    }

    /// Handles one event and says what it was and what followed from it.
    fn step_event(&mut self) -> Message {
        let before = self.engine.snapshot();
        let timeline = self.engine.timeline_messages().len();
        let ended = self.ended;
        if !self.step() {
            return Message::error("no event is left");
        }
        let after = self.engine.snapshot();
        let k = (self.ended - ended) as usize;
        let ended: Vec<&JobRecord> = self
            .recent
            .iter()
            .skip(self.recent.len().saturating_sub(k))
            .collect();
        let said = self
            .engine
            .timeline_messages()
            .get(timeline)
            .map(|(_, m)| m.as_str());
        Message::ok(format!(
            "one event at t = {}: {}",
            secs(self.now().as_secs_f64()),
            describe(&before, &after, &ended, said)
        ))
    }

    fn step_job(&mut self, id: u64) -> Message {
        let Some(before) = self.engine.job_state(id) else {
            return Message::error(format!("job {id} is neither queued nor running"));
        };
        for _ in 0..STEP_JOB_LIMIT {
            if !self.step() {
                return Message::error(format!("no event is left; job {id} still waits"));
            }
            let after = self.engine.job_state(id);
            if after == Some(before)
                && let Some(cue) = self.reach_cue()
            {
                return Message::ok(format!("{cue} · job {id} has not moved yet"));
            }
            if after != Some(before) {
                let t = secs(self.now().as_secs_f64());
                return Message::ok(match after {
                    Some(_) => format!("job {id} started at t = {t}"),
                    None => format!("job {id} ended at t = {t}"),
                });
            }
        }
        Message::error(format!(
            "job {id}: nothing happened in {STEP_JOB_LIMIT} events"
        ))
    }
}
