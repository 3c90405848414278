//! Co-allocation strategies of the package-allocation paper (Blanco et
//! al.), all taking jobs in FCFS order and splitting each job over
//! clusters themselves (the workload's jobs ask for no components):
//!
//! * **CBS**, chunk big small (Jones et al.): at least 75 % of a job's tasks
//!   (rounded up) on one cluster, the rest elsewhere. The chunk goes to the
//!   cluster with the most free processors among those that can hold it,
//!   and takes as many of the job's tasks as it can; the rest go to the
//!   other clusters, most free first. A job whose 75 % is more than the
//!   largest cluster has takes that whole cluster as its chunk (else it
//!   could never run). Processor power plays no part.
//! * **JPR**, job preferences on resources (Naik et al.): the most powerful
//!   free processors, cluster by cluster (highest Γ first), co-allocating
//!   when the job needs more than one cluster has free.
//! * **PAS**, package allocation: the package is the queued jobs, in order
//!   from the head, whose total tasks fit the free processors, placed as a
//!   whole to minimise its total estimated execution time under the
//!   slowdown model, the links' load from running jobs as constants: an
//!   exact search ([`super::package_search`]) and, when its limit stops
//!   it, the mixed-integer program ([`super::package_mip`]) as well.
//!
//! Under FCFS the head waits when it cannot be placed, and nothing passes
//! it. A job that asks for its own components (a rigid co-allocated job of
//! another workload) is placed as it asks, widest component on the freest
//! cluster: the strategies decide how to split jobs that leave their split
//! to the scheduler, and PAS's package ends before such a job.

use super::package_mip::{self, PackageJob, PackageSolution, most_powerful};
use super::package_view::PackageView;
use super::{Phased, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::model::{Platform, SimTime};
use crate::policy::BuildPlacement;
use crate::policy::catalog::PolicyEntry;
use crate::sched::PolicyName;
use crate::sched::explain;
use crate::sched::slowdown;
use crate::sched::{Assignment, Explanation, JobKey};

/// The share of a job's tasks CBS puts on one cluster.
pub const CBS_CHUNK: f64 = 0.75;

/// The node limit of one PAS solve (deterministic: never a clock).
pub const PAS_NODE_LIMIT: u64 = 300;

/// The limit on the children the exact search evaluates in one PAS solve
/// before the program is tried as well (deterministic: never a clock).
pub const PAS_WORK_LIMIT: u64 = 200_000;

/// CBS's placement of `size` tasks on `free`, or `None` if it must wait.
pub fn chunk_big_small(platform: &Platform, free: &[u32], size: u32) -> Option<Assignment> {
    if free.iter().map(|&f| f as u64).sum::<u64>() < size as u64 {
        return None;
    }
    let largest = platform.largest_cluster();
    let chunk = ((size as f64 * CBS_CHUNK).ceil() as u32)
        .min(largest)
        .max(1);
    // The freest cluster that can hold the chunk (ties: lower index).
    let big = (0..free.len())
        .filter(|&k| free[k] >= chunk)
        .max_by(|&a, &b| free[a].cmp(&free[b]).then(b.cmp(&a)))?;
    let first = size.min(free[big]);
    let mut out: Assignment = vec![(big as u16, first)];
    let mut left = size - first;
    let mut rest: Vec<usize> = (0..free.len())
        .filter(|&k| k != big && free[k] > 0)
        .collect();
    rest.sort_by(|&a, &b| free[b].cmp(&free[a]).then(a.cmp(&b)));
    for k in rest {
        if left == 0 {
            break;
        }
        let w = left.min(free[k]);
        out.push((k as u16, w));
        left -= w;
    }
    (left == 0).then_some(out)
}

/// Which co-allocation strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Cbs,
    Jpr,
    Pas,
}

#[derive(Clone)]
pub struct CoAlloc {
    strategy: Strategy,
    spec: PolicySpec,
    last: Option<PackageView>,
}

impl CoAlloc {
    pub fn new(strategy: Strategy, spec: PolicySpec) -> CoAlloc {
        CoAlloc {
            strategy,
            spec,
            last: None,
        }
    }

    /// One job at a time from the head, each placed by `place`, until one
    /// cannot be.
    fn one_by_one(
        view: &SystemView<'_>,
        out: &mut Vec<Start>,
        place: impl Fn(&Platform, &[u32], u32) -> Option<Assignment>,
    ) {
        let mut free = view.free.to_vec();
        for &key in view.queue {
            let job = view.job(key);
            let placed = match job.components.is_empty() {
                true => place(view.platform, &free, job.size),
                false => as_requested(&job.components, &free),
            };
            let Some(a) = placed else {
                break;
            };
            start_at_head(out, &mut free, key, a);
        }
    }

