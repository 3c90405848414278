//! schedscope's domain, the layer every other one builds on: simulated
//! time, platforms of clusters and links, jobs and their records, where
//! jobs come from and how their estimates are made, the seeded random
//! streams, and the task-graph algorithms a graph job carries. It depends
//! on no other part of schedscope.

pub mod model;
pub mod taskgraph;
