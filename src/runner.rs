//! Headless runs: replications of a scenario, records streamed into the
//! metrics (and kept only when a per-job report is asked for).

use crate::engine::Counters;
use crate::engine::Rejection;
use crate::metrics::{Grouping, Replicated, Summary};
use crate::model::{JobRecord, SimTime};
use crate::scenario::kinds::{FamilyValues, FigureFamily};
use crate::scenario::{Replications, Scenario, ScenarioError};
use crate::workload::rng::replication_seed;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

/// How to run a scenario, beyond what the file says.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides `[run] replications`.
    pub replications: Option<Replications>,
    /// Overrides the scenario's `seed`.
    pub seed: Option<u64>,
    /// Keep every job record (for `jobs.csv`).
    pub keep_records: bool,
}

/// One replication's outcome.
#[derive(Clone, Debug)]
pub struct ReplicationResult {
    pub index: u32,
    pub seed: u64,
    pub summary: Summary,
    pub counters: Counters,
    pub records: Vec<JobRecord>,
    /// The workload kind's own figures (the two-site grid's, for a `grid`
    /// workload), if its kind has a family of them.
    pub family: Option<FamilyValues>,
    /// Jobs the policy in force could never run, rejected when they
    /// arrived (the first [`crate::engine::KEPT_REJECTIONS`];
    /// `counters.rejected` counts them all).
    pub rejections: Vec<Rejection>,
    /// Timeline commands that could not apply, with when and why.
    pub timeline_refused: Vec<(SimTime, String)>,
    /// Jobs still queued or running when the run stopped at its
    /// `completions` limit (0 for a run that ran its jobs out).
    pub left: u64,
}

impl ReplicationResult {
    /// What went wrong with the jobs or the timeline of this replication,
    /// in a few lines; `None` when every job ran and every command applied.
    pub fn trouble(&self) -> Option<String> {
        let mut lines = Vec::new();
        let n = self.counters.rejected;
        if n > 0 {
            let shown: Vec<String> = self
                .rejections
                .iter()
                .take(3)
                .map(|r| format!("  job {} at t = {}: {}", r.id, r.at, r.reason))
                .collect();
            let policy = self.rejections.first().map_or("", |r| r.policy.as_str());
            lines.push(format!(
                "replication {}: {n} {} rejected by {policy}, which could never run {}:",
                self.index,
                if n == 1 { "job" } else { "jobs" },
                if n == 1 { "it" } else { "them" },
            ));
            lines.extend(shown);
            if n > 3 {
                lines.push(format!("  and {} more", n - 3));
            }
        }
        for (at, m) in &self.timeline_refused {
            lines.push(format!(
                "replication {}: timeline command at t = {at} {m}",
                self.index
            ));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// All replications of one run, in replication order.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub seed: u64,
    pub replications: Vec<ReplicationResult>,
    /// With `replications = "auto"`: the run stopped at
    /// `max_replications` with ART's half-width still above the target.
    pub unconverged: Option<Unconverged>,
}

/// An `"auto"` run that reached `max_replications` before its target.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Unconverged {
    pub replications: u32,
    /// ART's 95 % half-width over its mean, when the run stopped.
    pub relative_error: f64,
    /// The scenario's `relative_error`.
    pub target: f64,
}

impl std::fmt::Display for Unconverged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "replications = \"auto\" stopped at max_replications = {} with ART's 95 % half-width at {:.1} % of the mean, wider than relative_error = {} %",
            self.replications,
            self.relative_error * 100.0,
            self.target * 100.0
        )
    }
}

/// Events handled between looks at the progress counter.
const CHUNK: usize = 8192;

/// Runs one replication to the end.
pub fn run_replication(
    scenario: &Scenario,
    index: u32,
    base_seed: u64,
    keep_records: bool,
    progress: &AtomicU64,
) -> Result<ReplicationResult, ScenarioError> {
    run_replication_with(
        scenario,
        index,
        base_seed,
        keep_records,
        progress,
        &mut |_| true,
    )
}

/// [`run_replication`], handing each job's record to `row` as the job
/// ends (in the order `jobs.csv` lists them). When `row` returns false
/// (its output is gone) the replication stops there, its figures partial.
pub fn run_replication_with(
    scenario: &Scenario,
    index: u32,
    base_seed: u64,
    keep_records: bool,
    progress: &AtomicU64,
    row: &mut dyn FnMut(&JobRecord) -> bool,
) -> Result<ReplicationResult, ScenarioError> {
    let seed = replication_seed(base_seed, index);
    run_seeded(scenario, index, seed, keep_records, progress, row)
}

