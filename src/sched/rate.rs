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
