//! Workloads: where jobs come from (the paper's generator, inline job lists,
//! SWF traces) and how their runtime estimates are made.

pub mod batsim;
pub mod blanco;
pub mod graphs;
pub mod grid;
pub mod inline;
pub mod moldable;
pub mod ngubiri;
pub mod sizes;
pub mod swf;

// Where jobs come from, how estimates are made and the random streams
// are the domain's (`crate::model`), shared with the engine; their paths
// here are kept.
pub use crate::model::JobSource;
pub use crate::model::{estimates, rng};
