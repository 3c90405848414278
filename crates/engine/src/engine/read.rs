//! The engine as a reader outside it sees it: one read-only view of the
//! whole state, which every picture is projected from — the whole
//! [`EngineSnapshot`] of reports and tests, or the few rows of a long
//! queue that a console draws. Which rows a reader draws, and which job
//! it follows, are the reader's: the engine knows nothing of them.

use super::snapshot::{self, EngineSnapshot, QueueRow};
use super::{Counters, Engine};
use crate::model::estimates::EstimateModel;
use crate::model::{Platform, SimTime};
use crate::sched::{
    BackfillView, Explanation, JobKey, JobView, PolicySpec, PolicyState, ReservationView,
};
use std::collections::HashMap;

/// A read-only view of an [`Engine`] (see [`Engine::read`]): what it holds
/// now, borrowed, with nothing that changes it.
#[derive(Clone, Copy)]
pub struct EngineRead<'a> {
    e: &'a Engine,
}

impl Engine {
    /// The read-only view that pictures of the engine are projected from.
    pub fn read(&self) -> EngineRead<'_> {
        EngineRead { e: self }
    }

    /// An immutable picture of the whole system, with a row for every
    /// queued job.
    pub fn snapshot(&self) -> EngineSnapshot {
        let read = self.read();
        let (queue, plan) = read.queue_rows(read.queue());
        read.picture(queue, plan)
    }
}

impl<'a> EngineRead<'a> {
    pub fn now(self) -> SimTime {
        self.e.now
    }

    pub fn counters(self) -> Counters {
        self.e.counters
    }

    /// No event is left (see [`Engine::is_done`]).
    pub fn is_done(self) -> bool {
        self.e.is_done()
    }

    /// Why and when the policy stopped the run, if it did (see
    /// [`Engine::failure`]).
    pub fn failure(self) -> Option<&'a (SimTime, String)> {
        self.e.failure()
    }

    pub fn platform(self) -> &'a Platform {
        &self.e.machine.platform
    }

    /// Free processors per cluster.
    pub fn free(self) -> &'a [u32] {
        &self.e.machine.free
    }

    /// The queued jobs in queue (arrival) order: the first is the head.
    pub fn queue(self) -> &'a [JobKey] {
        &self.e.table.queue
    }

    /// The running jobs (in no particular order).
    pub fn running(self) -> &'a [JobKey] {
        &self.e.table.running
    }

    /// The public fields of a job in the system (queued or running): what
    /// a policy may know of it.
    pub fn job(self, key: JobKey) -> &'a JobView {
        &self.e.table.jobs[key.0]
    }

    /// The links' available bandwidth, if the platform has a network.
    pub fn link_bandwidth(self) -> Option<&'a [f64]> {
        self.e.link_bandwidth()
    }

    /// What the running jobs ask of each link now.
    pub fn link_load(self) -> Vec<f64> {
        self.e.link_load()
    }

    /// The advance reservations in force, in grant order.
    pub fn reservations(self) -> &'a [ReservationView] {
        self.e.reservations()
    }

    pub fn estimates(self) -> &'a EstimateModel {
        self.e.estimates()
    }

    /// The policy in force.
    pub fn policy(self) -> &'a PolicySpec {
        self.e.policy()
    }

    pub fn policy_label(self) -> String {
        self.e.policy_label()
    }

    /// The policy's view of its own state.
    pub fn policy_state(self) -> PolicyState {
        self.e.policy_state()
    }

    /// The policy's plan (planned starts, the head's reservation, windows)
    /// for the queued jobs `rows`, under a backfilling policy.
    pub fn plan_rows(self, rows: &[JobKey]) -> Option<BackfillView> {
        self.e.seat.policy.plan_rows(&self.e.view(), rows)
    }

    /// The job with workload id `id`, if it is in the system (queued or
    /// running).
    pub fn key_of(self, id: u64) -> Option<JobKey> {
        self.e
            .table
            .jobs
            .iter()
            .find(|(_, j)| j.id == id)
            .map(|(k, _)| JobKey(k))
    }

    /// Why the queued job `key` waits, by the policy in force (see
    /// [`crate::sched::Policy::explain`]); `None` if it is not queued.
    pub fn explain(self, key: JobKey) -> Option<Explanation> {
        if !self.e.table.queue.contains(&key) {
            return None;
        }
        Some(self.e.seat.policy.explain(&self.e.view(), key))
    }

    /// The rows of the queued jobs `keys`, in that order, each with the
    /// start the policy plans for it, and the policy's plan for them.
    pub fn queue_rows(self, keys: &[JobKey]) -> (Vec<QueueRow>, Option<BackfillView>) {
        let plan = self.plan_rows(keys);
        let planned: HashMap<u64, SimTime> = plan
            .as_ref()
            .map(|p| p.reservations.iter().copied().collect())
            .unwrap_or_default();
        let rows = keys
            .iter()
            .map(|&k| self.queue_row(k, planned.get(&self.job(k).id).copied()))
            .collect();
        (rows, plan)
    }

    /// A queued job's row, with the start planned for it.
    pub fn queue_row(self, key: JobKey, planned: Option<SimTime>) -> QueueRow {
        let j = self.job(key);
        QueueRow {
            id: j.id,
            submit: j.submit,
            size: j.size,
            components: j.components.clone(),
            estimate: j.estimate,
            injected: j.injected,
            planned_start: planned,
            graph: j.graph.clone(),
        }
    }

    /// The picture of the whole system but the queue's rows, which are
    /// `queue` (the reader's choice of them), with `backfill` the policy's
    /// plan for those rows.
    pub fn picture<Q>(self, queue: Q, backfill: Option<BackfillView>) -> EngineSnapshot<Q> {
        snapshot::build(self, queue, backfill)
    }
}
