//! PAS's multiple-job allocation: one mixed-integer program that places a
//! whole package of jobs on the free processors so as to minimise the
//! package's total estimated execution time under the slowdown model
//! ([`crate::sched::slowdown`]), the links' load from running jobs taken
//! as constants. The formulation is written out in `docs/pas-mip.md`.
//!
//! Variables, for job `j` of the package, cluster `k` and each count `t`
//! of its tasks the cluster could take (`0..=min(n_j, free_k)`):
//! * `z[j,k,t]` ∈ {0, 1}: job `j` has exactly `t` tasks on cluster `k`;
//! * `SP_j`, `SC_j` ≥ 0, continuous.
//!
//! Constraints: `Σ_t z[j,k,t] = 1`; `Σ_k Σ_t t·z[j,k,t] = n_j`;
//! `Σ_j Σ_t t·z[j,k,t] ≤ free_k`; `SP_j ≥ (1/Γ_k)(1 − z[j,k,0])`;
//! `SC_j ≥ 1`; and for each link, with `L_k = L0_k + Σ_j Σ_t BW(j,t)·z[j,k,t]`
//! (BW linear in `z` because `t` is fixed per variable, the ratio linear
//! because ABW is a constant), `SC_j ≥ L_k/ABW_k − M_k·(1 − u[j,k])` where
//! `u[j,k] = Σ_{0<t<n_j} z[j,k,t]` says that the job uses link `k`.
//!
//! Objective: minimise `Σ_j e_j·(σ_j·SP_j + (1 − σ_j)·SC_j)`, `e_j` the
//! estimate. At an optimum `SP_j` and `SC_j` sit on the largest of their
//! lower bounds, the model's max() terms.
//!
//! The solve is deterministic: a node limit, never a clock. When the limit
//! stops it before optimality is proved, the best allocation found is used
//! (and counted); when it stops before any is found, the package is placed
//! job by job on the most powerful free processors (also counted).

use crate::model::{CommNeed, Platform};
use crate::sched::Assignment;
use crate::sched::slowdown::{self, link_demand};
use good_lp::{Expression, ProblemVariables, SolverModel, Variable, microlp, variable};

/// One job of a package, as the program sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PackageJob {
    pub size: u32,
    /// Estimated execution time on a dedicated machine (seconds).
    pub estimate: f64,
    pub comm: Option<CommNeed>,
}

/// What one solve gave.
#[derive(Clone, Debug, PartialEq)]
pub struct PackageSolution {
    /// Per job, its tasks per cluster (clusters with none left out).
    pub assignments: Vec<Assignment>,
    /// The objective of the allocation used, by the model (seconds).
    pub objective: f64,
    /// The solver proved this allocation optimal.
    pub optimal: bool,
    /// The node limit stopped the solver before any allocation was found:
    /// the fallback placed the package.
    pub fallback: bool,
    /// Branch-and-bound nodes explored.
    pub nodes: u64,
}

/// The package's objective for given allocations: `Σ e_j·SD_j` with every
/// link loaded by `base` plus the package's own demands.
pub fn objective(
    platform: &Platform,
    abw: &[f64],
    base: &[f64],
    jobs: &[PackageJob],
    assignments: &[Assignment],
) -> f64 {
    let mut load = base.to_vec();
    for (j, a) in jobs.iter().zip(assignments) {
        slowdown::add_demand(&mut load, j.comm.as_ref(), j.size, a);
    }
    jobs.iter()
        .zip(assignments)
        .map(|(j, a)| {
            j.estimate * slowdown::slowdown(platform, abw, &load, j.comm.as_ref(), j.size, a).sd
        })
        .sum()
}

