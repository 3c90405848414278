//! The discrete-event engine: time, the event queue, the job table and
//! processor ownership. Plain and synchronous: no threads, clocks or I/O.
//!
//! The engine never decides what runs; it asks its [`Policy`] at every
//! decision point and validates and applies the answers. Same platform,
//! workload, seed and command timeline give the same run, bit for bit.

mod events;
mod snapshot;

pub use events::{Event, EventKind, EventQueue};
pub use snapshot::{
    CellView, ClusterView, EngineSnapshot, LinkView, MAX_CELLS, QueueRow, RunningRow,
};

use crate::model::{ClusterIdx, JobRecord, JobSpec, Platform, SimTime, split_even};
use crate::sched::rate::{job_rate, span};
use crate::sched::{
    Decision, Policy, PolicyBuilder, PolicySpec, PolicyState, Refusal, StartKind, SystemView,
};
use crate::workload::JobSource;
use crate::workload::estimates::{EstimateModel, Estimator, OnOverrun};
use serde::{Deserialize, Serialize};
use slab::Slab;
use thiserror::Error;

pub use crate::sched::{BackfillView, JobKey, JobState, JobView};

/// What the engine knows of a job and policies must not: its actual
/// work, and the bookkeeping of its events. Kept beside the job's
/// [`JobView`], at the same slot.
#[derive(Clone, Debug, Default)]
struct Hidden {
    /// Actual run time on speed-1 processors.
    runtime: SimTime,
    /// The workload's own estimate, for re-estimating a queued job.
    trace_estimate: Option<SimTime>,
    /// Work left at `rate_since`, in speed-1 ticks.
    remaining: f64,
    rate_since: SimTime,
    /// The stamp of the job's pending completion and expiry events: unique
    /// across the run, so an event can never reach a later job that takes
    /// the same slot, nor the same job after it was rescheduled.
    stamp: u64,
    /// Events in the queue that carry the current stamp.
    pending: u8,
}

/// An operator action, applied at a simulated time and recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Command {
    /// Hand the queue to another policy; running jobs keep running.
    SetPolicy { policy: PolicySpec },
    /// Add jobs to the queue now.
    InjectJobs { jobs: Vec<InjectJob> },
    /// Change how runtime estimates are made for jobs that arrive from now
    /// on (and, with `queued_too`, of the jobs still queued).
    SetEstimateError {
        estimates: EstimateModel,
        /// Also re-estimate the jobs waiting in the queue now.
        #[serde(default)]
        queued_too: bool,
    },
}

/// A job an operator adds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InjectJob {
    pub size: u32,
    /// Run time in seconds.
    pub runtime: f64,
    /// Estimate in seconds; the active estimate model decides if absent.
    #[serde(default)]
    pub estimate: Option<f64>,
    /// Component widths; split by the workload's rule when absent.
    #[serde(default)]
    pub components: Option<Vec<u32>>,
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

/// Ids of injected jobs start here, apart from any workload's ids.
pub const INJECTED_ID_BASE: u64 = 1_000_000_000;

#[derive(Debug, Error, PartialEq)]
pub enum CommandError {
    #[error("policy {policy} cannot run here: {reason}")]
    PolicyUnsupported { policy: String, reason: String },
    #[error("injected job: {0}")]
    BadJob(String),
    #[error(
        "internal error: the engine is stuck at t = {at}: {events} events without time moving on"
    )]
    Stuck { at: SimTime, events: usize },
}

/// Events [`Engine::settle`] handles at one instant before it reports the
/// engine stuck: far more than any real burst (a whole trace's jobs
/// arriving at once is a few hundred thousand).
pub const SETTLE_LIMIT: usize = 20_000_000;

/// A run that ended with jobs not accounted for: an internal error.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("{}", self.describe())]
pub struct Conservation {
    pub at: SimTime,
    pub arrived: u64,
    pub finished: u64,
    pub events_left: usize,
    /// The jobs still in the system, by workload id, and where.
    pub left: Vec<(u64, &'static str)>,
}

impl Conservation {
    fn describe(&self) -> String {
        const SHOWN: usize = 20;
        let mut jobs: Vec<String> = self
            .left
            .iter()
            .take(SHOWN)
            .map(|(id, state)| format!("{id} ({state})"))
            .collect();
        if self.left.len() > SHOWN {
            jobs.push(format!("and {} more", self.left.len() - SHOWN));
        }
        let jobs = if jobs.is_empty() {
            "none in the system".to_string()
        } else {
            jobs.join(", ")
        };
        format!(
            "internal error: jobs were lost at t = {}: {} arrived, {} ended, {} events left; jobs left: {jobs}",
            self.at, self.arrived, self.finished, self.events_left
        )
    }
}

/// The result of a command, for the operator's message line.
#[derive(Clone, Debug, PartialEq)]
pub struct CommandOutcome {
    pub message: String,
}

/// How a new job's components are chosen when a command does not say.
pub type Splitter = Box<dyn FnMut(u32) -> Vec<u32> + Send>;

/// Engine settings that do not change during a run.
pub struct EngineConfig {
    pub seed: u64,
    pub estimates: EstimateModel,
    /// Splits injected jobs without explicit components.
    pub splitter: Option<Splitter>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            seed: 1,
            estimates: EstimateModel::default(),
            splitter: None,
        }
    }
}

