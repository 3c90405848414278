//! The session's history: samples of utilization, queue length and ART
//! taken between events, merged in pairs so they span the whole run.

use super::Session;
use crate::console::snapshot::History;
use crate::model::SimTime;

/// Simulated seconds between history samples at the start of a run.
pub const HISTORY_EVERY: f64 = 10.0;
/// The most history samples kept: at this many, pairs are merged and the
/// time between samples doubles, so the history spans the whole run.
pub const HISTORY_LEN: usize = 512;

impl Session {
    /// Records history samples for every sample time before `t`: the state
    /// does not change between events, so each is exact.
    pub(super) fn sample_until(&mut self, t: SimTime) {
        while self.next_sample < t {
            let free: u64 = self
                .engine
                .free_processors()
                .iter()
                .map(|&f| f as u64)
                .sum();
            let total = self.engine.platform().total_processors().max(1);
            let h = &mut self.history;
            h.utilization
                .push((total - free.min(total)) as f64 / total as f64);
            h.queue.push(self.engine.queue_len() as f64);
            h.art.push(self.metrics.overall.art());
            if h.utilization.len() == HISTORY_LEN {
                halve(h);
            }
            self.next_sample += SimTime::from_secs_f64(h.every);
        }
    }
}

pub(super) fn new_history(start: SimTime) -> History {
    History {
        start: start.as_secs_f64(),
        every: HISTORY_EVERY,
        ..History::default()
    }
}

/// Merges the history's samples in pairs and doubles the time between
/// them: utilization and queue as means, ART as it stood at the later one.
fn halve(h: &mut History) {
    let mean = |v: &mut Vec<f64>| {
        *v = v
            .chunks(2)
            .map(|c| c.iter().sum::<f64>() / c.len() as f64)
            .collect();
    };
    mean(&mut h.utilization);
    mean(&mut h.queue);
    h.art = h.art.chunks(2).map(|c| c[c.len() - 1]).collect();
    h.every *= 2.0;
}
