//! The domain: time, platforms, jobs and their records.

pub mod job;
pub mod platform;
pub mod time;

pub use job::{JobRecord, JobSpec, split_even};
pub use platform::{Cluster, ClusterIdx, Platform};
pub use time::SimTime;