/// Per-cluster processor ownership.
#[derive(Clone, Debug)]
struct ClusterState {
    /// `owner[p]` is the slot of the job on processor `p` plus one, 0 if free.
    owner: Vec<u32>,
    free: u32,
}

/// Counters for the status line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    pub events: u64,
    pub arrived: u64,
    pub started: u64,
    pub finished: u64,
    pub killed: u64,
    pub started_ahead: u64,
    /// Jobs aborted at their estimate and put back in the queue.
    pub requeued: u64,
    /// Running jobs that reached the end of their estimate.
    pub overruns: u64,
    /// Decisions of the policy the engine would not carry out.
    #[serde(skip_serializing_if = "is_zero")]
    pub refused: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub struct Engine {
    now: SimTime,
    platform: Platform,
    events: EventQueue,
    jobs: Slab<JobView>,
    /// What policies must not see of each job, by slot.
    hidden: Vec<Hidden>,
    build: PolicyBuilder,
    queue: Vec<JobKey>,
    running: Vec<JobKey>,
    clusters: Vec<ClusterState>,
    free: Vec<u32>,
    policy: Box<dyn Policy>,
    source: Box<dyn JobSource>,
    pending: Option<JobSpec>,
    estimator: Estimator,
    splitter: Option<Splitter>,
    timeline: Vec<Command>,
    timeline_messages: Vec<(SimTime, String)>,
    log: Vec<(SimTime, Command)>,
    finished: Vec<JobRecord>,
    counters: Counters,
    next_arrival: u64,
    next_injected: u64,
    dirty: bool,
    /// Bumped whenever a queued job changes other than by arriving at the
    /// end of the queue or starting (a requeue, an estimate change), so
    /// that a policy keeping state between decision points knows to look
    /// at the whole queue again.
    queue_edits: u64,
    decisions: Vec<Decision>,
    /// The last wake-up the policy asked for.
    wake: Option<SimTime>,
    /// Jobs started ahead of the queue whose estimate ran out while they
    /// ran, under `on_overrun = "requeue"`: aborted, oldest first, when the
    /// head of the queue needs their processors.
    expired: Vec<(usize, u64)>,
    /// Aborted jobs, back in the queue once the job they made room for
    /// (slot, arrival) has started.
    returning: Vec<usize>,
    aborted_for: Option<(usize, u64)>,
    /// The next job-event stamp (0 is never given out).
    next_stamp: u64,
    /// Job events in the queue whose job has ended or was rescheduled
    /// since: dropped when they come up, and swept out of the queue when
    /// they are many (rate changes and kills leave them behind).
    stale: usize,
    /// The last decision refused, for the console's message line.
    last_refusal: Option<(SimTime, Refusal)>,
}

