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
//! runs for its length (weight units × `unit`), its estimate exact.
//!
//! Arrivals (stream [`Purpose::Graphs`]) fall in the span `[from, until]`,
//! paced one of two ways ([`GraphPace`]): a fixed count of graphs at the
//! times of a Poisson process given that count (the count's sorted
//! uniform draws over the span: the paper's "2,400 TGs within the 5-days
//! period"), or exponential gaps of a mean from `from` until the first
//! arrival after `until` (its "4 TGs arrive in approximately 10
//! minutes").

use super::JobSource;
use super::rng::{Purpose, stream};
use crate::model::graph::GraphJob;
use crate::model::{JobSpec, SimTime};
use crate::taskgraph::generate::{
    EdgeLength, GenParams, Meshing, SizeClass, WEIGHT_PAIRS, generate,
};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use std::sync::Arc;

/// Workload ids of graphs start here: above any trace's job numbers and
/// apart from the jobs an operator injects ((`crate::engine::INJECTED_ID_BASE`)).
pub const GRAPH_ID_BASE: u64 = 2_000_000_000;

/// How the graphs' arrivals are paced over the span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GraphPace {
    /// This many graphs, uniformly over the span (a Poisson process given
    /// its count).
    Count(u32),
    /// Exponential gaps of this mean (s).
    Rate(f64),
}

/// The most graphs one replication's stream may draw (`until` over
/// `mean_interarrival`). Each graph that waits keeps its subtasks and its
/// schedule (about 2.5 KB for 7–12 subtasks), and graphs that arrive
/// faster than they run all wait: this bounds that memory to about half a
/// gigabyte. The papers' experiment draws 2,880.
pub const MAX_GRAPHS: f64 = 200_000.0;

/// What the graph stream draws.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphStreamParams {
    pub pace: GraphPace,
    pub size: SizeClass,
    pub tpes: u32,
    pub per_family: u32,
    /// Simulated seconds per weight unit.
    pub unit: f64,
    /// No graph arrives before this time.
    pub from: SimTime,
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
        work: None,
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
    times: Times,
    next_graph: Option<JobSpec>,
    next_job: Option<JobSpec>,
    count: u64,
}

/// The arrival times still to come.
enum Times {
    /// Drawn up front, in order.
    Fixed(std::vec::IntoIter<SimTime>),
    /// Drawn one gap at a time after the last arrival.
    Gaps {
        rng: Box<ChaCha8Rng>,
        gap: Exp<f64>,
        last: SimTime,
    },
}

impl Times {
    fn new(p: &GraphStreamParams, seed: u64) -> Times {
        let mut rng = stream(seed, Purpose::Graphs);
        match p.pace {
            GraphPace::Count(n) => {
                let span = p.until.0.saturating_sub(p.from.0);
                let mut t: Vec<SimTime> = (0..n)
                    .map(|_| SimTime(p.from.0 + rng.random_range(0..=span)))
                    .collect();
                t.sort_unstable();
                Times::Fixed(t.into_iter())
            }
            GraphPace::Rate(mean) => Times::Gaps {
                rng: Box::new(rng),
                gap: Exp::new(1.0 / mean).expect("validated mean"),
                last: p.from,
            },
        }
    }

    fn next(&mut self, until: SimTime) -> Option<SimTime> {
        match self {
            Times::Fixed(t) => t.next(),
            Times::Gaps { rng, gap, last } => {
                let t = *last + SimTime::from_secs_f64(gap.sample(&mut **rng));
                *last = t;
                (t <= until).then_some(t)
            }
        }
    }
}

impl WithGraphs {
    pub fn new(mut inner: Box<dyn JobSource>, params: GraphStreamParams, seed: u64) -> Self {
        let times = Times::new(&params, seed);
        let next_job = inner.next_job();
        let mut w = WithGraphs {
            inner,
            params,
            seed,
            times,
            next_graph: None,
            next_job,
            count: 0,
        };
        w.next_graph = w.next_graph();
        w
    }

    fn next_graph(&mut self) -> Option<JobSpec> {
        let t = self.times.next(self.params.until)?;
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
            self.next_graph = self.next_graph();
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
            pace: GraphPace::Rate(150.0),
            size: SizeClass::Gs7_12,
            tpes: 4,
            per_family: 5,
            unit: 1.0,
            from: SimTime::ZERO,
            until: SimTime::from_secs(5 * 86_400),
        }
    }

    fn submits(p: GraphStreamParams, seed: u64) -> Vec<SimTime> {
        let jobs: Vec<JobSpec> = Vec::new();
        let mut s = WithGraphs::new(Box::new(jobs.into_iter()), p, seed);
        std::iter::from_fn(|| s.next_job())
            .map(|j| j.submit)
            .collect()
    }

    #[test]
    fn a_count_of_graphs_falls_inside_the_span_in_order() {
        let (from, until) = (SimTime::from_secs(3_585_000), SimTime::from_secs(3_835_000));
        let p = GraphStreamParams {
            pace: GraphPace::Count(2_400),
            from,
            until,
            ..params()
        };
        let t = submits(p.clone(), 4);
        assert_eq!(t.len(), 2_400);
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
        assert!(t[0] >= from && t[t.len() - 1] <= until);
        // Uniform over the span: each half holds about half (sd ≈ 24.5).
        let mid = SimTime((from.0 + until.0) / 2);
        let early = t.iter().filter(|&&x| x < mid).count();
        assert!((1_100..1_300).contains(&early), "{early}");
        assert_eq!(t, submits(p, 4), "the same seed draws the same times");
    }

    #[test]
    fn a_rate_stream_starts_at_its_span() {
        let from = SimTime::from_secs(86_400);
        let until = SimTime::from_secs(2 * 86_400);
        let t = submits(
            GraphStreamParams {
                from,
                until,
                ..params()
            },
            9,
        );
        assert!(t[0] > from && t[t.len() - 1] <= until);
        // One day at 4 per 600 s: 576 expected (sd 24).
        assert!((480..672).contains(&t.len()), "{}", t.len());
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
