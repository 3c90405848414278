//! An exact branch-and-bound search for PAS's package allocation: the same
//! objective as the mixed-integer program of [`super::package_mip`]
//! (`Σ e_j·SD_j` under the slowdown model, the links' load from running
//! jobs as constants), searched directly over every job's per-cluster
//! split instead of through an LP relaxation.
//!
//! * Jobs are placed one at a time, the largest first. A node's children
//!   are every split of the next job over the free processors
//!   (`Σ_k t_k = n`, `t_k ≤ free_k`), visited in order of their lower
//!   bound.
//! * The lower bound of a node: the jobs already placed at the links'
//!   current load (a load only grows as jobs are added, so their SC only
//!   grows), plus, for each job still to place, the best it could do alone
//!   on what is left: whole on the most powerful cluster that holds it, or
//!   split over at least two clusters (SP at least that of the second most
//!   powerful cluster it would need, SC at least that of the least loaded
//!   links it would need, each carrying at least PNBW of its own demand,
//!   because `t(n − t) ≥ n − 1` for `0 < t < n`). A second bound relaxes
//!   SP to the task-weighted mean of `1/Γ` and places the remaining jobs'
//!   tasks fractionally, heaviest per task on the most powerful processors;
//!   the node's bound is the larger of the two.
//! * Clusters with the same Γ, bandwidth, load and free processors at a
//!   node are interchangeable: only splits with non-increasing tasks over
//!   such a group are visited.
//! * The first incumbent is JPR's allocation (each job in order on the most
//!   powerful free processors). Among allocations whose objectives are
//!   within a relative `1e-9`, the one with the fewest co-allocated jobs
//!   wins, then the first met (JPR's, else children by bound, then most
//!   tasks on the most powerful clusters). A child is pruned when neither
//!   its bound nor its co-allocated jobs so far (plus those of the rest
//!   that no single cluster can hold) can beat the best this way.
//!
//! The search counts the children it evaluates and stops at a limit
//! (deterministic, never a clock); it then reports the best allocation
//! found as not proved.

use super::package_mip::{PackageJob, most_powerful_each};
use crate::model::Platform;
use crate::sched::Assignment;
use crate::sched::slowdown::link_demand;

/// Relative tolerance of the pruning test.
pub const TOLERANCE: f64 = 1e-9;

/// What one search gave.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// Per job (in the package's order), its tasks per cluster.
    pub assignments: Vec<Assignment>,
    /// The search ran to its end: no allocation is better by more than
    /// the tolerance.
    pub proved: bool,
    /// Children evaluated.
    pub work: u64,
}

struct Search {
    nc: usize,
    /// `1/Γ_k`.
    cost: Vec<f64>,
    /// `1/ABW_k` (0 for a link without limit).
    inv_abw: Vec<f64>,
    /// Clusters by `1/Γ` ascending (ties: lower index).
    by_power: Vec<usize>,
    /// Job indices in search order.
    order: Vec<usize>,
    n: Vec<u32>,
    /// `e_j·σ_j` and `e_j·(1 − σ_j)`.
    wp: Vec<f64>,
    wc: Vec<f64>,
    pnbw: Vec<f64>,
    /// `bw[j][t]`: job j's demand on a link with t of its tasks.
    bw: Vec<Vec<f64>>,
    /// Pairs of clusters equal in Γ and bandwidth.
    twins: Vec<(usize, usize)>,
    work: u64,
    limit: u64,
    stopped: bool,
    best: f64,
    /// Co-allocated jobs in the best allocation: the tie-break.
    best_split: u32,
    best_t: Vec<Vec<u32>>,
    cur_t: Vec<Vec<u32>>,
}

impl Search {
    /// Job `j`'s cost with its split `t` at `load`.
    fn job_cost(&self, j: usize, t: &[u32], load: &[f64]) -> f64 {
        let mut sp: f64 = 0.0;
        let mut sc: f64 = 1.0;
        for k in 0..self.nc {
            let w = t[k] as usize;
            if w == 0 {
                continue;
            }
            sp = sp.max(self.cost[k]);
            if self.bw[j][w] > 0.0 {
                sc = sc.max(load[k] * self.inv_abw[k]);
            }
        }
        if sp <= 0.0 || !sp.is_finite() {
            sp = 1.0;
        }
        self.wp[j] * sp + self.wc[j] * sc
    }