impl Engine {
    /// An engine on `platform` running the jobs of `source` under the
    /// policy `spec`, built (then and on every policy switch) by `build`.
    pub fn with_builder(
        platform: Platform,
        mut source: Box<dyn JobSource>,
        spec: &PolicySpec,
        config: EngineConfig,
        build: PolicyBuilder,
    ) -> Result<Engine, String> {
        let policy = build(spec, &platform)?;
        let clusters = platform
            .clusters
            .iter()
            .map(|c| ClusterState {
                owner: vec![0; c.processors as usize],
                free: c.processors,
            })
            .collect();
        let free = platform.clusters.iter().map(|c| c.processors).collect();
        let mut events = EventQueue::default();
        let pending = source.next_job();
        if let Some(j) = &pending {
            events.push(j.submit, EventKind::Arrival);
        }
        Ok(Engine {
            now: SimTime::ZERO,
            platform,
            events,
            jobs: Slab::new(),
            hidden: Vec::new(),
            build,
            queue: Vec::new(),
            running: Vec::new(),
            clusters,
            free,
            policy,
            source,
            pending,
            estimator: Estimator::new(config.estimates, config.seed),
            splitter: config.splitter,
            timeline: Vec::new(),
            timeline_messages: Vec::new(),
            log: Vec::new(),
            finished: Vec::new(),
            counters: Counters::default(),
            next_arrival: 0,
            next_injected: INJECTED_ID_BASE + 1,
            dirty: false,
            queue_edits: 0,
            decisions: Vec::new(),
            wake: None,
            expired: Vec::new(),
            returning: Vec::new(),
            aborted_for: None,
            next_stamp: 1,
            stale: 0,
            last_refusal: None,
        })
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    pub fn policy(&self) -> &PolicySpec {
        self.policy.spec()
    }

    pub fn estimates(&self) -> &EstimateModel {
        self.estimator.model()
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    pub fn running_len(&self) -> usize {
        self.running.len()
    }

    /// The operator commands applied so far through [`Engine::apply`], with
    /// the simulated time of each (timeline commands are not in it).
    pub fn command_log(&self) -> &[(SimTime, Command)] {
        &self.log
    }

    /// No event is left: the workload is exhausted and every job has ended.
    pub fn is_done(&self) -> bool {
        self.events.is_empty()
    }

    /// Checks, once the run is over, that no job was lost: every job that
    /// arrived has ended exactly once and nothing is queued or running.
    /// Otherwise the run's figures cannot be trusted, and the error names
    /// the jobs left behind.
    pub fn check_conservation(&self) -> Result<(), Conservation> {
        let c = self.counters;
        if self.events.is_empty() && self.jobs.is_empty() && c.arrived == c.finished {
            return Ok(());
        }
        let mut left: Vec<(u64, &'static str)> = self
            .jobs
            .iter()
            .map(|(slot, j)| {
                let state = match j.state {
                    JobState::Running => "running",
                    JobState::Queued if self.returning.contains(&slot) => "aborted, not back",
                    JobState::Queued => "queued",
                };
                (j.id, state)
            })
            .collect();
        left.sort_unstable();
        Err(Conservation {
            at: self.now,
            arrived: c.arrived,
            finished: c.finished,
            events_left: self.events.len(),
            left,
        })
    }

    /// The time of the next event, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.events.peek_time()
    }

    /// Records of jobs that ended since the last call, in end order.
    pub fn drain_records(&mut self) -> std::vec::Drain<'_, JobRecord> {
        self.finished.drain(..)
    }

    /// Queues a command for simulated time `at` (a scenario timeline entry).
    pub fn schedule_command(&mut self, at: SimTime, command: Command) {
        let index = self.timeline.len();
        self.timeline.push(command);
        self.events
            .push(at.max(self.now), EventKind::Command { index });
    }

    /// Handles the next event. Returns its time, or `None` when there is
    /// nothing left to do.
    pub fn step(&mut self) -> Option<SimTime> {
        let ev = self.events.pop()?;
        debug_assert!(ev.time >= self.now, "time went back");
        if ev.time > self.now && !self.returning.is_empty() && !self.aborted_for_waiting() {
            self.return_aborted();
        }
        self.now = ev.time;
        self.counters.events += 1;
        match ev.kind {
            EventKind::Completion { job, stamp } => self.complete(job, stamp),
            EventKind::EstimateExpiry { job, stamp } => self.overrun(job, stamp),
            EventKind::Command { index } => {
                let cmd = self.timeline[index].clone();
                // Scenario validation has checked timeline commands; one
                // that still cannot apply changes nothing.
                if let Ok(outcome) = self.execute(&cmd) {
                    self.timeline_messages.push((self.now, outcome.message));
                }
            }
            EventKind::Arrival => self.arrive(),
            EventKind::Wake => self.dirty = true,
        }
        if self.dirty && self.instant_settled() {
            self.schedule();
        }
        if !self.returning.is_empty() && self.events.is_empty() {
            // Nothing else will happen, so nothing runs: whatever the head
            // waits for, the aborted jobs are back just after this instant.
            self.aborted_for = None;
            self.events.push(self.now + SimTime(1), EventKind::Wake);
        }
        Some(self.now)
    }

    /// Whether every event of the current instant but commands is handled:
    /// the point where the policy decides.
    fn instant_settled(&self) -> bool {
        match self.events.peek() {
            Some(e) => e.time != self.now || e.kind.is_command(),
            None => true,
        }
    }

    /// Handles the events left at the current instant (not commands), so
    /// that the engine is at a decision point.
    /// Returns false if it gave up after [`SETTLE_LIMIT`] events without
    /// time moving on: the engine is stuck at this instant.
    pub fn settle(&mut self) -> bool {
        let mut n = 0;
        while !self.instant_settled() {
            if n == SETTLE_LIMIT {
                return false;
            }
            self.step();
            n += 1;
        }
        true
    }

    /// Handles every event up to and including `t`, then sets the clock to
    /// `t` (if it is later than now).
    pub fn step_until(&mut self, t: SimTime) {
        while let Some(next) = self.events.peek_time() {
            if next > t {
                break;
            }
            self.step();
        }
        if t > self.now && t != SimTime::MAX {
            self.now = t;
        }
    }

    /// Runs until no event is left.
    pub fn run(&mut self) {
        while self.step().is_some() {}
    }

    /// Applies an operator command now and records it in the command log.
    /// Events left at the current instant are handled first, so a saved log
    /// replays exactly.
    pub fn apply(&mut self, command: Command) -> Result<CommandOutcome, CommandError> {
        if !self.settle() {
            return Err(CommandError::Stuck {
                at: self.now,
                events: SETTLE_LIMIT,
            });
        }
        let outcome = self.execute(&command)?;
        self.log.push((self.now, command));
        Ok(outcome)
    }

    /// Messages of timeline commands applied so far.
    pub fn timeline_messages(&self) -> &[(SimTime, String)] {
        &self.timeline_messages
    }

    fn execute(&mut self, command: &Command) -> Result<CommandOutcome, CommandError> {
        let outcome = match command {
            Command::SetPolicy { policy } => {
                let p = (self.build)(policy, &self.platform).map_err(|reason| {
                    CommandError::PolicyUnsupported {
                        policy: policy.label(),
                        reason,
                    }
                })?;
                self.policy = p;
                CommandOutcome {
                    message: format!("policy is now {}", policy.label()),
                }
            }
            Command::InjectJobs { jobs } => {
                let mut specs = Vec::new();
                for j in jobs {
                    for _ in 0..j.count.max(1) {
                        specs.push(self.injected_spec(j)?);
                    }
                }
                let ids: Vec<String> = specs.iter().map(|s| s.id.to_string()).collect();
                for s in specs {
                    self.enqueue(s);
                }
                CommandOutcome {
                    message: format!("injected job {}", ids.join(", ")),
                }
            }
            Command::SetEstimateError {
                estimates,
                queued_too,
            } => {
                self.estimator.set_model(estimates.clone());
                let scope = if *queued_too {
                    for k in &self.queue {
                        let job = &mut self.jobs[k.0];
                        let h = &self.hidden[k.0];
                        job.estimate = self.estimator.estimate(&JobSpec {
                            id: job.id,
                            submit: job.submit,
                            size: job.size,
                            components: Vec::new(),
                            runtime: h.runtime,
                            estimate: h.trace_estimate,
                            user: job.user,
                            injected: job.injected,
                        });
                    }
                    self.queue_edits += 1;
                    "for queued jobs and jobs that arrive from now on"
                } else {
                    "for jobs that arrive from now on"
                };
                CommandOutcome {
                    message: format!("estimates are now {estimates} {scope}"),
                }
            }
        };
        self.dirty = true;
        if self.instant_settled() {
            self.schedule();
        }
        Ok(outcome)
    }

    fn injected_spec(&mut self, j: &InjectJob) -> Result<JobSpec, CommandError> {
        if j.size == 0 {
            return Err(CommandError::BadJob("size must be at least 1".into()));
        }
        if !(j.runtime.is_finite() && j.runtime >= 0.0) {
            return Err(CommandError::BadJob(format!(
                "runtime must be ≥ 0 seconds, found {}",
                j.runtime
            )));
        }
        if let Some(e) = j.estimate
            && !(e.is_finite() && e >= 0.0)
        {
            return Err(CommandError::BadJob(format!(
                "estimate must be ≥ 0 seconds, found {e}"
            )));
        }
        let components = match &j.components {
            Some(c) => {
                if c.iter().sum::<u32>() != j.size || c.contains(&0) {
                    return Err(CommandError::BadJob(format!(
                        "components {c:?} must be ≥ 1 each and add up to the size {}",
                        j.size
                    )));
                }
                c.clone()
            }
            None => match &mut self.splitter {
                Some(s) => s(j.size),
                None => split_even(j.size, 1),
            },
        };
        if !self.platform.can_ever_fit(&components) {
            return Err(CommandError::BadJob(format!(
                "components {components:?} can never fit on {} (each component needs its own cluster)",
                self.platform.shape()
            )));
        }
        let id = self.next_injected;
        self.next_injected += 1;
        Ok(JobSpec {
            id,
            submit: self.now,
            size: j.size,
            components,
            runtime: SimTime::from_secs_f64(j.runtime),
            estimate: j.estimate.map(SimTime::from_secs_f64),
            user: None,
            injected: true,
        })
    }

    fn arrive(&mut self) {
        if let Some(spec) = self.pending.take() {
            self.enqueue(spec);
        }
        self.pending = self.source.next_job();
        if let Some(j) = &self.pending {
            // A source must yield jobs in submit order; a late one arrives now.
            self.events.push(j.submit.max(self.now), EventKind::Arrival);
        }
    }

    fn enqueue(&mut self, spec: JobSpec) {
        let estimate = self.estimator.estimate(&spec);
        let arrival = self.next_arrival;
        self.next_arrival += 1;
        self.counters.arrived += 1;
        let hidden = Hidden {
            runtime: spec.runtime,
            trace_estimate: spec.estimate,
            remaining: spec.runtime.0 as f64,
            ..Hidden::default()
        };
        let key = JobKey(self.jobs.insert(JobView {
            id: spec.id,
            submit: spec.submit,
            size: spec.size,
            components: spec.components,
            estimate,
            user: spec.user,
            injected: spec.injected,
            arrival,
            state: JobState::Queued,
            start: SimTime::ZERO,
            assignment: Vec::new(),
            processors: Vec::new(),
            rate: 1.0,
            estimated_end: SimTime::ZERO,
            jumped_ahead: false,
            requeues: 0,
        }));
        if self.hidden.len() <= key.0 {
            self.hidden.resize(key.0 + 1, Hidden::default());
        }
        self.hidden[key.0] = hidden;
        self.queue.push(key);
        self.dirty = true;
    }

    fn view(&self) -> SystemView<'_> {
        SystemView {
            now: self.now,
            platform: &self.platform,
            free: &self.free,
            queue: &self.queue,
            running: &self.running,
            jobs: &self.jobs,
            queue_edits: self.queue_edits,
        }
    }

