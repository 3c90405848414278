//! The moldable-job figures: response, execution and wait time for long
//! and short jobs apart, the standard deviation of wait, the mean
//! partition, and what folding and aborts did.

use crate::model::JobRecord;
use serde::Serialize;

/// One class (long or short).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassFigures {
    pub jobs: u64,
    /// Means, in seconds.
    pub response: f64,
    pub execution: f64,
    pub wait: f64,
    /// Standard deviation of wait (population), seconds.
    pub wait_sd: f64,
    /// Mean processors held over each job's last run.
    pub partition: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoldableFigures {
    pub long: ClassFigures,
    pub short: ClassFigures,
    /// Aborts (requeues), folds and expansions over all jobs.
    pub aborted: u64,
    pub folded: u64,
    pub expanded: u64,
    /// Work thrown away by aborts, seconds of unfolded run.
    pub work_lost: f64,
}

fn class<'a>(records: impl Iterator<Item = &'a JobRecord>) -> ClassFigures {
    let (mut n, mut r, mut e, mut w, mut w2, mut p) = (0u64, 0.0, 0.0, 0.0, 0.0, 0.0);
    for rec in records {
        let wait = rec.wait().as_secs_f64();
        n += 1;
        r += rec.response().as_secs_f64();
        e += rec.elapsed().as_secs_f64();
        w += wait;
        w2 += wait * wait;
        p += rec
            .moldable
            .as_ref()
            .map_or(rec.size as f64, |m| m.partition);
    }
    if n == 0 {
        return ClassFigures::default();
    }
    let k = n as f64;
    let mean_w = w / k;
    ClassFigures {
        jobs: n,
        response: r / k,
        execution: e / k,
        wait: mean_w,
        wait_sd: (w2 / k - mean_w * mean_w).max(0.0).sqrt(),
        partition: p / k,
    }
}

/// The figures of the moldable jobs among `records` (rigid ones are left
/// out).
pub fn figures(records: &[JobRecord]) -> MoldableFigures {
    let m = || records.iter().filter(|r| r.moldable.is_some());
    let long = |r: &&JobRecord| r.moldable.as_ref().is_some_and(|m| m.long);
    MoldableFigures {
        long: class(m().filter(long)),
        short: class(m().filter(|r| !long(r))),
        aborted: m().map(|r| r.requeues as u64).sum(),
        folded: m()
            .map(|r| r.moldable.as_ref().map_or(0, |m| m.folds as u64))
            .sum(),
        expanded: m()
            .map(|r| r.moldable.as_ref().map_or(0, |m| m.expands as u64))
            .sum(),
        work_lost: m()
            .map(|r| r.moldable.as_ref().map_or(0.0, |m| m.work_lost))
            .sum(),
    }
}
