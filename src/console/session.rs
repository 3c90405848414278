//! The console's synchronous core: one engine, its live metrics and
//! history, and the operator requests that act on them. The driver thread
//! paces it against the wall clock; tests drive it directly, so every
//! screen they check is deterministic.

use super::inject_form::FitRules;
use super::projection::{self, QueueWindow};
use super::snapshot::{CueJob, CueView, History, Message, Snapshot, Speed};
use crate::engine::{Command, Engine, EngineSnapshot};
use crate::metrics::Metrics;
use crate::model::{JobRecord, SimTime};
use crate::scenario::{Cue, Scenario, ScenarioError};
use crate::sched::Explanation;
use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// The queue rows a snapshot carries until the console asks for others:
/// the head and a screenful behind it.
pub const DEFAULT_WINDOW: QueueWindow = QueueWindow { from: 0, rows: 512 };

/// Simulated seconds between history samples at the start of a run.
pub const HISTORY_EVERY: f64 = 10.0;
/// The most history samples kept: at this many, pairs are merged and the
/// time between samples doubles, so the history spans the whole run.
pub const HISTORY_LEN: usize = 512;
/// The least wall time between two explanations of the same job while
/// the run goes on.
const WHY_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Records kept for the job-detail view of jobs that have ended.
const RECENT_LEN: usize = 256;
/// The most events `n` handles while looking for the job's next event.
const STEP_JOB_LIMIT: u32 = 200_000;

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

    /// The time of the next cue not reached yet.
    fn next_cue_time(&self) -> Option<SimTime> {
        self.cues.get(self.next_cue).map(|c| c.0)
    }

    /// Reaches the next cue if its time has come: every event up to and at
    /// its time handled (a cue shows the state after its instant). The
    /// clock moves to the cue's time, the run pauses and the cue's box
    /// shows. Returns what to say about it, if a cue was reached. The
    /// engine does not know of cues: moving its clock to a time before its
    /// next event changes nothing it will do.
    fn reach_cue(&mut self) -> Option<String> {
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
            super::format::secs(at.as_secs_f64())
        ))
    }

    /// Reaches the next cue if its time has come, saying so on the
    /// message line.
    fn reach_cue_and_say(&mut self) -> bool {
        match self.reach_cue() {
            Some(m) => {
                self.message = Some(Message::ok(m));
                true
            }
            None => false,
        }
    }

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
                super::format::secs(at.as_secs_f64())
            )));
        }
        if self.engine.counters().refused != refused
            && let Some((at, r)) = self.engine.last_refusal()
        {
            self.message = Some(Message::error(format!(
                "✗ the policy's decision was refused at t = {}: {r}",
                super::format::secs(at.as_secs_f64())
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

    /// Records history samples for every sample time before `t`: the state
    /// does not change between events, so each is exact.
    fn sample_until(&mut self, t: SimTime) {
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
            super::format::secs((to - now).as_secs_f64()),
            super::format::secs(next.as_secs_f64())
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
    fn stopped(&self) -> Option<Message> {
        let (at, reason) = self.engine.failure()?;
        Some(Message::error(format!(
            "✗ the run stopped at t = {}: {reason}",
            super::format::secs(at.as_secs_f64())
        )))
    }

    /// Carries out an operator request and sets the message line.
    pub fn handle(&mut self, request: Request) {
        let message = match request {
            Request::View {
                queue,
                job,
                explain,
            } => {
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
                return;
            }
            Request::Apply(command) => {
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
                    _ if self.engine.failure().is_some() => {
                        self.stopped().expect("the engine stopped")
                    }
                    (Ok(outcome), None | Some(Ok(_))) => {
                        Message::ok(format!("✓ {}", outcome.message))
                    }
                    (Ok(outcome), Some(Err(e))) => {
                        Message::error(format!("✓ {} · ✗ on the right: {e}", outcome.message))
                    }
                    (Err(e), _) => Message::error(format!("✗ {e}")),
                }
            }
            Request::TogglePause => {
                self.paused = !self.paused;
                self.rushing = false;
                if !self.paused {
                    self.shown = None;
                }
                Message::ok(if self.paused { "paused" } else { "running" })
            }
            Request::NextCue => match self.next_cue_time() {
                Some(at) => {
                    self.shown = None;
                    self.paused = false;
                    self.rushing = true;
                    Message::ok(format!(
                        "running to cue {} of {} at t = {}",
                        self.next_cue + 1,
                        self.cues.len(),
                        super::format::secs(at.as_secs_f64())
                    ))
                }
                None if self.cues.is_empty() => Message::error(
                    "this scenario has no cues (a lesson's [[timeline]] entries with action = \"cue\")",
                ),
                None => Message::error("no cue is left: that was the last one · Space runs on"),
            },
            Request::Faster => {
                self.speed = self.speed.faster();
                Message::ok(format!("speed {}", self.speed.label()))
            }
            Request::Slower => {
                self.speed = self.speed.slower();
                Message::ok(format!("speed {}", self.speed.label()))
            }
            Request::StepEvent => {
                self.paused = true;
                if let Some(cue) = self.reach_cue() {
                    self.message = Some(Message::ok(cue));
                    return;
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
            Request::StepJob(id) => {
                self.paused = true;
                let m = self.step_job(id);
                self.sync_twin();
                m
            }
            Request::Restart { new_seed } => {
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
            Request::Save => match self.save() {
                Ok(path) => Message::ok(format!(
                    "✓ saved {} command{} to {}",
                    self.engine.command_log().len(),
                    if self.engine.command_log().len() == 1 {
                        ""
                    } else {
                        "s"
                    },
                    path.display()
                )),
                Err(e) => Message::error(format!("✗ cannot save: {e}")),
            },
        };
        self.message = Some(message);
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
            super::format::secs(self.now().as_secs_f64()),
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
                let t = super::format::secs(self.now().as_secs_f64());
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

    /// The scenario with the commands applied so far as its timeline, and
    /// this session's seed (after `R`, or `--seed`) as its `seed`: `run`
    /// of the saved file replays the figures the console shows.
    pub fn saved_text(&self) -> String {
        self.scenario.save_run(self.seed, self.engine.command_log())
    }

    /// Writes [`Session::saved_text`] to a new file in the save folder.
    pub fn save(&self) -> std::io::Result<PathBuf> {
        let stem: String = self
            .scenario
            .name()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let text = self.saved_text();
        for n in 1..10_000 {
            let path = self.save_dir.join(format!("{stem}-replay-{n}.toml"));
            if path.exists() {
                continue;
            }
            let mut tmp = tempfile::NamedTempFile::new_in(&self.save_dir)?;
            tmp.write_all(text.as_bytes())?;
            match tmp.persist_noclobber(&path) {
                Ok(_) => return Ok(path),
                Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e.error),
            }
        }
        Err(std::io::Error::other("no free file name"))
    }

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

fn new_history(start: SimTime) -> History {
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

/// Moves a new engine's clock to just before its first event: a trace
/// whose first job arrives after days starts there, not at 0. Says so
/// when that skips more than a minute.
fn start_at_first_event(engine: &mut Engine) -> Option<Message> {
    let first = engine.next_event_time()?;
    if first <= SimTime::ZERO {
        return None;
    }
    engine.step_until(first - SimTime(1));
    (first.as_secs_f64() > 60.0).then(|| {
        Message::ok(format!(
            "the clock starts at the first event, t = {}",
            super::format::secs(first.as_secs_f64())
        ))
    })
}

/// What one event did, from the engine before and after it: who arrived,
/// ended, passed its estimate or went back to the queue, the timeline
/// command applied, and the jobs the policy started on it.
fn describe(
    before: &EngineSnapshot,
    after: &EngineSnapshot,
    ended: &[&JobRecord],
    timeline: Option<&str>,
) -> String {
    let ids = |s: &EngineSnapshot| -> HashSet<u64> {
        s.queue
            .iter()
            .map(|q| q.id)
            .chain(s.running.iter().map(|r| r.id))
            .collect()
    };
    let running = |s: &EngineSnapshot| -> HashSet<u64> { s.running.iter().map(|r| r.id).collect() };
    let (known, was_running) = (ids(before), running(before));
    let mut parts: Vec<String> = Vec::new();
    for r in ended {
        parts.push(if r.killed {
            format!("job {} was killed at its estimate", r.id)
        } else {
            format!("job {} ended", r.id)
        });
    }
    let mut arrived: Vec<u64> = ids(after).difference(&known).copied().collect();
    arrived.sort_unstable();
    for id in &arrived {
        parts.push(format!("job {id} arrived"));
    }
    if let Some(m) = timeline {
        parts.push(format!("timeline: {m}"));
    }
    let mut back: Vec<u64> = after
        .queue
        .iter()
        .map(|q| q.id)
        .filter(|id| was_running.contains(id))
        .collect();
    back.sort_unstable();
    for id in &back {
        parts.push(format!("job {id} went back to the queue"));
    }
    let expired_before: HashSet<u64> = before
        .running
        .iter()
        .filter(|r| r.expired)
        .map(|r| r.id)
        .collect();
    for r in after.running.iter().filter(|r| r.expired) {
        if was_running.contains(&r.id) && !expired_before.contains(&r.id) {
            parts.push(format!("job {} passed its estimate", r.id));
        }
    }
    if parts.is_empty() {
        parts.push("the policy looked again".to_string());
    }
    let mut started: Vec<u64> = after
        .running
        .iter()
        .map(|r| r.id)
        .filter(|id| !was_running.contains(id))
        .collect();
    started.sort_unstable();
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    match started.len() {
        0 => {}
        1 => parts.push(format!("job {} started", started[0])),
        _ => parts.push(format!("jobs {} started", list(&started))),
    }
    parts.join("; ")
}

/// Wall time for a run of events. Events cost from tens of nanoseconds (a
/// short queue) to milliseconds (a plan over a queue of tens of
/// thousands), and the cost can change within a few events (a burst of
/// arrivals into a long plan): the clock is looked at after every event
/// while they are slow, and every few while they are cheap (a look costs
/// about as much as a cheap event), so a run overshoots its time by a few
/// slow events at most.
#[derive(Debug)]
pub struct Budget {
    start: Instant,
    limit: Duration,
    /// Events between looks at the clock, and left before the next look.
    stride: u32,
    left: u32,
    events: u32,
}

impl Budget {
    pub fn new(limit: Duration) -> Budget {
        Budget {
            start: Instant::now(),
            limit,
            stride: 1,
            left: 1,
            events: 0,
        }
    }

    /// Whether another event fits in the time; true the first time.
    pub fn go_on(&mut self) -> bool {
        // Events handled so far.
        let done = self.events;
        self.events = self.events.saturating_add(1);
        self.left -= 1;
        if self.left > 0 {
            return true;
        }
        self.left = 1;
        if done == 0 {
            return true;
        }
        let spent = self.start.elapsed();
        if spent >= self.limit {
            return false;
        }
        let each = spent / done;
        self.stride = if each < Duration::from_micros(1) {
            32
        } else if each < Duration::from_micros(20) {
            4
        } else {
            1
        };
        self.left = self.stride;
        true
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;

    #[test]
    fn slow_events_are_timed_one_by_one_and_cheap_ones_in_strides() {
        let mut b = Budget::new(Duration::from_millis(20));
        let mut n = 0;
        while b.go_on() {
            n += 1;
            std::thread::sleep(Duration::from_millis(3));
        }
        assert!((1..=8).contains(&n), "{n} events of 3 ms in 20 ms");
        assert_eq!(b.stride, 1);
        let mut b = Budget::new(Duration::from_millis(2));
        let mut n = 0u64;
        while b.go_on() {
            n += 1;
        }
        assert_eq!(b.stride, 32, "cheap events");
        assert!(b.start.elapsed() < Duration::from_millis(50), "{n}");
    }
}