    /// Aborts jobs started ahead of the queue whose estimate has run out,
    /// oldest first, while the head of the queue cannot start, until it
    /// can or none is left (the malleability paper's launcher: "looks for
    /// expired windows of previously backfilled jobs starting with the
    /// oldest one, until there are no more backfilled jobs or the just
    /// freed partition is suitable for the job at the head of the wait
    /// queue"). The head needs them once its reservation is due (the
    /// shadow time, for a policy that makes one); before that, or when the
    /// head can start anyway, an expired job keeps running.
    fn abort_expired_for_head(&mut self) {
        self.prune_expired();
        if self.expired.is_empty() {
            return;
        }
        let jobs = &self.jobs;
        self.expired
            .sort_by_key(|&(s, _)| (jobs[s].start, jobs[s].arrival));
        let Some(&head) = self.queue.first() else {
            return;
        };
        let head_id = self.jobs[head.0].id;
        let due = match self.policy.state(&self.view()) {
            PolicyState::Backfill {
                head,
                shadow: Some(t),
            } if head == head_id => t <= self.overrun_horizon(),
            _ => true,
        };
        if !due || !self.aborts_free_head() {
            return;
        }
        self.aborted_for = Some((head.0, self.jobs[head.0].arrival));
        let mut aborted = 0;
        while let Some(&head) = self.queue.first() {
            let widths = &self.jobs[head.0].components;
            if self.policy.fits_now(widths, &self.free) || aborted == self.expired.len() {
                break;
            }
            self.requeue(self.expired[aborted].0);
            aborted += 1;
        }
        self.expired.drain(..aborted);
    }

