//! Runs of the two-site grid the way its paper runs them, as scenarios
//! through the ordinary runner (the `grid` kind's family of figures): each run ends
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

use crate::engine::Engine;
use crate::metrics::Replicated;
use crate::policy::SharedParams;
use crate::policy::grid::GridRules;
use crate::runner::RunOptions;
use crate::scenario::Scenario;
use crate::scenario::kinds::{Columns, FamilyValues, Figure, FigureFamily, FigureFold, lines};
use crate::sched::{PolicyName, PolicySpec};
use crate::workload::grid::{GangService, GangSizes, GridParams};
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::AtomicU64;

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

/// The `grid` kind's family of figures: local jobs, gangs weighted by size.
pub static GRID_FAMILY: FigureFamily = FigureFamily {
    name: "grid",
    title: "two-site grid",
    figures: &[
        Figure::counted("grid.rt", "local RT", 3, Some("RT")),
        Figure::counted("grid.sld", "local SLD", 3, Some("SLD")),
        Figure::counted("grid.wrt", "gang WRT", 3, Some("WRT")),
        Figure::counted("grid.wsld", "gang WSLD", 3, Some("WSLD")),
        Figure::counted(
            "grid.gangs_finished_pct",
            "% gangs finished",
            2,
            Some("% gangs"),
        ),
        Figure::counted("grid.utilization", "U (to the end)", 4, Some("U")),
        // Held and computing differ only when gangs' tasks end apart.
        Figure {
            unless_equal_to: Some("grid.utilization"),
            ..Figure::counted("grid.busy_utilization", "U computing", 4, Some("U busy"))
        },
        Figure::counted("grid.backfilled", "backfilled locals", 0, None),
    ],
    columns: Columns::Instead(&[
        "grid.utilization",
        "grid.busy_utilization",
        "grid.gangs_finished_pct",
        "grid.rt",
        "grid.sld",
        "grid.wrt",
        "grid.wsld",
    ]),
    csv: &[
        "grid.rt",
        "grid.sld",
        "grid.wrt",
        "grid.wsld",
        "grid.gangs_finished_pct",
        "grid.utilization",
        "grid.busy_utilization",
        "grid.backfilled",
    ],
    block: lines,
    // The paper's figures are of every job of the run (its runs stop at a
    // number of completions and have no warm-up).
    fold: |_warmup_jobs| Box::new(GridAcc::default()),
};

impl FigureFold for GridAcc {
    fn record(&mut self, r: &crate::model::JobRecord) {
        GridAcc::record(self, r);
    }

    fn values(&self, engine: &Engine) -> Vec<f64> {
        let f = self.figures(engine);
        GRID_FAMILY
            .names()
            .map(|n| f.get(n).expect("a grid figure"))
            .collect()
    }
}

impl GridFigures {
    /// The figures of one run as the runner reports the grid's family.
    pub fn of(values: &FamilyValues) -> GridFigures {
        let f = |n: &str| values.get(n).expect("a grid figure");
        GridFigures {
            rt: f("grid.rt"),
            sld: f("grid.sld"),
            wrt: f("grid.wrt"),
            wsld: f("grid.wsld"),
            gangs_finished_pct: f("grid.gangs_finished_pct"),
            utilization: f("grid.utilization"),
            busy_utilization: f("grid.busy_utilization"),
            backfilled: f("grid.backfilled") as u64,
        }
    }

    /// A figure by its name in [`GRID_FAMILY`].
    pub fn get(&self, name: &str) -> Option<f64> {
        Some(match name {
            "grid.rt" => self.rt,
            "grid.sld" => self.sld,
            "grid.wrt" => self.wrt,
            "grid.wsld" => self.wsld,
            "grid.gangs_finished_pct" => self.gangs_finished_pct,
            "grid.utilization" => self.utilization,
            "grid.busy_utilization" => self.busy_utilization,
            "grid.backfilled" => self.backfilled as f64,
            _ => return None,
        })
    }
}

impl GridPoint {
    /// The point as a scenario, so that the study runs through the
    /// ordinary runner: `per_site` processors at each of the workload's
    /// sites, its streams, the approach with its rules, the estimate error
    /// and the run's end at `completed` jobs.
    pub fn scenario(&self, replications: u32) -> Scenario {
        let w = &self.workload;
        let mut workload = toml::Table::new();
        workload.insert("kind".into(), "grid".into());
        workload.insert("local_rate".into(), w.local_rate.into());
        workload.insert("gang_rate".into(), w.gang_rate.into());
        workload.insert(
            "gang_sizes".into(),
            toml::Value::try_from(w.gang_sizes).expect("a name"),
        );
        workload.insert(
            "gang_service".into(),
            toml::Value::try_from(w.gang_service).expect("a name"),
        );
        workload.insert("mean_service".into(), w.mean_service.into());
        workload.insert("split_overhead".into(), self.split_overhead.into());
        let spec = PolicySpec {
            params: self.rules.to_params(),
            ..PolicySpec::named(self.approach)
        };
        let mut estimates = toml::Table::new();
        if self.error_percent > 0.0 {
            estimates.insert("source".into(), "uniform-error".into());
            estimates.insert("error_percent".into(), self.error_percent.into());
        }
        let mut run = toml::Table::new();
        run.insert("completions".into(), (self.completed as i64).into());
        run.insert("replications".into(), i64::from(replications).into());
        let mut platform = toml::Table::new();
        platform.insert(
            "shape".into(),
            format!("{}x{}", w.sites, self.per_site).into(),
        );
        let mut file = toml::Table::new();
        file.insert("name".into(), "grid-study-point".into());
        file.insert("platform".into(), platform.into());
        file.insert("workload".into(), workload.into());
        file.insert(
            "policy".into(),
            toml::Value::try_from(&spec).expect("a policy"),
        );
        file.insert("estimates".into(), estimates.into());
        file.insert("run".into(), run.into());
        let text = toml::to_string(&file).expect("a table");
        Scenario::parse(&text, "grid study point", Path::new("."), &[])
            .unwrap_or_else(|e| panic!("a grid point is a scenario: {e}\n{text}"))
    }
}

/// Runs `point` once under `seed` (a replication's seed), through the
/// runner.
pub fn run_once(point: &GridPoint, seed: u64) -> GridFigures {
    let scenario = point.scenario(1);
    let run =
        crate::runner::run_seeded(&scenario, 0, seed, false, &AtomicU64::new(0), &mut |_| true)
            .expect("a grid point runs");
    GridFigures::of(run.family.as_ref().expect("grid figures"))
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

/// Runs `replications` of `point` from `seed` through the runner, in
/// parallel.
pub fn replicate(point: &GridPoint, seed: u64, replications: u32) -> GridSummary {
    let scenario = point.scenario(replications);
    let opts = RunOptions {
        seed: Some(seed),
        ..RunOptions::default()
    };
    let result =
        crate::runner::run(&scenario, &opts, &AtomicU64::new(0)).expect("a grid point runs");
    let runs: Vec<GridFigures> = result
        .replications
        .iter()
        .map(|r| GridFigures::of(r.family.as_ref().expect("grid figures")))
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