    /// PAS: the jobs at the head that ask for their own components start
    /// as they ask; then the package behind them is placed as a whole.
    fn package(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        let Some((free, from)) = start_as_requested(view, out) else {
            return;
        };
        let keys = package_of(view, &free, from);
        if keys.is_empty() {
            return;
        }
        let jobs: Vec<PackageJob> = keys
            .iter()
            .map(|&k| {
                let j = view.job(k);
                PackageJob {
                    size: j.size,
                    estimate: j.estimate.as_secs_f64(),
                    comm: j.comm,
                }
            })
            .collect();
        let (abw, base) = link_loads(view);
        let started = std::time::Instant::now();
        let sol = package_mip::allocate(
            view.platform,
            &abw,
            &base,
            &free,
            &jobs,
            PAS_WORK_LIMIT,
            PAS_NODE_LIMIT,
        );
        let solve_micros = started.elapsed().as_micros() as u64;
        self.note_package(view, &keys, &sol, solve_micros);
        for (&key, a) in keys.iter().zip(sol.assignments) {
            out.push(Start {
                job: key,
                assignment: a,
                kind: StartKind::Head,
                processors: None,
                processes: None,
            });
        }
    }

    /// Keeps what the console shows of the package just placed (`keys`,
    /// placed by `sol` in `solve_micros`), with the run's counts.
    fn note_package(
        &mut self,
        view: &SystemView<'_>,
        keys: &[JobKey],
        sol: &PackageSolution,
        solve_micros: u64,
    ) {
        let (packages, limited, fallbacks) = tally(self.last.as_ref(), sol.optimal, sol.fallback);
        self.last = Some(PackageView {
            at: view.now,
            jobs: keys
                .iter()
                .zip(&sol.assignments)
                .map(|(&k, a)| (view.job(k).id, a.clone()))
                .collect(),
            objective: sol.objective,
            optimal: sol.optimal,
            fallback: sol.fallback,
            nodes: sol.nodes,
            solve_micros,
            packages,
            limited,
            fallbacks,
        });
    }
}

/// Starts the jobs at the head that ask for their own components, as they
/// ask, while they fit: the processors free after them and the queue
/// position after them; `None` when one does not fit (the head waits).
fn start_as_requested(view: &SystemView<'_>, out: &mut Vec<Start>) -> Option<(Vec<u32>, usize)> {
    let mut free = view.free.to_vec();
    let mut from = 0;
    while let Some(&key) = view.queue.get(from) {
        let job = view.job(key);
        if job.components.is_empty() {
            break;
        }
        let a = as_requested(&job.components, &free)?;
        start_at_head(out, &mut free, key, a);
        from += 1;
    }
    Some((free, from))
}

/// The package: the queued jobs from position `from`, in order, that leave
/// their split to the scheduler and whose tasks together fit the `free`
/// processors.
fn package_of(view: &SystemView<'_>, free: &[u32], from: usize) -> Vec<JobKey> {
    let total: u64 = free.iter().map(|&f| f as u64).sum();
    let mut used = 0u64;
    view.queue[from..]
        .iter()
        .copied()
        .take_while(|&k| {
            let j = view.job(k);
            used += j.size as u64;
            j.components.is_empty() && used <= total
        })
        .collect()
}

/// Each link's available bandwidth (unlimited without a network) and its
/// load from the running jobs.
fn link_loads(view: &SystemView<'_>) -> (Vec<f64>, Vec<f64>) {
    let n = view.platform.clusters.len();
    let abw = view
        .platform
        .network
        .as_ref()
        .map_or_else(|| vec![f64::INFINITY; n], |net| net.abw.clone());
    let mut base = vec![0.0; n];
    for &k in view.running {
        let j = view.job(k);
        slowdown::add_demand(&mut base, j.comm.as_ref(), j.size, &j.assignment);
    }
    (abw, base)
}

/// The run's package counts (packages, solves stopped by the limit before
/// proving optimality, solves placed by the fallback) after one more
/// package, from the last package's.
fn tally(last: Option<&PackageView>, optimal: bool, fallback: bool) -> (u64, u64, u64) {
    let (packages, limited, fallbacks) =
        last.map_or((0, 0, 0), |p| (p.packages, p.limited, p.fallbacks));
    (
        packages + 1,
        limited + u64::from(!optimal),
        fallbacks + u64::from(fallback),
    )
}