    /// A lower bound on the cost of the jobs `rest` placed on `free` with
    /// the links at `load` (infinite when one cannot be placed).
    fn bound(&self, rest: &[usize], free: &[u32], load: &[f64]) -> f64 {
        let mut individual = 0.0;
        let mut sc_part = 0.0;
        for &j in rest {
            let (lb, sc) = self.job_bound(j, free, load);
            if !lb.is_finite() {
                return f64::INFINITY;
            }
            individual += lb;
            sc_part += sc;
        }
        if rest.len() < 2 {
            return individual;
        }
        individual.max(self.fractional_bound(rest, free) + sc_part)
    }

    /// Job `j`'s lower bound on its own on `free` with the links at `load`
    /// (infinite when it cannot be placed), whole on one cluster or split
    /// over several; and its communication part `e_j·(1 − σ_j)·SC_j` at the
    /// lowest `SC_j` of the way it can be placed.
    fn job_bound(&self, j: usize, free: &[u32], load: &[f64]) -> (f64, f64) {
        let n = self.n[j];
        // Whole on one cluster.
        let mut whole = f64::INFINITY;
        for &k in &self.by_power {
            if free[k] >= n {
                whole = self.cost[k];
                break;
            }
        }
        let (split_sp, split_sc) = self.split_bound(j, free, load);
        let lb_whole = self.wp[j] * whole + self.wc[j];
        let lb_split = self.wp[j] * split_sp + self.wc[j] * split_sc;
        let lb = lb_whole.min(lb_split);
        let sc = self.wc[j] * if whole.is_finite() { 1.0 } else { split_sc };
        (lb, sc)
    }

    /// The lowest `SP_j` and `SC_j` of job `j` split over at least two
    /// clusters of `free` with the links at `load` (infinite when it
    /// cannot be).
    fn split_bound(&self, j: usize, free: &[u32], load: &[f64]) -> (f64, f64) {
        let n = self.n[j];
        let mut split_sp = f64::INFINITY;
        let mut split_sc = f64::INFINITY;
        if n >= 2 {
            let (mut count, mut sum) = (0, 0);
            for &k in &self.by_power {
                if free[k] == 0 {
                    continue;
                }
                count += 1;
                sum += free[k];
                if count >= 2 && sum >= n {
                    split_sp = self.cost[k];
                    break;
                }
            }
            if split_sp.is_finite() {
                split_sc = if self.wc[j] > 0.0 && self.pnbw[j] > 0.0 {
                    let mut links: Vec<(f64, u32)> = (0..self.nc)
                        .filter(|&k| free[k] > 0)
                        .map(|k| ((load[k] + self.pnbw[j]) * self.inv_abw[k], free[k]))
                        .collect();
                    links.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let (mut count, mut sum, mut at) = (0, 0, 1.0f64);
                    for (v, f) in links {
                        count += 1;
                        sum += f;
                        at = v;
                        if count >= 2 && sum >= n {
                            break;
                        }
                    }
                    at.max(1.0)
                } else {
                    1.0
                };
            }
        }
        (split_sp, split_sc)
    }

    /// Fractional placement of the tasks of `rest`, heaviest per task on
    /// the most powerful processors: a bound on `Σ e_j·σ_j·SP_j` (infinite
    /// when the tasks do not fit `free`).
    fn fractional_bound(&self, rest: &[usize], free: &[u32]) -> f64 {
        let mut heavy: Vec<usize> = rest.to_vec();
        heavy.sort_by(|&a, &b| {
            (self.wp[b] / self.n[b] as f64).total_cmp(&(self.wp[a] / self.n[a] as f64))
        });
        let mut fractional = 0.0;
        let mut at = 0usize;
        let mut left_k = free[self.by_power[0]];
        for j in heavy {
            let per_task = self.wp[j] / self.n[j] as f64;
            let mut need = self.n[j];
            while need > 0 {
                while left_k == 0 {
                    at += 1;
                    if at >= self.nc {
                        return f64::INFINITY;
                    }
                    left_k = free[self.by_power[at]];
                }
                let take = need.min(left_k);
                fractional += per_task * take as f64 * self.cost[self.by_power[at]];
                need -= take;
                left_k -= take;
            }
        }
        fractional
    }

