//! The scheduling protocol: what a policy may see of the system and of
//! each job, and what it may decide. The engine and the policies both
//! depend on this module and on nothing of each other, the way Batsim keeps
//! its simulator apart from its schedulers.
//!
//! * A policy sees a [`SystemView`]: the queue in arrival order, the
//!   running jobs, free processors per cluster, the platform, and each job
//!   as a [`JobView`] — what a scheduler may know online. A job's actual
//!   run time is not in it.
//! * A policy answers with [`Start`]s, which the engine checks one by
//!   one; a decision it cannot carry out comes back as a [`Refusal`] with
//!   its reason, never a panic.
//! * [`rate`] owns a running job's execution rate; the engine and every
//!   policy that estimates a span use it.

pub mod decide;
pub mod explain;
pub mod panel;
pub mod rate;
pub mod reserve;
pub mod slowdown;
pub mod spec;

pub use decide::{Carried, Decisions, Phased};
pub use explain::{Explanation, Verdict};
pub use panel::{Panel, PanelLine, PanelLines, PanelSpan, PolicyState, Tone};
pub use reserve::{
    ReservationPlanView, ReservationView, Reserve, ReservedBlock, SHOWN_RESERVATIONS,
};
pub use spec::{ParamValue, PolicyName, PolicySpec, is_catalog_name};

use crate::model::{AppType, ClusterIdx, Platform, SimTime};
use serde::Serialize;
use slab::Slab;
use std::sync::Arc;
use thiserror::Error;

/// A job's slot in the engine's job table. A slot is reused once its job
/// has left; a policy that keeps state by slot checks the job's `arrival`
/// (unique for the run) to tell jobs apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobKey(pub usize);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum JobState {
    #[default]
    Queued,
    Running,
}

/// Where each component goes: `(cluster, width)` in component order.
pub type Assignment = Vec<(ClusterIdx, u32)>;

/// A job as a scheduler may know it online: no actual run time.
#[derive(Clone, Debug, Default)]
pub struct JobView {
    /// The workload's own id.
    pub id: u64,
    pub submit: SimTime,
    /// Total processors.
    pub size: u32,
    /// Component widths as requested, one per cluster when co-allocated;
    /// empty when the job leaves its split over clusters to the policy
    /// (any widths of at least 1 adding up to `size`).
    pub components: Vec<u32>,
    /// What policies see as the run time (in speed-1 time).
    pub estimate: SimTime,
    pub user: Option<i64>,
    pub injected: bool,
    /// Arrival order, unique for the whole run.
    pub arrival: u64,
    pub state: JobState,
    /// When it (last) started; meaningful while running.
    pub start: SimTime,
    /// Where it runs; empty while queued.
    pub assignment: Assignment,
    /// Processor indices held, per assignment entry.
    pub processors: Vec<Vec<u32>>,
    /// Work done per tick now (see [`rate`]).
    pub rate: f64,
    /// When its estimate runs out: its start plus its estimate at the rate
    /// it started at, a wall-clock allowance like a walltime limit. Set by
    /// the engine at start; a later rate change moves the job's end but not
    /// this, so a job slowed down outlives it and one sped up ends before.
    pub estimated_end: SimTime,
    /// Started ahead of an earlier-queued job (a jump or a backfill).
    pub jumped_ahead: bool,
    /// Times the job was aborted and requeued.
    pub requeues: u32,
    /// The cluster (site) a local job belongs to, from the workload.
    pub home: Option<ClusterIdx>,
    /// When the running job will end, for a policy that models a system
    /// where that is known ([`Policy::sees_running_ends`]); else `None`.
    pub known_end: Option<SimTime>,
    /// A moldable job's type (allowed sizes, speedup model, long or
    /// short); `None` for a rigid job. While such a job is queued, `size`
    /// is its largest allowed size and `estimate` its estimated
    /// *sequential* time; once started, `size` is the number of processes
    /// chosen and `estimate` the estimate at that size
    /// ([`AppType::time_at`]). The processors it holds are its
    /// assignment's widths, fewer than `size` while folded.
    pub app: Option<Arc<AppType>>,
    /// Times this run was folded and expanded.
    pub folds: u32,
    pub expands: u32,
    /// Its need of the inter-cluster network, if any (see [`rate`]).
    pub comm: Option<crate::model::CommNeed>,
    /// The task graph it carries, if it is a graph job.
    pub graph: Option<std::sync::Arc<crate::model::graph::GraphJob>>,
}

