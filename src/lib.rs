//! schedscope: a deterministic discrete-event simulator of multi-cluster
//! parallel-job scheduling, with a live terminal console and headless runs.

pub mod cli;
pub mod console;

pub mod grid_study;
pub mod metrics;
pub mod plot;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod simulation;
pub mod sweep;

// The domain is a crate of its own (`crates/model`), below every other
// layer; its modules keep their paths here.
pub use schedscope_model::{model, taskgraph};
// So is the protocol between the engine and the policies
// (`crates/protocol`).
pub use schedscope_protocol::sched;
// And the engine (`crates/engine`), which knows policies through the
// protocol alone.
pub use schedscope_engine::engine;
// And the policies with their catalog (`crates/policies`).
pub use schedscope_policies::policy;
// And the workloads (`crates/workloads`).
pub use schedscope_workloads::workload;