/// Places `jobs` (whose sizes add up to at most the free processors) to
/// minimise [`objective`], exploring at most `node_limit` nodes.
pub fn solve(
    platform: &Platform,
    abw: &[f64],
    base: &[f64],
    free: &[u32],
    jobs: &[PackageJob],
    node_limit: u64,
) -> PackageSolution {
    let mut vars = ProblemVariables::new();
    let z = task_counts(&mut vars, free, jobs);
    let sp: Vec<Variable> = jobs.iter().map(|_| vars.add(variable().min(0.0))).collect();
    let sc: Vec<Variable> = jobs.iter().map(|_| vars.add(variable().min(1.0))).collect();
    let mut model = vars.minimise(goal(jobs, &sp, &sc)).using(microlp);
    place_every_task(&mut model, platform, jobs, &z, &sp);
    load_the_links(&mut model, abw, base, free, jobs, &z, &sc);
    let mut options = microlp::SolveOptions::default();
    options.node_limit = Some(node_limit);
    let outcome = model.as_inner().solve_with(options);
    let solution = outcome.ok().and_then(|o| o.into_solution().ok());
    let Some(sol) = solution else {
        let assignments = most_powerful_each(platform, free, jobs);
        return PackageSolution {
            objective: objective(platform, abw, base, jobs, &assignments),
            assignments,
            optimal: false,
            fallback: true,
            nodes: node_limit,
        };
    };
    // Good_lp hands its variables to microlp in the order they were
    // added: the z variables first, job by job, cluster by cluster.
    let values: Vec<f64> = sol.iter().map(|(_, v)| v).collect();
    let assignments = read_task_counts(&z, &values);
    PackageSolution {
        objective: objective(platform, abw, base, jobs, &assignments),
        assignments,
        optimal: sol.status() == microlp::SolutionStatus::Optimal,
        fallback: false,
        nodes: sol.stats().nodes_solved,
    }
}

/// The binaries `z[j][k][t]`, added job by job, cluster by cluster: job
/// `j` has exactly `t` tasks on cluster `k`.
fn task_counts(
    vars: &mut ProblemVariables,
    free: &[u32],
    jobs: &[PackageJob],
) -> Vec<Vec<Vec<Variable>>> {
    let nc = free.len();
    let mut z: Vec<Vec<Vec<Variable>>> = Vec::with_capacity(jobs.len());
    for j in jobs {
        z.push(
            (0..nc)
                .map(|k| {
                    (0..=j.size.min(free[k]))
                        .map(|_| vars.add(variable().binary()))
                        .collect()
                })
                .collect(),
        );
    }
    z
}

/// The objective `Σ_j e_j·(σ_j·SP_j + (1 − σ_j)·SC_j)`, the estimates
/// scaled to at most 1 to keep the coefficients tame.
fn goal(jobs: &[PackageJob], sp: &[Variable], sc: &[Variable]) -> Expression {
    let scale = jobs
        .iter()
        .map(|j| j.estimate)
        .fold(0.0, f64::max)
        .max(1e-9);
    let mut goal = Expression::from(0.0);
    for (i, j) in jobs.iter().enumerate() {
        let sigma = j.comm.map_or(1.0, |c| c.sigma);
        let e = j.estimate / scale;
        goal += (e * sigma) * sp[i] + (e * (1.0 - sigma)) * sc[i];
    }
    goal
}

/// Per job: one task count per cluster (`Σ_t z = 1`), `n_j` tasks in all,
/// and `SP_j` at least `1/Γ_k` of every cluster it uses.
fn place_every_task(
    model: &mut impl SolverModel,
    platform: &Platform,
    jobs: &[PackageJob],
    z: &[Vec<Vec<Variable>>],
    sp: &[Variable],
) {
    for (i, j) in jobs.iter().enumerate() {
        let mut tasks = Expression::from(0.0);
        for (k, zs) in z[i].iter().enumerate() {
            model.add_constraint(zs.iter().fold(Expression::from(0.0), |e, &v| e + v).eq(1.0));
            for (t, &v) in zs.iter().enumerate() {
                tasks += (t as f64) * v;
            }
            let inv_gamma = 1.0 / platform.clusters[k].speed;
            model.add_constraint((Expression::from(sp[i]) + inv_gamma * zs[0]).geq(inv_gamma));
        }
        model.add_constraint(tasks.eq(j.size as f64));
    }
}

/// Per cluster: no more tasks than it has free processors, and each
/// co-allocated job's `SC_j` at least the load of the cluster's link over
/// its bandwidth (`L_k/ABW_k`, big-M off when the job leaves the link).
fn load_the_links(
    model: &mut impl SolverModel,
    abw: &[f64],
    base: &[f64],
    free: &[u32],
    jobs: &[PackageJob],
    z: &[Vec<Vec<Variable>>],
    sc: &[Variable],
) {
    let demand = |j: &PackageJob, t: u32| j.comm.map_or(0.0, |c| link_demand(c.pnbw, j.size, t));
    for k in 0..free.len() {
        let mut used = Expression::from(0.0);
        let mut load = Expression::from(base[k]);
        let mut most = base[k];
        for (i, j) in jobs.iter().enumerate() {
            let mut top: f64 = 0.0;
            for (t, &v) in z[i][k].iter().enumerate() {
                used += (t as f64) * v;
                let d = demand(j, t as u32);
                if d > 0.0 {
                    load += d * v;
                    top = top.max(d);
                }
            }
            most += top;
        }
        model.add_constraint(used.leq(free[k] as f64));
        let big_m = (most / abw[k] - 1.0).max(0.0);
        for (i, j) in jobs.iter().enumerate() {
            if j.comm.is_none_or(|c| c.sigma >= 1.0) || j.size < 2 {
                continue;
            }
            // SC_i ≥ L_k/ABW_k − M·(1 − u_ik), u_ik = Σ_{0<t<n} z.
            let mut rhs = load.clone() * (1.0 / abw[k]) - big_m;
            for (t, &v) in z[i][k].iter().enumerate() {
                if t > 0 && (t as u32) < j.size {
                    rhs += big_m * v;
                }
            }
            model.add_constraint(Expression::from(sc[i]).geq(rhs));
        }
    }
}

