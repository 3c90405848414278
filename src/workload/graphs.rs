//! A Poisson stream of task graphs merged with another workload (the
//! reservation paper's experiment: graphs arriving about four every ten
//! minutes beside the first jobs of a trace).
//!
//! Graph `i` comes from leaf `(i / per_family) mod leaves` of the
//! generator's tree for the chosen size class (4 meshing degrees × 4 edge
//! lengths × 5 node/edge weight pairs = 80 leaves, in that nesting order),
//! so that `per_family` graphs in a row share a family, as the paper's
//! reservation requests of five graphs of one leaf need. Its shape is drawn
//! by [`crate::taskgraph::generate`] under the seed `(scenario seed, i)`;
//! its schedule is the shortest of HLFET, ETF and MCP on `tpes` target
//! processors; the job is as wide as the processors that schedule uses and
//! runs for its length (weight units × `unit`), its estimate exact. The
//! interarrival times are exponential with mean `mean_interarrival`
//! (stream [`Purpose::Graphs`]); the stream stops at the first arrival
//! after `until`.

use super::JobSource;
use super::rng::{Purpose, stream};
use crate::model::graph::GraphJob;
use crate::model::{JobSpec, SimTime};
use crate::taskgraph::generate::{
    EdgeLength, GenParams, Meshing, SizeClass, WEIGHT_PAIRS, generate,
};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use std::sync::Arc;

/// Workload ids of graphs start here (above any trace's job numbers).
pub const GRAPH_ID_BASE: u64 = 1_000_000_000;

/// The most graphs one replication's stream may draw (`until` over
/// `mean_interarrival`). Each graph that waits keeps its subtasks and its
/// schedule (about 2.5 KB for 7–12 subtasks), and graphs that arrive
/// faster than they run all wait: this bounds that memory to about half a
/// gigabyte. The papers' experiment draws 2,880.
pub const MAX_GRAPHS: f64 = 200_000.0;

/// What the graph stream draws.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphStreamParams {
    pub mean_interarrival: f64,
    pub size: SizeClass,
    pub tpes: u32,
    pub per_family: u32,
    /// Simulated seconds per weight unit.
    pub unit: f64,
    /// No graph arrives after this time.
    pub until: SimTime,
}

/// The `i`-th leaf of the tree for `size`.
pub fn leaf(size: SizeClass, i: usize) -> GenParams {
    let w = WEIGHT_PAIRS.len();
    let e = EdgeLength::ALL.len();
    GenParams::new(
        size,
        Meshing::ALL[(i / (w * e)) % Meshing::ALL.len()],
        EdgeLength::ALL[(i / w) % e],
        WEIGHT_PAIRS[i % w],
    )
}

/// Leaves per size class.
pub fn leaves() -> usize {
    Meshing::ALL.len() * EdgeLength::ALL.len() * WEIGHT_PAIRS.len()
}

/// Graph `i` of the stream under `seed`, arriving at `submit`.
pub fn graph_job(p: &GraphStreamParams, seed: u64, i: u64, submit: SimTime) -> JobSpec {
    let family = ((i / p.per_family.max(1) as u64) % leaves() as u64) as usize;
    let params = leaf(p.size, family);
    let g = generate(&params, seed.wrapping_mul(0x9E37_79B9).wrapping_add(i));
    let (schedule, _) = crate::taskgraph::study::graph_schedule(&g, p.tpes as usize, false);
    let job = GraphJob {
        family: family as u32,
        label: format!("{}/{}", p.size.label(), params.label()),
        graph: g,
        schedule,
        tpes: p.tpes,
        unit: SimTime::from_secs_f64(p.unit),
    };
    let runtime = job.length();
    let width = job.width();
    JobSpec {
        id: GRAPH_ID_BASE + i,
        submit,
        size: width,
        components: vec![width],
        runtime,
        estimate: Some(runtime),
        user: None,
        injected: false,
        home: None,
        comm: None,
        graph: Some(Arc::new(job)),
        app: None,
    }
}

/// The graphs merged, in submit order, with the jobs of `inner` (a job
/// and a graph submitted at once: the job first).
pub struct WithGraphs {
    inner: Box<dyn JobSource>,
    params: GraphStreamParams,
    seed: u64,
    rng: ChaCha8Rng,
    gap: Exp<f64>,
    next_graph: Option<JobSpec>,
    next_job: Option<JobSpec>,
    count: u64,
}

impl WithGraphs {
    pub fn new(mut inner: Box<dyn JobSource>, params: GraphStreamParams, seed: u64) -> Self {
        let mut rng = stream(seed, Purpose::Graphs);
        let gap = Exp::new(1.0 / params.mean_interarrival).expect("validated mean");
        let first = SimTime::from_secs_f64(gap.sample(&mut rng));
        let next_job = inner.next_job();
        let mut w = WithGraphs {
            inner,
            params,
            seed,
            rng,
            gap,
            next_graph: None,
            next_job,
            count: 0,
        };
        w.next_graph = w.graph_at(first);
        w
    }

    fn graph_at(&mut self, t: SimTime) -> Option<JobSpec> {
        if t > self.params.until {
            return None;
        }
        let j = graph_job(&self.params, self.seed, self.count, t);
        self.count += 1;
        Some(j)
    }
}

impl JobSource for WithGraphs {
    fn next_job(&mut self) -> Option<JobSpec> {
        let graph_first = match (&self.next_graph, &self.next_job) {
            (Some(g), Some(j)) => g.submit < j.submit,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if graph_first {
            let g = self.next_graph.take()?;
            let next = g.submit + SimTime::from_secs_f64(self.gap.sample(&mut self.rng));
            self.next_graph = self.graph_at(next);
            Some(g)
        } else {
            let j = self.next_job.take()?;
            self.next_job = self.inner.next_job();
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> GraphStreamParams {
        GraphStreamParams {
            mean_interarrival: 150.0,
            size: SizeClass::Gs7_12,
            tpes: 4,
            per_family: 5,
            unit: 1.0,
            until: SimTime::from_secs(5 * 86_400),
        }
    }

    #[test]
    fn graphs_arrive_about_four_every_ten_minutes_five_per_family() {
        let jobs: Vec<JobSpec> = Vec::new();
        let mut s = WithGraphs::new(Box::new(jobs.into_iter()), params(), 7);
        let mut n = 0u64;
        let mut last = SimTime::ZERO;
        let mut families = Vec::new();
        while let Some(j) = s.next_job() {
            assert!(j.submit >= last);
            last = j.submit;
            let g = j.graph.as_ref().expect("a graph");
            assert_eq!(j.runtime, g.length());
            assert_eq!(j.size, g.width());
            assert!(j.size <= 4 && (7..=12).contains(&g.graph.len()));
            g.schedule.validate(&g.graph).unwrap();
            families.push(g.family);
            n += 1;
        }
        // 5 days at 4 per 600 s: 2,880 expected (sd ≈ 54).
        assert!((2_700..3_060).contains(&n), "{n} graphs");
        assert_eq!(&families[..6], &[0, 0, 0, 0, 0, 1]);
    }
}