/// A job's own components, widest on the freest cluster (worst fit).
fn as_requested(components: &[u32], free: &[u32]) -> Option<Assignment> {
    crate::policy::PlacementName::WorstFit
        .build()
        .place(components, free)
}

impl Phased for CoAlloc {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<crate::sched::Abort>) {}

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        match self.strategy {
            Strategy::Cbs => Self::one_by_one(view, out, chunk_big_small),
            Strategy::Jpr => Self::one_by_one(view, out, most_powerful),
            Strategy::Pas => self.package(view, out),
        }
    }

    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }

    /// The pass run on a copy: the job starts if the copy starts it; else
    /// the head cannot be placed, or (PAS) the job is not in the package.
    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> Explanation {
        // The pass, but PAS's package is not placed: which jobs it takes
        // does not depend on where they go, and placing it is a solve.
        let mut starts = Vec::new();
        let mut package = Vec::new();
        match self.strategy {
            Strategy::Pas => {
                if let Some((free, from)) = start_as_requested(view, &mut starts) {
                    package = package_of(view, &free, from);
                }
            }
            _ => self.clone().schedule(view, &mut starts),
        }
        if package.contains(&key) {
            return Explanation::starts(
                "it is in the package placed now: the jobs from the head whose tasks together fit the free processors, placed as a whole to minimise their total estimated time",
            );
        }
        if let Some(s) = starts.iter().find(|s| s.job == key) {
            let how = match self.strategy {
                Strategy::Pas => "it asks for its own components and they fit",
                Strategy::Cbs => "CBS places it in FCFS order",
                Strategy::Jpr => "JPR places it in FCFS order",
            };
            return Explanation::starts(format!(
                "{how}: {}",
                explain::on_clusters(view, &s.assignment)
            ));
        }
        // What the package leaves free is not known without placing it:
        // the counts are those before it, which the sentences say.
        let free = super::backfill::free_after(view, &starts);
        starts.extend(package.iter().map(|&k| Start {
            job: k,
            assignment: Vec::new(),
            kind: StartKind::Head,
            processors: None,
            processes: None,
        }));
        let links = saturated_links(view);
        let Some(b) = view
            .queue
            .iter()
            .position(|&k| starts.iter().all(|s| s.job != k))
        else {
            return explain::generic(view, key);
        };
        let blocked = view.queue[b];
        let job = view.job(key);
        let own = |k: JobKey| !view.job(k).components.is_empty();
        let name = match self.strategy {
            Strategy::Cbs => "CBS",
            Strategy::Jpr => "JPR",
            Strategy::Pas => "PAS",
        };
        let text = if blocked == key && (own(key) || self.strategy != Strategy::Pas) {
            let why = if own(key) {
                format!(
                    "it asks for its own components, {}, and they do not fit",
                    explain::asks(view, key)
                )
            } else if self.strategy == Strategy::Cbs {
                let chunk = ((job.size as f64 * CBS_CHUNK).ceil() as u32)
                    .min(view.platform.largest_cluster())
                    .max(1);
                format!(
                    "CBS puts {chunk} of its {} tasks (75 %) on one cluster and the rest elsewhere, and finds no such room",
                    job.size
                )
            } else {
                format!("JPR finds no {} free processors for it", job.size)
            };
            format!(
                "It is the head and cannot be placed: {why}; {}.",
                explain::free_now(&free)
            )
        } else if b < view.queue.iter().position(|&k| k == key).unwrap_or(0)
            && (own(blocked) || self.strategy != Strategy::Pas)
        {
            format!(
                "{name} keeps FCFS order and nothing passes the head: it waits behind job {}, which cannot be placed now.",
                view.job(blocked).id
            )
        } else {
            // PAS: the package ended before this job.
            let total: u64 = free.iter().map(|&f| f as u64).sum::<u64>();
            let packaged: u64 = starts
                .iter()
                .filter(|s| !own(s.job))
                .map(|s| view.job(s.job).size as u64)
                .sum();
            if blocked == key {
                format!(
                    "It is not in the package: the package is the jobs from the head whose tasks together fit the {total} free processors, and with its {} tasks it would need {}.",
                    job.size,
                    packaged + job.size as u64
                )
            } else if own(blocked) {
                format!(
                    "It is not in the package: the package ends at job {}, which asks for its own components (they do not fit now), and nothing passes it.",
                    view.job(blocked).id
                )
            } else {
                format!(
                    "It is not in the package: the package ended at job {}, whose tasks did not fit the {total} free processors with the jobs before it; FCFS order keeps this job behind it.",
                    view.job(blocked).id
                )
            }
        };
        Explanation::waits(format!("{text}{links}"))
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        match &self.last {
            Some(p) => PolicyState::new(p.panel(view.platform)).with_detail(p.clone()),
            None => PolicyState::default(),
        }
    }
}

