//! schedscope's discrete-event engine: the job table, the processors and
//! links, the reservation book, the command log and the decision pass.
//! It knows policies only through the protocol: it is handed the policies
//! it may build ([`sched::Policies`]) and depends on no policy, workload,
//! terminal or report.

pub use schedscope_protocol::{model, sched, taskgraph};

pub mod engine;
