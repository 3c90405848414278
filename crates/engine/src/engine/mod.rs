//! The discrete-event engine: time, the event queue, the job table and
//! processor ownership. Plain and synchronous: no threads, clocks or I/O.
//!
//! The engine never decides what runs; it asks its [`Policy`] at every
//! decision point and validates and applies the answers. Same platform,
//! workload, seed and command timeline give the same run, bit for bit.

mod allocation;
mod commands;
mod events;
mod lifecycle;
mod machine;
mod network;
mod queue;
mod read;
mod reservations;
mod seat;
mod snapshot;
mod table;

pub use commands::{
    Command, CommandError, CommandOutcome, INJECTED_ID_BASE, InjectJob, RECHECK_RETRIES,
    REFUSAL_RETRIES, SETTLE_LIMIT, Splitter,
};

pub use events::{Event, EventKind, EventQueue};
pub use read::EngineRead;
pub use snapshot::{
    CellView, ClusterView, EngineSnapshot, LinkView, MAX_CELLS, MAX_RESERVATIONS, QueueRow,
    RunningRow,
};

use crate::model::JobSource;
use crate::model::estimates::{EstimateModel, Estimator, OnOverrun};
use crate::model::{ClusterIdx, JobRecord, JobSpec, Placement, Platform, SimTime};
use crate::sched::Assignment;
use crate::sched::rate::{job_rate, running_rate, span};
use crate::sched::{
    Carried, Decision, Decisions, Policies, PolicySpec, PolicyState, Refusal, Start, StartKind,
    SystemView,
};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use crate::sched::{BackfillView, JobKey, JobState, JobView};

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

/// A job the policy in force could never run, rejected when it arrived.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rejection {
    pub id: u64,
    pub submit: SimTime,
    /// When it was rejected (its arrival, or its injection).
    pub at: SimTime,
    pub injected: bool,
    /// The label of the policy that rejected it.
    pub policy: String,
    pub reason: String,
}

/// Rejections kept with their reasons; beyond them only the count grows.
pub const KEPT_REJECTIONS: usize = 1000;

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
    /// Jobs that arrived under a policy that can never run them, rejected
    /// with its reason instead of queued ([`Engine::rejections`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub rejected: u64,
    /// Running moldable jobs folded and expanded.
    #[serde(skip_serializing_if = "is_zero")]
    pub folded: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub expanded: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the policy sees of `$e` (an engine), built from field accesses
/// alone so that the policy, another field, can be borrowed mutably beside
/// it at a decision point.
macro_rules! system_view {
    ($e:expr) => {
        SystemView {
            now: $e.now,
            platform: &$e.machine.platform,
            free: &$e.machine.free,
            queue: &$e.table.queue[..],
            running: &$e.table.running,
            jobs: &$e.table.jobs,
            queue_edits: $e.table.queue_edits,
            requeue_expired: $e.estimator.model().on_overrun == OnOverrun::Requeue,
            kill_expired: $e.estimator.model().on_overrun == OnOverrun::Kill,
            reservations: $e.book.views(),
            seed: $e.seed,
        }
    };
}

// After the macro, which they use.
mod pass;
mod resize;

/// The engine: a composition of owned parts, each with the methods that
/// keep its books (the machine, the agenda, the job table, the policy
/// seat, the workload feed, the command log, the decision pass and the
/// reservation book), and the clock, the counters and the settings of the
/// run. Engine's own methods are the rules that span parts: what an event
/// does, what a decision does to the jobs and the processors.
pub struct Engine {
    now: SimTime,
    /// The platform and who holds its processors.
    machine: machine::Machine,
    /// The events to come, and the stamps of the jobs' events.
    events: events::Agenda,
    /// The jobs in the system, the queue and the ended jobs' records.
    table: table::JobTable,
    /// The policy in force, the policies it may switch to, and what it
    /// rejected.
    seat: seat::PolicySeat,
    /// The workload's jobs, the next one drawn.
    feed: lifecycle::Feed,
    estimator: Estimator,
    splitter: Option<Splitter>,
    /// The timeline and the commands applied.
    commands: commands::CommandLog,
    /// When the policy decides, and its answer.
    pass: pass::DecisionPass,
    counters: Counters,
    seed: u64,
    /// The advance reservations granted and not over.
    book: reservations::ReservationBook,
    /// Why the policy stopped the run, and when ([`Decisions::fail`]).
    failure: Option<(SimTime, String)>,
}

