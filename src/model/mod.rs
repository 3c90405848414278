//! The domain: time, platforms, jobs and their records.

pub mod graph;
pub mod job;
pub mod moldable;
pub mod platform;
pub mod time;

pub use job::{CommNeed, JobRecord, JobSpec, Placement, split_even};
pub use moldable::{AppType, MoldRecord, SizeRule};
pub use platform::{Cluster, ClusterIdx, Network, Platform};
pub use time::SimTime;