/// Its catalog entry.
pub const CBS_ENTRY: PolicyEntry = PolicyEntry {
    name: PolicyName::new("cbs"),
    summary: "chunk big small: FCFS, at least 75 % of a job's tasks on one \
              cluster, the rest elsewhere",
    params: &[],
    label: |_| "CBS (chunk big small)".to_string(),
    build: |s, _| Ok(Box::new(CoAlloc::new(Strategy::Cbs, s.clone()))),
};

/// Its catalog entry.
pub const JPR_ENTRY: PolicyEntry = PolicyEntry {
    name: PolicyName::new("jpr"),
    summary: "job preferences on resources: FCFS, the most powerful free \
              processors, co-allocating when needed",
    params: &[],
    label: |_| "JPR (most powerful processors)".to_string(),
    build: |s, _| Ok(Box::new(CoAlloc::new(Strategy::Jpr, s.clone()))),
};

/// Its catalog entry.
pub const PAS_ENTRY: PolicyEntry = PolicyEntry {
    name: PolicyName::new("pas"),
    summary: "package allocation: the queued jobs that fit the free \
              processors, placed together by one mixed-integer program",
    params: &[],
    label: |_| "PAS (package + MIP allocation)".to_string(),
    build: |s, _| Ok(Box::new(CoAlloc::new(Strategy::Pas, s.clone()))),
};

/// The links that carry more than their bandwidth now, as a sentence to
/// append (empty when none does or there is no network).
fn saturated_links(view: &SystemView<'_>) -> String {
    if view.platform.network.is_none() {
        return String::new();
    }
    let (abw, base) = link_loads(view);
    let over: Vec<String> = abw
        .iter()
        .zip(&base)
        .enumerate()
        .filter(|&(_, (&a, &b))| b > a)
        .map(|(c, (&a, &b))| {
            format!(
                "{} at {:.0} %",
                view.platform.clusters[c].name,
                100.0 * b / a
            )
        })
        .collect();
    if over.is_empty() {
        return String::new();
    }
    format!(
        " Saturated links now (load against bandwidth): {}; jobs spread over them run slower.",
        over.join(", ")
    )
}