impl Engine {
    /// An engine on `platform` running the jobs of `source` under the
    /// policy `spec`, built (then and on every policy switch) from
    /// `policies`.
    pub fn with_builder(
        platform: Platform,
        source: Box<dyn JobSource>,
        spec: &PolicySpec,
        config: EngineConfig,
        policies: Policies,
    ) -> Result<Engine, String> {
        let seat = seat::PolicySeat::new(policies, spec, &platform)?;
        let mut events = events::Agenda::default();
        let feed = lifecycle::Feed::new(source);
        if let Some(submit) = feed.next_submit() {
            events.push(submit, EventKind::Arrival);
        }
        Ok(Engine {
            now: SimTime::ZERO,
            machine: machine::Machine::new(platform),
            events,
            table: table::JobTable::default(),
            seat,
            feed,
            estimator: Estimator::new(config.estimates, config.seed),
            splitter: config.splitter,
            commands: commands::CommandLog::default(),
            pass: pass::DecisionPass::default(),
            counters: Counters::default(),
            seed: config.seed,
            book: reservations::ReservationBook::default(),
            failure: None,
        })
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn platform(&self) -> &Platform {
        &self.machine.platform
    }

    pub fn policy(&self) -> &PolicySpec {
        self.seat.policy.spec()
    }

    pub fn estimates(&self) -> &EstimateModel {
        self.estimator.model()
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    pub fn queue_len(&self) -> usize {
        self.table.queue.len()
    }

    pub fn running_len(&self) -> usize {
        self.table.running.len()
    }

    /// No event is left: the workload is exhausted and every job has ended
    /// (or the policy stopped the run: [`Engine::failure`]).
    pub fn is_done(&self) -> bool {
        self.events.is_empty() || self.failure.is_some()
    }

    /// Checks, once the run is over, that no job was lost: every job that
    /// arrived has ended exactly once and nothing is queued or running.
    /// Otherwise the run's figures cannot be trusted, and the error names
    /// the jobs left behind.
    pub fn check_conservation(&self) -> Result<(), Conservation> {
        let c = self.counters;
        if self.events.is_empty()
            && self.table.jobs.is_empty()
            && c.arrived == c.finished + c.rejected
        {
            return Ok(());
        }
        let left = self.table.left();
        Err(Conservation {
            at: self.now,
            arrived: c.arrived,
            finished: c.finished,
            events_left: self.events.len(),
            left,
        })
    }

    /// Jobs rejected so far because the policy in force could never run
    /// them (the first [`KEPT_REJECTIONS`]; [`Counters::rejected`] counts
    /// them all).
    pub fn rejections(&self) -> &[Rejection] {
        self.seat.rejections()
    }

    /// Why the policy stopped the run, and when, if it did: the run ended
    /// there with its jobs left in the system.
    pub fn failure(&self) -> Option<&(SimTime, String)> {
        self.failure.as_ref()
    }

    /// Ends the run now because the policy cannot go on: no event is left.
    fn stop(&mut self, reason: String) {
        tracing::warn!(at = %self.now, %reason, "the policy stopped the run");
        self.failure = Some((self.now, reason));
        self.events.retain(|_| false);
    }

    /// Jobs in the system now, queued or running.
    pub fn jobs_left(&self) -> u64 {
        self.table.jobs.len() as u64
    }

    /// The time of the next event, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.events.peek_time()
    }

    /// Records of jobs that ended since the last call, in end order.
    pub fn drain_records(&mut self) -> std::vec::Drain<'_, JobRecord> {
        self.table.finished.drain(..)
    }

    /// Handles the next event. Returns its time, or `None` when there is
    /// nothing left to do.
    pub fn step(&mut self) -> Option<SimTime> {
        if self.failure.is_some() {
            return None;
        }
        let ev = self.events.pop()?;
        debug_assert!(ev.time >= self.now, "time went back");
        if ev.time > self.now
            && !self.table.returning.is_empty()
            && !self.table.aborted_for_waiting()
        {
            self.return_aborted();
        }
        self.now = ev.time;
        self.counters.events += 1;
        match ev.kind {
            EventKind::Completion { job, stamp } => self.complete(job, stamp),
            EventKind::EstimateExpiry { job, stamp } => self.overrun(job, stamp),
            EventKind::Command { index } => {
                let cmd = self.commands.planned(index);
                // Scenario validation has checked timeline commands; one
                // that still cannot apply (a switch to a policy that could
                // never run a job then waiting) changes nothing, and says so.
                let done = self.execute(&cmd);
                self.commands.came_due(self.now, done);
            }
            EventKind::Arrival => self.arrive(),
            EventKind::Wake => self.pass.dirty = true,
        }
        self.decide_if_due();
        if self.machine.rates_stale && self.instant_settled() {
            self.refresh_rates();
        }
        if !self.table.returning.is_empty() && self.events.is_empty() {
            // Nothing else will happen, so nothing runs: whatever the head
            // waits for, the aborted jobs are back just after this instant.
            self.table.aborted_for = None;
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
        self.settle_within(SETTLE_LIMIT)
    }

    /// [`Engine::settle`], giving up after `limit` events.
    fn settle_within(&mut self, limit: usize) -> bool {
        let mut n = 0;
        while !self.instant_settled() {
            if n == limit {
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

    fn view(&self) -> SystemView<'_> {
        system_view!(self)
    }

    /// Processor-seconds held so far by the jobs running now (their
    /// current runs): with the ended jobs' records, a run's busy time
    /// when it is cut short.
    pub fn running_held(&self) -> f64 {
        self.table
            .running
            .iter()
            .map(|k| self.held_this_run(k.0))
            .sum()
    }

    /// Of [`Engine::running_held`], the processor-seconds the running
    /// jobs' processors computed (see [`crate::model::JobSpec::work`]).
    pub fn running_busy(&self) -> f64 {
        self.table
            .running
            .iter()
            .map(|k| self.held_this_run(k.0) * self.table.hidden[k.0].busy_share)
            .sum()
    }

    /// Free processors per cluster.
    pub fn free_processors(&self) -> &[u32] {
        &self.machine.free
    }

    /// Whether the job with workload id `id` is queued or running, `None`
    /// when it is not in the system.
    pub fn job_state(&self, id: u64) -> Option<JobState> {
        self.table.state_of(id)
    }

    /// The policy's view of its own state.
    pub fn policy_state(&self) -> PolicyState {
        self.seat.policy.state(&self.view())
    }
}

#[cfg(test)]
mod tests;

impl Engine {
    /// The label of `spec`, as the engine's policies name it.
    pub(crate) fn label_of(&self, spec: &PolicySpec) -> String {
        self.seat.label_of(spec)
    }

    /// The label of the policy in force.
    pub fn policy_label(&self) -> String {
        self.seat.label()
    }
}
