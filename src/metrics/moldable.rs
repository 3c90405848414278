//! The moldable-job figures: response, execution and wait time for long
//! and short jobs apart, the standard deviation of wait, the mean
//! partition, and what folding and aborts did: the `moldable` kind's
//! family of figures (`long.response`, `short.wait_sd`, `moldable.folded`
//! …, declared with the kind).

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

/// One class's running sums (Welford for the wait's deviation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct ClassAcc {
    n: u64,
    response: f64,
    execution: f64,
    wait_mean: f64,
    wait_m2: f64,
    partition: f64,
}

impl ClassAcc {
    fn add(&mut self, rec: &JobRecord) {
        let wait = rec.wait().as_secs_f64();
        self.n += 1;
        self.response += rec.response().as_secs_f64();
        self.execution += rec.elapsed().as_secs_f64();
        let d = wait - self.wait_mean;
        self.wait_mean += d / self.n as f64;
        self.wait_m2 += d * (wait - self.wait_mean);
        self.partition += rec
            .moldable
            .as_ref()
            .map_or(rec.size as f64, |m| m.partition);
    }

    fn figures(&self) -> ClassFigures {
        if self.n == 0 {
            return ClassFigures::default();
        }
        let k = self.n as f64;
        ClassFigures {
            jobs: self.n,
            response: self.response / k,
            execution: self.execution / k,
            wait: self.wait_mean,
            wait_sd: (self.wait_m2 / k).max(0.0).sqrt(),
            partition: self.partition / k,
        }
    }
}

/// The moldable figures, job by job (rigid jobs are left out).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoldableAcc {
    long: ClassAcc,
    short: ClassAcc,
    aborted: u64,
    folded: u64,
    expanded: u64,
    work_lost: f64,
}

impl MoldableAcc {
    /// Folds in one record; false (and nothing done) for a rigid job.
    pub fn add(&mut self, rec: &JobRecord) -> bool {
        let Some(m) = &rec.moldable else {
            return false;
        };
        if m.long {
            self.long.add(rec);
        } else {
            self.short.add(rec);
        }
        self.aborted += rec.requeues as u64;
        self.folded += m.folds as u64;
        self.expanded += m.expands as u64;
        self.work_lost += m.work_lost;
        true
    }

    pub fn figures(&self) -> MoldableFigures {
        MoldableFigures {
            long: self.long.figures(),
            short: self.short.figures(),
            aborted: self.aborted,
            folded: self.folded,
            expanded: self.expanded,
            work_lost: self.work_lost,
        }
    }
}

impl ClassFigures {
    pub fn get(&self, name: &str) -> Option<f64> {
        Some(match name {
            "jobs" => self.jobs as f64,
            "response" => self.response,
            "execution" => self.execution,
            "wait" => self.wait,
            "wait_sd" => self.wait_sd,
            "partition" => self.partition,
            _ => return None,
        })
    }
}

impl MoldableFigures {
    /// A figure by its dotted name: `long.response`, `short.wait_sd`,
    /// `moldable.folded` …
    pub fn figure(&self, name: &str) -> Option<f64> {
        match name.split_once('.')? {
            ("long", n) => self.long.get(n),
            ("short", n) => self.short.get(n),
            ("moldable", n) => Some(match n {
                "aborted" => self.aborted as f64,
                "folded" => self.folded as f64,
                "expanded" => self.expanded as f64,
                "work_lost" => self.work_lost,
                _ => return None,
            }),
            _ => None,
        }
    }
}

/// The figures of the moldable jobs among `records` (rigid ones are left
/// out).
pub fn figures(records: &[JobRecord]) -> MoldableFigures {
    let mut acc = MoldableAcc::default();
    for r in records {
        acc.add(r);
    }
    acc.figures()
}