/// Each job's assignment from the solver's `values` of the `z` variables
/// (in the order they were added): on each cluster, the count `t` whose
/// binary is largest (the lower count on ties), clusters with none left
/// out.
fn read_task_counts(z: &[Vec<Vec<Variable>>], values: &[f64]) -> Vec<Assignment> {
    let mut next = 0usize;
    z.iter()
        .map(|per_k| {
            per_k
                .iter()
                .enumerate()
                .filter_map(|(k, zs)| {
                    let first = next;
                    next += zs.len();
                    let t = (0..zs.len())
                        .max_by(|&a, &b| {
                            values[first + a]
                                .total_cmp(&values[first + b])
                                .then(b.cmp(&a))
                        })
                        .unwrap_or(0) as u32;
                    (t > 0).then_some((k as u16, t))
                })
                .collect()
        })
        .collect()
}

/// PAS's allocation of a package: the exact search of
/// [`super::package_search`] with at most `work_limit` children; when that
/// limit stops it, the program of [`solve`] with at most `node_limit`
/// nodes as well, and the better of the two (the search's on a tie). The
/// result is never worse than the node-limited program's alone.
/// `nodes` counts the search's children plus the program's nodes.
pub fn allocate(
    platform: &Platform,
    abw: &[f64],
    base: &[f64],
    free: &[u32],
    jobs: &[PackageJob],
    work_limit: u64,
    node_limit: u64,
) -> PackageSolution {
    let found = super::package_search::search(platform, abw, base, free, jobs, work_limit);
    let searched = PackageSolution {
        objective: objective(platform, abw, base, jobs, &found.assignments),
        assignments: found.assignments,
        optimal: found.proved,
        fallback: false,
        nodes: found.work,
    };
    if found.proved {
        return searched;
    }
    let mip = solve(platform, abw, base, free, jobs, node_limit);
    let tolerance = super::package_search::TOLERANCE * searched.objective.abs().max(1e-12);
    if !mip.fallback && mip.objective < searched.objective - tolerance {
        PackageSolution {
            nodes: searched.nodes + mip.nodes,
            ..mip
        }
    } else {
        PackageSolution {
            optimal: mip.optimal,
            nodes: searched.nodes + mip.nodes,
            ..searched
        }
    }
}

/// Job by job, the most powerful free processors (JPR's rule): the
/// fallback when the solver found nothing within its limit.
pub fn most_powerful_each(
    platform: &Platform,
    free: &[u32],
    jobs: &[PackageJob],
) -> Vec<Assignment> {
    let mut free = free.to_vec();
    jobs.iter()
        .map(|j| {
            let a = most_powerful(platform, &free, j.size).unwrap_or_default();
            for &(c, w) in &a {
                free[c as usize] -= w;
            }
            a
        })
        .collect()
}

/// `size` tasks on the most powerful free processors: clusters by Γ
/// (highest first; ties: more free first, then lower index), each filled
/// before the next. `None` when fewer are free.
pub fn most_powerful(platform: &Platform, free: &[u32], size: u32) -> Option<Assignment> {
    if free.iter().map(|&f| f as u64).sum::<u64>() < size as u64 {
        return None;
    }
    let mut order: Vec<usize> = (0..free.len()).filter(|&k| free[k] > 0).collect();
    order.sort_by(|&a, &b| {
        platform.clusters[b]
            .speed
            .total_cmp(&platform.clusters[a].speed)
            .then(free[b].cmp(&free[a]))
            .then(a.cmp(&b))
    });
    let mut left = size;
    let mut out = Assignment::new();
    for k in order {
        if left == 0 {
            break;
        }
        let w = left.min(free[k]);
        out.push((k as u16, w));
        left -= w;
    }
    Some(out)
}
