//! schedscope's scheduling protocol, between the engine and the policies:
//! what a policy may see of the system and of each job, what it may
//! decide, what it shows of itself, and the policy trait. It depends on
//! the domain alone; the engine and every policy depend on it and on
//! nothing of each other.

pub use schedscope_model::{model, taskgraph};

pub mod sched;