impl JobView {
    /// Processors held now (the assignment's widths).
    pub fn held(&self) -> u32 {
        self.assignment.iter().map(|&(_, w)| w).sum()
    }

    /// Processes per processor now: 1 unless folded.
    pub fn mpl(&self) -> u32 {
        let held = self.held();
        if held == 0 {
            1
        } else {
            self.size.div_ceil(held)
        }
    }
}

/// What a policy sees at a decision point.
pub struct SystemView<'a> {
    pub now: SimTime,
    pub platform: &'a Platform,
    /// Free processors per cluster.
    pub free: &'a [u32],
    /// Queued jobs, in arrival order.
    pub queue: &'a [JobKey],
    pub running: &'a [JobKey],
    pub jobs: &'a Slab<JobView>,
    /// Changes whenever a queued job was changed in place or put back in
    /// the queue (not by arrivals and starts).
    pub queue_edits: u64,
    /// Jobs started ahead that outlive their estimates are to be aborted
    /// and requeued when the head needs their processors (the run's
    /// `on_overrun = "requeue"`): the policy decides when.
    pub requeue_expired: bool,
    /// Jobs that outlive their estimates are killed there (the run's
    /// `on_overrun = "kill"`, a walltime limit): a running job that leaves
    /// at its estimated end was killed.
    pub kill_expired: bool,
    /// The advance reservations the engine holds (granted, not yet over),
    /// in the order they were granted; empty on runs without any.
    pub reservations: &'a [ReservationView],
    /// The run's seed, for a policy that draws random choices (its own
    /// stream, so that the workload's numbers do not move).
    pub seed: u64,
}

impl JobView {
    /// The component widths a placement is to find room for: those the job
    /// asks for, or, for a job that leaves its split to the policy, its
    /// size evenly over the fewest clusters of `platform` that can hold it
    /// (what a policy without a split rule of its own does).
    pub fn widths(&self, platform: &Platform) -> std::borrow::Cow<'_, [u32]> {
        if !self.components.is_empty() {
            return std::borrow::Cow::Borrowed(&self.components);
        }
        std::borrow::Cow::Owned(fewest_split(platform, self.size))
    }
}

/// `size` split evenly over the fewest clusters of `platform` that can ever
/// hold it; where no even split can, over the fewest largest clusters that
/// hold it together, as evenly as their sizes allow (64 on 24/16/16/8 is
/// 24+16+16+8, 60 is 20+16+16+8). Over all clusters evenly when the
/// platform is too small for it altogether.
pub fn fewest_split(platform: &Platform, size: u32) -> Vec<u32> {
    let n = platform.clusters.len().max(1) as u32;
    (1..=n)
        .map(|k| crate::model::split_even(size, k))
        .find(|w| platform.can_ever_fit(w))
        .or_else(|| capacity_split(platform, size))
        .unwrap_or_else(|| crate::model::split_even(size, n))
}

/// `size` over the fewest largest clusters whose processors add up to it,
/// levelled: every cluster gets the same width but those too small, which
/// are filled. Widest first; `None` when the platform is too small.
fn capacity_split(platform: &Platform, size: u32) -> Option<Vec<u32>> {
    let mut caps: Vec<u32> = platform.clusters.iter().map(|c| c.processors).collect();
    caps.sort_unstable_by(|a, b| b.cmp(a));
    let mut total = 0u64;
    let k = caps.iter().position(|&c| {
        total += c as u64;
        total >= size as u64
    })? + 1;
    let mut caps = caps[..k].to_vec();
    // Fill the smallest clusters while the rest's even share exceeds them.
    caps.reverse();
    let mut left = size;
    let mut out = Vec::with_capacity(k);
    for (i, &c) in caps.iter().enumerate() {
        let rest = (k - i) as u32;
        let w = c.min(left.div_ceil(rest));
        out.push(w);
        left -= w;
    }
    out.sort_unstable_by(|a, b| b.cmp(a));
    (left == 0 && !out.contains(&0)).then_some(out)
}

