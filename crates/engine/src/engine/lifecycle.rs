//! A job's life in the engine: arrival, queue, run (its completion and
//! estimate-expiry events), rate changes, aborts and its end.

use super::*;

/// The workload feed: the job source and the next job it yielded, which
/// arrives at its submit time.
pub(super) struct Feed {
    source: Box<dyn JobSource>,
    pending: Option<JobSpec>,
}

impl Feed {
    /// The feed of `source`, its first job drawn.
    pub(super) fn new(mut source: Box<dyn JobSource>) -> Feed {
        let pending = source.next_job();
        Feed { source, pending }
    }

    /// When the next job is submitted, if there is one.
    pub(super) fn next_submit(&self) -> Option<SimTime> {
        self.pending.as_ref().map(|j| j.submit)
    }

    /// The job whose arrival came up.
    fn take(&mut self) -> Option<JobSpec> {
        self.pending.take()
    }

    /// Draws the next job from the source.
    fn draw(&mut self) {
        self.pending = self.source.next_job();
    }
}

impl Engine {
    pub(super) fn arrive(&mut self) {
        if let Some(spec) = self.feed.take() {
            self.enqueue(spec);
        }
        self.feed.draw();
        if let Some(submit) = self.feed.next_submit() {
            // A source must yield jobs in submit order; a late one arrives now.
            self.events.push(submit.max(self.now), EventKind::Arrival);
        }
    }

    /// A job arrives: it joins the queue, or, when the policy can never
    /// run it, is rejected with the policy's reason (and never queued).
    /// Returns the rejection's reason.
    pub(super) fn enqueue(&mut self, spec: JobSpec) -> Option<String> {
        let estimate = self.estimator.estimate(&spec);
        let arrival = self.table.number_arrival();
        self.counters.arrived += 1;
        // The share of its held time the job's processors compute.
        let busy_share = match spec.work {
            Some(w) if spec.size > 0 && spec.runtime > SimTime::ZERO => {
                (w / (spec.size as f64 * spec.runtime.as_secs_f64())).clamp(0.0, 1.0)
            }
            _ => 1.0,
        };
        let hidden = table::Hidden {
            busy_share,
            runtime: spec.runtime,
            trace_estimate: spec.estimate,
            remaining: spec.runtime.0 as f64,
            seq_estimate: estimate,
            ..table::Hidden::default()
        };
        let job = JobView {
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
            home: spec.home,
            known_end: None,
            app: spec.app,
            folds: 0,
            expands: 0,
            comm: spec.comm,
            graph: spec.graph,
        };
        if let Err(reason) = self.seat.policy.admits(&job, &self.machine.platform) {
            self.reject(&job, reason.clone());
            return Some(reason);
        }
        self.table.admit(job, hidden);
        self.pass.dirty = true;
        None
    }

    /// Records `job` as rejected by the policy for `reason`.
    pub(super) fn reject(&mut self, job: &JobView, reason: String) {
        self.counters.rejected += 1;
        let at = self.now;
        self.seat.reject(|policy| Rejection {
            id: job.id,
            submit: job.submit,
            at,
            injected: job.injected,
            policy,
            reason,
        });
    }

    pub(super) fn schedule_completion(&mut self, key: JobKey) {
        self.forget_events(key.0);
        let stamp = self.events.stamp();
        let job = &self.table.jobs[key.0];
        let h = &mut self.table.hidden[key.0];
        h.stamp = stamp;
        let left = SimTime((h.remaining / job.rate).ceil() as i64);
        let at = self.now.saturating_add(left);
        self.table.jobs[key.0].known_end = self.seat.policy.sees_running_ends().then_some(at);
        let job = &self.table.jobs[key.0];
        let h = &mut self.table.hidden[key.0];
        // The estimate runs out before the work is done: the policy must
        // hear of it then (and the overrun setting applies).
        let expires = job.estimated_end;
        h.pending = 1;
        self.events
            .push(at, EventKind::Completion { job: key.0, stamp });
        if expires < at && expires >= self.now && !h.expired {
            self.table.hidden[key.0].pending += 1;
            self.events
                .push(expires, EventKind::EstimateExpiry { job: key.0, stamp });
        }
    }

    /// The job's pending events become stale: it ended, was put back in
    /// the queue or is about to be rescheduled.
    pub(super) fn forget_events(&mut self, slot: usize) {
        let h = &mut self.table.hidden[slot];
        let pending = h.pending as usize;
        h.pending = 0;
        h.stamp = 0;
        let hidden = &self.table.hidden;
        self.events
            .forget(pending, |job, stamp| hidden[job].stamp == stamp);
    }

