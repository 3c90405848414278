//! The names of the built-in policies that callers name directly (a
//! scenario's default, the console's tests, the studies); every policy's
//! name is in its catalog entry.

use crate::sched::PolicyName;

/// First come, first served: only the head of the queue may start.
pub const FCFS: PolicyName = PolicyName::new("fcfs");
/// Fit processors first served: the first job that fits starts; the head
/// may be jumped at most `max_jumps` times.
pub const FPFS: PolicyName = PolicyName::new("fpfs");
/// EASY (aggressive) backfilling: the head holds a reservation; later jobs
/// may start if they do not delay it.
pub const EASY: PolicyName = PolicyName::new("easy");
/// Conservative backfilling: every queued job holds a reservation; a job
/// may start early only if it delays none.
pub const CONSERVATIVE: PolicyName = PolicyName::new("conservative");
/// The two-site grid, approach 1: a gang runs on one site; per-processor
/// FIFO queues with local backfilling (its readings in `policy::grid_rules`).
pub const GRID_1: PolicyName = PolicyName::new("grid-1");
/// The two-site grid, approach 2: as approach 1, and a gang may be split
/// over both sites' idle processors (running `split_overhead` longer).
pub const GRID_2: PolicyName = PolicyName::new("grid-2");
