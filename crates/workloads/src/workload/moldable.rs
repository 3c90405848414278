//! The moldable workload of backfilling with virtual malleability: four
//! application types (NAS BT class A, CG class B, LU class W and Sweep3D),
//! Poisson arrivals, and a machine utilization made of a short-job load
//! and a long-job load.
//!
//! Load is counted in sequential (linear) CPU time, as the paper sizes
//! its workloads: a load `u` of a class on `M` processors means
//! `λ · mean sequential time = u · M`. The types of a class are equally
//! likely. The speedup parameters are readings (the paper measured a real
//! machine): see [`paper_types`].

use super::rng::{Purpose, stream};
use crate::model::{AppType, JobSpec, SimTime, SizeRule};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use std::sync::Arc;

/// The paper's four types with schedscope's Downey parameters (A, σ), in
/// the order bt.A, cg.B, lu.W, Sweep3D: the class-A/B kernels scale to the
/// machine, the small class-W and Sweep3D runs less.
pub const PAPER_SPEEDUP: [(f64, f64); 4] = [(48.0, 0.5), (32.0, 1.0), (16.0, 1.0), (24.0, 0.5)];

/// The four types' names, sizes and sequential times (the paper's Table 1).
const PAPER_APPS: [(&str, SizeRule, i64); 4] = [
    ("bt.A", SizeRule::Square, 2441),
    ("cg.B", SizeRule::PowerOfTwo, 4385),
    ("lu.W", SizeRule::PowerOfTwo, 177),
    ("Sweep3D", SizeRule::Any, 50),
];

/// The paper's four types, sizes capped at `cap` (60 on its 64-processor
/// machine), long when the sequential time is over `threshold` seconds,
/// with the speedup parameters [`PAPER_SPEEDUP`].
pub fn paper_types(cap: u32, threshold: f64, overhead: f64, max_mpl: u32) -> Vec<Arc<AppType>> {
    types_with(cap, threshold, overhead, max_mpl, PAPER_SPEEDUP, 1)
        .expect("size 1 is allowed for every type")
}

/// The four types with the given speedup parameters (bt.A, cg.B, lu.W,
/// Sweep3D); short types keep only their sizes of at least
/// `short_min_size`. Errors name a short type left with no size.
pub fn types_with(
    cap: u32,
    threshold: f64,
    overhead: f64,
    max_mpl: u32,
    speedup: [(f64, f64); 4],
    short_min_size: u32,
) -> Result<Vec<Arc<AppType>>, String> {
    PAPER_APPS
        .into_iter()
        .zip(speedup)
        .map(|((name, rule, seq), (a, sigma))| {
            let long = seq as f64 > threshold;
            let mut sizes = rule.sizes(cap);
            if !long {
                sizes.retain(|&n| n >= short_min_size);
            }
            if sizes.is_empty() {
                return Err(format!(
                    "the short type {name} allows no size from {short_min_size} to {cap}"
                ));
            }
            Ok(Arc::new(AppType {
                name: name.to_string(),
                sizes,
                sequential: SimTime::from_secs(seq),
                long,
                parallelism: a,
                sigma,
                fold_overhead: overhead,
                max_mpl,
            }))
        })
        .collect()
}

/// The generator's settings.
#[derive(Clone, Debug)]
pub struct MoldableParams {
    pub processors: u32,
    /// Long-job load (0.8 / 0.6 / 0.4 / 0.2 in the paper).
    pub long_load: f64,
    /// Short-job load (0.2 in the paper).
    pub short_load: f64,
    pub jobs: u64,
    pub types: Vec<Arc<AppType>>,
    /// Each job's estimated sequential time is its sequential time times
    /// a factor drawn uniformly from this range; `None`: the job carries
    /// no estimate of its own.
    pub estimate_factor: Option<(f64, f64)>,
}

impl MoldableParams {
    /// The paper's workload at `utilization` (1.0, 0.8, 0.6, 0.4): 20 %
    /// short load, the rest long, on 64 processors, sizes up to 60,
    /// folding overhead `overhead`, levels up to 4.
    pub fn paper(utilization: f64, jobs: u64, overhead: f64) -> MoldableParams {
        MoldableParams {
            processors: 64,
            long_load: (utilization - 0.2).max(0.0),
            short_load: 0.2,
            jobs,
            types: paper_types(60, 1000.0, overhead, 4),
            estimate_factor: None,
        }
    }
}

pub struct MoldableWorkload {
    arrivals: ChaCha8Rng,
    kinds: ChaCha8Rng,
    gap: Exp<f64>,
    mean_gap: f64,
    /// Probability that a job is long.
    p_long: f64,
    long: Vec<Arc<AppType>>,
    short: Vec<Arc<AppType>>,
    estimates: ChaCha8Rng,
    estimate_factor: Option<(f64, f64)>,
    t: f64,
    next: u64,
    jobs: Option<u64>,
}