    /// Drops from the expired list the jobs that ended or were aborted
    /// since (and any later job in the same slot).
    fn prune_expired(&mut self) {
        let now = self.now;
        let jobs = &self.jobs;
        self.expired.retain(|&(s, arrival)| {
            jobs.get(s).is_some_and(|j| {
                j.arrival == arrival
                    && j.state == JobState::Running
                    && j.jumped_ahead
                    && j.estimated_end <= now
            })
        });
    }

    /// Whether aborting every expired job would let the head of the queue
    /// start now. Where it would not, none is aborted: their work would be
    /// lost for nothing, and a job started ahead again into the processors
    /// given back could be aborted again and again while the head waits.
    /// Each abort round so lets the head start, so the rounds are bounded.
    fn aborts_free_head(&self) -> bool {
        let Some(&head) = self.queue.first() else {
            return false;
        };
        let mut free = self.free.clone();
        for &(s, _) in &self.expired {
            for &(c, w) in &self.jobs[s].assignment {
                free[c as usize] += w;
            }
        }
        self.policy.fits_now(&self.jobs[head.0].components, &free)
    }

    /// The latest reservation time that waits only for jobs that have
    /// outlived their estimates. Such a job is expected to end one tick
    /// from now, at every decision point; a reservation behind it (or
    /// behind reservations made behind it) is due, for all the profile
    /// knows, as soon as it ends, while one at or after the next estimated
    /// end of a job still within its estimate waits for that job.
    fn overrun_horizon(&self) -> SimTime {
        let now = self.now;
        match self.view().next_estimated_end([]) {
            Some(t) => (t - SimTime(1)).max(now + SimTime(1)),
            None => SimTime::MAX,
        }
    }

