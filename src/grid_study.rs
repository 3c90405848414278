//! Runs of the two-site grid the way its paper runs them: each run ends
//! when a number of jobs (120,000) have completed, and each point is the
//! mean over replications with a 95 % confidence half-width.
//!
//! Figures: RT and SLD of local jobs; WRT and WSLD of gangs, each gang
//! weighted by its size (the paper's equations 5 and 6); the share of
//! gangs that arrived and finished by the end of the run; processor
//! utilization (processor-time held by jobs over all processors' time,
//! the jobs still running at the end counted up to then), and of it the
//! share processors computed (`busy_utilization`: lower only when a
//! gang's tasks end apart and it holds its processors until the last,
//! `gang_service = "longest-task"`). A gang's slowdown divides
//! its response time by the time it held its processors, so a split
//! gang's overhead is part of its service.

use crate::engine::{Engine, EngineConfig};
use crate::metrics::Replicated;
use crate::model::Platform;
use crate::policy::grid::GridRules;
use crate::sched::{PolicyName, PolicySpec};
use crate::workload::estimates::EstimateModel;
use crate::workload::grid::{GangService, GangSizes, GridParams, GridWorkload};
use crate::workload::rng::replication_seed;
use rayon::prelude::*;
use serde::Serialize;

/// One point of the study.
#[derive(Clone, Debug, PartialEq)]
pub struct GridPoint {
    pub per_site: u32,
    pub workload: GridParams,
    pub approach: PolicyName,
    /// E, in percent.
    pub error_percent: f64,
    pub rules: GridRules,
    pub split_overhead: f64,
    /// The run ends when this many jobs have completed.
    pub completed: u64,
}

impl GridPoint {
    /// The paper's setting at local rate `lambda`.
    pub fn paper(lambda: f64, approach: PolicyName, error_percent: f64, sizes: GangSizes) -> Self {
        GridPoint {
            per_site: 16,
            workload: GridParams {
                local_rate: lambda,
                gang_sizes: sizes,
                ..GridParams::default()
            },
            approach,
            error_percent,
            rules: GridRules::default(),
            split_overhead: 0.1,
            completed: 120_000,
        }
    }

    pub fn with_service(mut self, s: GangService) -> Self {
        self.workload.gang_service = s;
        self
    }
}

/// The figures of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct GridFigures {
    pub rt: f64,
    pub sld: f64,
    pub wrt: f64,
    pub wsld: f64,
    pub gangs_finished_pct: f64,
    pub utilization: f64,
    /// Processor-time computing over all processors' time.
    pub busy_utilization: f64,
    /// Jobs started ahead of a waiting gang (backfilled locals).
    pub backfilled: u64,
}

/// The grid figures by name, in report order (`grid.<name>` in sweeps
/// and the JSON summary).
pub const GRID_FIGURES: [&str; 8] = [
    "rt",
    "sld",
    "wrt",
    "wsld",
    "gangs_finished_pct",
    "utilization",
    "busy_utilization",
    "backfilled",
];

impl GridFigures {
    /// A figure by its name in [`GRID_FIGURES`].
    pub fn get(&self, name: &str) -> Option<f64> {
        Some(match name {
            "rt" => self.rt,
            "sld" => self.sld,
            "wrt" => self.wrt,
            "wsld" => self.wsld,
            "gangs_finished_pct" => self.gangs_finished_pct,
            "utilization" => self.utilization,
            "busy_utilization" => self.busy_utilization,
            "backfilled" => self.backfilled as f64,
            _ => return None,
        })
    }
}

/// Runs one replication of `point` under `seed`.
pub fn run_once(point: &GridPoint, seed: u64) -> GridFigures {
    let mut platform = Platform::uniform(point.workload.sites as usize, point.per_site);
    platform.split_overhead = point.split_overhead;
    let policy = PolicySpec {
        name: point.approach,
        params: point.rules.to_params(),
        ..PolicySpec::default()
    };
    let estimates = if point.error_percent > 0.0 {
        EstimateModel::uniform_error(point.error_percent)
    } else {
        EstimateModel::exact()
    };
    let config = EngineConfig {
        seed,
        estimates,
        ..EngineConfig::default()
    };
    let source = GridWorkload::new(point.workload.clone(), seed);
    let mut engine = crate::simulation::engine(platform, Box::new(source), &policy, config)
        .expect("grid policy builds");
    let mut acc = GridAcc::default();
    let mut done = 0u64;
    while done < point.completed {
        if engine.step().is_none() {
            break;
        }
        for r in engine.drain_records() {
            done += 1;
            acc.record(&r);
        }
    }
    acc.figures(&engine)
}