/// Starts `key` on `a` as the head of the queue, taking its processors
/// from `free`.
fn start_at_head(out: &mut Vec<Start>, free: &mut [u32], key: JobKey, a: Assignment) {
    for &(c, w) in &a {
        free[c as usize] -= w;
    }
    out.push(Start {
        job: key,
        assignment: a,
        kind: StartKind::Head,
        processors: None,
        processes: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::SharedParams;
    use crate::sched::{JobKey, JobView};
    use slab::Slab;

    /// (id, assignment) of every job one decision point starts, for queued
    /// jobs of these sizes that leave their split to the policy.
    fn decide(
        strategy: Strategy,
        platform: &Platform,
        free: &[u32],
        sizes: &[u32],
    ) -> Vec<(u64, Assignment)> {
        let jobs: Vec<(u32, &[u32])> = sizes.iter().map(|&s| (s, &[][..])).collect();
        decide_jobs(strategy, platform, free, &jobs)
    }

    /// What `strategy` says of each queued job of these sizes (leaving
    /// their split to the policy) on `free` of `platform`, nothing
    /// running: (verdict, text) in queue order.
    fn explain_all(
        strategy: Strategy,
        platform: &Platform,
        free: &[u32],
        sizes: &[u32],
    ) -> Vec<(crate::sched::Verdict, String)> {
        let asked: Vec<(u32, &[u32])> = sizes.iter().map(|&s| (s, &[][..])).collect();
        on_view(platform, free, &asked, |view| {
            let policy = CoAlloc::new(strategy, PolicySpec::scenario_default());
            view.queue
                .iter()
                .map(|&k| {
                    let e = Phased::explain(&policy, view, k);
                    (e.verdict, e.text)
                })
                .collect()
        })
    }

    /// Two clusters of 4 with 0 and 3 free: a job of 4 waits at the head
    /// under CBS (its 75 %, 3 tasks, fits c1, the rest nowhere), JPR (4
    /// free are not there) and PAS (4 tasks do not fit the 3 free: the
    /// package is empty); a job of 1 behind it waits for it.
    #[test]
    fn each_strategy_says_why_the_head_and_the_job_behind_it_wait() {
        use crate::sched::Verdict::{Starts, Waits};
        let p = Platform::uniform(2, 4);
        let cbs = explain_all(Strategy::Cbs, &p, &[0, 3], &[4, 1]);
        assert_eq!(
            cbs,
            [
                (
                    Waits,
                    "It is the head and cannot be placed: CBS puts 3 of its 4 tasks (75 %) on one cluster and the rest elsewhere, and finds no such room; free per cluster: 0 and 3.".to_string()
                ),
                (
                    Waits,
                    "CBS keeps FCFS order and nothing passes the head: it waits behind job 1, which cannot be placed now.".to_string()
                ),
            ]
        );
        let jpr = explain_all(Strategy::Jpr, &p, &[0, 3], &[4, 1]);
        assert_eq!(
            jpr[0].1,
            "It is the head and cannot be placed: JPR finds no 4 free processors for it; free per cluster: 0 and 3."
        );
        let pas = explain_all(Strategy::Pas, &p, &[0, 3], &[4, 1]);
        assert_eq!(
            pas[0],
            (
                Waits,
                "It is not in the package: the package is the jobs from the head whose tasks together fit the 3 free processors, and with its 4 tasks it would need 4.".to_string()
            )
        );
        assert!(
            pas[1].1.starts_with("PAS keeps FCFS order")
                || pas[1].1.contains("package ended at job 1"),
            "{}",
            pas[1].1
        );
        // With 2 + 3 free, the package is jobs 1 and 2 (5 tasks) and job 3
        // (1 more) is left out; CBS places the first two.
        let pas = explain_all(Strategy::Pas, &p, &[2, 3], &[2, 3, 1]);
        assert_eq!(pas[0].0, Starts);
        assert_eq!(pas[1].0, Starts);
        assert_eq!(
            pas[2],
            (
                Waits,
                "It is not in the package: the package is the jobs from the head whose tasks together fit the 5 free processors, and with its 1 tasks it would need 6.".to_string()
            )
        );
        let cbs = explain_all(Strategy::Cbs, &p, &[2, 3], &[2, 3, 1]);
        assert_eq!(
            cbs[0],
            (Starts, "CBS places it in FCFS order: on c1".to_string())
        );
    }

    /// [`decide`] for jobs of (size, components asked for, if any).
    fn decide_jobs(
        strategy: Strategy,
        platform: &Platform,
        free: &[u32],
        asked: &[(u32, &[u32])],
    ) -> Vec<(u64, Assignment)> {
        on_view(platform, free, asked, |view| {
            let mut out = Vec::new();
            CoAlloc::new(strategy, PolicySpec::scenario_default()).schedule(view, &mut out);
            out.into_iter()
                .map(|s| (view.job(s.job).id, s.assignment))
                .collect()
        })
    }

    /// `f` on a view of queued jobs of (size, components asked for, if
    /// any), numbered from 1, on `free` of `platform`, nothing running.
    fn on_view<T>(
        platform: &Platform,
        free: &[u32],
        asked: &[(u32, &[u32])],
        f: impl FnOnce(&SystemView<'_>) -> T,
    ) -> T {
        let mut jobs = Slab::new();
        let queue: Vec<JobKey> = asked
            .iter()
            .zip(1..)
            .map(|(&(size, components), id)| {
                JobKey(jobs.insert(JobView {
                    id,
                    size,
                    components: components.to_vec(),
                    estimate: SimTime::from_secs(10),
                    arrival: id,
                    rate: 1.0,
                    ..JobView::default()
                }))
            })
            .collect();
        f(&SystemView {
            now: SimTime::ZERO,
            platform,
            free,
            queue: &queue,
            running: &[],
            jobs: &jobs,
            queue_edits: 0,
            requeue_expired: false,
            kill_expired: false,
            reservations: &[],
            seed: 0,
        })
    }

    #[test]
    fn cbs_places_each_job_on_what_the_jobs_before_it_left() {
        let two = Platform::uniform(2, 4);
        // J1 (1 task) goes to cluster 0 (a tie, the lower index); then
        // cluster 1 is the freer, and J2's chunk of 3 goes there. J3 (4
        // tasks) finds 3 + 0 free and waits, and nothing passes it.
        assert_eq!(
            decide(Strategy::Cbs, &two, &[4, 4], &[1, 4, 4, 1]),
            vec![(1, vec![(0, 1)]), (2, vec![(1, 4)])]
        );
    }

    #[test]
    fn cbs_puts_three_quarters_on_the_freest_cluster_that_holds_them() {
        let two = Platform::uniform(2, 10);
        // 8 tasks: a chunk of 6. Cluster 0 holds it and takes all the 6 it
        // has; the other 2 go to cluster 1.
        assert_eq!(
            chunk_big_small(&two, &[6, 4], 8),
            Some(vec![(0, 6), (1, 2)])
        );
        // 10 free, but no cluster holds the chunk: the job waits.
        assert_eq!(chunk_big_small(&two, &[5, 5], 8), None);
        // Both hold a chunk of 3: the freer takes the whole job.
        assert_eq!(chunk_big_small(&two, &[3, 4], 4), Some(vec![(1, 4)]));
        // A tie goes to the lower index.
        assert_eq!(chunk_big_small(&two, &[4, 4], 4), Some(vec![(0, 4)]));
        // Fewer free than tasks: it waits.
        assert_eq!(chunk_big_small(&two, &[9, 0], 10), None);
        // 75 % of 20 is more than a cluster has: the chunk is a whole one.
        assert_eq!(
            chunk_big_small(&two, &[10, 10], 20),
            Some(vec![(0, 10), (1, 10)])
        );
        // The rest goes to the other clusters, most free first.
        let three = Platform::uniform(3, 10);
        assert_eq!(
            chunk_big_small(&three, &[9, 2, 3], 12),
            Some(vec![(0, 9), (2, 3)])
        );
        // Among equally free ones, the lower index first.
        assert_eq!(
            chunk_big_small(&three, &[9, 2, 2], 12),
            Some(vec![(0, 9), (1, 2), (2, 1)])
        );
    }

    #[test]
    fn pas_packs_what_the_jobs_asking_for_their_own_components_left() {
        let two = Platform::uniform(2, 4);
        // J1 asks for one processor and starts as it asks; the 7 left are
        // too few for J2's 8, and PAS's package is empty.
        let own: &[u32] = &[1];
        assert_eq!(
            decide_jobs(Strategy::Pas, &two, &[4, 4], &[(1, own), (8, &[])]),
            vec![(1, vec![(0, 1)])]
        );
        // J2 of 7 fits in what J1 left.
        let started = decide_jobs(Strategy::Pas, &two, &[4, 4], &[(1, own), (7, &[])]);
        assert_eq!(started.len(), 2, "{started:?}");
        let mut left = [4, 4];
        for (_, a) in &started {
            for &(c, w) in a {
                left[c as usize] -= w;
            }
        }
        assert_eq!(left, [0, 0], "{started:?}");
    }

    #[test]
    fn pas_counts_its_packages_and_the_solves_that_stopped_short() {
        // One solve in thousands stops at the limit (8 in a run of 10,000
        // jobs): the counting rule is checked on its own.
        let first = tally(None, true, false);
        assert_eq!(first, (1, 0, 0));
        let last = |(packages, limited, fallbacks)| PackageView {
            packages,
            limited,
            fallbacks,
            ..PackageView::default()
        };
        let limited = tally(Some(&last(first)), false, false);
        assert_eq!(limited, (2, 1, 0));
        let fell_back = tally(Some(&last(limited)), false, true);
        assert_eq!(fell_back, (3, 2, 1));
        assert_eq!(tally(Some(&last(fell_back)), true, false), (4, 2, 1));
    }

    #[test]
    fn each_strategy_keeps_the_spec_it_was_built_with() {
        use crate::sched::PolicyName;
        for (strategy, name) in [
            (Strategy::Cbs, PolicyName::new("cbs")),
            (Strategy::Jpr, PolicyName::new("jpr")),
            (Strategy::Pas, PolicyName::new("pas")),
        ] {
            let spec = PolicySpec::named(name);
            assert_eq!(CoAlloc::new(strategy, spec.clone()).spec(), &spec);
        }
    }
}