    /// Every split of `n` tasks over `free`, clusters by power, most tasks
    /// first, skipping splits that break the order within a group of
    /// interchangeable clusters; appended to `out` (`nc` counts each).
    fn splits(&self, n: u32, free: &[u32], same: &[(usize, usize)], out: &mut Vec<u32>) {
        let mut cur = vec![0u32; self.nc];
        // Tasks the clusters after position i can still take.
        let mut room = vec![0u32; self.nc + 1];
        for i in (0..self.nc).rev() {
            room[i] = room[i + 1] + free[self.by_power[i]];
        }
        self.splits_at(0, n, free, &room, same, &mut cur, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn splits_at(
        &self,
        i: usize,
        left: u32,
        free: &[u32],
        room: &[u32],
        same: &[(usize, usize)],
        cur: &mut Vec<u32>,
        out: &mut Vec<u32>,
    ) {
        if i == self.nc {
            if left == 0 && same.iter().all(|&(a, b)| cur[a] >= cur[b]) {
                out.extend_from_slice(cur);
            }
            return;
        }
        let k = self.by_power[i];
        let hi = left.min(free[k]);
        let lo = left.saturating_sub(room[i + 1]);
        let mut t = hi;
        loop {
            if t < lo {
                break;
            }
            cur[k] = t;
            self.splits_at(i + 1, left - t, free, room, same, cur, out);
            if t == 0 {
                break;
            }
            t -= 1;
        }
        cur[k] = 0;
    }

    /// Whether job `j`'s split `t` uses more than one cluster.
    fn is_split(&self, j: usize, t: &[u32]) -> bool {
        t.iter().all(|&w| w < self.n[j])
    }

    /// Jobs of `rest` that no single cluster of `free` can hold.
    fn must_split(&self, rest: &[usize], free: &[u32]) -> u32 {
        let most = free.iter().copied().max().unwrap_or(0);
        rest.iter().filter(|&&j| self.n[j] > most).count() as u32
    }

    /// Whether a node of bound `b` with at least `split` co-allocated jobs
    /// can still beat the best allocation: a lower objective by more than
    /// the tolerance, or one within it with fewer co-allocated jobs.
    fn viable(&self, b: f64, split: u32) -> bool {
        let tol = TOLERANCE * self.best.abs().max(1e-12);
        b < self.best - tol || (b <= self.best + tol && split < self.best_split)
    }

    fn dive(&mut self, depth: usize, split: u32, free: &[u32], load: &[f64]) {
        let m = self.order.len();
        let j = self.order[depth];
        let same: Vec<(usize, usize)> = self
            .twins
            .iter()
            .copied()
            .filter(|&(a, b)| free[a] == free[b] && load[a] == load[b])
            .collect();
        let mut splits = Vec::new();
        self.splits(self.n[j], free, &same, &mut splits);
        let nc = self.nc;
        let rest: Vec<usize> = self.order[depth + 1..].to_vec();
        let mut children: Vec<(f64, u32, usize)> = Vec::new();
        let mut new_load = load.to_vec();
        let mut new_free = free.to_vec();
        for (idx, t) in splits.chunks_exact(nc).enumerate() {
            self.work += 1;
            for k in 0..nc {
                new_load[k] = load[k] + self.bw[j][t[k] as usize];
                new_free[k] = free[k] - t[k];
            }
            let mut b = self.job_cost(j, t, &new_load);
            for &i in &self.order[..depth] {
                b += self.job_cost(i, &self.cur_t[i], &new_load);
            }
            let s = split + u32::from(self.is_split(j, t));
            if !self.viable(b, s) {
                continue;
            }
            b += self.bound(&rest, &new_free, &new_load);
            if self.viable(b, s + self.must_split(&rest, &new_free)) {
                children.push((b, s, idx));
            }
        }
        children.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (b, s, idx) in children {
            if self.stopped {
                break;
            }
            let t = &splits[idx * nc..(idx + 1) * nc];
            let rest_split = if depth + 1 == m {
                0
            } else {
                let mut f = free.to_vec();
                for k in 0..nc {
                    f[k] -= t[k];
                }
                self.must_split(&rest, &f)
            };
            if !self.viable(b, s + rest_split) {
                continue;
            }
            self.cur_t[j].copy_from_slice(t);
            if depth + 1 == m {
                self.best = b;
                self.best_split = s;
                self.best_t = self.cur_t.clone();
                continue;
            }
            if self.work >= self.limit {
                self.stopped = true;
                break;
            }
            for k in 0..nc {
                new_load[k] = load[k] + self.bw[j][t[k] as usize];
                new_free[k] = free[k] - t[k];
            }
            let (l, f) = (new_load.clone(), new_free.clone());
            self.dive(depth + 1, s, &f, &l);
        }
    }

    /// The search's fixed data for `jobs` on `platform` (with the links'
    /// available bandwidths `abw`), no allocation found yet.
    fn for_package(platform: &Platform, abw: &[f64], jobs: &[PackageJob], limit: u64) -> Search {
        let nc = platform.clusters.len();
        let m = jobs.len();
        let cost: Vec<f64> = platform
            .clusters
            .iter()
            .map(|c| {
                let v = 1.0 / c.speed;
                if v.is_finite() && v > 0.0 { v } else { 1.0 }
            })
            .collect();
        let inv_abw: Vec<f64> = abw.iter().map(|&a| 1.0 / a).collect();
        let mut by_power: Vec<usize> = (0..nc).collect();
        by_power.sort_by(|&a, &b| cost[a].total_cmp(&cost[b]).then(a.cmp(&b)));
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&a, &b| jobs[b].size.cmp(&jobs[a].size).then(a.cmp(&b)));
        let mut twins = Vec::new();
        for (x, &a) in by_power.iter().enumerate() {
            for &b in &by_power[x + 1..] {
                if cost[a] == cost[b] && inv_abw[a] == inv_abw[b] {
                    twins.push((a, b));
                }
            }
        }
        Search {
            nc,
            cost,
            inv_abw,
            by_power,
            order,
            n: jobs.iter().map(|j| j.size).collect(),
            wp: jobs
                .iter()
                .map(|j| j.estimate * j.comm.map_or(1.0, |c| c.sigma))
                .collect(),
            wc: jobs
                .iter()
                .map(|j| j.estimate * (1.0 - j.comm.map_or(1.0, |c| c.sigma)))
                .collect(),
            pnbw: jobs
                .iter()
                .map(|j| j.comm.map_or(0.0, |c| c.pnbw))
                .collect(),
            bw: jobs
                .iter()
                .map(|j| {
                    (0..=j.size)
                        .map(|t| j.comm.map_or(0.0, |c| link_demand(c.pnbw, j.size, t)))
                        .collect()
                })
                .collect(),
            twins,
            work: 0,
            limit,
            stopped: false,
            best: f64::INFINITY,
            best_split: u32::MAX,
            best_t: Vec::new(),
            cur_t: vec![vec![0; nc]; m],
        }
    }
}

/// An assignment's tasks per cluster, for `nc` clusters.
fn counts(a: &Assignment, nc: usize) -> Vec<u32> {
    let mut t = vec![0u32; nc];
    for &(c, w) in a {
        t[c as usize] += w;
    }
    t
}

/// Places `jobs` (whose sizes add up to at most the free processors) to
/// minimise [`super::package_mip::objective`], evaluating at most `limit`
/// children.
pub fn search(
    platform: &Platform,
    abw: &[f64],
    base: &[f64],
    free: &[u32],
    jobs: &[PackageJob],
    limit: u64,
) -> SearchResult {
    let nc = free.len();
    let m = jobs.len();
    let incumbent = most_powerful_each(platform, free, jobs);
    let mut s = Search::for_package(platform, abw, jobs, limit);
    // The incumbent: JPR's allocation.
    let placed = incumbent
        .iter()
        .zip(jobs)
        .all(|(a, j)| a.iter().map(|&(_, w)| w).sum::<u32>() == j.size);
    if placed {
        s.best_t = incumbent.iter().map(|a| counts(a, nc)).collect();
        let mut load = base.to_vec();
        for (j, t) in s.best_t.iter().enumerate() {
            for k in 0..nc {
                load[k] += s.bw[j][t[k] as usize];
            }
        }
        s.best = (0..m).map(|j| s.job_cost(j, &s.best_t[j], &load)).sum();
        s.best_split = (0..m).filter(|&j| s.is_split(j, &s.best_t[j])).count() as u32;
    }
    if m > 0 {
        s.dive(0, 0, free, base);
    }
    let assignments = s
        .best_t
        .iter()
        .map(|t| {
            t.iter()
                .enumerate()
                .filter(|&(_, &w)| w > 0)
                .map(|(k, &w)| (k as u16, w))
                .collect()
        })
        .collect();
    SearchResult {
        assignments,
        proved: !s.stopped,
        work: s.work,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cluster, CommNeed, Network};
    use crate::sched::slowdown::pnbw_of;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const INF: f64 = f64::INFINITY;

    /// Four clusters of the given speeds, links of the given bandwidths.
    fn platform(gamma: [f64; 4], abw: &[f64]) -> Platform {
        Platform {
            clusters: gamma
                .iter()
                .enumerate()
                .map(|(i, &g)| Cluster {
                    name: format!("c{i}"),
                    processors: 24,
                    speed: g,
                })
                .collect(),
            split_overhead: 0.0,
            network: Some(Network { abw: abw.to_vec() }),
        }
    }

    /// A random node: the search's data for 1–4 jobs, the free processors
    /// and the links' load.
    struct Node {
        platform: Platform,
        abw: Vec<f64>,
        jobs: Vec<PackageJob>,
        search: Search,
        free: Vec<u32>,
        load: Vec<f64>,
    }

    fn random_node(rng: &mut ChaCha8Rng) -> Node {
        let speeds = [
            [1.0, 0.9, 0.8, 0.7],
            [1.0, 0.5, 0.5, 0.25],
            [1.0, 0.7, 0.4, 0.1],
            [0.5, 1.0, 0.5, 1.0],
        ];
        let gamma = speeds[rng.random_range(0..speeds.len())];
        let abw: Vec<f64> = (0..4)
            .map(|_| [0.125, 0.5, 1.0, INF][rng.random_range(0..4)])
            .collect();
        let jobs: Vec<PackageJob> = (0..rng.random_range(1..=4))
            .map(|_| {
                let size = rng.random_range(1..=5);
                let comm = match rng.random_range(0..6) {
                    0 => None,
                    // The edges: no bandwidth needed, or all
                    // computation or all communication.
                    1 => Some(CommNeed {
                        pnbw: [0.0, pnbw_of(0.6, size)][rng.random_range(0..2)],
                        sigma: [0.0, 0.5, 1.0][rng.random_range(0..3)],
                    }),
                    _ => Some(CommNeed {
                        pnbw: pnbw_of(rng.random_range(0.1..1.1), size),
                        sigma: rng.random_range(0.0..1.0),
                    }),
                };
                PackageJob {
                    size,
                    estimate: rng.random_range(1.0..500.0),
                    comm,
                }
            })
            .collect();
        let platform = platform(gamma, &abw);
        Node {
            search: Search::for_package(&platform, &abw, &jobs, u64::MAX),
            platform,
            abw,
            jobs,
            free: (0..4).map(|_| rng.random_range(0..=6)).collect(),
            load: (0..4).map(|_| rng.random_range(0.0..1.5)).collect(),
        }
    }

    /// The bound as its definition reads (module docs), worked out another
    /// way: the split bounds as minima over every set of two or more
    /// clusters with free processors that holds the job, the fractional
    /// bound by pairing tasks one by one, heaviest with cheapest.
    fn reference_bound(s: &Search, rest: &[usize], free: &[u32], load: &[f64]) -> f64 {
        let nc = s.nc;
        let sets: Vec<Vec<usize>> = (0u32..1 << nc)
            .map(|m| (0..nc).filter(|&k| m >> k & 1 == 1).collect::<Vec<_>>())
            .filter(|v| v.len() >= 2 && v.iter().all(|&k| free[k] > 0))
            .collect();
        let worst =
            |v: &Vec<usize>, f: &dyn Fn(usize) -> f64| v.iter().map(|&k| f(k)).fold(0.0, f64::max);
        let (mut individual, mut sc_part) = (0.0, 0.0);
        for &j in rest {
            let n = s.n[j];
            let whole = (0..nc)
                .filter(|&k| free[k] >= n)
                .map(|k| s.cost[k])
                .fold(INF, f64::min);
            let holding: Vec<&Vec<usize>> = sets
                .iter()
                .filter(|v| n >= 2 && v.iter().map(|&k| free[k]).sum::<u32>() >= n)
                .collect();
            let split_sp = holding
                .iter()
                .map(|v| worst(v, &|k| s.cost[k]))
                .fold(INF, f64::min);
            let split_sc = if holding.is_empty() {
                INF
            } else if s.wc[j] > 0.0 && s.pnbw[j] > 0.0 {
                let link = |k: usize| (load[k] + s.pnbw[j]) * s.inv_abw[k];
                holding
                    .iter()
                    .map(|v| worst(v, &link))
                    .fold(INF, f64::min)
                    .max(1.0)
            } else {
                1.0
            };
            let mut lb = INF;
            if whole.is_finite() {
                lb = lb.min(s.wp[j] * whole + s.wc[j]);
            }
            if split_sp.is_finite() {
                lb = lb.min(s.wp[j] * split_sp + s.wc[j] * split_sc);
            }
            if lb == INF {
                return INF;
            }
            individual += lb;
            sc_part += s.wc[j] * if whole.is_finite() { 1.0 } else { split_sc };
        }
        if rest.len() < 2 {
            return individual;
        }
        let mut tasks: Vec<f64> = rest
            .iter()
            .flat_map(|&j| std::iter::repeat_n(s.wp[j] / s.n[j] as f64, s.n[j] as usize))
            .collect();
        let mut processors: Vec<f64> = (0..nc)
            .flat_map(|k| std::iter::repeat_n(s.cost[k], free[k] as usize))
            .collect();
        if tasks.len() > processors.len() {
            return INF;
        }
        tasks.sort_by(|a, b| b.total_cmp(a));
        processors.sort_by(f64::total_cmp);
        let fractional: f64 = tasks.iter().zip(&processors).map(|(w, c)| w * c).sum();
        f64::max(individual, fractional + sc_part)
    }

    /// Every split of `n` tasks over `free`.
    fn every_split(n: u32, free: &[u32]) -> Vec<Vec<u32>> {
        let Some((&f, more)) = free.split_first() else {
            return if n == 0 { vec![vec![]] } else { vec![] };
        };
        (0..=n.min(f))
            .flat_map(|t| {
                every_split(n - t, more).into_iter().map(move |mut v| {
                    v.insert(0, t);
                    v
                })
            })
            .collect()
    }

    /// Every way of placing the jobs `rest` on `free`: a split per job.
    fn placements(s: &Search, rest: &[usize], free: &[u32]) -> Vec<Vec<Vec<u32>>> {
        let Some((&j, more)) = rest.split_first() else {
            return vec![vec![]];
        };
        let mut out = Vec::new();
        for t in every_split(s.n[j], free) {
            let left: Vec<u32> = free.iter().zip(&t).map(|(f, t)| f - t).collect();
            for mut p in placements(s, more, &left) {
                p.insert(0, t.clone());
                out.push(p);
            }
        }
        out
    }

    /// The least cost of the jobs `rest` over every way of placing them
    /// on `free`, their own demands added to `load`; `None` when they
    /// cannot all be placed.
    fn cheapest(s: &Search, rest: &[usize], free: &[u32], load: &[f64]) -> Option<f64> {
        placements(s, rest, free)
            .iter()
            .map(|p| {
                let mut l = load.to_vec();
                for (&j, t) in rest.iter().zip(p) {
                    for k in 0..s.nc {
                        l[k] += s.bw[j][t[k] as usize];
                    }
                }
                rest.iter().zip(p).map(|(&j, t)| s.job_cost(j, t, &l)).sum()
            })
            .min_by(f64::total_cmp)
    }

    fn same(a: f64, b: f64) -> bool {
        a == b || (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// The bound of a node is what its definition gives, and it is a
    /// lower bound: never above the least cost of the jobs left placed
    /// every possible way, and infinite exactly when they cannot all be
    /// placed. Over 3,000 random nodes, each part of the bound is seen
    /// deciding.
    #[test]
    fn the_bound_is_its_definition_and_never_above_the_cheapest_placement() {
        let mut rng = ChaCha8Rng::seed_from_u64(18);
        let (mut checked, mut placed, mut unplaceable, mut tight) = (0, 0, 0, 0);
        let (mut fractional, mut must_split, mut split_links) = (0, 0, 0);
        for _ in 0..3000 {
            let node = random_node(&mut rng);
            let (s, free, load) = (&node.search, &node.free, &node.load);
            for from in 0..s.order.len() {
                let rest = &s.order[from..];
                let got = s.bound(rest, free, load);
                let want = reference_bound(s, rest, free, load);
                assert!(same(got, want), "bound {got}, by definition {want}");
                checked += 1;
                let alone: f64 = rest.iter().map(|&j| s.bound(&[j], free, load)).sum();
                if got.is_finite() && !same(got, alone) {
                    fractional += 1;
                }
                let most = free.iter().copied().max().unwrap_or(0);
                for &j in rest {
                    if s.n[j] > most && s.n[j] <= free.iter().sum::<u32>() && alone.is_finite() {
                        must_split += 1;
                        split_links += usize::from(s.wc[j] > 0.0 && s.pnbw[j] > 0.0);
                    }
                }
                let ways: usize = rest
                    .iter()
                    .map(|&j| every_split(s.n[j], free).len().max(1))
                    .product();
                if ways > 4000 {
                    continue;
                }
                match cheapest(s, rest, free, load) {
                    None => {
                        assert_eq!(got, INF, "nothing can be placed");
                        unplaceable += 1;
                    }
                    Some(c) => {
                        assert!(
                            got <= c * (1.0 + 1e-9),
                            "bound {got} above the cheapest {c}"
                        );
                        placed += 1;
                        tight += usize::from(same(got, c));
                    }
                }
            }
        }
        let seen = (
            checked,
            placed,
            unplaceable,
            tight,
            fractional,
            must_split,
            split_links,
        );
        println!("{seen:?}");
        assert!(
            placed > 1000 && unplaceable > 300 && tight > 300,
            "{seen:?}"
        );
        assert!(
            fractional > 300 && must_split > 300 && split_links > 200,
            "{seen:?}"
        );
    }

    /// The search's allocation is a cheapest one and, of those within the
    /// tolerance of it, one with the fewest co-allocated jobs: checked
    /// against every allocation of 1,500 random packages, among them
    /// packages where allocations as cheap split more jobs and packages
    /// where JPR's allocation is not the cheapest.
    #[test]
    fn the_search_finds_a_cheapest_allocation_with_the_fewest_splits() {
        let mut rng = ChaCha8Rng::seed_from_u64(19);
        let (mut checked, mut ties, mut beats_jpr) = (0, 0, 0);
        for _ in 0..1500 {
            let node = random_node(&mut rng);
            let (s, free, load) = (&node.search, &node.free, &node.load);
            let all: Vec<usize> = (0..s.n.len()).collect();
            let ways: usize = all
                .iter()
                .map(|&j| every_split(s.n[j], free).len())
                .product();
            if ways == 0 || ways > 4000 || s.n.iter().sum::<u32>() > free.iter().sum() {
                continue;
            }
            let cost = |p: &[Vec<u32>]| {
                let mut l = load.to_vec();
                for (j, t) in p.iter().enumerate() {
                    for k in 0..s.nc {
                        l[k] += s.bw[j][t[k] as usize];
                    }
                }
                let splits = (0..p.len()).filter(|&j| s.is_split(j, &p[j])).count();
                let value: f64 = p
                    .iter()
                    .enumerate()
                    .map(|(j, t)| s.job_cost(j, t, &l))
                    .sum();
                (value, splits)
            };
            let every: Vec<(f64, usize)> =
                placements(s, &all, free).iter().map(|p| cost(p)).collect();
            let best = every.iter().map(|e| e.0).fold(INF, f64::min);
            let tol = TOLERANCE * best.abs().max(1e-12);
            let cheap = || every.iter().filter(|e| e.0 <= best + tol).map(|e| e.1);
            let fewest = cheap().min().expect("an allocation");
            let found = search(&node.platform, &node.abw, load, free, &node.jobs, u64::MAX);
            assert!(found.proved);
            let got: Vec<Vec<u32>> = found.assignments.iter().map(|a| counts(a, s.nc)).collect();
            for (j, t) in got.iter().enumerate() {
                assert_eq!(t.iter().sum::<u32>(), s.n[j]);
                assert!(t.iter().zip(free).all(|(t, f)| t <= f));
            }
            let (value, splits) = cost(&got);
            assert!(value <= best + tol, "search {value}, cheapest {best}");
            assert_eq!(splits, fewest, "co-allocated jobs among the cheapest");
            checked += 1;
            ties += usize::from(cheap().any(|n| n > fewest));
            let jpr: Vec<Vec<u32>> = most_powerful_each(&node.platform, free, &node.jobs)
                .iter()
                .map(|a| counts(a, s.nc))
                .collect();
            beats_jpr += usize::from(cost(&jpr).0 > best + tol);
        }
        let seen = (checked, ties, beats_jpr);
        println!("{seen:?}");
        assert!(checked > 500 && ties > 50 && beats_jpr > 50, "{seen:?}");
    }

    /// Clusters alike in Γ, bandwidth, load and free processors are
    /// interchangeable: of the ten splits of a two-task job over four such
    /// clusters, only (2, 0, 0, 0) and (1, 1, 0, 0) are visited. A load or
    /// a free count that tells two apart makes their splits distinct.
    #[test]
    fn splits_over_interchangeable_clusters_are_visited_once() {
        let abw = vec![0.5; 4];
        let p = platform([1.0; 4], &abw);
        let jobs = [PackageJob {
            size: 2,
            estimate: 100.0,
            comm: Some(CommNeed {
                pnbw: pnbw_of(0.6, 2),
                sigma: 0.5,
            }),
        }];
        let work = |free: &[u32], base: &[f64]| search(&p, &abw, base, free, &jobs, u64::MAX).work;
        assert_eq!(work(&[2; 4], &[0.0; 4]), 2);
        // Cluster 3 apart by load: (0, 0, 0, 2), (1, 0, 0, 1) besides.
        assert_eq!(work(&[2; 4], &[0.0, 0.0, 0.0, 0.5]), 4);
        // Cluster 0 apart by free processors, and loads all apart.
        assert_eq!(work(&[3, 2, 2, 2], &[0.0; 4]), 4);
        assert_eq!(work(&[2; 4], &[0.1, 0.2, 0.3, 0.4]), 10);
    }

    /// Two allocations whose objectives are within a relative `1e-9` of
    /// each other tie, and the one that splits no job wins; a relative
    /// `1e-8` apart, the cheaper wins though it splits. A two-task job,
    /// one processor free on each of two clusters of speed 1 and two on a
    /// third a hair slower: split over the first two, or whole on the third.
    #[test]
    fn within_the_tolerance_the_allocation_that_splits_fewer_jobs_wins() {
        for (hair, whole) in [(1e-10, true), (1e-8, false)] {
            let abw = vec![1.0; 3];
            let mut p = platform([1.0; 4], &abw);
            p.clusters.truncate(3);
            p.clusters[2].speed = 1.0 / (1.0 + hair);
            let jobs = [PackageJob {
                size: 2,
                estimate: 500.0,
                comm: None,
            }];
            let found = search(&p, &abw, &[0.0; 3], &[1, 1, 2], &jobs, u64::MAX);
            assert!(found.proved);
            let want: Assignment = if whole {
                vec![(2, 2)]
            } else {
                vec![(0, 1), (1, 1)]
            };
            assert_eq!(found.assignments, vec![want], "{hair}");
        }
    }

    /// A package of no jobs: nothing to place, proved at once.
    #[test]
    fn an_empty_package_is_placed_at_once() {
        let abw = vec![1.0; 4];
        let p = platform([1.0; 4], &abw);
        let found = search(&p, &abw, &[0.0; 4], &[2; 4], &[], u64::MAX);
        let none = SearchResult {
            assignments: vec![],
            proved: true,
            work: 0,
        };
        assert_eq!(found, none);
    }
}
