//! What the console draws: the engine's picture plus the driver's view.

use super::inject_form::FitRules;
use crate::engine::EngineSnapshot;
use crate::metrics::Summary;
use crate::model::JobRecord;
use std::sync::Arc;

/// How fast simulated time runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speed {
    /// Simulated seconds per wall second.
    Rate(f64),
    /// As fast as the engine can go.
    Max,
}

impl Speed {
    /// The steps `+` and `-` move between.
    pub const LADDER: [Speed; 13] = [
        Speed::Rate(1.0),
        Speed::Rate(2.0),
        Speed::Rate(5.0),
        Speed::Rate(10.0),
        Speed::Rate(20.0),
        Speed::Rate(50.0),
        Speed::Rate(100.0),
        Speed::Rate(200.0),
        Speed::Rate(500.0),
        Speed::Rate(1000.0),
        Speed::Rate(2000.0),
        Speed::Rate(5000.0),
        Speed::Max,
    ];
    pub const DEFAULT: Speed = Speed::Rate(50.0);

    fn index(self) -> usize {
        Speed::LADDER
            .iter()
            .position(|s| *s == self)
            .unwrap_or(Speed::LADDER.len() / 2)
    }

    pub fn faster(self) -> Speed {
        Speed::LADDER[(self.index() + 1).min(Speed::LADDER.len() - 1)]
    }

    pub fn slower(self) -> Speed {
        Speed::LADDER[self.index().saturating_sub(1)]
    }

    pub fn label(self) -> String {
        match self {
            Speed::Rate(r) => format!("×{r}"),
            Speed::Max => "×max".to_string(),
        }
    }
}

/// Samples over simulated time for the history pane, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Simulated seconds between samples.
    pub every: f64,
    /// Busy share of all processors, 0..=1.
    pub utilization: Vec<f64>,
    pub queue: Vec<u64>,
    /// Mean response time of the jobs measured so far, in seconds.
    pub art: Vec<f64>,
}

/// The answer to the last command.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub text: String,
    pub error: bool,
}

impl Message {
    pub fn ok(text: impl Into<String>) -> Message {
        Message {
            text: text.into(),
            error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Message {
        Message {
            text: text.into(),
            error: true,
        }
    }
}

/// Everything a pane may read: immutable, published by the driver.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub engine: EngineSnapshot,
    pub scenario: String,
    pub shape: String,
    /// What an injected job must fit (the platform and the splitting rule).
    pub fit: Arc<FitRules>,
    pub seed: u64,
    pub speed: Speed,
    pub paused: bool,
    /// Live metrics of the jobs ended so far (after the warm-up).
    pub summary: Summary,
    /// Jobs left out of the metrics as warm-up so far, and how many the
    /// scenario leaves out.
    pub warmup: (u64, u64),
    pub history: History,
    /// Engine events handled per wall second (0 when not measured).
    pub events_per_sec: f64,
    pub message: Option<Message>,
    /// Records of the jobs that ended most recently, newest last.
    pub recent: Vec<JobRecord>,
    /// Grows by one with every snapshot the driver publishes.
    pub version: u64,
}

impl Snapshot {
    /// Processors in use over all processors, 0..=1.
    pub fn utilization_now(&self) -> f64 {
        let (mut total, mut free) = (0u64, 0u64);
        for c in &self.engine.clusters {
            total += c.processors as u64;
            free += c.free as u64;
        }
        if total == 0 {
            0.0
        } else {
            (total - free) as f64 / total as f64
        }
    }

    /// The head of the queue, if any.
    pub fn head(&self) -> Option<u64> {
        self.engine.queue.first().map(|q| q.id)
    }
}
