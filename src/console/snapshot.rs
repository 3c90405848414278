//! What the console draws: the engine's picture plus the driver's view.

use super::inject_form::FitRules;
use super::projection::QueueSlice;
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
    pub const LADDER: [Speed; 20] = [
        Speed::Rate(0.1),
        Speed::Rate(0.2),
        Speed::Rate(0.5),
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
        Speed::Rate(10000.0),
        Speed::Rate(20000.0),
        Speed::Rate(50000.0),
        Speed::Rate(100000.0),
        Speed::Max,
    ];
    pub const DEFAULT: Speed = Speed::Rate(50.0);

    /// The speed that shows about one arrival a wall second when jobs
    /// arrive `mean_interarrival` simulated seconds apart: the step of the
    /// ladder nearest to it (by ratio). [`Speed::DEFAULT`]
    /// where the spacing is unknown (fewer than two arrivals, all at once).
    pub fn for_interarrival(mean_interarrival: Option<f64>) -> Speed {
        let Some(m) = mean_interarrival.filter(|m| m.is_finite() && *m > 0.0) else {
            return Speed::DEFAULT;
        };
        let distance = |s: &Speed| match s {
            Speed::Rate(r) => (r / m).ln().abs(),
            Speed::Max => f64::INFINITY,
        };
        Speed::LADDER
            .iter()
            .copied()
            .min_by(|a, b| distance(a).total_cmp(&distance(b)))
            .unwrap_or(Speed::DEFAULT)
    }

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

/// Samples over simulated time for the history pane, oldest first, from
/// the start of the run: the driver halves them (doubling `every`) when
/// they grow past a few hundred, so they always span the whole run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Simulated time of the first sample, in seconds.
    pub start: f64,
    /// Simulated seconds between samples.
    pub every: f64,
    /// Busy share of all processors, 0..=1.
    pub utilization: Vec<f64>,
    /// Queue length (a mean where samples were merged).
    pub queue: Vec<f64>,
    /// Mean response time of the jobs measured so far, in seconds.
    pub art: Vec<f64>,
}

/// The history merged into at most `width` columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    /// Simulated seconds a column covers.
    pub every: f64,
    pub utilization: Vec<f64>,
    pub queue: Vec<f64>,
    pub art: Vec<f64>,
}

impl History {
    /// Simulated seconds the samples cover.
    pub fn span(&self) -> f64 {
        self.every * self.utilization.len() as f64
    }

    /// The samples in at most `width` columns of equal span, so that the
    /// whole run fills the pane: utilization and queue as means, ART as it
    /// stood at the end of each column.
    pub fn columns(&self, width: usize) -> Columns {
        let n = self.utilization.len();
        let w = width.max(1);
        if n <= w {
            return Columns {
                every: self.every,
                utilization: self.utilization.clone(),
                queue: self.queue.clone(),
                art: self.art.clone(),
            };
        }
        // Column c holds samples [c·n/w, (c+1)·n/w): one or more each.
        let bounds: Vec<(usize, usize)> = (0..w).map(|c| (c * n / w, (c + 1) * n / w)).collect();
        let mean = |v: &[f64]| -> Vec<f64> {
            bounds
                .iter()
                .map(|&(a, b)| v[a..b].iter().sum::<f64>() / (b - a) as f64)
                .collect()
        };
        Columns {
            every: self.every * n as f64 / w as f64,
            utilization: mean(&self.utilization),
            queue: mean(&self.queue),
            art: bounds.iter().map(|&(_, b)| self.art[b - 1]).collect(),
        }
    }
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

/// A lesson's cue the run stands paused at (see [`crate::scenario::Cue`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CueView {
    /// Which cue, from 1, of how many the scenario has.
    pub number: usize,
    pub count: usize,
    /// Grows by one every time a cue is reached (a restart meets the
    /// first cue again): the console selects the cue's job once per cue.
    pub seq: u64,
    /// The cue's time, seconds.
    pub at: f64,
    pub text: String,
    /// The job to select, where it is at the cue.
    pub select: Option<(u64, CueJob)>,
    pub pane: Option<crate::scenario::CuePane>,
}

/// Where a cue's job is when the cue is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CueJob {
    /// Queued at this position (0 is the head).
    Queued(usize),
    Running,
    /// Not yet arrived, or ended.
    Elsewhere,
}

/// Everything a pane may read: immutable, published by the driver.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The engine as the console projects it: the queue's rows the
    /// console draws (see [`super::projection`]).
    pub engine: EngineSnapshot<QueueSlice>,
    pub scenario: String,
    pub shape: String,
    /// What an injected job must fit (the platform and the splitting rule).
    pub fit: Arc<FitRules>,
    pub seed: u64,
    pub speed: Speed,
    pub paused: bool,
    /// Live metrics of the jobs ended so far after the warm-up; while the
    /// warm-up lasts (`warmup.0 < warmup.1`), of every job ended so far.
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
    /// Compare mode: the same workload under the other policy, at the
    /// same simulated time.
    pub twin: Option<Box<Snapshot>>,
    /// The policy's reason for the queued job the console asked about
    /// (selected, or its detail open), with its id.
    pub why: Option<(u64, crate::sched::Explanation)>,
    /// The cue the run stands paused at, while its box shows.
    pub cue: Option<Arc<CueView>>,
    /// The scenario's cues, and how many of them the run has reached.
    pub cues: (usize, usize),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_speed_shows_about_one_arrival_a_second() {
        assert_eq!(Speed::for_interarrival(Some(0.64)), Speed::Rate(0.5));
        assert_eq!(Speed::for_interarrival(Some(0.01)), Speed::Rate(0.1));
        assert_eq!(Speed::for_interarrival(Some(60.0)), Speed::Rate(50.0));
        assert_eq!(Speed::for_interarrival(Some(124.0)), Speed::Rate(100.0));
        assert_eq!(Speed::for_interarrival(Some(1500.0)), Speed::Rate(2000.0));
        assert_eq!(Speed::for_interarrival(Some(1e9)), Speed::Rate(100000.0));
        assert_eq!(Speed::for_interarrival(Some(0.0)), Speed::DEFAULT);
        assert_eq!(Speed::for_interarrival(None), Speed::DEFAULT);
        // Every step is reached by + and - from the chosen one.
        let s = Speed::for_interarrival(Some(7000.0));
        assert_eq!(s, Speed::Rate(5000.0));
        assert_eq!(s.faster(), Speed::Rate(10000.0));
    }

    #[test]
    fn columns_cover_the_whole_history() {
        let h = History {
            start: 0.0,
            every: 10.0,
            utilization: vec![0.0, 1.0, 0.5, 0.5, 1.0],
            queue: vec![1.0, 3.0, 2.0, 2.0, 5.0],
            art: vec![1.0, 2.0, 3.0, 4.0, 5.0],
        };
        assert_eq!(h.columns(8).utilization.len(), 5);
        let c = h.columns(2);
        assert_eq!(c.every, 25.0);
        assert_eq!(c.utilization, vec![0.5, 2.0 / 3.0]);
        assert_eq!(c.queue, vec![2.0, 3.0]);
        assert_eq!(c.art, vec![2.0, 5.0]);
    }
}
