//! schedscope's policies and the catalog that names them, each written
//! against the scheduling protocol alone: this crate depends on the
//! protocol and the domain, never on the engine (nor the engine on it).

pub use schedscope_protocol::{model, sched, taskgraph};

pub mod policy;