/// One run of `scenario` seeded with `seed` itself (a replication's seed,
/// not the base it is derived from), numbered `index`; see
/// [`run_replication_with`].
pub fn run_seeded(
    scenario: &Scenario,
    index: u32,
    seed: u64,
    keep_records: bool,
    progress: &AtomicU64,
    row: &mut dyn FnMut(&JobRecord) -> bool,
) -> Result<ReplicationResult, ScenarioError> {
    let mut engine = scenario.build_engine(seed, false)?;
    let mut metrics = scenario.new_metrics();
    let mut records = Vec::new();
    let family = scenario.family();
    let mut fold = family.map(|f| (f.fold)(scenario.file.run.warmup_jobs));
    // With `[run] completions`, the run ends as soon as that many jobs
    // have completed, so records are read after every event.
    let stop = scenario.file.run.completions.map(|n| n.0 as u64);
    let chunk = if stop.is_some() { 1 } else { CHUNK };
    let mut done = 0u64;
    loop {
        let mut more = true;
        for _ in 0..chunk {
            if engine.step().is_none() {
                more = false;
                break;
            }
        }
        let mut n = 0;
        let mut gone = false;
        for r in engine.drain_records() {
            gone = gone || !row(&r);
            metrics.record(&r);
            if let Some(f) = fold.as_mut() {
                f.record(&r);
            }
            n += 1;
            if keep_records {
                records.push(r);
            }
        }
        done += n;
        if n > 0 {
            progress.fetch_add(n, Ordering::Relaxed);
        }
        if gone {
            break;
        }
        if let Some((at, reason)) = engine.failure() {
            return Err(ScenarioError::Stopped {
                at: *at,
                reason: reason.clone(),
            });
        }
        if !more || stop.is_some_and(|s| done >= s) {
            // Checked only where the run ran its jobs out.
            if stop.is_none_or(|s| done < s) {
                engine.check_conservation()?;
            }
            break;
        }
    }
    Ok(ReplicationResult {
        index,
        seed,
        summary: metrics.summary(),
        counters: engine.counters(),
        records,
        family: family.zip(fold).map(|(family, f)| FamilyValues {
            family,
            values: f.values(&engine),
        }),
        rejections: engine.rejections().to_vec(),
        timeline_refused: engine.timeline_refused().to_vec(),
        left: engine.jobs_left(),
    })
}

/// Runs every replication the scenario (or `opts`) asks for. Fixed counts
/// run in parallel; `auto` runs until ART's 95 % half-width is within the
/// scenario's relative error (at least `min_replications`, at most
/// `max_replications`). `progress` counts finished jobs.
pub fn run(
    scenario: &Scenario,
    opts: &RunOptions,
    progress: &AtomicU64,
) -> Result<RunResult, ScenarioError> {
    let seed = opts.seed.unwrap_or(scenario.seed());
    replicate(scenario, opts, &mut |from, to| {
        (from..to)
            .into_par_iter()
            .map(|i| run_replication(scenario, i, seed, opts.keep_records, progress))
            .collect::<Result<Vec<_>, _>>()
    })
}

/// [`run`] with every job's record handed to `row` (replication index,
/// record) as the job ends, replications one after another, so that rows
/// come out in the order `jobs.csv` lists them and none is kept: memory
/// stays flat however many jobs a run has. When `row` returns false the
/// run stops there.
pub fn run_streaming(
    scenario: &Scenario,
    opts: &RunOptions,
    progress: &AtomicU64,
    row: &mut dyn FnMut(u32, &JobRecord) -> bool,
) -> Result<RunResult, ScenarioError> {
    let seed = opts.seed.unwrap_or(scenario.seed());
    let mut gone = false;
    replicate(scenario, opts, &mut |from, to| {
        let mut batch = Vec::new();
        for i in from..to {
            if gone {
                break;
            }
            let mut rows = |r: &JobRecord| {
                gone = gone || !row(i, r);
                !gone
            };
            batch.push(run_replication_with(
                scenario, i, seed, false, progress, &mut rows,
            )?);
        }
        Ok(batch)
    })
}

/// The replications `opts` asks for, run a batch `[from, to)` at a time by
/// `batch` (fewer results than asked for end the run).
fn replicate(
    scenario: &Scenario,
    opts: &RunOptions,
    batch: &mut dyn FnMut(u32, u32) -> Result<Vec<ReplicationResult>, ScenarioError>,
) -> Result<RunResult, ScenarioError> {
    let seed = opts.seed.unwrap_or(scenario.seed());
    let run = &scenario.file.run;
    let reps = opts.replications.unwrap_or(run.replications);
    let mut unconverged = None;
    let replications = match reps {
        Replications::Fixed(n) => batch(0, n)?,
        Replications::Auto => {
            let mut v: Vec<ReplicationResult> = Vec::new();
            let (min, max) = (run.min_replications.0, run.max_replications.0);
            while (v.len() as u32) < max {
                // Two at a time: one per core on a small machine.
                let from = v.len() as u32;
                let to = (from + 2).min(max);
                let got = batch(from, to)?;
                let short = (got.len() as u32) < to - from;
                v.extend(got);
                if short {
                    break;
                }
                if v.len() as u32 >= min {
                    let arts: Vec<f64> = v.iter().map(|r| r.summary.art).collect();
                    let rel = Replicated::of(&arts).relative_error();
                    if rel <= run.relative_error.0 {
                        break;
                    }
                    if v.len() as u32 >= max {
                        unconverged = Some(Unconverged {
                            replications: v.len() as u32,
                            relative_error: rel,
                            target: run.relative_error.0,
                        });
                    }
                }
            }
            v
        }
    };
    Ok(RunResult {
        seed,
        replications,
        unconverged,
    })
}

