//! The slowdown model of the package-allocation paper (Blanco et al.): a
//! job runs at `1 / SD` where `SD = σ·SP + (1 − σ)·SC`.
//!
//! * `SP`, the processing slowdown, is that of its slowest cluster,
//!   `max 1/Γ_k` over the clusters it uses (Γ, the effective power, is a
//!   cluster's `speed`).
//! * A job of `n` tasks with `t_k` of them on cluster `k` asks of link `k`
//!   `BW_k = t_k · PNBW · (n − t_k)/(n − 1)`: its tasks there times the
//!   share of its tasks elsewhere. A job wholly on one cluster asks nothing.
//! * A link's saturation is `ABW_k / Σ_j BW_k^j` over the jobs using it;
//!   `SC` is the largest inverse saturation over the links the job uses,
//!   never below 1 (a link that is not saturated does not slow anyone).
//!
//! The engine recomputes every running job's rate with this whenever a job
//! starts or ends or a link's bandwidth changes; PAS, CBS and JPR estimate
//! with it. A platform without a network keeps the plain rule of
//! [`super::rate::job_rate`].

use super::Assignment;
use crate::model::{CommNeed, Platform};
use serde::Serialize;

/// A job's slowdowns under the model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Slowdown {
    pub sp: f64,
    pub sc: f64,
    pub sd: f64,
}

impl Slowdown {
    /// The execution rate, `1 / SD`.
    pub fn rate(&self) -> f64 {
        1.0 / self.sd
    }
}

/// `BW_k^j`: what a job of `size` tasks with `on_k` of them on cluster `k`
/// asks of link `k`, at `pnbw` per node. Zero for a job wholly on one
/// cluster (or not on `k` at all).
pub fn link_demand(pnbw: f64, size: u32, on_k: u32) -> f64 {
    if on_k == 0 || on_k >= size || size < 2 {
        return 0.0;
    }
    on_k as f64 * pnbw * (size - on_k) as f64 / (size - 1) as f64
}

pub use crate::model::pnbw_of;

/// `SP`: the largest `1/Γ` over the clusters of `assignment` (1 when empty
/// or on a speed that is not a positive number).
pub fn processing(platform: &Platform, assignment: &Assignment) -> f64 {
    let sp = assignment
        .iter()
        .map(|&(c, _)| 1.0 / platform.clusters[c as usize].speed)
        .fold(0.0, f64::max);
    if sp.is_finite() && sp > 0.0 { sp } else { 1.0 }
}

/// Adds a job's demands to `load` (one entry per cluster's link).
pub fn add_demand(load: &mut [f64], comm: Option<&CommNeed>, size: u32, assignment: &Assignment) {
    let Some(comm) = comm else { return };
    for &(c, w) in assignment {
        load[c as usize] += link_demand(comm.pnbw, size, w);
    }
}

/// `SC` of a job on `assignment` with the links carrying `load` (its own
/// demand included): the largest `load_k / ABW_k` over the links it uses,
/// never below 1.
pub fn communication(
    abw: &[f64],
    load: &[f64],
    comm: Option<&CommNeed>,
    size: u32,
    assignment: &Assignment,
) -> f64 {
    let Some(comm) = comm else { return 1.0 };
    assignment
        .iter()
        .filter(|&&(_, w)| link_demand(comm.pnbw, size, w) > 0.0)
        .map(|&(c, _)| load[c as usize] / abw[c as usize])
        .fold(1.0, f64::max)
}

/// The model's slowdowns for a job (σ = 1 without a communication need).
pub fn slowdown(
    platform: &Platform,
    abw: &[f64],
    load: &[f64],
    comm: Option<&CommNeed>,
    size: u32,
    assignment: &Assignment,
) -> Slowdown {
    let sp = processing(platform, assignment);
    let sc = communication(abw, load, comm, size, assignment);
    let sigma = comm.map_or(1.0, |c| c.sigma);
    Slowdown {
        sp,
        sc,
        sd: sigma * sp + (1.0 - sigma) * sc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cluster, Network};

    fn platform() -> Platform {
        Platform {
            clusters: [(24, 1.0), (16, 0.5)]
                .iter()
                .enumerate()
                .map(|(i, &(p, s))| Cluster {
                    name: format!("c{i}"),
                    processors: p,
                    speed: s,
                })
                .collect(),
            split_overhead: 0.0,
            network: Some(Network {
                abw: vec![1.0, 1.0],
            }),
        }
    }

    #[test]
    fn an_even_split_asks_the_bisection_bandwidth_of_each_link() {
        // n = 8 as 4 + 4: PNBW = 0.7·28/64; BW = 4·PNBW·4/7 = 0.7.
        let p = pnbw_of(0.7, 8);
        assert!((p - 0.30625).abs() < 1e-12);
        assert!((link_demand(p, 8, 4) - 0.7).abs() < 1e-12);
        assert_eq!(link_demand(p, 8, 8), 0.0);
        assert_eq!(link_demand(p, 8, 0), 0.0);
        assert_eq!(pnbw_of(0.7, 1), 0.0);
    }

    #[test]
    fn sd_at_sigma_zero_and_one() {
        let pl = platform();
        let a: Assignment = vec![(0, 4), (1, 4)];
        let comm = |sigma| CommNeed {
            pnbw: pnbw_of(1.0, 8),
            sigma,
        };
        // Two such jobs: each link carries 2.0 against 1.0.
        let load = [2.0, 2.0];
        let s1 = slowdown(&pl, &[1.0, 1.0], &load, Some(&comm(1.0)), 8, &a);
        assert_eq!((s1.sp, s1.sc, s1.sd), (2.0, 2.0, 2.0));
        let s0 = slowdown(&pl, &[1.0, 0.5], &load, Some(&comm(0.0)), 8, &a);
        assert_eq!((s0.sp, s0.sc, s0.sd), (2.0, 4.0, 4.0));
        let half = slowdown(&pl, &[1.0, 0.5], &load, Some(&comm(0.5)), 8, &a);
        assert_eq!(half.sd, 3.0);
        // Wholly on the fast cluster: no link, no slowdown at any σ.
        let one = slowdown(&pl, &[1.0, 0.5], &load, Some(&comm(0.0)), 8, &vec![(0, 8)]);
        assert_eq!((one.sp, one.sc, one.sd), (1.0, 1.0, 1.0));
    }
}
