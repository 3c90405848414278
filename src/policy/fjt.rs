//! The moldable-job policies of backfilling with virtual malleability:
//! FIFO, FJT4, FJT4+BFA, FJT1+BFA and FJT1+BFM, on a machine of one
//! cluster.
//!
//! **FJT, as schedscope reads it.** The paper defers FJT's details to an
//! earlier paper; the rule here sizes a job when it starts from its type
//! (long or short) and the free processors `F`:
//!
//! * a short job takes the largest allowed size `≤ F` (it starts as soon
//!   as its smallest size fits);
//! * a long job takes the largest allowed size `p ≤ min(largest, m·F)`
//!   with `p ≥ long_min` (key `policy.fjt.long_min`, default 16: a long job
//!   is not given a small partition), on `min(p, F)` processors, so folded
//!   at most `m` to a processor: `m` is 4 under FJT4 and FJT4+BFA (long
//!   jobs start folded and expand later), 1 otherwise;
//! * a rigid job (no type) takes its size.
//!
//! FIFO starts each job, in order, at its largest allowed size.
//!
//! **Backfilling** (BFA, BFM) is EASY's: when the head cannot start, its
//! reservation (the shadow time) comes from the running jobs' estimated
//! ends; a later job, sized to the free partition ("adjusted to the
//! available partition", at most one process per processor), is started
//! ahead if it is estimated to end by the shadow time or fits in the
//! processors the head leaves over then.
//!
//! **Expired windows.** When the head cannot start and the window of
//! backfilled jobs has expired (key `policy.fjt.window`: the paper's
//! `all-backfilled`, every running job was backfilled; or `estimate`, the
//! backfilled jobs past their estimates), the expired jobs are taken oldest
//! first until the head fits: BFA aborts and requeues them (their work is
//! lost), BFM folds them by 4 (the type's largest level if lower). Nothing
//! is done when even all of them would not make room.
//!
//! **Expansion.** When the queue is empty and processors are free, folded
//! jobs grow back, oldest first.

use super::{JobKey, JobView, Policy, PolicyName, PolicySpec, PolicyState, Start, StartKind};
use crate::model::{Platform, SimTime};
use crate::sched::rate::{fold_rate, span};
use crate::sched::{Abort, BackfillView, Decision, Resize, SystemView, WindowRule};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backfill {
    No,
    Abort,
    Fold,
}

pub struct Fjt {
    spec: PolicySpec,
    fifo: bool,
    mpl_long: u32,
    backfill: Backfill,
    /// The last blocked head, its shadow time and the processors left
    /// over then, for the console.
    plan: Option<(u64, SimTime, u32)>,
}

impl Fjt {
    pub fn build(spec: PolicySpec, platform: &Platform) -> Result<Box<dyn Policy>, String> {
        if platform.clusters.len() != 1 {
            return Err(format!(
                "{} schedules one machine; this platform has {} clusters",
                spec.label(),
                platform.clusters.len()
            ));
        }
        let (fifo, mpl_long, backfill) = match spec.name {
            PolicyName::Fifo => (true, 1, Backfill::No),
            PolicyName::Fjt4 => (false, 4, Backfill::No),
            PolicyName::Fjt4Bfa => (false, 4, Backfill::Abort),
            PolicyName::Fjt1Bfa => (false, 1, Backfill::Abort),
            PolicyName::Fjt1Bfm => (false, 1, Backfill::Fold),
            other => return Err(format!("{} is not a moldable-job policy", other.as_str())),
        };
        Ok(Box::new(Fjt {
            spec,
            fifo,
            mpl_long,
            backfill,
            plan: None,
        }))
    }

    /// The level a job may start folded at.
    fn mpl(&self, job: &JobView) -> u32 {
        match &job.app {
            Some(app) if app.long && !self.fifo => self.mpl_long.min(app.max_mpl).max(1),
            _ => 1,
        }
    }

    /// The processes (for a moldable job) and processors to start `job`
    /// with on `free` processors, folded at most `m` to a processor; `None`
    /// while it must wait.
    fn size(&self, job: &JobView, free: u32, m: u32) -> Option<(Option<u32>, u32)> {
        let Some(app) = &job.app else {
            return (job.size <= free).then_some((None, job.size));
        };
        if self.fifo {
            let p = app.largest();
            return (p <= free).then_some((Some(p), p));
        }
        if app.long {
            let p = app.largest_at_most(app.largest().min(free.saturating_mul(m)))?;
            if p < self.long_min(job) {
                return None;
            }
            Some((Some(p), p.min(free)))
        } else {
            let p = app.largest_at_most(free)?;
            Some((Some(p), p))
        }
    }

    /// The fewest processes a long job starts with.
    fn long_min(&self, job: &JobView) -> u32 {
        let Some(app) = &job.app else {
            return job.size;
        };
        let want = self.spec.fjt.long_min.min(app.largest());
        app.sizes
            .iter()
            .copied()
            .find(|&s| s >= want)
            .unwrap_or(app.largest())
    }

    /// The fewest processors `job` can start on.
    fn need(&self, job: &JobView) -> u32 {
        match &job.app {
            None => job.size,
            Some(app) if self.fifo => app.largest(),
            Some(app) if app.long => self.long_min(job).div_ceil(self.mpl(job)),
            Some(app) => app.smallest(),
        }
    }

    /// How long `job` is estimated to hold its processors if started with
    /// `p` processes on `held` processors.
    fn expected(job: &JobView, p: Option<u32>, held: u32) -> SimTime {
        match (&job.app, p) {
            (Some(app), Some(p)) => span(
                app.time_at(job.estimate, p),
                fold_rate(p, held, app.fold_overhead),
            ),
            _ => job.estimate,
        }
    }