fn mean_seq(types: &[Arc<AppType>]) -> f64 {
    types
        .iter()
        .map(|t| t.sequential.as_secs_f64())
        .sum::<f64>()
        / types.len().max(1) as f64
}

impl MoldableWorkload {
    /// Errors name what is wrong with the settings.
    pub fn new(p: &MoldableParams, seed: u64) -> Result<MoldableWorkload, String> {
        Self::with_count(p, seed, Some(p.jobs))
    }

    /// [`MoldableWorkload::new`] with `count` jobs (`None`: endless).
    pub fn with_count(
        p: &MoldableParams,
        seed: u64,
        count: Option<u64>,
    ) -> Result<MoldableWorkload, String> {
        let long: Vec<_> = p.types.iter().filter(|t| t.long).cloned().collect();
        let short: Vec<_> = p.types.iter().filter(|t| !t.long).cloned().collect();
        let m = p.processors as f64;
        let rate = |load: f64, ts: &[Arc<AppType>]| {
            if load > 0.0 && !ts.is_empty() {
                load * m / mean_seq(ts)
            } else {
                0.0
            }
        };
        for (load, ts, class) in [
            (p.long_load, &long, "long"),
            (p.short_load, &short, "short"),
        ] {
            if load > 0.0 && ts.is_empty() {
                return Err(format!(
                    "a {class} load of {load} but no {class} type (see long_threshold)"
                ));
            }
        }
        let (ll, ls) = (rate(p.long_load, &long), rate(p.short_load, &short));
        if !(ll + ls > 0.0 && (ll + ls).is_finite()) {
            return Err("the workload has no load: give a long or short load above 0 with types of that class".into());
        }
        Ok(MoldableWorkload {
            arrivals: stream(seed, Purpose::Arrivals),
            kinds: stream(seed, Purpose::Sizes),
            gap: Exp::new(ll + ls).map_err(|e| e.to_string())?,
            mean_gap: 1.0 / (ll + ls),
            p_long: ll / (ll + ls),
            long,
            short,
            estimates: stream(seed, Purpose::Runtimes),
            estimate_factor: p.estimate_factor,
            t: 0.0,
            next: 1,
            jobs: count,
        })
    }
}

impl MoldableWorkload {
    /// The mean time between two arrivals, seconds.
    pub fn mean_gap(&self) -> f64 {
        self.mean_gap
    }
}

impl Iterator for MoldableWorkload {
    type Item = JobSpec;

    fn next(&mut self) -> Option<JobSpec> {
        if self.jobs.is_some_and(|n| self.next > n) {
            return None;
        }
        self.t += self.gap.sample(&mut self.arrivals);
        let long = self.kinds.random::<f64>() < self.p_long;
        let pool = if long { &self.long } else { &self.short };
        let app = pool[self.kinds.random_range(0..pool.len())].clone();
        let id = self.next;
        self.next += 1;
        let estimate = self.estimate_factor.map(|(lo, hi)| {
            let f = if hi > lo {
                self.estimates.random_range(lo..=hi)
            } else {
                lo
            };
            SimTime(((app.sequential.0 as f64) * f).round().max(1.0) as i64)
        });
        Some(JobSpec {
            work: None,
            id,
            submit: SimTime::from_secs_f64(self.t),
            size: app.largest(),
            components: Vec::new(),
            runtime: app.sequential,
            estimate,
            user: None,
            injected: false,
            app: Some(app),
            home: None,
            graph: None,
            comm: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_follow_the_paper() {
        let p = MoldableParams::paper(0.8, 20_000, 0.1);
        let jobs: Vec<JobSpec> = MoldableWorkload::new(&p, 7).unwrap().collect();
        assert_eq!(jobs.len(), 20_000);
        let span = jobs.last().unwrap().submit.as_secs_f64();
        let load = |long: bool| {
            jobs.iter()
                .filter(|j| j.app.as_ref().unwrap().long == long)
                .map(|j| j.runtime.as_secs_f64())
                .sum::<f64>()
                / (64.0 * span)
        };
        assert!((load(true) - 0.6).abs() < 0.05, "{}", load(true));
        assert!((load(false) - 0.2).abs() < 0.02, "{}", load(false));
        let share =
            jobs.iter().filter(|j| j.app.as_ref().unwrap().long).count() as f64 / jobs.len() as f64;
        assert!(
            share <= 0.30,
            "long jobs are at most 30 % of the count: {share}"
        );
        assert!(share > 0.0);
    }
}