/// The grid figures of one run, folded in job by job.
#[derive(Clone, Copy, Debug, Default)]
pub struct GridAcc {
    n_local: u64,
    rt: f64,
    sld: f64,
    /// Gang weight (processors) and weighted sums.
    w: f64,
    wrt: f64,
    wsld: f64,
    gangs_done: u64,
    held: f64,
    busy: f64,
}

impl GridAcc {
    /// Folds in one finished job: a local job has one task, the workload's
    /// gangs 2 or more.
    pub fn record(&mut self, r: &crate::model::JobRecord) {
        self.held += r.held;
        self.busy += r.busy;
        let resp = r.response().as_secs_f64();
        let service = r.elapsed().as_secs_f64().max(1e-6);
        if r.size == 1 {
            self.n_local += 1;
            self.rt += resp;
            self.sld += resp / service;
        } else {
            let p = r.size as f64;
            self.gangs_done += 1;
            self.w += p;
            self.wrt += p * resp;
            self.wsld += p * resp / service;
        }
    }

    /// The figures at the engine's present time (the jobs still running
    /// count for utilization up to now).
    pub fn figures(&self, engine: &Engine) -> GridFigures {
        let end = engine.now().as_secs_f64();
        let total = engine.platform().total_processors() as f64;
        let held = self.held + engine.running_held();
        let busy = self.busy + engine.running_busy();
        let c = engine.counters();
        // Arrived gangs: all arrivals minus the local ones (finished or not).
        let arrived_locals = self.n_local as f64 + local_in_system(engine);
        let arrived_gangs = c.arrived as f64 - arrived_locals;
        GridFigures {
            rt: self.rt / self.n_local.max(1) as f64,
            sld: self.sld / self.n_local.max(1) as f64,
            wrt: self.wrt / self.w.max(1.0),
            wsld: self.wsld / self.w.max(1.0),
            gangs_finished_pct: 100.0 * self.gangs_done as f64 / arrived_gangs.max(1.0),
            utilization: held / (total * end.max(1e-9)),
            busy_utilization: busy / (total * end.max(1e-9)),
            backfilled: c.started_ahead,
        }
    }
}

/// Local jobs still queued or running at the end of the run.
fn local_in_system(engine: &Engine) -> f64 {
    let s = engine.snapshot();
    (s.queue.iter().filter(|q| q.size == 1).count()
        + s.running.iter().filter(|r| r.size == 1).count()) as f64
}

/// Every figure over replications: mean ± 95 % half-width.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GridSummary {
    pub replications: usize,
    pub rt: Replicated,
    pub sld: Replicated,
    pub wrt: Replicated,
    pub wsld: Replicated,
    pub gangs_finished_pct: Replicated,
    pub utilization: Replicated,
    pub busy_utilization: Replicated,
    /// Each replication's figures, in seed order (for paired comparisons).
    pub runs: Vec<GridFigures>,
}

/// Runs `replications` of `point` from `seed` (replication seeds as the
/// runner's), in parallel.
pub fn replicate(point: &GridPoint, seed: u64, replications: u32) -> GridSummary {
    let runs: Vec<GridFigures> = (0..replications)
        .into_par_iter()
        .map(|i| run_once(point, replication_seed(seed, i)))
        .collect();
    let col = |f: fn(&GridFigures) -> f64| Replicated::of(&runs.iter().map(f).collect::<Vec<_>>());
    GridSummary {
        replications: runs.len(),
        rt: col(|f| f.rt),
        sld: col(|f| f.sld),
        wrt: col(|f| f.wrt),
        wsld: col(|f| f.wsld),
        gangs_finished_pct: col(|f| f.gangs_finished_pct),
        utilization: col(|f| f.utilization),
        busy_utilization: col(|f| f.busy_utilization),
        runs,
    }
}
