//! Moldable and malleable jobs in the engine: the size chosen at start,
//! folds and expansions, and what they do to a job's work, rate, allowance
//! and processor-seconds.
//!
//! * A moldable job starts with the number of processes its policy chose
//!   (one of its type's allowed sizes); its actual work is the type's
//!   speedup model applied to its hidden sequential time, its estimate the
//!   same model applied to its estimated sequential time.
//! * A fold or an expansion keeps the processes and changes the processors
//!   held; the rate comes from [`fold_rate`] and goes through
//!   [`Engine::set_rate`], which keeps the work done.
//! * The estimated end (the job's wall-clock allowance) is stretched or
//!   shrunk with the rate the scheduler itself imposed: what is left of the
//!   allowance at a resize is scaled by old rate / new rate. A job folded
//!   by 4 within its estimate thus keeps "within its estimate" (its window
//!   is not called expired because the scheduler slowed it down), and one
//!   already past its allowance stays past it. Rate changes from outside
//!   the job (`set_rate` alone) keep the allowance as it is.
//! * Processor-seconds held are integrated piecewise: each resize closes a
//!   segment at the old width.

use super::*;
use crate::model::MoldRecord;
use crate::sched::rate::fold_rate;
use crate::sched::{Assignment, Resize};

impl Engine {
    /// Checks a moldable start: an allowed size on one cluster, folded at
    /// most to the type's largest multiprogramming level.
    pub(super) fn check_processes(
        job: &JobView,
        p: u32,
        assignment: &Assignment,
    ) -> Result<(), Refusal> {
        let Some(app) = &job.app else {
            return Err(Refusal::NotMoldable { job: job.id });
        };
        if !app.allows(p) {
            return Err(Refusal::Size {
                job: job.id,
                processes: p,
            });
        }
        if assignment.len() != 1 {
            return Err(Refusal::Spread { job: job.id });
        }
        let held = assignment[0].1;
        if held == 0 || held > p || p.div_ceil(held) > app.max_mpl.max(1) {
            return Err(Refusal::Fold {
                job: job.id,
                processes: p,
                processors: held,
                max_mpl: app.max_mpl,
            });
        }
        Ok(())
    }

    /// Sets a moldable job's size, work and estimate for a start with
    /// `processes` (its current size when the policy names none) on `held`
    /// processors; returns the fold rate (1 for a rigid job).
    pub(super) fn mold_start(&mut self, slot: usize, processes: Option<u32>, held: u32) -> f64 {
        let job = &mut self.table.jobs[slot];
        let Some(app) = job.app.clone() else {
            return 1.0;
        };
        let p = processes.unwrap_or(job.size);
        let h = &mut self.table.hidden[slot];
        job.size = p;
        job.estimate = app.time_at(h.seq_estimate, p);
        job.folds = 0;
        job.expands = 0;
        h.remaining = app.time_at(h.runtime, p).0 as f64;
        fold_rate(p, held, app.fold_overhead)
    }

    /// The rate a running job's folding leaves it: 1 unless it is a
    /// moldable job holding fewer processors than it has processes.
    pub(super) fn fold_factor(&self, slot: usize) -> f64 {
        let job = &self.table.jobs[slot];
        match &job.app {
            Some(app) => fold_rate(job.size, job.held(), app.fold_overhead),
            None => 1.0,
        }
    }

    /// The rate of where a running job is placed, folding aside: the
    /// network model's with the links as loaded now, else its slowest
    /// cluster's speed.
    fn placement_rate(&self, slot: usize) -> f64 {
        match self.job_slowdown(JobKey(slot)) {
            Some(sd) => sd.rate(),
            None => job_rate(&self.machine.platform, &self.table.jobs[slot].assignment),
        }
    }

    /// Processor-seconds the job's current run has held up to now.
    pub(super) fn held_this_run(&self, slot: usize) -> f64 {
        self.table.held_this_run(slot, self.now)
    }

    /// An abort: the work done in this run is counted as lost and a
    /// moldable job is queued again with its sequential estimate and its
    /// largest size, to be sized afresh.
    pub(super) fn lose_work(&mut self, slot: usize) {
        let now = self.now;
        let job = &mut self.table.jobs[slot];
        let h = &mut self.table.hidden[slot];
        let total = match &job.app {
            Some(app) => app.time_at(h.runtime, job.size).0 as f64,
            None => h.runtime.0 as f64,
        };
        let left = (h.remaining - (now - h.rate_since).0 as f64 * job.rate).max(0.0);
        h.work_lost += (total - left).max(0.0) / SimTime::TICKS_PER_SEC as f64;
        if let Some(app) = &job.app {
            job.size = app.largest();
            job.estimate = h.seq_estimate;
            job.folds = 0;
            job.expands = 0;
        }
    }

