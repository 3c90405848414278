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
//!   with `p ≥ long_min` (key `policy.params.long_min`, default 16: a long job
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
//! backfilled jobs has expired (key `policy.params.window`: by default
//! `estimate`, the backfilled jobs past their estimates, as the abstract,
//! §1, §3, §4's "backfilled jobs with underestimated times" and §5.1's
//! "expired windows of previously backfilled jobs" read it; or
//! `all-backfilled`, §4's one definition: every running job was
//! backfilled), the expired jobs are taken oldest first until the head
//! fits: BFA aborts and requeues them (their work is
//! lost), BFM folds them by 4 (the type's largest level if lower). Nothing
//! is done when even all of them would not make room.
//!
//! **Expansion.** When the queue is empty and processors are free, folded
//! jobs grow back, oldest first.
//!
//! **Other platforms and rigid jobs.** The paper's machine is one cluster.
//! On more than one, a moldable job runs on one cluster, the one with the
//! most free processors (the lowest-numbered on a tie), rigid jobs are
//! placed worst fit, and the head's reservation counts processors over all
//! clusters (an approximation: a backfilled job may then delay the head).
//! An abort or a fold is only asked for when the head is then placed.

mod why;

use super::placement::{Placement, PlacementName};
use super::{JobKey, JobView, Phased, PolicyName, PolicySpec, PolicyState, Start, StartKind};
use crate::model::{Platform, SimTime};
use crate::policy::BuildPlacement;
use crate::policy::catalog;
use crate::policy::catalog::{Param, ParamKind, PolicyEntry};
use crate::sched::rate::{expected_span, fold_rate, span};
use crate::sched::{Abort, Assignment, BackfillView, Decision, Explanation, Resize, SystemView};

/// The five policies' names, as scenarios spell them.
pub const FIFO: PolicyName = PolicyName::new("fifo");
pub const FJT4: PolicyName = PolicyName::new("fjt4");
pub const FJT4_BFA: PolicyName = PolicyName::new("fjt4-bfa");
pub const FJT1_BFA: PolicyName = PolicyName::new("fjt1-bfa");
pub const FJT1_BFM: PolicyName = PolicyName::new("fjt1-bfm");

/// The five, in the paper's order.
pub const ALL: [PolicyName; 5] = [FIFO, FJT4, FJT4_BFA, FJT1_BFA, FJT1_BFM];

/// A policy's name as the paper writes it (`FJT1+BFM`), for the five.
pub fn paper_label(name: PolicyName) -> Option<&'static str> {
    Some(match name.as_str() {
        "fifo" => "FIFO",
        "fjt4" => "FJT4",
        "fjt4-bfa" => "FJT4+BFA",
        "fjt1-bfa" => "FJT1+BFA",
        "fjt1-bfm" => "FJT1+BFM",
        _ => return None,
    })
}

/// When a backfilled job's window has expired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowRule {
    /// §4's definition: the head cannot start and every running job was
    /// backfilled.
    AllBackfilled,
    /// The head cannot start and a backfilled job has outlived its
    /// estimate (those are the expired ones): the reading of the rest of
    /// the paper's text, and the default.
    #[default]
    Estimate,
}

impl WindowRule {
    pub const WORDS: [&'static str; 2] = ["all-backfilled", "estimate"];

    pub fn as_str(self) -> &'static str {
        match self {
            WindowRule::AllBackfilled => "all-backfilled",
            WindowRule::Estimate => "estimate",
        }
    }

