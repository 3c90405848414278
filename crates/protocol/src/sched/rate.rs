//! A running job's execution rate: work done per tick, relative to a
//! speed-1 processor. The one place the rule lives; the engine sets rates
//! with it and policies estimate spans with it.

use super::Assignment;
use crate::model::{Platform, SimTime};

/// The rate of a job placed on `assignment`: the slowest speed among its
/// clusters (a co-allocated job waits for its slowest part), divided by
/// `1 + split_overhead` when it spans more than one cluster (a gang split
/// over two sites runs that much longer). 1 for an empty assignment or a
/// speed that is not a positive number.
pub fn job_rate(platform: &Platform, assignment: &Assignment) -> f64 {
    let speed = assignment
        .iter()
        .map(|&(c, _)| platform.clusters[c as usize].speed)
        .fold(f64::INFINITY, f64::min);
    let speed = if speed.is_finite() && speed > 0.0 {
        speed
    } else {
        1.0
    };
    let o = platform.split_overhead;
    if assignment.len() > 1 && o > 0.0 && o.is_finite() {
        speed / (1.0 + o)
    } else {
        speed
    }
}

/// Whether every assignment on `platform` runs at rate 1 (each speed 1,
/// no split overhead): a job's expected span is then its estimate wherever
/// it is placed.
pub fn full_rate_everywhere(platform: &Platform) -> bool {
    let full = |s: f64| s == 1.0 || !(s.is_finite() && s > 0.0);
    let o = platform.split_overhead;
    platform.clusters.iter().all(|c| full(c.speed)) && !(o > 0.0 && o.is_finite())
}

/// How long `work` (speed-1 time) takes at `rate`, rounded up to a tick.
pub fn span(work: SimTime, rate: f64) -> SimTime {
    if rate == 1.0 {
        work
    } else {
        SimTime((work.0 as f64 / rate).ceil() as i64)
    }
}

/// How long a job is expected to hold the processors of `assignment`: its
/// estimate at the rate it would run at there.
pub fn expected_span(platform: &Platform, estimate: SimTime, assignment: &Assignment) -> SimTime {
    span(estimate, job_rate(platform, assignment))
}

/// A running job's rate: the rate of where it is placed (its slowest
/// cluster's speed, or the network model's `1/SD`) times the rate its
/// folding leaves ([`fold_rate`], 1 for a job that is not folded). The two
/// are independent: a folded job on a slow cluster is slowed by both.
pub fn running_rate(placement: f64, fold: f64) -> f64 {
    placement * fold
}

/// The rate of `processes` processes folded onto `processors` processors,
/// relative to the unfolded run: `1/(f·(1+overhead))` with `f = ⌈p/q⌉`
/// the processes on the busiest processor; 1 when not folded.
pub fn fold_rate(processes: u32, processors: u32, overhead: f64) -> f64 {
    let f = processes.div_ceil(processors.max(1));
    if f <= 1 {
        1.0
    } else {
        1.0 / (f as f64 * (1.0 + overhead.max(0.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_by_f_slows_by_f_and_the_overhead() {
        assert_eq!(fold_rate(16, 16, 0.1), 1.0);
        assert!((fold_rate(16, 4, 0.1) - 1.0 / 4.4).abs() < 1e-15);
        assert!((fold_rate(16, 8, 0.0) - 0.5).abs() < 1e-15);
        // 49 processes on 13 processors: 4 on the busiest.
        assert!((fold_rate(49, 13, 0.0) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn placement_and_folding_compose_by_product() {
        assert_eq!(running_rate(1.0, 1.0), 1.0);
        assert_eq!(running_rate(0.5, fold_rate(16, 8, 0.0)), 0.25);
        assert_eq!(running_rate(2.0, fold_rate(16, 16, 0.1)), 2.0);
    }
}
