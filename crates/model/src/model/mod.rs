//! The domain: time, platforms, jobs and their records, where jobs come
//! from ([`JobSource`]), how their estimates are made, and the seeded
//! random streams every layer draws from.

pub mod estimates;
pub mod graph;
pub mod job;
pub mod moldable;
pub mod platform;
pub mod rng;
mod shown;
pub mod time;

pub use job::{CommNeed, JobRecord, JobSource, JobSpec, Placement, pnbw_of, split_even};
pub use moldable::{AppType, MoldRecord, SizeRule};
pub use platform::{Cluster, ClusterIdx, Network, Platform};
pub use shown::Shown;
pub use time::SimTime;