impl RunResult {
    /// What went wrong with the jobs or the timeline of any replication
    /// (see [`ReplicationResult::trouble`]).
    pub fn trouble(&self) -> Option<String> {
        let all: Vec<String> = self
            .replications
            .iter()
            .filter_map(ReplicationResult::trouble)
            .collect();
        (!all.is_empty()).then(|| all.join("\n"))
    }
}

/// A group row over replications.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplicatedRow {
    pub label: String,
    pub range: String,
    pub count: Replicated,
    pub number_pct: Replicated,
    pub load_pct: Replicated,
    pub art: Replicated,
    pub mean_wait: Replicated,
    pub mean_slowdown: Replicated,
}

pub use crate::metrics::OVERALL_FIGURES;

/// Every figure as mean ± half-width over replications.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicatedSummary {
    pub replications: usize,
    pub overall: Vec<(&'static str, Replicated)>,
    pub groups: [Vec<ReplicatedRow>; 3],
    /// Per SWF user (empty without users).
    pub users: Vec<ReplicatedRow>,
    /// The workload kind's own figures over replications (none unless its
    /// kind has a family of them), in the family's order.
    pub family: Option<(&'static FigureFamily, Vec<Replicated>)>,
}

/// The rows of one table over replications, matched by label (a label a
/// replication lacks counts as an empty row there).
fn replicate_rows(
    summaries: &[&Summary],
    table: impl Fn(&Summary) -> &Vec<crate::metrics::GroupRow>,
) -> Vec<ReplicatedRow> {
    let Some(first) = summaries.first() else {
        return Vec::new();
    };
    table(first)
        .iter()
        .map(|row| {
            let col = |f: fn(&crate::metrics::GroupRow) -> f64| -> Replicated {
                let xs: Vec<f64> = summaries
                    .iter()
                    .map(|s| {
                        table(s)
                            .iter()
                            .find(|r| r.label == row.label)
                            .map_or(0.0, f)
                    })
                    .collect();
                Replicated::of(&xs)
            };
            ReplicatedRow {
                label: row.label.clone(),
                range: row.range.clone(),
                count: col(|r| r.count as f64),
                number_pct: col(|r| r.number_pct),
                load_pct: col(|r| r.load_pct),
                art: col(|r| r.art),
                mean_wait: col(|r| r.mean_wait),
                mean_slowdown: col(|r| r.mean_slowdown),
            }
        })
        .collect()
}

impl ReplicatedSummary {
    pub fn of(summaries: &[&Summary]) -> ReplicatedSummary {
        let fig = |name: &str| -> Replicated {
            let xs: Vec<f64> = summaries.iter().filter_map(|s| s.figure(name)).collect();
            Replicated::of(&xs)
        };
        let overall = OVERALL_FIGURES.iter().map(|&n| (n, fig(n))).collect();
        let groups = Grouping::ALL.map(|g| replicate_rows(summaries, |s| &s.groups[g as usize]));
        let users = replicate_rows(summaries, |s| &s.users);
        ReplicatedSummary {
            replications: summaries.len(),
            overall,
            groups,
            users,
            family: None,
        }
    }

    pub fn get(&self, name: &str) -> Option<Replicated> {
        self.overall
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, r)| r)
    }

    /// A figure by its dotted name (see [`Summary::figure`]).
    pub fn figure(&self, name: &str) -> Option<Replicated> {
        if let Some((family, values)) = &self.family
            && let Some(v) = family.value(values, name)
        {
            return Some(v);
        }
        let parts: Vec<&str> = name.split('.').collect();
        match parts.as_slice() {
            [n] | ["overall", n] => self.get(n),
            ["groups", g, label, n] => {
                let g = Grouping::from_name(g)?;
                let row = self.groups[g as usize].iter().find(|r| r.label == *label)?;
                crate::metrics::group_figure(
                    n,
                    row.count,
                    row.number_pct,
                    row.load_pct,
                    row.art,
                    row.mean_wait,
                    row.mean_slowdown,
                )
            }
            _ => None,
        }
    }
}

impl RunResult {
    pub fn summary(&self) -> ReplicatedSummary {
        let s: Vec<&Summary> = self.replications.iter().map(|r| &r.summary).collect();
        let mut out = ReplicatedSummary::of(&s);
        let runs: Vec<&FamilyValues> = self
            .replications
            .iter()
            .filter_map(|r| r.family.as_ref())
            .collect();
        if let Some(first) = runs.first() {
            let family = first.family;
            let values = (0..family.figures.len())
                .map(|i| {
                    let xs: Vec<f64> = runs
                        .iter()
                        .filter_map(|r| r.values.get(i).copied())
                        .collect();
                    Replicated::of(&xs)
                })
                .collect();
            out.family = Some((family, values));
        }
        out
    }
}