    /// A decision point: ask the policy and start what it chose.
    fn schedule(&mut self) {
        self.dirty = false;
        if !self.expired.is_empty() {
            self.abort_expired_for_head();
        }
        if self.queue.is_empty() {
            return;
        }
        let mut decisions = std::mem::take(&mut self.decisions);
        decisions.clear();
        {
            let view = SystemView {
                now: self.now,
                platform: &self.platform,
                free: &self.free,
                queue: &self.queue,
                running: &self.running,
                jobs: &self.jobs,
                queue_edits: self.queue_edits,
            };
            self.policy.schedule(&view, &mut decisions);
        }
        decisions.retain(|d| match self.start(d) {
            Ok(()) => true,
            Err(r) => {
                self.refuse(r);
                false
            }
        });
        if !decisions.is_empty() {
            // The started jobs leave the queue. It is in arrival order, so
            // each one's place is a binary search; one pass closes the gaps
            // from the first of them on.
            let jobs = &self.jobs;
            let queue = &mut self.queue;
            let mut gone: Vec<usize> = decisions
                .iter()
                .map(|d| {
                    let arrival = jobs[d.job.0].arrival;
                    let at = queue.partition_point(|k| jobs[k.0].arrival < arrival);
                    debug_assert_eq!(queue[at], d.job, "the queue is in arrival order");
                    at
                })
                .collect();
            gone.sort_unstable();
            if gone[gone.len() - 1] == gone.len() - 1 {
                // The first jobs of the queue, the common case.
                queue.drain(..gone.len());
            } else {
                let mut kept = gone[0];
                let mut next = 0;
                for i in gone[0]..queue.len() {
                    if next < gone.len() && gone[next] == i {
                        next += 1;
                    } else {
                        queue[kept] = queue[i];
                        kept += 1;
                    }
                }
                queue.truncate(kept);
            }
        }
        self.decisions = decisions;
        if !self.expired.is_empty() {
            self.prune_expired();
            self.watch_expired();
        }
        if let Some(t) = self.policy.wake_at()
            && t > self.now
            && self.wake != Some(t)
        {
            self.wake = Some(t);
            self.events.push(t, EventKind::Wake);
        }
    }

    /// Expired jobs wait for the head's reservation to come due: decide
    /// again then, or at once (to abort them) when it is due already and
    /// the head cannot start.
    fn watch_expired(&mut self) {
        let Some(&head) = self.queue.first() else {
            return;
        };
        let PolicyState::Backfill {
            head: id,
            shadow: Some(t),
        } = self.policy.state(&self.view())
        else {
            return;
        };
        if id != self.jobs[head.0].id {
            return;
        }
        if t > self.overrun_horizon() {
            if self.wake != Some(t) {
                self.wake = Some(t);
                self.events.push(t, EventKind::Wake);
            }
        } else {
            if !self
                .policy
                .fits_now(&self.jobs[head.0].components, &self.free)
                && self.aborts_free_head()
            {
                // Such a round aborts expired jobs until the head fits.
                self.events.push(self.now, EventKind::Wake);
            }
        }
    }