    /// Takes a popped job event: whether it still belongs to a running job
    /// (else it is stale and dropped).
    pub(super) fn live_event(&mut self, slot: usize, stamp: u64) -> bool {
        let live = self
            .table
            .hidden
            .get(slot)
            .is_some_and(|h| h.stamp == stamp)
            && self
                .table
                .jobs
                .get(slot)
                .is_some_and(|j| j.state == JobState::Running);
        if live {
            self.table.hidden[slot].pending -= 1;
        } else {
            self.events.dropped();
        }
        live
    }

    /// A running job has reached the end of its estimate with work left.
    pub(super) fn overrun(&mut self, slot: usize, stamp: u64) {
        if !self.live_event(slot, stamp) {
            return; // stale: the job has ended or was rescheduled
        }
        self.counters.overruns += 1;
        self.table.hidden[slot].expired = true;
        self.pass.dirty = true;
        match self.estimator.model().on_overrun {
            OnOverrun::Continue => {}
            OnOverrun::Kill => self.finish(slot, true),
            // The policy decides when to abort (it sees the job as
            // expired from now on).
            OnOverrun::Requeue => {}
        }
    }

    /// Aborts a running job and puts it back in the queue at its arrival
    /// position; its work starts again from nothing.
    pub(super) fn requeue(&mut self, slot: usize) {
        self.forget_events(slot);
        let held = self.held_this_run(slot);
        self.table.hidden[slot].held_before += held;
        self.lose_work(slot);
        self.release(slot);
        let job = &mut self.table.jobs[slot];
        job.state = JobState::Queued;
        job.assignment.clear();
        job.processors.clear();
        job.rate = 1.0;
        job.jumped_ahead = false;
        job.requeues += 1;
        let h = &mut self.table.hidden[slot];
        h.remaining = h.runtime.0 as f64;
        self.table.returning.push(slot);
        self.counters.requeued += 1;
    }

    /// Aborted jobs go back in the queue, each at its arrival position,
    /// once the job they made room for has started (and the instant of
    /// their abort is over). Were they back at once, a policy that does not
    /// start that job first (conservative backfilling in another scan
    /// order) could start them ahead again into the processors they gave
    /// back, and abort them again, forever; and a job whose estimate runs
    /// out as it starts (an estimate of 0) could be started and aborted
    /// again at one instant forever.
    pub(super) fn return_aborted(&mut self) {
        self.table.return_aborted();
        self.pass.dirty = true;
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
        let Some(job) = self.table.jobs.get_mut(key.0) else {
            return;
        };
        if job.state != JobState::Running || rate <= 0.0 || !rate.is_finite() {
            return;
        }
        let h = &mut self.table.hidden[key.0];
        let ticks = (now - h.rate_since).0 as f64;
        h.remaining = (h.remaining - ticks * job.rate).max(0.0);
        job.rate = rate;
        h.rate_since = now;
        self.schedule_completion(key);
    }

    pub(super) fn complete(&mut self, slot: usize, stamp: u64) {
        if !self.live_event(slot, stamp) {
            return; // stale: the job was rescheduled or has gone
        }
        self.finish(slot, false);
    }

    /// The job leaves the system now: done, or killed with work left.
    pub(super) fn finish(&mut self, slot: usize, killed: bool) {
        self.forget_events(slot);
        let this_run = self.held_this_run(slot);
        let moldable = self.mold_record(slot, this_run);
        self.release(slot);
        let job = self.table.jobs.remove(slot);
        let runtime = self.table.hidden[slot].runtime;
        let held = self.table.hidden[slot].held_before + this_run;
        let placements = std::mem::take(&mut self.table.hidden[slot].placements);
        self.counters.finished += 1;
        if killed {
            self.counters.killed += 1;
        }
        self.table.finished.push(JobRecord {
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
            // A job split by its policy ran with the widths it was given.
            components: if job.components.is_empty() {
                job.assignment.iter().map(|&(_, w)| w).collect()
            } else {
                job.components
            },
            estimate: job.estimate,
            runtime,
            user: job.user,
            injected: job.injected,
            jumped_ahead: job.jumped_ahead,
            killed,
            requeues: job.requeues,
            held,
            busy: held * self.table.hidden[slot].busy_share,
            moldable,
            placements,
        });
        self.pass.dirty = true;
    }
}
