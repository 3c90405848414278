//! schedscope's workloads, where jobs come from: the papers' generators,
//! inline job lists, Standard Workload Format and Batsim readers, and
//! task-graph streams. They build on the domain alone, never on the
//! engine, the protocol or the policies.

pub use schedscope_model::{model, taskgraph};

pub mod workload;
