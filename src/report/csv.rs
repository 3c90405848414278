//! The per-job CSV: one row per job, header first, readable by pandas, R
//! and evalys-style tools. Warm-up jobs are rows too, marked by `measured`
//! = 0, so that figures computed from the rows with `measured` = 1 are the
//! summary's.

use crate::metrics::{Grouping, JobFigures, measured};
use crate::runner::RunResult;
use crate::scenario::Scenario;
use std::io::Write;

pub const HEADER: [&str; 23] = [
    "job_id",
    "submit",
    "start",
    "end",
    "size",
    "components",
    "clusters",
    "wait",
    "response",
    "slowdown",
    "bounded_slowdown",
    "estimate",
    "runtime",
    "elapsed",
    "killed",
    "jumped_ahead",
    "injected",
    "user",
    "group_size",
    "group_components",
    "group_widest",
    "replication",
    "measured",
];

fn plus<T: ToString>(v: &[T]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("+")
}

/// Writes every kept record of every replication, in end order.
pub fn write_jobs(
    w: &mut dyn Write,
    result: &RunResult,
    scenario: &Scenario,
) -> std::io::Result<()> {
    let mut rows = JobRows::new(w, scenario)?;
    for rep in &result.replications {
        for r in &rep.records {
            rows.row(rep.index, r)?;
        }
    }
    rows.finish()
}

/// The per-job CSV written a row at a time, header first: what
/// `run --format csv` streams while the run goes on.
pub struct JobRows<'a> {
    out: csv::Writer<&'a mut dyn Write>,
    bounds: &'a crate::metrics::GroupBounds,
    warmup: u64,
}

impl<'a> JobRows<'a> {
    pub fn new(w: &'a mut dyn Write, scenario: &'a Scenario) -> std::io::Result<JobRows<'a>> {
        let mut out = csv::Writer::from_writer(w);
        out.write_record(HEADER)?;
        Ok(JobRows {
            out,
            bounds: scenario.group_bounds(),
            warmup: scenario.file.run.warmup_jobs,
        })
    }

    /// The row of one job of replication `replication`.
    pub fn row(&mut self, replication: u32, r: &crate::model::JobRecord) -> std::io::Result<()> {
        let (bounds, warmup, out) = (self.bounds, self.warmup, &mut self.out);
        let f = JobFigures::of(r);
        let secs = |t: crate::model::SimTime| format!("{}", t.as_secs_f64());
        out.write_record([
            r.id.to_string(),
            secs(r.submit),
            secs(r.start),
            secs(r.end),
            r.size.to_string(),
            plus(&r.components),
            plus(&r.clusters),
            format!("{}", f.wait),
            format!("{}", f.response),
            format!("{}", f.slowdown),
            format!("{}", f.bounded_slowdown),
            secs(r.estimate),
            secs(r.runtime),
            secs(r.elapsed()),
            (r.killed as u8).to_string(),
            (r.jumped_ahead as u8).to_string(),
            (r.injected as u8).to_string(),
            r.user.map(|u| u.to_string()).unwrap_or_default(),
            bounds.label(Grouping::Size, bounds.group_of(Grouping::Size, r)),
            bounds.label(
                Grouping::Components,
                bounds.group_of(Grouping::Components, r),
            ),
            bounds.label(Grouping::Widest, bounds.group_of(Grouping::Widest, r)),
            replication.to_string(),
            (measured(r, warmup) as u8).to_string(),
        ])?;
        Ok(())
    }

    /// Flushes what is buffered.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
