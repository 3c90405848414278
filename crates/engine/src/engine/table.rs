//! The job table: every job in the system (what policies see of it, and
//! beside it, at the same slot, what they must not), the queue in arrival
//! order, the running jobs, the aborted jobs on their way back, and the
//! records of the jobs that ended. It numbers arrivals and injected jobs.
//! The engine decides what happens to a job; the table keeps where it is.

use super::INJECTED_ID_BASE;
use super::queue::ArrivalQueue;
use crate::model::{JobRecord, Placement, SimTime};
use crate::sched::{JobKey, JobState, JobView};
use slab::Slab;

/// What the engine knows of a job and policies must not: its actual
/// work, and the bookkeeping of its events. Kept beside the job's
/// [`JobView`], at the same slot.
#[derive(Clone, Debug, Default)]
pub(super) struct Hidden {
    /// Actual run time on speed-1 processors.
    pub(super) runtime: SimTime,
    /// The share of the processor-time it holds that its processors
    /// compute (below 1 for a job whose tasks end apart).
    pub(super) busy_share: f64,
    /// The workload's own estimate, for re-estimating a queued job.
    pub(super) trace_estimate: Option<SimTime>,
    /// Work left at `rate_since`, in speed-1 ticks.
    pub(super) remaining: f64,
    pub(super) rate_since: SimTime,
    /// The stamp of the job's pending completion and expiry events: unique
    /// across the run, so an event can never reach a later job that takes
    /// the same slot, nor the same job after it was rescheduled.
    pub(super) stamp: u64,
    /// Events in the queue that carry the current stamp.
    pub(super) pending: u8,
    /// Processor-seconds held in runs that were aborted.
    pub(super) held_before: f64,
    /// Processor-seconds held in the current run up to `held_since`
    /// (the widths change when a job is folded or expanded).
    pub(super) held_run: f64,
    pub(super) held_since: SimTime,
    /// A moldable job's estimated sequential time, and the work done in
    /// its aborted runs (seconds of unfolded run).
    pub(super) seq_estimate: SimTime,
    pub(super) work_lost: f64,
    /// The reservation the job runs inside, while it runs there.
    pub(super) held: Option<u64>,
    /// The current run's estimate has run out and the policy heard of it:
    /// a later rate change does not announce it again.
    pub(super) expired: bool,
    /// The processors of the current run, from its start and from each
    /// resize: what the job's record says it held.
    pub(super) placements: Vec<Placement>,
}

pub(super) struct JobTable {
    pub(super) jobs: Slab<JobView>,
    /// What policies must not see of each job, by slot.
    pub(super) hidden: Vec<Hidden>,
    pub(super) queue: ArrivalQueue,
    pub(super) running: Vec<JobKey>,
    /// Records of the jobs that ended, not yet drained.
    pub(super) finished: Vec<JobRecord>,
    /// The next arrival number, and the next injected job's id.
    pub(super) next_arrival: u64,
    pub(super) next_injected: u64,
    /// Bumped whenever a queued job changes other than by arriving at the
    /// end of the queue or starting (a requeue, an estimate change), so
    /// that a policy keeping state between decision points knows to look
    /// at the whole queue again.
    pub(super) queue_edits: u64,
    /// Aborted jobs, back in the queue once the job they made room for
    /// (slot, arrival) has started.
    pub(super) returning: Vec<usize>,
    pub(super) aborted_for: Option<(usize, u64)>,
}

impl Default for JobTable {
    fn default() -> Self {
        JobTable {
            jobs: Slab::new(),
            hidden: Vec::new(),
            queue: ArrivalQueue::default(),
            running: Vec::new(),
            finished: Vec::new(),
            next_arrival: 0,
            next_injected: INJECTED_ID_BASE + 1,
            queue_edits: 0,
            returning: Vec::new(),
            aborted_for: None,
        }
    }
}

impl JobTable {
    /// The next arrival number.
    pub(super) fn number_arrival(&mut self) -> u64 {
        let n = self.next_arrival;
        self.next_arrival += 1;
        n
    }

    /// Puts an admitted job in the table and at the end of the queue.
    pub(super) fn admit(&mut self, job: JobView, hidden: Hidden) -> JobKey {
        let key = JobKey(self.jobs.insert(job));
        if self.hidden.len() <= key.0 {
            self.hidden.resize(key.0 + 1, Hidden::default());
        }
        self.hidden[key.0] = hidden;
        self.queue.push(key);
        key
    }

    /// Takes started jobs out of the queue. It is in arrival order, so each
    /// one's place is a binary search; one pass closes the gaps from the
    /// first of them on.
    pub(super) fn leave_queue(&mut self, started: &[JobKey]) {
        let jobs = &self.jobs;
        let queue = &mut self.queue;
        let mut gone: Vec<usize> = started
            .iter()
            .map(|&k| {
                let arrival = jobs[k.0].arrival;
                let at = queue.partition_point(|q| jobs[q.0].arrival < arrival);
                debug_assert_eq!(queue[at], k, "the queue is in arrival order");
                at
            })
            .collect();
        gone.sort_unstable();
        queue.remove_sorted(&gone);
    }

    /// Takes the job in `slot` off the running list.
    pub(super) fn stop_running(&mut self, slot: usize) {
        if let Some(pos) = self.running.iter().position(|k| k.0 == slot) {
            self.running.swap_remove(pos);
        }
    }

    /// Whether the job that aborted jobs made room for is still waiting.
    pub(super) fn aborted_for_waiting(&self) -> bool {
        self.aborted_for.is_some_and(|(slot, arrival)| {
            self.jobs
                .get(slot)
                .is_some_and(|j| j.arrival == arrival && j.state == JobState::Queued)
        })
    }

    /// Puts the aborted jobs back in the queue, each at its arrival
    /// position.
    pub(super) fn return_aborted(&mut self) {
        self.aborted_for = None;
        for slot in std::mem::take(&mut self.returning) {
            let arrival = self.jobs[slot].arrival;
            let jobs = &self.jobs;
            let pos = self.queue.partition_point(|k| jobs[k.0].arrival < arrival);
            self.queue.insert(pos, JobKey(slot));
        }
        self.queue_edits += 1;
    }

    /// Processor-seconds the job's current run has held up to `now`.
    pub(super) fn held_this_run(&self, slot: usize, now: SimTime) -> f64 {
        let job = &self.jobs[slot];
        let h = &self.hidden[slot];
        h.held_run + job.held() as f64 * (now - h.held_since).as_secs_f64()
    }

    /// The jobs in the system by workload id, with where each one is.
    pub(super) fn left(&self) -> Vec<(u64, &'static str)> {
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
        left
    }

    /// Whether the job with workload id `id` is queued or running.
    pub(super) fn state_of(&self, id: u64) -> Option<JobState> {
        self.jobs
            .iter()
            .find(|(_, j)| j.id == id)
            .map(|(_, j)| j.state)
    }
}