    /// Checks a start decision against the job table and the free
    /// processors, changing nothing.
    fn check_start(&self, d: &Decision) -> Result<(), Refusal> {
        let Some(job) = self
            .jobs
            .get(d.job.0)
            .filter(|j| j.state == JobState::Queued)
        else {
            return Err(Refusal::NotQueued(d.job.0));
        };
        if !self.queue.contains(&d.job) {
            return Err(Refusal::NotQueued(d.job.0));
        }
        let id = job.id;
        if job.components.len() != d.assignment.len() {
            return Err(Refusal::ComponentCount {
                job: id,
                given: d.assignment.len(),
                wanted: job.components.len(),
            });
        }
        for (i, &(c, w)) in d.assignment.iter().enumerate() {
            if w != job.components[i] {
                return Err(Refusal::Width {
                    job: id,
                    index: i,
                    wanted: job.components[i],
                    given: w,
                });
            }
            let Some(cs) = self.clusters.get(c as usize) else {
                return Err(Refusal::NoCluster {
                    job: id,
                    cluster: c,
                });
            };
            if d.assignment[..i].iter().any(|&(o, _)| o == c) {
                return Err(Refusal::SameCluster {
                    job: id,
                    cluster: c,
                });
            }
            if cs.free < w {
                return Err(Refusal::TooFew {
                    job: id,
                    cluster: c,
                    wanted: w,
                    free: cs.free,
                });
            }
            if let Some(chosen) = d.processors.as_ref().and_then(|ps| ps.get(i)) {
                if chosen.len() != w as usize {
                    return Err(Refusal::NamedCount {
                        job: id,
                        cluster: c,
                        given: chosen.len(),
                        wanted: w,
                    });
                }
                for (n, &p) in chosen.iter().enumerate() {
                    if cs.owner.get(p as usize) != Some(&0) || chosen[..n].contains(&p) {
                        return Err(Refusal::Taken {
                            job: id,
                            cluster: c,
                            processor: p,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// A decision the engine would not carry out: counted, logged, and
    /// kept for the console's message line. The run goes on.
    fn refuse(&mut self, r: Refusal) {
        self.counters.refused += 1;
        tracing::warn!(at = self.now.as_secs_f64(), policy = %self.policy.spec().label(), "decision refused: {r}");
        self.last_refusal = Some((self.now, r));
    }

    fn start(&mut self, d: &Decision) -> Result<(), Refusal> {
        self.check_start(d)?;
        let now = self.now;
        let owner = d.job.0 as u32 + 1;
        let mut processors = Vec::with_capacity(d.assignment.len());
        for (i, &(c, w)) in d.assignment.iter().enumerate() {
            let cs = &mut self.clusters[c as usize];
            let mut got = Vec::with_capacity(w as usize);
            if let Some(chosen) = d.processors.as_ref().and_then(|ps| ps.get(i)) {
                for &p in chosen {
                    cs.owner[p as usize] = owner;
                    got.push(p);
                }
            } else {
                for (p, o) in cs.owner.iter_mut().enumerate() {
                    if got.len() == w as usize {
                        break;
                    }
                    if *o == 0 {
                        *o = owner;
                        got.push(p as u32);
                    }
                }
            }
            debug_assert_eq!(
                got.len(),
                w as usize,
                "free count out of step with ownership"
            );
            cs.free -= w;
            self.free[c as usize] -= w;
            processors.push(got);
        }
        let rate = job_rate(&self.platform, &d.assignment);
        let job = &mut self.jobs[d.job.0];
        job.state = JobState::Running;
        job.start = now;
        job.assignment = d.assignment.clone();
        job.processors = processors;
        job.rate = rate;
        job.jumped_ahead = d.kind == StartKind::Ahead;
        let h = &mut self.hidden[d.job.0];
        h.rate_since = now;
        job.estimated_end = now.saturating_add(span(job.estimate, rate));
        self.counters.started += 1;
        if job.jumped_ahead {
            self.counters.started_ahead += 1;
        }
        self.running.push(d.job);
        self.schedule_completion(d.job);
        Ok(())
    }

    fn schedule_completion(&mut self, key: JobKey) {
        self.forget_events(key.0);
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        let job = &self.jobs[key.0];
        let h = &mut self.hidden[key.0];
        h.stamp = stamp;
        let left = SimTime((h.remaining / job.rate).ceil() as i64);
        let at = self.now.saturating_add(left);
        // The estimate runs out before the work is done: the policy must
        // hear of it then (and the overrun setting applies).
        let expires = job.estimated_end;
        h.pending = 1;
        self.events
            .push(at, EventKind::Completion { job: key.0, stamp });
        if expires < at && expires >= self.now {
            self.hidden[key.0].pending += 1;
            self.events
                .push(expires, EventKind::EstimateExpiry { job: key.0, stamp });
        }
    }

    /// The job's pending events become stale: it ended, was put back in
    /// the queue or is about to be rescheduled.
    fn forget_events(&mut self, slot: usize) {
        let h = &mut self.hidden[slot];
        self.stale += h.pending as usize;
        h.pending = 0;
        h.stamp = 0;
        if self.stale > 4096 && self.stale * 2 > self.events.len() {
            let hidden = &self.hidden;
            self.events.retain(|e| match e.kind {
                EventKind::Completion { job, stamp } | EventKind::EstimateExpiry { job, stamp } => {
                    hidden[job].stamp == stamp
                }
                _ => true,
            });
            self.stale = 0;
        }
    }

    /// Takes a popped job event: whether it still belongs to a running job
    /// (else it is stale and dropped).
    fn live_event(&mut self, slot: usize, stamp: u64) -> bool {
        let live = self.hidden.get(slot).is_some_and(|h| h.stamp == stamp)
            && self
                .jobs
                .get(slot)
                .is_some_and(|j| j.state == JobState::Running);
        if live {
            self.hidden[slot].pending -= 1;
        } else {
            self.stale = self.stale.saturating_sub(1);
        }
        live
    }

    /// A running job has reached the end of its estimate with work left.
    fn overrun(&mut self, slot: usize, stamp: u64) {
        if !self.live_event(slot, stamp) {
            return; // stale: the job has ended or was rescheduled
        }
        self.counters.overruns += 1;
        self.dirty = true;
        match self.estimator.model().on_overrun {
            OnOverrun::Continue => {}
            OnOverrun::Kill => self.finish(slot, true),
            OnOverrun::Requeue => {
                if self.jobs[slot].jumped_ahead {
                    self.expired.push((slot, self.jobs[slot].arrival));
                }
            }
        }
    }

    /// Aborts a running job and puts it back in the queue at its arrival
    /// position; its work starts again from nothing.
    fn requeue(&mut self, slot: usize) {
        self.forget_events(slot);
        self.release(slot);
        let job = &mut self.jobs[slot];
        job.state = JobState::Queued;
        job.assignment.clear();
        job.processors.clear();
        job.rate = 1.0;
        job.jumped_ahead = false;
        job.requeues += 1;
        let h = &mut self.hidden[slot];
        h.remaining = h.runtime.0 as f64;
        self.returning.push(slot);
        self.counters.requeued += 1;
    }

    /// Whether the job that aborted jobs made room for is still waiting.
    fn aborted_for_waiting(&self) -> bool {
        self.aborted_for.is_some_and(|(slot, arrival)| {
            self.jobs
                .get(slot)
                .is_some_and(|j| j.arrival == arrival && j.state == JobState::Queued)
        })
    }

    /// Aborted jobs go back in the queue, each at its arrival position,
    /// once the job they made room for has started (and the instant of
    /// their abort is over). Were they back at once, a policy that does not
    /// start that job first (conservative backfilling in another scan
    /// order) could start them ahead again into the processors they gave
    /// back, and abort them again, forever; and a job whose estimate runs
    /// out as it starts (an estimate of 0) could be started and aborted
    /// again at one instant forever.
    fn return_aborted(&mut self) {
        self.aborted_for = None;
        for slot in std::mem::take(&mut self.returning) {
            let arrival = self.jobs[slot].arrival;
            let jobs = &self.jobs;
            let pos = self.queue.partition_point(|k| jobs[k.0].arrival < arrival);
            self.queue.insert(pos, JobKey(slot));
        }
        self.queue_edits += 1;
        self.dirty = true;
    }

    /// Changes a running job's execution rate from now on (the mechanism
    /// behind cluster speed, link slowdown and folding). The work done so
    /// far is kept and the completion moves with the new rate. The
    /// estimated end does not move: it is the wall-clock allowance the job
    /// got when it started (its estimate at its starting rate), as a
    /// walltime limit is, so a job slowed down can outlive it and one sped
    /// up ends before it.
    pub fn set_rate(&mut self, key: JobKey, rate: f64) {
        let now = self.now;
        let Some(job) = self.jobs.get_mut(key.0) else {
            return;
        };
        if job.state != JobState::Running || rate <= 0.0 || !rate.is_finite() {
            return;
        }
        let h = &mut self.hidden[key.0];
        let ticks = (now - h.rate_since).0 as f64;
        h.remaining = (h.remaining - ticks * job.rate).max(0.0);
        job.rate = rate;
        h.rate_since = now;
        self.schedule_completion(key);
    }

    fn complete(&mut self, slot: usize, stamp: u64) {
        if !self.live_event(slot, stamp) {
            return; // stale: the job was rescheduled or has gone
        }
        self.finish(slot, false);
    }

    /// The job leaves the system now: done, or killed with work left.
    fn finish(&mut self, slot: usize, killed: bool) {
        self.forget_events(slot);
        self.release(slot);
        let job = self.jobs.remove(slot);
        let runtime = self.hidden[slot].runtime;
        self.counters.finished += 1;
        if killed {
            self.counters.killed += 1;
        }
        self.finished.push(JobRecord {
            id: job.id,
            arrival: job.arrival,
            submit: job.submit,
            start: job.start,
            end: self.now,
            size: job.size,
            clusters: job
                .assignment
                .iter()
                .map(|&(c, _)| c)
                .collect::<Vec<ClusterIdx>>(),
            components: job.components,
            estimate: job.estimate,
            runtime,
            user: job.user,
            injected: job.injected,
            jumped_ahead: job.jumped_ahead,
            killed,
            requeues: job.requeues,
        });
        self.dirty = true;
    }

    /// Gives a running job's processors back.
    fn release(&mut self, slot: usize) {
        let job = &self.jobs[slot];
        for (&(c, w), procs) in job.assignment.iter().zip(&job.processors) {
            let cs = &mut self.clusters[c as usize];
            for &p in procs {
                debug_assert_eq!(
                    cs.owner[p as usize],
                    slot as u32 + 1,
                    "processor owned by another job"
                );
                cs.owner[p as usize] = 0;
            }
            cs.free += w;
            self.free[c as usize] += w;
        }
        if let Some(pos) = self.running.iter().position(|k| k.0 == slot) {
            self.running.swap_remove(pos);
        }
    }

    /// The last decision the engine refused, with its time.
    pub fn last_refusal(&self) -> Option<&(SimTime, Refusal)> {
        self.last_refusal.as_ref()
    }

    /// Free processors per cluster.
    pub fn free_processors(&self) -> &[u32] {
        &self.free
    }

    /// Whether the job with workload id `id` is queued or running, `None`
    /// when it is not in the system.
    pub fn job_state(&self, id: u64) -> Option<JobState> {
        self.jobs
            .iter()
            .find(|(_, j)| j.id == id)
            .map(|(_, j)| j.state)
    }

    /// The policy's view of its own state.
    pub fn policy_state(&self) -> PolicyState {
        self.policy.state(&self.view())
    }

    /// An immutable picture of the whole system for the console.
    pub fn snapshot(&self) -> EngineSnapshot {
        snapshot::build(self)
    }
}

#[cfg(test)]
mod tests;