    fn parse(word: &str) -> WindowRule {
        match word {
            "all-backfilled" => WindowRule::AllBackfilled,
            _ => WindowRule::Estimate,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backfill {
    No,
    Abort,
    Fold,
}

#[derive(Clone)]
pub struct Fjt {
    spec: PolicySpec,
    fifo: bool,
    mpl_long: u32,
    backfill: Backfill,
    long_min: u32,
    window: WindowRule,
    rigid: Box<dyn Placement>,
    /// The last blocked head, its shadow time and the processors left
    /// over then, for the console.
    plan: Option<(u64, SimTime, u32)>,
}

impl Fjt {
    fn head_state(&self, view: &SystemView<'_>) -> PolicyState {
        match (view.queue.first(), self.plan) {
            (Some(&h), Some((id, shadow, _))) if view.job(h).id == id => {
                super::backfill::HeadPlan {
                    head: id,
                    shadow: Some(shadow),
                }
                .state()
            }
            _ => PolicyState::default(),
        }
    }

    pub fn build(
        spec: PolicySpec,
        _platform: &Platform,
    ) -> Result<Box<dyn crate::sched::Policy>, String> {
        let (fifo, mpl_long, backfill) = match spec.name.as_str() {
            "fifo" => (true, 1, Backfill::No),
            "fjt4" => (false, 4, Backfill::No),
            "fjt4-bfa" => (false, 4, Backfill::Abort),
            "fjt1-bfa" => (false, 1, Backfill::Abort),
            "fjt1-bfm" => (false, 1, Backfill::Fold),
            other => return Err(format!("{other} is not a moldable-job policy")),
        };
        let long_min = catalog::count(&spec, "long_min").unwrap_or(16).max(1) as u32;
        let window = catalog::choice(&spec, "window")
            .map(|w| WindowRule::parse(&w))
            .unwrap_or_default();
        Ok(Box::new(Fjt {
            spec,
            fifo,
            mpl_long,
            backfill,
            long_min,
            window,
            rigid: PlacementName::WorstFit.build(),
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
    /// with on `free` processors of one cluster, folded at most `m` to a
    /// processor; `None` while it must wait.
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

    /// Where and how `job` starts on the processors `free` (per cluster):
    /// a moldable job on the cluster with the most free, a rigid one worst
    /// fit; `None` while it must wait.
    fn place(
        &self,
        platform: &Platform,
        job: &JobView,
        free: &[u32],
        m: u32,
    ) -> Option<(Option<u32>, Assignment)> {
        if job.app.is_none() {
            return self
                .rigid
                .place(&job.widths(platform), free)
                .map(|a| (None, a));
        }
        let (c, &f) = free
            .iter()
            .enumerate()
            .max_by_key(|&(i, &f)| (f, std::cmp::Reverse(i)))?;
        let (p, held) = self.size(job, f, m)?;
        Some((p, vec![(c as crate::model::ClusterIdx, held)]))
    }

    /// The fewest processes a long job starts with.
    fn long_min(&self, job: &JobView) -> u32 {
        let Some(app) = &job.app else {
            return job.size;
        };
        let want = self.long_min.min(app.largest());
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
    /// `p` processes on `a`.
    fn expected(view: &SystemView<'_>, job: &JobView, p: Option<u32>, a: &Assignment) -> SimTime {
        match (&job.app, p) {
            (Some(app), Some(p)) => {
                let held = a.iter().map(|&(_, w)| w).sum();
                span(
                    expected_span(view.platform, app.time_at(job.estimate, p), a),
                    fold_rate(p, held, app.fold_overhead),
                )
            }
            _ => expected_span(view.platform, job.estimate, a),
        }
    }

    /// The head's reservation: when enough processors are estimated to be
    /// free for it, and how many it leaves over then (counted over all
    /// clusters).
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
        match self.window {
            WindowRule::AllBackfilled => {
                if view.running.iter().all(|&k| view.job(k).jumped_ahead) {
                    let mut v = view.running.to_vec();
                    v.sort_by_key(|&k| (view.job(k).start, view.job(k).arrival));
                    v
                } else {
                    Vec::new()
                }
            }
            WindowRule::Estimate => super::backfill::expired_ahead(view),
        }
    }

    /// Folded jobs grow back onto free processors of their cluster, oldest
    /// first.
    fn expand(&self, view: &SystemView<'_>, out: &mut Vec<Decision>) {
        let mut left = view.free.to_vec();
        let mut folded: Vec<JobKey> = view
            .running
            .iter()
            .copied()
            .filter(|&k| {
                let j = view.job(k);
                j.app.is_some() && j.held() < j.size && j.assignment.len() == 1
            })
            .collect();
        folded.sort_by_key(|&k| (view.job(k).start, view.job(k).arrival));
        for k in folded {
            let j = view.job(k);
            let c = j.assignment[0].0 as usize;
            if left[c] == 0 {
                continue;
            }
            let to = j.size.min(j.held() + left[c]);
            left[c] -= to - j.held();
            out.push(Decision::Resize(Resize {
                job: k,
                processors: to,
                chosen: None,
            }));
        }
    }

    /// Aborts or folds expired backfilled jobs (by the `backfill` rule) when
    /// that lets the waiting head start; with nothing queued, expands the
    /// running jobs onto free processors.
    fn make_room_for_head(&mut self, view: &SystemView<'_>, out: &mut Vec<Decision>) {
        let Some(&head) = view.queue.first() else {
            if view.free.iter().any(|&f| f > 0) {
                self.expand(view, out);
            }
            return;
        };
        if self.backfill == Backfill::No {
            return;
        }
        let head = view.job(head);
        let m = self.mpl(head);
        if self.place(view.platform, head, view.free, m).is_some() {
            return;
        }
        let mut avail = view.free.to_vec();
        let mut chosen = Vec::new();
        let mut fits = false;
        for k in self.expired(view) {
            let j = view.job(k);
            let to = match (self.backfill, &j.app) {
                (Backfill::Abort, _) => 0,
                (Backfill::Fold, Some(app)) if j.assignment.len() == 1 => {
                    j.size.div_ceil(app.max_mpl.clamp(1, 4))
                }
                _ => continue,
            };
            let mut gain = false;
            for &(c, w) in &j.assignment {
                // A fold gives back what its one component no longer holds.
                let back = if to == 0 { w } else { w.saturating_sub(to) };
                avail[c as usize] += back;
                gain |= back > 0;
            }
            if !gain {
                continue;
            }
            chosen.push((k, to));
            if self.place(view.platform, head, &avail, m).is_some() {
                fits = true;
                break;
            }
        }
        if !fits {
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
    }

    /// One decision point: jobs start in queue order, each sized at its
    /// start, while they fit; then, with backfilling, later jobs start if they
    /// end by the head's shadow time or fit in the extra processors.
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.plan = None;
        let mut free = view.free.to_vec();
        let mut started: Vec<(SimTime, u32)> = Vec::new();
        let take = |free: &mut [u32], a: &Assignment| {
            for &(c, w) in a {
                free[c as usize] -= w;
            }
        };
        let mut i = 0;
        while i < view.queue.len() {
            let key = view.queue[i];
            let j = view.job(key);
            let Some((p, a)) = self.place(view.platform, j, &free, self.mpl(j)) else {
                break;
            };
            take(&mut free, &a);
            let held = a.iter().map(|&(_, w)| w).sum();
            started.push((
                view.now.saturating_add(Self::expected(view, j, p, &a)),
                held,
            ));
            out.push(Start {
                job: key,
                assignment: a,
                kind: StartKind::Head,
                processors: None,
                processes: p,
            });
            i += 1;
        }
        if i == view.queue.len() || self.backfill == Backfill::No {
            return;
        }
        let head = view.job(view.queue[i]);
        let (shadow, mut extra) = self.shadow(view, head, free.iter().sum(), &started);
        self.plan = Some((head.id, shadow, extra));
        // A rigid job asks for more processors than are free in all: no
        // placement takes it (a long queue is passed over without one).
        // Where every job runs at rate 1, a rigid job's span is its
        // estimate wherever it goes: one too large for the processors left
        // over at the shadow time that would end after it cannot start.
        let mut total: u32 = free.iter().sum();
        let full_rate = crate::sched::rate::full_rate_everywhere(view.platform);
        for &key in &view.queue[i + 1..] {
            if total == 0 {
                break;
            }
            let j = view.job(key);
            if j.app.is_none() {
                let need = rigid_total(j);
                if need > total as u64
                    || (full_rate
                        && need > extra as u64
                        && view.now.saturating_add(j.estimate) > shadow)
                {
                    continue;
                }
            }
            let Some((p, a)) = self.place(view.platform, j, &free, 1) else {
                continue;
            };
            let held: u32 = a.iter().map(|&(_, w)| w).sum();
            let end = view.now.saturating_add(Self::expected(view, j, p, &a));
            if end <= shadow {
            } else if held <= extra {
                extra -= held;
            } else {
                continue;
            }
            take(&mut free, &a);
            total -= held;
            out.push(Start {
                job: key,
                assignment: a,
                kind: StartKind::Ahead,
                processors: None,
                processes: p,
            });
        }
    }
}

/// The processors a rigid job holds wherever it is placed: its
/// components', or its size when the placement splits it.
fn rigid_total(job: &JobView) -> u64 {
    if job.components.is_empty() {
        job.size as u64
    } else {
        job.components.iter().map(|&w| w as u64).sum()
    }
}

impl Phased for Fjt {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> Explanation {
        let mut pass = self.clone();
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        pass.explain_after(view, key, &starts)
    }

    fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Abort>) {}

    fn admits(&self, job: &JobView, platform: &Platform) -> Result<(), String> {
        let Some(app) = &job.app else {
            return crate::sched::admits_widths(job, platform);
        };
        // A moldable job runs on one cluster: the largest must hold the
        // fewest processors it may start on.
        let largest = platform.largest_cluster();
        match self.size(job, largest, self.mpl(job)) {
            Some(_) => Ok(()),
            None => Err(format!(
                "moldable job {} needs at least {} processors on one cluster (sizes {:?}); the largest cluster has {largest}",
                job.id,
                self.need(job),
                app.sizes
            )),
        }
    }

    fn reshape(&mut self, view: &SystemView<'_>, out: &mut Vec<Decision>) {
        self.make_room_for_head(view, out);
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.starts(view, out);
    }

    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        let mut state = self.head_state(view);
        // §4's window rule: the window has expired when a job waits and
        // every running job was backfilled.
        if self.window == WindowRule::AllBackfilled
            && !view.queue.is_empty()
            && !view.running.is_empty()
            && view.running.iter().all(|&k| view.job(k).jumped_ahead)
        {
            state.panel.alert = Some(format!(
                "{} window expired: every running job was backfilled",
                crate::sched::panel::EXPIRED
            ));
        }
        state
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
            reserved: 1,
        })
    }
}

/// The fewest processes of a long job.
pub const LONG_MIN: Param = Param {
    key: "long_min",
    title: "long min",
    hint: "fewest processes of a long job",
    kind: ParamKind::Count {
        min: 1,
        max: 4096,
        default: 16,
    },
};
/// When a backfilled job's window expires.
pub const WINDOW: Param = Param {
    key: "window",
    title: "window",
    hint: "when a backfilled job's window expires",
    kind: ParamKind::Choice {
        values: &WindowRule::WORDS,
        default: "estimate",
        shown: &[],
    },
};

/// Its catalog entry.
pub const FIFO_ENTRY: PolicyEntry = PolicyEntry {
    name: FIFO,
    summary: "moldable jobs in arrival order, each at its largest allowed \
              size",
    params: &[],
    label: |_| "FIFO".to_string(),
    build: |s, p| Fjt::build(s.clone(), p),
};

/// Its catalog entry.
pub const FJT4_ENTRY: PolicyEntry = PolicyEntry {
    name: FJT4,
    summary: "FJT sizes each moldable job at start; long jobs may start \
              folded up to 4 processes a processor and expand later",
    params: &[LONG_MIN],
    label: |_| "FJT4".to_string(),
    build: |s, p| Fjt::build(s.clone(), p),
};

/// Its catalog entry.
pub const FJT4_BFA_ENTRY: PolicyEntry = PolicyEntry {
    name: FJT4_BFA,
    summary: "FJT4 with aggressive backfilling; a backfilled job whose \
              window expires is aborted and requeued",
    params: &[LONG_MIN, WINDOW],
    label: |_| "FJT4+BFA".to_string(),
    build: |s, p| Fjt::build(s.clone(), p),
};

/// Its catalog entry.
pub const FJT1_BFA_ENTRY: PolicyEntry = PolicyEntry {
    name: FJT1_BFA,
    summary: "FJT sizing without folding, aggressive backfilling with \
              aborts of expired backfilled jobs",
    params: &[LONG_MIN, WINDOW],
    label: |_| "FJT1+BFA".to_string(),
    build: |s, p| Fjt::build(s.clone(), p),
};

/// Its catalog entry.
pub const FJT1_BFM_ENTRY: PolicyEntry = PolicyEntry {
    name: FJT1_BFM,
    summary: "FJT sizing without folding, backfilling with malleability: \
              expired backfilled jobs are folded until the head fits",
    params: &[LONG_MIN, WINDOW],
    label: |_| "FJT1+BFM".to_string(),
    build: |s, p| Fjt::build(s.clone(), p),
};