impl<'a> SystemView<'a> {
    pub fn job(&self, key: JobKey) -> &'a JobView {
        &self.jobs[key.0]
    }

    /// The next estimated end after now of a running job still within its
    /// estimate, with `started` (the ends of jobs started in the current
    /// pass). Before it, only jobs past their estimates can give processors
    /// back.
    pub fn next_estimated_end(
        &self,
        started: impl IntoIterator<Item = SimTime>,
    ) -> Option<SimTime> {
        self.running
            .iter()
            .map(|&k| self.job(k).estimated_end)
            .chain(started)
            .filter(|&t| t > self.now)
            .min()
    }
}

/// How a decision got its job started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum StartKind {
    /// The job was at the head of the queue.
    Head,
    /// The job jumped ahead of the head (FPFS) or was backfilled.
    Ahead,
}

/// Start a queued job now with this placement.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    pub job: JobKey,
    /// The clusters and widths, one entry per requested component.
    pub assignment: Assignment,
    pub kind: StartKind,
    /// The processor indices to take, per assignment entry; `None` takes
    /// the lowest-numbered free ones.
    pub processors: Option<Vec<Vec<u32>>>,
    /// A moldable job's number of processes, one of its type's allowed
    /// sizes; the assignment's widths are the processors it gets (fewer
    /// when it starts folded). `None` for a rigid job.
    pub processes: Option<u32>,
}

/// Fold or expand a running moldable job: it keeps its processes and
/// holds `processors` processors from now on (on its one cluster), at the
/// rate [`rate::fold_rate`] gives. A fold keeps the named processors (or
/// its lowest-numbered ones); an expansion adds the named free ones (or
/// the lowest-numbered free ones).
#[derive(Clone, Debug, PartialEq)]
pub struct Resize {
    pub job: JobKey,
    pub processors: u32,
    /// The whole new set of processor indices, if the policy chooses.
    pub chosen: Option<Vec<u32>>,
}

/// Abort a running job: it gives its processors back now and its work is
/// lost; requeued, it waits in the queue again at its arrival position
/// (back once the head of the queue has started), else it ends as killed.
#[derive(Clone, Debug, PartialEq)]
pub struct Abort {
    pub job: JobKey,
    pub requeue: bool,
}

/// What a policy may say, each checked by the engine on its own.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    Start(Start),
    Abort(Abort),
    Resize(Resize),
    /// Reserve processors over a window for named jobs (see [`reserve`]).
    Reserve(Reserve),
}

/// A decision the engine would not carry out, and why. The run goes on
/// without it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Refusal {
    #[error("job slot {0} is not in the queue")]
    NotQueued(usize),
    #[error("job slot {0} is not running")]
    NotRunning(usize),
    #[error("job {job}: {given} components placed for {wanted} requested")]
    ComponentCount {
        job: u64,
        given: usize,
        wanted: usize,
    },
    #[error("job {job}: component {index} is {wanted} wide, placed {given} wide")]
    Width {
        job: u64,
        index: usize,
        wanted: u32,
        given: u32,
    },
    #[error("job {job}: widths {given:?} do not split its {size} processors (each ≥ 1, adding up)")]
    Split {
        job: u64,
        given: Vec<u32>,
        size: u32,
    },
    #[error("job {job}: no cluster {cluster} on this platform")]
    NoCluster { job: u64, cluster: ClusterIdx },
    #[error("job {job}: two components on cluster {cluster}")]
    SameCluster { job: u64, cluster: ClusterIdx },
    #[error("job {job}: {wanted} processors wanted on cluster {cluster}, {free} free")]
    TooFew {
        job: u64,
        cluster: ClusterIdx,
        wanted: u32,
        free: u32,
    },
    #[error("job {job}: processor {processor} of cluster {cluster} is taken or does not exist")]
    Taken {
        job: u64,
        cluster: ClusterIdx,
        processor: u32,
    },
    #[error("job {job}: {given} processors named on cluster {cluster} for a width of {wanted}")]
    NamedCount {
        job: u64,
        cluster: ClusterIdx,
        given: usize,
        wanted: u32,
    },
    #[error("job {job} is rigid: it has no sizes to choose from and cannot be resized")]
    NotMoldable { job: u64 },
    #[error("job {job}: {processes} processes is not one of its allowed sizes")]
    Size { job: u64, processes: u32 },
    #[error(
        "job {job}: {processes} processes on {processors} processors is a multiprogramming level above {max_mpl} (or more processors than processes)"
    )]
    Fold {
        job: u64,
        processes: u32,
        processors: u32,
        max_mpl: u32,
    },
    #[error("job {job} runs on more than one cluster: it cannot be resized")]
    Spread { job: u64 },
    #[error(
        "job {job}: processor {processor} of cluster {cluster} is reserved (reservation {reservation}) inside the job's run"
    )]
    Reserved {
        job: u64,
        cluster: ClusterIdx,
        processor: u32,
        reservation: u64,
    },
    #[error(
        "job {job}: held by reservation {reservation}, it may start only on its processors inside its window"
    )]
    OutsideReservation { job: u64, reservation: u64 },
    #[error("reservation refused: {0}")]
    Reservation(String),
    #[error(
        "the policy asked to decide again at once after {passes} passes in a row at this instant that changed nothing: the clock moves on"
    )]
    Recheck { passes: u32 },
    #[error(
        "the policy asked to decide again after each of {rounds} rounds of one decision point: the engine stopped asking"
    )]
    Rounds { rounds: u32 },
}