    /// The moldable part of a job's record, before its processors go back.
    pub(super) fn mold_record(&self, slot: usize, this_run: f64) -> Option<MoldRecord> {
        let job = &self.table.jobs[slot];
        let app = job.app.as_ref()?;
        let secs = (self.now - job.start).as_secs_f64();
        Some(MoldRecord {
            app: app.name.clone(),
            long: app.long,
            processes: job.size,
            partition: if secs > 0.0 {
                this_run / secs
            } else {
                job.held() as f64
            },
            folds: job.folds,
            expands: job.expands,
            work_lost: self.table.hidden[slot].work_lost,
        })
    }

    /// Checks a resize and returns the job's new processor set.
    fn check_resize(&self, r: &Resize) -> Result<Vec<u32>, Refusal> {
        let slot = r.job.0;
        let Some(job) = self
            .table
            .jobs
            .get(slot)
            .filter(|j| j.state == JobState::Running)
        else {
            return Err(Refusal::NotRunning(slot));
        };
        let Some(app) = &job.app else {
            return Err(Refusal::NotMoldable { job: job.id });
        };
        if job.assignment.len() != 1 {
            return Err(Refusal::Spread { job: job.id });
        }
        let q = r.processors;
        if q == 0 || q > job.size || job.size.div_ceil(q) > app.max_mpl.max(1) {
            return Err(Refusal::Fold {
                job: job.id,
                processes: job.size,
                processors: q,
                max_mpl: app.max_mpl,
            });
        }
        let c = job.assignment[0].0;
        let cs = &self.machine.clusters[c as usize];
        let owner = slot as u32 + 1;
        let held = &job.processors[0];
        if let Some(chosen) = &r.chosen {
            if chosen.len() != q as usize {
                return Err(Refusal::NamedCount {
                    job: job.id,
                    cluster: c,
                    given: chosen.len(),
                    wanted: q,
                });
            }
            for (n, &p) in chosen.iter().enumerate() {
                let o = cs.owner.get(p as usize).copied();
                if !(o == Some(0) || o == Some(owner)) || chosen[..n].contains(&p) {
                    return Err(Refusal::Taken {
                        job: job.id,
                        cluster: c,
                        processor: p,
                    });
                }
            }
            let mut set = chosen.clone();
            set.sort_unstable();
            return Ok(set);
        }
        let now_held = held.len() as u32;
        if q <= now_held {
            let mut keep = held.clone();
            keep.sort_unstable();
            keep.truncate(q as usize);
            return Ok(keep);
        }
        let more = q - now_held;
        if cs.free < more {
            return Err(Refusal::TooFew {
                job: job.id,
                cluster: c,
                wanted: more,
                free: cs.free,
            });
        }
        let mut set = held.clone();
        set.extend(self.machine.free_of(c).take(more as usize));
        set.sort_unstable();
        Ok(set)
    }

    /// Folds or expands a running moldable job, or says why not.
    pub(super) fn resize(&mut self, r: &Resize) -> Result<(), Refusal> {
        let set = self.check_resize(r)?;
        let slot = r.job.0;
        let now = self.now;
        let before = self.table.jobs[slot].held();
        let after = set.len() as u32;
        // Close the processor-seconds segment at the old width.
        let seg = before as f64 * (now - self.table.hidden[slot].held_since).as_secs_f64();
        self.table.hidden[slot].held_run += seg;
        self.table.hidden[slot].held_since = now;
        let job = &mut self.table.jobs[slot];
        let c = job.assignment[0].0 as usize;
        self.machine
            .move_job(c, slot, (&job.processors[0], before), &set);
        job.assignment[0].1 = after;
        job.processors[0] = set;
        let placed = Placement {
            from: now,
            processors: self.machine.numbered(
                &self.table.jobs[slot].assignment,
                &self.table.jobs[slot].processors,
            ),
        };
        self.table.hidden[slot].placements.push(placed);
        let job = &mut self.table.jobs[slot];
        if after < before {
            job.folds += 1;
            self.counters.folded += 1;
        } else if after > before {
            job.expands += 1;
            self.counters.expanded += 1;
        }
        let old = job.rate;
        self.machine.links_changed();
        let new = running_rate(self.placement_rate(slot), self.fold_factor(slot));
        let job = &mut self.table.jobs[slot];
        if job.estimated_end > now && new != old {
            let left = (job.estimated_end - now).0 as f64 * old / new;
            job.estimated_end = now.saturating_add(SimTime(left.ceil() as i64));
        }
        self.set_rate(r.job, new);
        self.pass.dirty = true;
        Ok(())
    }
}

#[cfg(test)]
#[path = "resize_tests.rs"]
mod tests;
