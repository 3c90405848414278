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
            let n = self.n[j];
            // Whole on one cluster.
            let mut whole = f64::INFINITY;
            for &k in &self.by_power {
                if free[k] >= n {
                    whole = self.cost[k];
                    break;
                }
            }
            // Split over at least two clusters.
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
            let lb_whole = self.wp[j] * whole + self.wc[j];
            let lb_split = self.wp[j] * split_sp + self.wc[j] * split_sc;
            let lb = lb_whole.min(lb_split);
            if !lb.is_finite() {
                return f64::INFINITY;
            }
            individual += lb;
            sc_part += self.wc[j] * if whole.is_finite() { 1.0 } else { split_sc };
        }
        if rest.len() < 2 {
            return individual;
        }
        // Fractional placement of the tasks, heaviest per task on the most
        // powerful processors: a bound on Σ e_j·σ_j·SP_j.
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
        individual.max(fractional + sc_part)
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
    let incumbent = most_powerful_each(platform, free, jobs);
    let mut s = Search {
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
    };
    // The incumbent: JPR's allocation.
    let as_counts = |a: &Assignment| {
        let mut t = vec![0u32; nc];
        for &(c, w) in a {
            t[c as usize] += w;
        }
        t
    };
    let placed = incumbent
        .iter()
        .zip(jobs)
        .all(|(a, j)| a.iter().map(|&(_, w)| w).sum::<u32>() == j.size);
    if placed {
        s.best_t = incumbent.iter().map(as_counts).collect();
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
