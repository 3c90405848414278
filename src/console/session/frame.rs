//! The snapshot a session hands the console each frame, with the reason
//! the watched queued job waits.

use super::Session;
use crate::console::projection;
use crate::console::snapshot::Snapshot;
use crate::sched::Explanation;

/// The least wall time between two explanations of the same job while
/// the run goes on.
const WHY_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

impl Session {
    /// Why the job the console asked about waits, by the policy in
    /// force: found again only when an event was handled since.
    fn why(&mut self) -> Option<(u64, Explanation)> {
        let id = self.explained?;
        let events = self.engine.counters().events;
        // An explanation runs a decision pass on a copy of the policy:
        // while the run goes on it is found again at most every
        // WHY_EVERY of wall time (tens of milliseconds each with a queue
        // of tens of thousands), at once for another job or when paused.
        let stale = match &self.why {
            Some((i, n, _)) if *i == id => {
                *n != events && (self.paused || self.why_at.elapsed() >= WHY_EVERY)
            }
            _ => true,
        };
        if stale {
            let read = self.engine.read();
            let e = read.key_of(id).and_then(|k| read.explain(k));
            self.why = Some((id, events, e));
            self.why_at = std::time::Instant::now();
        }
        let (_, _, e) = self.why.as_ref()?;
        e.clone().map(|e| (id, e))
    }

    /// The immutable picture panes draw from.
    pub fn snapshot(&mut self) -> Snapshot {
        self.version += 1;
        let why = self.why();
        Snapshot {
            why,
            engine: projection::project(self.engine.read(), self.window, self.watched),
            scenario: self.scenario.name().to_string(),
            shape: self.engine.platform().shape(),
            fit: self.fit.clone(),
            seed: self.seed,
            speed: self.speed,
            paused: self.paused,
            summary: match &self.warming {
                Some(w) => w.summary(),
                None => self.metrics.summary(),
            },
            warmup: (self.metrics.excluded, self.scenario.file.run.warmup_jobs),
            history: self.history.clone(),
            events_per_sec: self.events_per_sec,
            message: self.message.clone(),
            recent: self.recent.iter().cloned().collect(),
            version: self.version,
            twin: self.twin.as_mut().map(|t| Box::new(t.snapshot())),
            cue: self.shown.clone(),
            cues: (self.cues.len(), self.next_cue),
        }
    }
}
