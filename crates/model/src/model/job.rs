//! Jobs as workloads describe them, and records of jobs that have ended.

use super::moldable::{AppType, MoldRecord};
use super::platform::ClusterIdx;
use super::time::SimTime;
use serde::Serialize;
use std::sync::Arc;

/// A job as a workload produces it, before it reaches the engine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSpec {
    /// The workload's own id (the SWF job number, the generator's sequence).
    pub id: u64,
    pub submit: SimTime,
    /// Total processors.
    pub size: u32,
    /// Component widths, one per cluster when co-allocated; sums to `size`.
    pub components: Vec<u32>,
    /// Actual run time on speed-1 processors (hidden from policies).
    pub runtime: SimTime,
    /// The user's estimate, if the workload has one (SWF requested time).
    pub estimate: Option<SimTime>,
    /// SWF user id, for per-user tables.
    pub user: Option<i64>,
    /// Added by an operator command rather than the workload.
    pub injected: bool,
    /// The cluster (site) a local job belongs to: it may run there only.
    /// `None` for jobs any cluster may take.
    pub home: Option<ClusterIdx>,
    /// A moldable job's application type: its size is chosen at start
    /// from the type's allowed sizes (`size` is then the largest), and
    /// `runtime` is its sequential time. `None` for a rigid job.
    #[serde(skip)]
    pub app: Option<Arc<AppType>>,
    /// What the job asks of the inter-cluster network, if anything (a
    /// job without it computes only: its links never slow it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm: Option<CommNeed>,
    /// The task graph the job carries, if it is a graph job.
    #[serde(skip)]
    pub graph: Option<std::sync::Arc<super::graph::GraphJob>>,
    /// Processor-seconds of work its tasks do at speed 1, when less than
    /// `size × runtime`: a gang whose tasks have run times of their own
    /// holds every processor until its longest task ends (the two-site
    /// grid's `gang_service = "longest-task"`). `None`: every processor
    /// computes for the whole run time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work: Option<f64>,
}

/// A job's communication: the per-node bandwidth it needs when its tasks
/// span clusters (PNBW, in the unit of the links' available bandwidth),
/// and σ, the share of its time spent computing rather than communicating
/// (`SD = σ·SP + (1 − σ)·SC`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CommNeed {
    pub pnbw: f64,
    pub sigma: f64,
}

impl JobSpec {
    /// A rigid job of `size` processors on one cluster, arriving at
    /// `submit` and running `runtime` at speed 1, with no estimate of its
    /// own (the estimate model gives it one), as a test or a program of its
    /// own writes a workload by hand; set the other fields on the result.
    pub fn rigid(id: u64, submit: SimTime, size: u32, runtime: SimTime) -> JobSpec {
        JobSpec {
            id,
            submit,
            size,
            components: vec![size],
            runtime,
            estimate: None,
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: None,
            graph: None,
            work: None,
        }
    }

    /// The widest component.
    pub fn widest(&self) -> u32 {
        self.components.iter().copied().max().unwrap_or(self.size)
    }
}

/// Splits `size` into `n` components the paper's way: the first `n - 1` get
/// `⌊size / n⌋`, the last gets the rest.
pub fn split_even(size: u32, n: u32) -> Vec<u32> {
    let n = n.max(1).min(size.max(1));
    let w = size / n;
    let mut v = vec![w; n as usize];
    if let Some(last) = v.last_mut() {
        *last = size - (n - 1) * w;
    }
    v
}

/// Processors a job held from an instant on: numbered across the
/// platform's clusters (cluster 0's first, then cluster 1's, ...), sorted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub from: SimTime,
    pub processors: Vec<u32>,
}

/// Everything a metric needs about a job that has left the system, written
/// once when it ends.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobRecord {
    pub id: u64,
    /// Arrival order in the run (0 for the first job to arrive).
    pub arrival: u64,
    pub submit: SimTime,
    pub start: SimTime,
    pub end: SimTime,
    pub size: u32,
    pub components: Vec<u32>,
    pub clusters: Vec<ClusterIdx>,
    pub estimate: SimTime,
    /// Speed-1 run time the workload asked for.
    pub runtime: SimTime,
    pub user: Option<i64>,
    pub injected: bool,
    /// Started ahead of an earlier-queued job (a jump or a backfill).
    pub jumped_ahead: bool,
    /// Stopped by the system before finishing its work.
    pub killed: bool,
    /// Times the job was aborted and put back in the queue before this run.
    pub requeues: u32,
    /// Processor-seconds the job held, its aborted runs included: what it
    /// took of the machine, whatever became of the work.
    pub held: f64,
    /// Of `held`, the processor-seconds its processors computed: all of it
    /// but for a job whose tasks do less work than it holds for
    /// ([`JobSpec::work`]).
    #[serde(skip)]
    pub busy: f64,
    /// A moldable job's type, size, folds and lost work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moldable: Option<MoldRecord>,
    /// The processors the engine gave the job's last run: one entry from
    /// its start, and one more from each fold or expansion. Empty for a
    /// job that ran inside a reservation without naming processors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<Placement>,
}

impl JobRecord {
    pub fn wait(&self) -> SimTime {
        self.start - self.submit
    }
    pub fn response(&self) -> SimTime {
        self.end - self.submit
    }
    /// Time actually spent on processors.
    pub fn elapsed(&self) -> SimTime {
        self.end - self.start
    }
    pub fn widest(&self) -> u32 {
        self.components.iter().copied().max().unwrap_or(self.size)
    }
}

/// A stream of jobs in submit order. Endless streams return `Some` forever.
pub trait JobSource: Send {
    fn next_job(&mut self) -> Option<JobSpec>;
}

impl<I: Iterator<Item = JobSpec> + Send> JobSource for I {
    fn next_job(&mut self) -> Option<JobSpec> {
        self.next()
    }
}

/// `PNBW = BSBW · 4(n − 1)/n²`, the per-node bandwidth of a job of `n`
/// tasks (Jones et al.); 0 for one task.
pub fn pnbw_of(bsbw: f64, size: u32) -> f64 {
    if size < 2 {
        return 0.0;
    }
    let n = size as f64;
    bsbw * 4.0 * (n - 1.0) / (n * n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_follows_the_paper() {
        assert_eq!(split_even(38, 4), vec![9, 9, 9, 11]);
        assert_eq!(split_even(12, 2), vec![6, 6]);
        assert_eq!(split_even(13, 3), vec![4, 4, 5]);
        assert_eq!(split_even(5, 1), vec![5]);
    }
}