/// What a backfilling policy has planned, for the backfill-windows pane.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BackfillView {
    /// The head job's id and its reservation (the shadow time), if the head
    /// cannot start now.
    pub head: Option<u64>,
    pub shadow: Option<SimTime>,
    /// Processors per cluster left over at the shadow time once the head
    /// job is placed: what a backfilled job may use beyond the shadow time.
    pub extra: Vec<u32>,
    /// Planned starts of queued jobs (every job under conservative
    /// backfilling, the head alone under EASY), in queue order; from
    /// [`Policy::plan_rows`], only those of the jobs asked for.
    pub reservations: Vec<(u64, SimTime)>,
    /// How many queued jobs hold a reservation, listed or not.
    pub reserved: usize,
}

/// A scheduling policy as the engine knows it: one decision call at each
/// decision point, and what it shows and admits. A policy told in steps
/// (abort, reserve, start, reshape) is a [`Phased`] and a `Policy` by that.
pub trait Policy: Send {
    fn spec(&self) -> &PolicySpec;

    /// Decides at a decision point: pushes into `out` the decisions to
    /// carry out now, in order, and says whether to be asked again at
    /// once when they are in ([`Decisions::again`]) and when to be woken
    /// ([`Decisions::wake_at`]). The free counts in `view` do not change
    /// while the policy runs; it must account for its own decisions.
    fn decide(&mut self, view: &SystemView<'_>, out: &mut Decisions);

    /// The policy's state for display.
    fn state(&self, view: &SystemView<'_>) -> PolicyState;

    /// What a backfilling policy has planned (reservations, shadow time,
    /// extra processors), for the console; `None` for other policies.
    fn plan(&self, _view: &SystemView<'_>) -> Option<BackfillView> {
        None
    }

    /// [`Policy::plan`] for a console that draws only the queued jobs
    /// `rows`: `reservations` may list only theirs (and the head's), so
    /// that the cost follows what is drawn, not the queue's length. The
    /// default is the whole plan.
    fn plan_rows(&self, view: &SystemView<'_>, rows: &[JobKey]) -> Option<BackfillView> {
        let _ = rows;
        self.plan(view)
    }

    /// Whether the policy models a system where the end of every running
    /// job is known (the two-site grid's backfilling needs "the exact time
    /// all resources will be free"): the engine then fills
    /// [`JobView::known_end`] of running jobs.
    fn sees_running_ends(&self) -> bool {
        false
    }

    /// Whether this policy can ever run `job` on `platform`, on an idle
    /// machine; why not when it cannot. The engine refuses such a job when
    /// it arrives (it never enters the queue), a switch to this policy
    /// while such a job waits, and an injection of one, each with this
    /// reason, so that no job waits for ever unseen. The default is the
    /// rule of a policy that places a job's widths
    /// ([`JobView::widths`]) each on its own cluster.
    fn admits(&self, job: &JobView, platform: &Platform) -> Result<(), String> {
        admits_widths(job, platform)
    }

    /// Why the queued job `job` is not running now, by this policy's rule
    /// and with the numbers it uses, and whether the policy, deciding on
    /// `view` now, would start it (see [`explain`]). The default says
    /// what any policy can: its place in the queue and what it asks for.
    fn explain(&self, view: &SystemView<'_>, job: JobKey) -> Explanation {
        explain::generic(view, job)
    }
}

/// The default of [`Policy::admits`]: the job's widths fit the platform,
/// each on its own cluster.
pub fn admits_widths(job: &JobView, platform: &Platform) -> Result<(), String> {
    let widths = job.widths(platform);
    if platform.can_ever_fit(&widths) {
        return Ok(());
    }
    let total = platform.total_processors();
    Err(if job.components.is_empty() && job.size as u64 > total {
        format!(
            "job {} needs {} processors; the platform has {total}",
            job.id, job.size
        )
    } else {
        let w: Vec<String> = widths.iter().map(u32::to_string).collect();
        let clusters = platform.clusters.len();
        format!(
            "job {} asks for {} processors as {}, each part on its own cluster; the platform has {clusters} {}, the largest of {}",
            job.id,
            job.size,
            w.join("+"),
            if clusters == 1 { "cluster" } else { "clusters" },
            platform.largest_cluster()
        )
    })
}

/// Builds a policy from its spec for a platform, or says why it cannot run
/// there: how the engine gets a policy without knowing any.
pub type PolicyBuilder = fn(&PolicySpec, &Platform) -> Result<Box<dyn Policy>, String>;

/// How the engine gets its policies without knowing any: it builds one
/// from a spec (or learns why it cannot run there) and names a spec in
/// what it says. schedscope's catalog is one (`policy::CATALOG`).
#[derive(Clone, Copy)]
pub struct Policies {
    pub build: PolicyBuilder,
    pub label: fn(&PolicySpec) -> String,
}

impl Policies {
    /// The policies `build` builds, named plainly ([`plain_label`]).
    pub fn of(build: PolicyBuilder) -> Policies {
        Policies {
            build,
            label: plain_label,
        }
    }
}

/// A spec's name with its own parameters in brackets when set:
/// `fjt1-bfa [window "all-backfilled"]`.
pub fn plain_label(spec: &PolicySpec) -> String {
    format!("{}{}", spec.name, params_suffix(spec))
}

/// A spec's own parameters as a label ends with them, ` [window
/// "all-backfilled"]`; nothing when it has none.
pub fn params_suffix(spec: &PolicySpec) -> String {
    if spec.params.is_empty() {
        return String::new();
    }
    let set: Vec<String> = spec
        .params
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    format!(" [{}]", set.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cluster, Platform};

    fn sizes(p: &[u32]) -> Platform {
        Platform {
            clusters: p
                .iter()
                .enumerate()
                .map(|(i, &n)| Cluster {
                    name: format!("c{i}"),
                    processors: n,
                    speed: 1.0,
                })
                .collect(),
            ..Platform::default()
        }
    }

    #[test]
    fn a_job_is_split_evenly_over_the_fewest_clusters_that_hold_it() {
        let p = Platform::uniform(5, 20);
        assert_eq!(fewest_split(&p, 16), vec![16]);
        assert_eq!(fewest_split(&p, 38), vec![19, 19]);
        assert_eq!(fewest_split(&p, 100), vec![20; 5]);
    }

    #[test]
    fn where_no_even_split_fits_the_clusters_are_filled_as_evenly_as_they_allow() {
        let p = sizes(&[24, 16, 16, 8]);
        // Even over two clusters still fits: 15 + 15 on 24 and 16.
        assert_eq!(fewest_split(&p, 30), vec![15, 15]);
        // No even split of 64 or 60 fits (16 × 4 needs four clusters of 16).
        assert_eq!(fewest_split(&p, 64), vec![24, 16, 16, 8]);
        assert_eq!(fewest_split(&p, 60), vec![20, 16, 16, 8]);
        // 50 needs three clusters, evenly: 16 + 16 + 18.
        assert_eq!(fewest_split(&p, 50), vec![16, 16, 18]);
        for size in 1..=64 {
            let w = fewest_split(&p, size);
            assert!(p.can_ever_fit(&w), "{size}: {w:?}");
            assert_eq!(w.iter().sum::<u32>(), size);
        }
        // Too large for the whole platform: never fits.
        assert!(!p.can_ever_fit(&fewest_split(&p, 65)));
    }
}