    /// The head's reservation: when enough processors are estimated to be
    /// free for it, and how many it leaves over then.
    fn shadow(
        &self,
        view: &SystemView<'_>,
        head: &JobView,
        free: u32,
        started: &[(SimTime, u32)],
    ) -> (SimTime, u32) {
        let need = self.need(head);
        let mut ends: Vec<(SimTime, u32)> = view
            .running
            .iter()
            .map(|&k| {
                let j = view.job(k);
                (j.estimated_end.max(view.now), j.held())
            })
            .chain(started.iter().copied())
            .collect();
        ends.sort_unstable();
        let mut avail = free;
        for (t, held) in ends {
            avail += held;
            if avail >= need {
                let used = self
                    .size(head, avail, self.mpl(head))
                    .map_or(avail, |(_, h)| h);
                return (t, avail - used.min(avail));
            }
        }
        (SimTime::MAX, 0)
    }

    /// The backfilled jobs whose window has expired, oldest first.
    fn expired(&self, view: &SystemView<'_>) -> Vec<JobKey> {
        let mut v: Vec<JobKey> = match self.spec.fjt.window {
            WindowRule::AllBackfilled => {
                if view.running.iter().all(|&k| view.job(k).jumped_ahead) {
                    view.running.to_vec()
                } else {
                    Vec::new()
                }
            }
            WindowRule::Estimate => view
                .running
                .iter()
                .copied()
                .filter(|&k| {
                    let j = view.job(k);
                    j.jumped_ahead && j.estimated_end <= view.now
                })
                .collect(),
        };
        v.sort_by_key(|&k| (view.job(k).start, view.job(k).arrival));
        v
    }
}

impl Policy for Fjt {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Abort>) {}

    fn reshape(&mut self, view: &SystemView<'_>, out: &mut Vec<Decision>) {
        let free = view.free[0];
        if let Some(&head) = view.queue.first() {
            if self.backfill == Backfill::No {
                return;
            }
            let need = self.need(view.job(head));
            if free >= need {
                return;
            }
            let mut avail = free;
            let mut chosen = Vec::new();
            for k in self.expired(view) {
                let j = view.job(k);
                let held = j.held();
                let (gain, to) = match (self.backfill, &j.app) {
                    (Backfill::Abort, _) => (held, 0),
                    (Backfill::Fold, Some(app)) => {
                        let q = j.size.div_ceil(app.max_mpl.clamp(1, 4));
                        (held.saturating_sub(q), q)
                    }
                    _ => (0, 0),
                };
                if gain == 0 {
                    continue;
                }
                chosen.push((k, to));
                avail += gain;
                if avail >= need {
                    break;
                }
            }
            if avail < need {
                return;
            }
            for (k, to) in chosen {
                out.push(match self.backfill {
                    Backfill::Abort => Decision::Abort(Abort {
                        job: k,
                        requeue: true,
                    }),
                    _ => Decision::Resize(Resize {
                        job: k,
                        processors: to,
                        chosen: None,
                    }),
                });
            }
        } else if free > 0 {
            // Nothing waits: folded jobs grow back, oldest first.
            let mut folded: Vec<JobKey> = view
                .running
                .iter()
                .copied()
                .filter(|&k| {
                    let j = view.job(k);
                    j.app.is_some() && j.held() < j.size
                })
                .collect();
            folded.sort_by_key(|&k| (view.job(k).start, view.job(k).arrival));
            let mut left = free;
            for k in folded {
                if left == 0 {
                    break;
                }
                let j = view.job(k);
                let to = j.size.min(j.held() + left);
                left -= to - j.held();
                out.push(Decision::Resize(Resize {
                    job: k,
                    processors: to,
                    chosen: None,
                }));
            }
        }
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.plan = None;
        let mut free = view.free[0];
        let mut started: Vec<(SimTime, u32)> = Vec::new();
        let mut i = 0;
        while i < view.queue.len() {
            let key = view.queue[i];
            let j = view.job(key);
            let Some((p, held)) = self.size(j, free, self.mpl(j)) else {
                break;
            };
            out.push(Start {
                job: key,
                assignment: vec![(0, held)],
                kind: StartKind::Head,
                processors: None,
                processes: p,
            });
            free -= held;
            started.push((view.now.saturating_add(Self::expected(j, p, held)), held));
            i += 1;
        }
        if i == view.queue.len() || self.backfill == Backfill::No {
            return;
        }
        let head = view.job(view.queue[i]);
        let (shadow, mut extra) = self.shadow(view, head, free, &started);
        self.plan = Some((head.id, shadow, extra));
        for &key in &view.queue[i + 1..] {
            if free == 0 {
                break;
            }
            let j = view.job(key);
            let Some((p, held)) = self.size(j, free, 1) else {
                continue;
            };
            let end = view.now.saturating_add(Self::expected(j, p, held));
            if end <= shadow {
            } else if held <= extra {
                extra -= held;
            } else {
                continue;
            }
            out.push(Start {
                job: key,
                assignment: vec![(0, held)],
                kind: StartKind::Ahead,
                processors: None,
                processes: p,
            });
            free -= held;
        }
    }

    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }

    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        widths.iter().sum::<u32>() <= free.first().copied().unwrap_or(0)
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        match (view.queue.first(), self.plan) {
            (Some(&h), Some((id, shadow, _))) if view.job(h).id == id => PolicyState::Backfill {
                head: id,
                shadow: Some(shadow),
            },
            _ => PolicyState::Idle,
        }
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        let (head, shadow, extra) = self.plan?;
        if view.queue.first().map(|&k| view.job(k).id) != Some(head) {
            return None;
        }
        Some(BackfillView {
            head: Some(head),
            shadow: Some(shadow),
            extra: vec![extra],
            reservations: vec![(head, shadow)],
        })
    }
}
