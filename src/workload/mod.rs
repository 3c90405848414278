//! Workloads: where jobs come from (the paper's generator, inline job lists,
//! SWF traces) and how their runtime estimates are made.

pub mod batsim;
pub mod blanco;
pub mod estimates;
pub mod graphs;
pub mod grid;
pub mod inline;
pub mod moldable;
pub mod ngubiri;
pub mod rng;
pub mod sizes;
pub mod swf;

use crate::model::JobSpec;

/// A stream of jobs in submit order. Endless streams return `Some` forever.
pub trait JobSource: Send {
    fn next_job(&mut self) -> Option<JobSpec>;
}

impl<I: Iterator<Item = JobSpec> + Send> JobSource for I {
    fn next_job(&mut self) -> Option<JobSpec> {
        self.next()
    }
}
