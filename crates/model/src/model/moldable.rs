//! Moldable and malleable jobs: application types with the sizes they
//! allow, their sequential time and a speedup model giving the run time at
//! each size.
//!
//! A moldable job's size (its number of processes) is chosen when it
//! starts, from its type's allowed sizes. Its actual work is the type's
//! sequential time divided by the speedup at that size (Downey's model);
//! the engine computes it, a policy only ever sees the estimate.
//!
//! Folding keeps the processes and packs them onto fewer processors: `p`
//! processes on `q` processors run `⌈p/q⌉` to a processor (the
//! multiprogramming level), at the rate [`crate::sched::rate::fold_rate`]
//! gives. The work done is counted in ticks of the unfolded run, so a fold
//! or an expansion never loses any.

use super::time::SimTime;
use serde::Serialize;

/// Which sizes an application admits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SizeRule {
    /// Square numbers (NAS BT).
    Square,
    /// Powers of two (NAS CG, LU).
    PowerOfTwo,
    /// Any size (Sweep3D).
    Any,
}

impl SizeRule {
    pub fn as_str(self) -> &'static str {
        match self {
            SizeRule::Square => "square",
            SizeRule::PowerOfTwo => "power-of-two",
            SizeRule::Any => "any",
        }
    }

    /// The sizes from 1 to `cap`, ascending.
    pub fn sizes(self, cap: u32) -> Vec<u32> {
        let cap = cap.max(1);
        match self {
            SizeRule::Any => (1..=cap).collect(),
            SizeRule::Square => (1..)
                .map(|n: u32| n * n)
                .take_while(|&s| s <= cap)
                .collect(),
            SizeRule::PowerOfTwo => (0..31)
                .map(|k| 1u32 << k)
                .take_while(|&s| s <= cap)
                .collect(),
        }
    }
}

/// One application type of a moldable workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AppType {
    pub name: String,
    /// Allowed numbers of processes, ascending, at least one.
    pub sizes: Vec<u32>,
    /// Run time on one processor.
    pub sequential: SimTime,
    /// Long (sequential time over the workload's threshold) or short.
    pub long: bool,
    /// Downey's average parallelism `A` (≥ 1).
    pub parallelism: f64,
    /// Downey's variance of parallelism `σ` (≥ 0).
    pub sigma: f64,
    /// Folding overhead: a job folded `f` times runs at `1/(f·(1+overhead))`.
    pub fold_overhead: f64,
    /// The largest multiprogramming level a fold may reach.
    pub max_mpl: u32,
}

impl AppType {
    /// Downey's speedup at `n` processes (Downey 1997, as Cirne and
    /// Srinivasan use it): low variance (σ ≤ 1) and high variance (σ ≥ 1)
    /// branches, capped at `A`.
    pub fn speedup(&self, n: u32) -> f64 {
        downey(self.parallelism, self.sigma, n)
    }

    /// The run time of `sequential` work on `n` processes, rounded up to a
    /// tick.
    pub fn time_at(&self, sequential: SimTime, n: u32) -> SimTime {
        let s = self.speedup(n.max(1));
        SimTime((sequential.0 as f64 / s).ceil() as i64)
    }

    pub fn allows(&self, n: u32) -> bool {
        self.sizes.binary_search(&n).is_ok()
    }

    /// The largest allowed size not above `n`.
    pub fn largest_at_most(&self, n: u32) -> Option<u32> {
        let i = self.sizes.partition_point(|&s| s <= n);
        (i > 0).then(|| self.sizes[i - 1])
    }

    pub fn smallest(&self) -> u32 {
        self.sizes[0]
    }

    pub fn largest(&self) -> u32 {
        self.sizes[self.sizes.len() - 1]
    }
}

/// Downey's speedup model with average parallelism `a` and variance `sigma`.
pub fn downey(a: f64, sigma: f64, n: u32) -> f64 {
    let n = n.max(1) as f64;
    let a = a.max(1.0);
    let s = if sigma <= 1.0 {
        if n <= a {
            a * n / (a + sigma * (n - 1.0) / 2.0)
        } else if n <= 2.0 * a - 1.0 {
            a * n / (sigma * (a - 0.5) + n * (1.0 - sigma / 2.0))
        } else {
            a
        }
    } else if n <= a + a * sigma - sigma {
        n * a * (sigma + 1.0) / (sigma * (n + a - 1.0) + a)
    } else {
        a
    };
    s.max(1e-9)
}

/// What a moldable job's record adds: its type, the size it ran at, and
/// what folding and aborts did to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoldRecord {
    pub app: String,
    pub long: bool,
    /// Processes in its last run.
    pub processes: u32,
    /// Processor-seconds its last run held, divided by its length: the
    /// mean partition it ran on (folds included).
    pub partition: f64,
    pub folds: u32,
    pub expands: u32,
    /// Work done in runs that were aborted, in seconds of those runs
    /// unfolded (what the aborts threw away).
    pub work_lost: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_rules() {
        assert_eq!(SizeRule::Square.sizes(60), vec![1, 4, 9, 16, 25, 36, 49]);
        assert_eq!(SizeRule::PowerOfTwo.sizes(60), vec![1, 2, 4, 8, 16, 32]);
        assert_eq!(SizeRule::Any.sizes(60).len(), 60);
    }

    #[test]
    fn downey_is_linear_without_variance_and_capped_at_a() {
        assert!((downey(32.0, 0.0, 16) - 16.0).abs() < 1e-12);
        assert!((downey(32.0, 0.0, 64) - 32.0).abs() < 1e-12);
        // σ = 1: S(n) = nA·2/(n + 2A − 1) up to 2A − 1.
        let s = downey(16.0, 1.0, 8);
        assert!((s - 8.0 * 16.0 * 2.0 / (8.0 + 32.0 - 1.0)).abs() < 1e-12);
        // Both branches agree at σ = 1.
        assert!((downey(16.0, 1.0 - 1e-12, 8) - s).abs() < 1e-6);
        assert_eq!(downey(16.0, 2.0, 1000), 16.0);
        assert!((downey(16.0, 0.5, 1) - 1.0).abs() < 1e-12);
    }
}
