//! The console's synchronous core: one engine, its live metrics and
//! history, and the operator requests that act on them. The driver thread
//! paces it against the wall clock; tests drive it directly, so every
//! screen they check is deterministic.

mod budget;
mod cues;
mod describe;
mod frame;
mod history;
mod request;
mod restart;
mod save;
mod stepping;

pub use budget::Budget;
pub use history::{HISTORY_EVERY, HISTORY_LEN};
pub use request::Request;

use super::inject_form::FitRules;
use super::projection::QueueWindow;
use super::snapshot::{CueView, History, Message, Speed};
use crate::engine::Engine;
use crate::metrics::Metrics;
use crate::model::{JobRecord, SimTime};
use crate::scenario::{Cue, Scenario, ScenarioError};
use crate::sched::Explanation;
use history::new_history;
use restart::start_at_first_event;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The queue rows a snapshot carries until the console asks for others:
/// the head and a screenful behind it.
pub const DEFAULT_WINDOW: QueueWindow = QueueWindow { from: 0, rows: 512 };

/// Records kept for the job-detail view of jobs that have ended.
const RECENT_LEN: usize = 256;

pub struct Session {
    scenario: Scenario,
    seed: u64,
    endless: bool,
    engine: Engine,
    fit: Arc<FitRules>,
    metrics: Metrics,
    /// Every job's figures from the first, while the warm-up lasts: shown
    /// (marked as such) instead of an empty table.
    warming: Option<Metrics>,
    history: History,
    next_sample: SimTime,
    recent: VecDeque<JobRecord>,
    /// Records taken from the engine so far.
    ended: u64,
    pub speed: Speed,
    pub paused: bool,
    message: Option<Message>,
    save_dir: PathBuf,
    version: u64,
    /// Set by the driver from its wall-clock measurements.
    pub events_per_sec: f64,
    /// Compare mode: the same workload under another policy, kept on the
    /// same simulated time; operator commands other than a policy switch
    /// go to both.
    twin: Option<Box<Session>>,
    /// Where policies come from (schedscope's catalog unless a program
    /// brings its own).
    policies: crate::sched::Policies,
    /// The queue rows snapshots carry (see [`Request::View`]).
    window: QueueWindow,
    /// The job whose detail the console shows.
    watched: Option<u64>,
    /// The queued job whose reason snapshots carry, and the last reason
    /// found (with the events count it was found at: it is found again
    /// only when something happened).
    explained: Option<u64>,
    why: Option<(u64, u64, Option<Explanation>)>,
    why_at: std::time::Instant,
    /// The scenario's cues by time, and how many have been reached.
    cues: Vec<(SimTime, Cue)>,
    next_cue: usize,
    /// The cue the run stands paused at, while its box shows.
    shown: Option<Arc<CueView>>,
    /// Cues reached since the session began (restarts included).
    cue_seq: u64,
    /// Running flat out to the next cue (`n`), whatever the speed.
    pub rushing: bool,
}

impl Session {
    /// A session on `scenario` seeded with `seed`; with `endless`, a
    /// generated workload never runs out.
    pub fn new(scenario: Scenario, seed: u64, endless: bool) -> Result<Session, ScenarioError> {
        Session::with_builder(scenario, seed, endless, crate::policy::CATALOG)
    }

    /// A session whose policies come from `build` (a policy of one's own;
    /// see [`Scenario::build_engine_with`]). Restarts use it too.
    pub fn with_builder(
        scenario: Scenario,
        seed: u64,
        endless: bool,
        policies: crate::sched::Policies,
    ) -> Result<Session, ScenarioError> {
        let mut engine = scenario.build_engine_with(seed, endless, policies)?;
        let message = start_at_first_event(&mut engine);
        let metrics = scenario.new_metrics();
        let warming = scenario.warmup_metrics();
        let fit = Arc::new(FitRules::of(&scenario));
        let cues = scenario.cues();
        let speed = Speed::for_interarrival(arrival_spacing(&scenario, seed));
        let mut session = Session {
            scenario,
            seed,
            endless,
            history: new_history(engine.now()),
            next_sample: engine.now(),
            engine,
            fit,
            metrics,
            warming,
            recent: VecDeque::new(),
            ended: 0,
            speed,
            paused: false,
            message,
            save_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            version: 0,
            events_per_sec: 0.0,
            twin: None,
            policies,
            window: DEFAULT_WINDOW,
            watched: None,
            explained: None,
            why: None,
            why_at: std::time::Instant::now(),
            cues,
            next_cue: 0,
            shown: None,
            cue_seq: 0,
            rushing: false,
        };
        // A cue before the first event shows at once.
        session.reach_cue();
        Ok(session)
    }

    /// Compare mode: `twin` runs beside this session, on the same
    /// simulated time.
    pub fn with_twin(mut self, mut twin: Session) -> Session {
        twin.twin = None;
        // The lesson is told on the left: the twin follows its clock.
        twin.cues.clear();
        twin.shown = None;
        self.twin = Some(Box::new(twin));
        self.sync_twin();
        self
    }

    pub fn twin(&self) -> Option<&Session> {
        self.twin.as_deref()
    }

    /// Whether no event is left, in the twin too.
    pub fn is_done(&self) -> bool {
        self.engine.is_done() && self.twin.as_ref().is_none_or(|t| t.engine.is_done())
    }

    /// Brings the twin to this session's simulated time.
    fn sync_twin(&mut self) {
        let now = self.engine.now();
        if let Some(t) = &mut self.twin {
            while !t.advance_to(now, 1 << 16) {}
        }
    }

    /// Where `Save` writes its files (the working folder by default).
    pub fn with_save_dir(mut self, dir: &Path) -> Session {
        self.save_dir = dir.to_path_buf();
        self
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn now(&self) -> SimTime {
        self.engine.now()
    }

    pub fn set_message(&mut self, m: Message) {
        self.message = Some(m);
    }

    /// The cue the run stands paused at, while its box shows.
    pub fn cue(&self) -> Option<&CueView> {
        self.shown.as_deref()
    }
}

/// Twice the mean time between the events of the first jobs of
/// `scenario`'s workload (up to a thousand jobs: their arrivals, and their
/// ends had they started at once), over the middle 80 % of those events so
/// that one very long job does not stretch it: the time between arrivals
/// where jobs arrive steadily, shorter where a few long jobs arrive
/// together. What the console's first speed is chosen from. `None` when
/// there is nothing to measure or the workload cannot be drawn.
fn arrival_spacing(scenario: &Scenario, seed: u64) -> Option<f64> {
    const FIRST: u64 = 1000;
    let mut source = scenario.job_source(seed, Some(FIRST)).ok()?;
    let mut times = Vec::new();
    while let Some(j) = source.next_job() {
        times.extend([j.submit, j.submit.saturating_add(j.runtime)]);
    }
    if times.len() < 4 {
        return None;
    }
    times.sort_unstable();
    let (lo, hi) = (times.len() / 10, times.len() - 1 - times.len() / 10);
    let span = (times.get(hi)?.0 - times.get(lo)?.0) as f64 / SimTime::TICKS_PER_SEC as f64;
    (hi > lo && span > 0.0).then(|| 2.0 * span / (hi - lo) as f64)
}
