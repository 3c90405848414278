//! Validation across fields, and building engines and metrics from a
//! scenario.

use super::schema::{
    GRAPH_COUNT, GRAPH_GAP, GraphArrivals, GraphsSection, GraphsUntil, InlineJob, OneOrMany,
    Oversize, PlatformSection, ScenarioFile, TimelineEntry, WorkloadKind, WorkloadSection,
    workload_keys,
};
use super::values::{MAX_SECONDS, Shown};
use super::{Scenario, ScenarioError};
use crate::engine::{Command, Engine, EngineConfig};
use crate::metrics::{GroupBounds, Metrics};
use crate::model::platform::MAX_PROCESSORS;
use crate::model::{Cluster, JobSpec, Platform, SimTime, split_even};
use crate::workload::blanco::{BlancoParams, BlancoWorkload, Sigma};
use crate::workload::graphs::{GraphPace, GraphStreamParams};
use crate::workload::grid::{GridParams, GridWorkload};
use crate::workload::moldable::{MoldableParams, MoldableWorkload};
use crate::workload::ngubiri::{NgubiriParams, NgubiriWorkload, phased_bounds, split_count};
use crate::workload::rng::{Purpose, stream};
use crate::workload::{batsim, inline, swf};
use std::sync::Arc;
use toml::Spanned;

/// Where the Standard Workload Format traces come from.
pub const PARALLEL_WORKLOADS_ARCHIVE: &str =
    "the Parallel Workloads Archive (https://www.cs.huji.ac.il/labs/parallel/workload/logs.html)";

/// What validation learned about the workload, kept so that replications
/// do not read files again.
#[derive(Clone, Debug, Default)]
pub struct WorkloadFacts {
    pub platform: Platform,
    pub ngubiri: Option<NgubiriParams>,
    pub blanco: Option<BlancoParams>,
    pub moldable: Option<MoldableParams>,
    pub grid: Option<GridParams>,
    pub jobs: Option<Arc<Vec<JobSpec>>>,
    /// Task graphs arriving beside the jobs.
    pub graphs: Option<crate::workload::graphs::GraphStreamParams>,
    /// Human notes (skipped trace lines, clamped jobs …) for reports.
    pub notes: Vec<String>,
    /// Where an SWF trace's time 0 stands in calendar time (its header's
    /// `UnixStartTime` and `TimeZoneString`), for the schedule's SWF.
    pub clock: crate::report::swf_out::Clock,
}

pub(super) fn validate(s: &Scenario) -> Result<WorkloadFacts, ScenarioError> {
    let f = &s.file;
    let platform = match &f.platform {
        Some(p) => Some(platform_of(s, p)?),
        None => None,
    };
    f.estimates
        .validate()
        .map_err(|m| s.invalid(format!("[estimates] {m}")))?;
    f.metrics.groups.validate().map_err(|m| s.invalid(m))?;
    if f.run.min_replications.0 > f.run.max_replications.0 {
        return Err(s.invalid(format!(
            "[run] min_replications ({}) is larger than max_replications ({})",
            f.run.min_replications, f.run.max_replications
        )));
    }
    let mut facts = WorkloadFacts::default();
    let w = f.workload.get_ref();
    let kind = *w.kind.get_ref();
    let allowed = workload_keys(kind);
    for (key, span) in w.given() {
        if !allowed.contains(&key) {
            return Err(s.error_at(
                span,
                format!(
                    "`{key}` does not apply to workload kind \"{}\" (it takes: {})",
                    kind.as_str(),
                    allowed.join(", ")
                ),
            ));
        }
    }
    match kind {
        WorkloadKind::Ngubiri => {
            let split = w
                .split
                .as_ref()
                .map(|x| x.get_ref().clone())
                .unwrap_or_default();
            let d = NgubiriParams::default();
            let params = NgubiriParams {
                q: w.q.as_ref().map_or(d.q, |x| x.get_ref().0),
                min_size: w.min_size.as_ref().map_or(d.min_size, |x| x.get_ref().0),
                max_size: w.max_size.as_ref().map_or(d.max_size, |x| x.get_ref().0),
                mean_interarrival: w
                    .mean_interarrival
                    .as_ref()
                    .map_or(d.mean_interarrival, |x| x.get_ref().0),
                mean_runtime: w
                    .mean_runtime
                    .as_ref()
                    .map_or(d.mean_runtime, |x| x.get_ref().0),
                threshold: split.threshold,
                max_components: split.max_components.0,
                approach: split.approach,
            };
            let size_span = w
                .max_size
                .as_ref()
                .map(|x| x.span())
                .or_else(|| w.split.as_ref().map(|x| x.span()))
                .unwrap_or_else(|| w.kind.span());
            let platform = need_platform(s, &platform)?;
            if params.max_size as u64 > platform.total_processors() {
                return Err(s.error_at(
                    size_span,
                    format!(
                        "max_size ({}) must be at most the platform's {} processors: a larger job can never run",
                        params.max_size,
                        platform.total_processors()
                    ),
                ));
            }
            if params.min_size > params.max_size {
                return Err(s.error_at(
                    size_span,
                    format!(
                        "max_size ({}) must be at least min_size ({})",
                        params.max_size, params.min_size
                    ),
                ));
            }
            check_generated_times(s, w, &params)?;
            check_generated_sizes(s, &params, platform, size_span)?;
            facts.ngubiri = Some(params);
        }
        WorkloadKind::Blanco => {
            let platform = need_platform(s, &platform)?;
            facts.blanco = Some(blanco_params(s, w, platform)?);
        }
        WorkloadKind::Moldable => {
            let platform = need_platform(s, &platform)?;
            facts.moldable = Some(moldable_params(s, w, platform)?);
        }
        WorkloadKind::Grid => {
            let mut platform = need_platform(s, &platform)?.clone();
            let (params, overhead) = grid_params(s, w, &platform)?;
            platform.split_overhead = overhead;
            facts.grid = Some(params);
            facts.platform = platform;
        }
        WorkloadKind::Jobs => {
            let platform = need_platform(s, &platform)?.clone();
            let jobs = match &w.jobs {
                Some(j) if !j.is_empty() => j,
                _ => {
                    return Err(s.error_at(
                        w.kind.span(),
                        "kind = \"jobs\" needs at least one [[workload.jobs]] entry",
                    ));
                }
            };
            let mut specs = Vec::with_capacity(jobs.len());
            for (i, j) in jobs.iter().enumerate() {
                specs.push(inline_job(s, i, j, &platform)?);
            }
            facts.jobs = Some(Arc::new(specs));
        }
        WorkloadKind::Swf | WorkloadKind::Batsim => {
            let (jobs, trace_platform, notes, clock) = trace_jobs(s, w, kind, platform.as_ref())?;
            facts.jobs = Some(Arc::new(jobs));
            facts.notes = notes;
            facts.clock = clock;
            if platform.is_none() {
                facts.platform = trace_platform;
            }
        }
    }
    if facts.platform.clusters.is_empty() {
        facts.platform = platform.unwrap_or_default();
    }
    if let Some(g) = &f.graphs {
        let stream = graph_stream(s, g, facts.jobs.as_deref())?;
        let max = crate::workload::graphs::MAX_GRAPHS;
        let why = "each waiting graph keeps its subtasks and schedule";
        match stream.pace {
            crate::workload::graphs::GraphPace::Count(n) if n as f64 > max => {
                return Err(s.error_at_key(
                    &["graphs", "count"],
                    format!("[graphs] count = {n}: at most {max} graphs a replication ({why})"),
                ));
            }
            crate::workload::graphs::GraphPace::Rate(mean) => {
                let span = (stream.until - stream.from).as_secs_f64();
                let expected = span / mean;
                if expected > max {
                    return Err(s.error_at_key(
                        &["graphs", "mean_interarrival"],
                        format!(
                            "[graphs] mean_interarrival = {} s over {} s would draw about {expected:.3e} graphs; at most {max} are allowed ({why}): raise mean_interarrival to at least {} s or shorten the span",
                            Shown(mean),
                            Shown(span),
                            Shown(span / max)
                        ),
                    ));
                }
            }
            _ => {}
        }
        facts.graphs = Some(stream);
    }
    if let Err((key, m)) = crate::policy::catalog::check_key(&f.policy) {
        let mut path = vec!["policy"];
        path.extend(key.iter().map(String::as_str));
        return Err(s.error_at_key(&path, format!("[policy] {m}")));
    }
    let mut policy = f
        .policy
        .build(&facts.platform)
        .map_err(|m| s.error_at_key(&["policy", "name"], format!("[policy] {m}")))?;
    // The timeline in the order it applies, with the policy in force at
    // each command: an injected job that policy could never run is refused
    // here, before any run.
    let mut timeline: Vec<&Spanned<TimelineEntry>> = f.timeline.iter().collect();
    timeline.sort_by(|a, b| a.get_ref().at.0.total_cmp(&b.get_ref().at.0));
    let mut next_id = crate::engine::INJECTED_ID_BASE + 1;
    for entry in timeline {
        let command = &entry.get_ref().command;
        check_command(s, command, &facts.platform, entry.span())?;
        match command {
            Command::SetPolicy { policy: spec } => {
                // check_command has built it once already.
                if let Ok(p) = spec.build(&facts.platform) {
                    policy = p;
                }
            }
            Command::InjectJobs { jobs } => {
                let err = |m: String| s.error_at(entry.span(), format!("timeline: {m}"));
                for j in jobs {
                    for _ in 0..j.count.max(1) {
                        injected_admitted(j, next_id, &*policy, &facts).map_err(err)?;
                        next_id += 1;
                    }
                }
            }
            _ => {}
        }
    }
    let mut names = Metrics::new(f.metrics.groups.clone(), 0, 1)
        .summary()
        .figure_names();
    if facts.moldable.is_some() {
        names.extend(crate::metrics::moldable::MoldableFigures::names());
    }
    if facts.grid.is_some() {
        names.extend(
            crate::grid_study::GRID_FIGURES
                .iter()
                .map(|n| format!("grid.{n}")),
        );
    }
    for (name, bound) in &f.expect {
        if !names.contains(name) {
            let groups: Vec<&str> = names
                .iter()
                .filter(|n| !n.starts_with("groups."))
                .map(String::as_str)
                .collect();
            return Err(s.error_at(
                bound.span(),
                format!(
                    "[expect] has no figure \"{name}\": use one of {} or groups.<size|components|widest>.<label>.<count|number_pct|load_pct|art|mean_wait|mean_slowdown>",
                    groups.join(", ")
                ),
            ));
        }
        let b = bound.get_ref();
        if b.min.is_none() && b.max.is_none() {
            return Err(s.error_at(
                bound.span(),
                format!("[expect] \"{name}\" needs `min`, `max` or both"),
            ));
        }
        if let (Some(lo), Some(hi)) = (b.min, b.max)
            && lo > hi
        {
            return Err(s.error_at(
                bound.span(),
                format!(
                    "[expect] \"{name}\" has `min` {} above `max` {}: no figure can pass",
                    Shown(lo),
                    Shown(hi)
                ),
            ));
        }
    }
    let warmup = f.run.warmup_jobs;
    if warmup > 0
        && let Some(jobs) = jobs_per_replication(f, &facts)
        && warmup >= jobs
    {
        return Err(s.error_at_key(
            &["run", "warmup_jobs"],
            format!(
                "`warmup_jobs` = {warmup} leaves no job to measure: a replication runs {jobs} job{}; give fewer than {jobs}",
                if jobs == 1 { "" } else { "s" }
            ),
        ));
    }
    Ok(facts)
}

/// The number of jobs each replication of `f` runs, if known in advance.
fn jobs_per_replication(f: &ScenarioFile, facts: &WorkloadFacts) -> Option<u64> {
    if let Some(n) = f.run.completions {
        return Some(n.0 as u64);
    }
    if facts.blanco.is_some() || facts.grid.is_some() || facts.moldable.is_some() {
        return Some(f.run.jobs.0 as u64);
    }
    if facts.graphs.is_some() {
        return None;
    }
    match (&facts.ngubiri, &facts.jobs) {
        (Some(_), _) => Some(f.run.jobs.0 as u64),
        (None, Some(j)) => Some(j.len() as u64),
        _ => None,
    }
}

fn need_platform<'a>(s: &Scenario, p: &'a Option<Platform>) -> Result<&'a Platform, ScenarioError> {
    p.as_ref().ok_or_else(|| {
        s.invalid("[platform] is missing: give `shape = \"5x20\"` or [[platform.clusters]] entries (only SWF workloads may leave it out)")
    })
}

/// Reads the trace (SWF or Batsim), applies the job selection, and sizes
/// the platform.
fn trace_jobs(
    s: &Scenario,
    w: &WorkloadSection,
    kind: WorkloadKind,
    platform: Option<&Platform>,
) -> Result<
    (
        Vec<JobSpec>,
        Platform,
        Vec<String>,
        crate::report::swf_out::Clock,
    ),
    ScenarioError,
> {
    let path = w.path.as_ref().ok_or_else(|| {
        s.error_at(
            w.kind.span(),
            format!("kind = \"{}\" needs `path` to the trace", kind.as_str()),
        )
    })?;
    let full = s.resolve(path.get_ref());
    if !full.exists() {
        let given = std::path::Path::new(path.get_ref());
        let mut looked = vec![full.display().to_string()];
        if given.is_relative() {
            if given != full {
                looked[0].push_str(" (from the scenario's folder)");
                looked.push(format!("{} (from the current folder)", given.display()));
            } else {
                looked[0].push_str(" (from the scenario's folder, the current one)");
            }
        }
        let download = w
            .download
            .as_ref()
            .map(|d| d.get_ref().clone())
            .or_else(|| {
                (kind == WorkloadKind::Swf).then(|| PARALLEL_WORKLOADS_ARCHIVE.to_string())
            });
        return Err(ScenarioError::MissingData(Box::new(super::MissingData {
            at: s.location(path.span()),
            what: if kind == WorkloadKind::Swf {
                "the trace"
            } else {
                "the workload file"
            },
            given: path.get_ref().clone(),
            looked,
            download,
        })));
    }
    let mut notes = Vec::new();
    let mut clock = crate::report::swf_out::Clock::default();
    // (job, where it is in the trace) for every runnable job.
    let (jobs, where_, trace_procs, name): (Vec<JobSpec>, Vec<String>, u32, String) = match kind {
        WorkloadKind::Batsim => {
            let b = batsim::read_path(&full)
                .map_err(|e| s.error_at(path.span(), format!("workload.path: {e}")))?;
            let procs = b
                .nb_res
                .filter(|&n| n > 0)
                .unwrap_or_else(|| b.jobs.iter().map(|j| j.size).max().unwrap_or(1));
            let where_ = b.jobs.iter().map(|j| format!("job {}", j.id)).collect();
            (b.jobs, where_, procs, "batsim".to_string())
        }
        _ => {
            let trace = swf::read_path(&full)
                .map_err(|e| s.error_at(path.span(), format!("workload.path: {e}")))?;
            let (swf_jobs, skips) = swf::to_jobs(&trace);
            clock = crate::report::swf_out::Clock::of(&trace.header);
            if skips.total() > 0 {
                let parts: Vec<String> = swf::SkipReason::ALL
                    .iter()
                    .filter(|r| skips.get(**r) > 0)
                    .map(|r| format!("{} {}", skips.get(*r), r.describe()))
                    .collect();
                notes.push(format!("skipped trace jobs: {}", parts.join(", ")));
            }
            let procs = trace
                .header
                .max_procs
                .filter(|&p| p > 0)
                .unwrap_or_else(|| {
                    trace
                        .records
                        .iter()
                        .filter_map(|r| r.job_size())
                        .max()
                        .unwrap_or(1)
                });
            let where_ = swf_jobs
                .iter()
                .map(|j| format!("line {}: job {}", j.line, j.id))
                .collect();
            let jobs = swf_jobs
                .into_iter()
                .map(|j| JobSpec {
                    work: None,
                    id: j.id,
                    submit: SimTime::from_secs(j.submit),
                    size: j.size,
                    components: vec![j.size],
                    runtime: SimTime::from_secs(j.run_time),
                    estimate: j.requested_time.filter(|&t| t > 0).map(SimTime::from_secs),
                    user: j.user,
                    injected: false,
                    home: None,
                    app: None,
                    comm: None,
                    graph: None,
                })
                .collect();
            let name = trace
                .source_name
                .split('.')
                .next()
                .unwrap_or("trace")
                .to_string();
            (jobs, where_, procs, name)
        }
    };
    let start = w
        .start_time
        .as_ref()
        .map(|x| SimTime::from_secs_f64(x.get_ref().0));
    let end = w
        .end_time
        .as_ref()
        .map(|x| SimTime::from_secs_f64(x.get_ref().0));
    let first = w.first_jobs.as_ref().map(|x| x.get_ref().0 as usize);
    // Reading saturates at the latest time the simulation can hold; a job
    // that reaches it would be clamped, so it is refused instead.
    for (j, at) in jobs.iter().zip(&where_) {
        let past = |t: SimTime| {
            j.submit
                .0
                .checked_add(t.0)
                .is_none_or(|e| e == SimTime::MAX.0)
        };
        if j.submit == SimTime::MAX || past(j.runtime) || j.estimate.is_some_and(past) {
            return Err(s.error_at(
                path.span(),
                format!(
                    "{} {at}: its times reach past the latest time the simulation can hold (9.2e12 s, about 292,000 years)",
                    path.get_ref()
                ),
            ));
        }
    }
    let selected = jobs
        .into_iter()
        .zip(where_)
        .filter(|(j, _)| start.is_none_or(|t| j.submit >= t) && end.is_none_or(|t| j.submit < t))
        .take(first.unwrap_or(usize::MAX));
    if platform.is_none() && trace_procs as u64 > MAX_PROCESSORS {
        return Err(s.error_at(
            path.span(),
            format!(
                "{}: the trace's {trace_procs} processors are more than the {MAX_PROCESSORS} schedscope holds; give a smaller [platform] (with `oversize` for the wider jobs)",
                path.get_ref()
            ),
        ));
    }
    let trace_platform = || Platform {
        split_overhead: 0.0,
        clusters: vec![Cluster {
            name,
            processors: trace_procs,
            speed: 1.0,
        }],
        network: None,
    };
    let platform = platform.cloned().unwrap_or_else(trace_platform);
    let largest = platform.largest_cluster();
    let oversize = w
        .oversize
        .as_ref()
        .map_or(Oversize::Reject, |x| *x.get_ref());
    let (mut clamped, mut dropped) = (0usize, 0usize);
    let mut out = Vec::new();
    for (mut j, at) in selected {
        let mut size = j.size;
        if size > largest {
            match oversize {
                Oversize::Reject => {
                    return Err(s.error_at(
                        path.span(),
                        format!(
                            "{} {at} asks for {size} processors, more than the largest cluster ({largest}); set workload.oversize = \"clamp\" or \"skip\"",
                            path.get_ref(),
                        ),
                    ));
                }
                Oversize::Clamp => {
                    clamped += 1;
                    size = largest;
                }
                Oversize::Skip => {
                    dropped += 1;
                    continue;
                }
            }
        }
        j.size = size;
        j.components = vec![size];
        out.push(j);
    }
    if clamped > 0 {
        notes.push(format!(
            "{clamped} jobs larger than {largest} processors clamped"
        ));
    }
    if dropped > 0 {
        notes.push(format!(
            "{dropped} jobs larger than {largest} processors skipped"
        ));
    }
    if out.is_empty() {
        return Err(s.error_at(path.span(), "the trace selection holds no runnable job"));
    }
    if w.start_at_zero.as_ref().is_some_and(|x| *x.get_ref()) {
        // Jobs are in submit order, so the first is the earliest.
        let origin = out[0].submit;
        for j in &mut out {
            j.submit = SimTime(j.submit.0 - origin.0);
        }
        // Time 0 of the outputs is now the first job's submit.
        if let Some(u) = clock.unix_start_time.as_mut() {
            *u += origin.0.div_euclid(1_000_000);
        }
        if origin > SimTime::ZERO {
            notes.push(format!(
                "submit times shifted by -{} s (start_at_zero)",
                Shown(origin.as_secs_f64())
            ));
        }
    }
    Ok((out, platform, notes, clock))
}

/// The graph stream of `[graphs]` beside `jobs` (a trace's or inline
/// jobs; none for a generated workload).
fn graph_stream(
    s: &Scenario,
    g: &Spanned<GraphsSection>,
    jobs: Option<&Vec<JobSpec>>,
) -> Result<GraphStreamParams, ScenarioError> {
    let gs = g.get_ref();
    let submits = jobs.map(|j| j.iter().map(|j| j.submit));
    let first = submits.clone().and_then(|t| t.min());
    let last = submits.and_then(|t| t.max());
    let (from, until) = match (gs.until.as_ref().map(|u| *u.get_ref()), first, last) {
        (Some(GraphsUntil::At(u)), _, _) => (SimTime::ZERO, SimTime::from_secs_f64(u.0)),
        (Some(GraphsUntil::Trace), Some(a), Some(b)) => (a, b),
        (None, _, Some(b)) => (SimTime::ZERO, b),
        (Some(GraphsUntil::Trace), _, _) | (None, _, None) => {
            return Err(s.error_at(
                gs.until.as_ref().map_or(g.span(), |u| u.span()),
                "[graphs] needs `until` (seconds) beside a generated workload",
            ));
        }
    };
    let arrivals = gs
        .arrivals
        .as_ref()
        .map_or(GraphArrivals::Count, |a| *a.get_ref());
    let misplaced = match arrivals {
        GraphArrivals::Count => gs
            .mean_interarrival
            .as_ref()
            .map(|x| ("mean_interarrival", "rate", x.span())),
        GraphArrivals::Rate => gs.count.as_ref().map(|x| ("count", "count", x.span())),
    };
    if let Some((key, reading, span)) = misplaced {
        return Err(s.error_at(
            span,
            format!(
                "[graphs] `{key}` applies to arrivals = \"{reading}\"; this stream has arrivals = \"{}\" (set `arrivals = \"{reading}\"` or drop `{key}`)",
                match arrivals {
                    GraphArrivals::Count => "count",
                    GraphArrivals::Rate => "rate",
                }
            ),
        ));
    }
    let pace = match arrivals {
        GraphArrivals::Count => {
            GraphPace::Count(gs.count.as_ref().map_or(GRAPH_COUNT, |c| c.get_ref().0))
        }
        GraphArrivals::Rate => GraphPace::Rate(
            gs.mean_interarrival
                .as_ref()
                .map_or(GRAPH_GAP, |m| m.get_ref().0),
        ),
    };
    Ok(GraphStreamParams {
        pace,
        size: gs.size,
        tpes: gs.tpes.0,
        per_family: gs.per_family.0,
        unit: gs.unit.0,
        from,
        until,
    })
}

fn platform_of(s: &Scenario, p: &Spanned<PlatformSection>) -> Result<Platform, ScenarioError> {
    let mut platform = clusters_of(s, p)?;
    let sec = p.get_ref();
    for (i, c) in sec.clusters.iter().enumerate() {
        if let Some(g) = c.get_ref().gamma {
            if !(g > 0.0 && g <= 1.0) {
                return Err(s.error_at(
                    c.span(),
                    format!(
                        "platform.clusters[{i}].gamma: the effective power Γ must be above 0 and at most 1, found {}",
                        Shown(g)
                    ),
                ));
            }
            platform.clusters[i].speed = g;
        }
    }
    if let Some(h) = &sec.heterogeneity {
        let v = *h.get_ref();
        if !(0.0..1.0).contains(&v) {
            return Err(s.error_at(
                h.span(),
                format!(
                    "platform.heterogeneity: H must be at least 0 and below 1 (the slowest cluster keeps Γ = 1 − H > 0), found {}",
                    Shown(v)
                ),
            ));
        }
        let n = platform.clusters.len();
        for (i, c) in platform.clusters.iter_mut().enumerate() {
            c.speed = if n < 2 {
                1.0
            } else {
                1.0 - v * i as f64 / (n - 1) as f64
            };
        }
    }
    if let Some(net) = &sec.network {
        let n = platform.clusters.len();
        let abw = match net.get_ref().abw.as_ref() {
            None => vec![1.0; n],
            Some(a) => {
                let v = match a.get_ref() {
                    OneOrMany::One(x) => vec![*x; n],
                    OneOrMany::Many(v) => v.clone(),
                };
                if v.len() != n {
                    return Err(s.error_at(
                        a.span(),
                        format!(
                            "platform.network.abw: {} link{} given for {n} cluster{} (one per cluster, or one value for all)",
                            v.len(),
                            if v.len() == 1 { "" } else { "s" },
                            if n == 1 { "" } else { "s" }
                        ),
                    ));
                }
                if let Some(bad) = v.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
                    return Err(s.error_at(
                        a.span(),
                        format!(
                            "platform.network.abw: a link's available bandwidth must be above 0, found {}",
                            Shown(*bad)
                        ),
                    ));
                }
                v
            }
        };
        if let Some(c) = platform.clusters.iter().find(|c| c.speed > 1.0) {
            return Err(s.error_at(
                p.span(),
                format!(
                    "[platform] with a network takes effective powers Γ ≤ 1: cluster {} has speed {}",
                    c.name,
                    Shown(c.speed)
                ),
            ));
        }
        platform.network = Some(crate::model::Network { abw });
    }
    Ok(platform)
}

fn clusters_of(s: &Scenario, p: &Spanned<PlatformSection>) -> Result<Platform, ScenarioError> {
    let sec = p.get_ref();
    match (&sec.shape, sec.clusters.is_empty()) {
        (Some(_), false) => Err(s.error_at(
            p.span(),
            "[platform] takes either `shape` or [[platform.clusters]], not both",
        )),
        (None, true) => Err(s.error_at(
            p.span(),
            "[platform] needs `shape = \"COUNTxPROCESSORS\"` (e.g. \"5x20\") or [[platform.clusters]] entries",
        )),
        (Some(shape), true) => {
            let bad = || {
                s.error_at(
                    shape.span(),
                    format!(
                        "shape must be COUNTxPROCESSORS with both at least 1, e.g. \"5x20\", found \"{}\"",
                        shape.get_ref()
                    ),
                )
            };
            let t = shape.get_ref().replace('×', "x");
            let (a, b) = t.split_once(['x', 'X']).ok_or_else(bad)?;
            // Digits too many for any number are too large, not malformed.
            let number = |x: &str| -> Option<u128> {
                let x = x.trim();
                if x.is_empty() || !x.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                Some(x.parse::<u128>().unwrap_or(u128::MAX))
            };
            let (Some(count), Some(procs)) = (number(a), number(b)) else {
                return Err(bad());
            };
            if count == 0 || procs == 0 {
                return Err(bad());
            }
            let too_many = |what: String| {
                s.error_at(
                    shape.span(),
                    format!("shape \"{}\": {what}", shape.get_ref()),
                )
            };
            if count > u16::MAX as u128 {
                return Err(too_many(format!(
                    "at most {} clusters, found {}",
                    u16::MAX,
                    a.trim()
                )));
            }
            if procs > u32::MAX as u128 {
                return Err(too_many(format!(
                    "at most {} processors a cluster, found {}",
                    u32::MAX,
                    b.trim()
                )));
            }
            let (count, procs) = (count as usize, procs as u32);
            let total = count as u64 * procs as u64;
            if total > MAX_PROCESSORS {
                return Err(s.error_at(shape.span(), too_many_processors(total)));
            }
            Ok(Platform::uniform(count, procs))
        }
        (None, false) => {
            let mut total = 0u64;
            for c in &sec.clusters {
                total += c.get_ref().processors.0 as u64;
                if total > MAX_PROCESSORS {
                    let all: u64 = sec.clusters.iter().map(|c| c.get_ref().processors.0 as u64).sum();
                    return Err(s.error_at(c.span(), too_many_processors(all)));
                }
            }
            clusters_listed(sec)
        }
    }
}

/// Why a platform of `total` processors is refused.
fn too_many_processors(total: u64) -> String {
    format!(
        "[platform] has {total} processors in all; schedscope holds at most {MAX_PROCESSORS} (it keeps the owner of every processor, 4 bytes each)"
    )
}

/// The platform of `[[platform.clusters]]` entries.
fn clusters_listed(sec: &PlatformSection) -> Result<Platform, ScenarioError> {
    Ok(Platform {
        split_overhead: 0.0,
        clusters: sec
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| Cluster {
                name: c.get_ref().name.clone().unwrap_or_else(|| format!("c{i}")),
                processors: c.get_ref().processors.0,
                speed: c.get_ref().speed.0,
            })
            .collect(),
        network: None,
    })
}

/// The package-allocation generator's keys, each checked where it is.
fn blanco_params(
    s: &Scenario,
    w: &WorkloadSection,
    platform: &Platform,
) -> Result<BlancoParams, ScenarioError> {
    let d = BlancoParams::default();
    let positive = |x: &Option<Spanned<f64>>, key: &str, default: f64, most: f64| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if v_.is_finite() && v_ > 0.0 && v_ <= most {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!(
                        "workload.{key} must be above 0 and at most {}, found {}",
                        Shown(most),
                        Shown(v_)
                    ),
                ))
            }
        })
    };
    let unit = |x: &Option<Spanned<f64>>, key: &str, default: f64| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if (0.0..=1.0).contains(&v_) {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!("workload.{key} must be from 0 to 1, found {}", Shown(v_)),
                ))
            }
        })
    };
    let sigma = match &w.sigma {
        None => d.sigma,
        Some(v) => {
            let bad = |x: f64| {
                s.error_at(
                    v.span(),
                    format!(
                        "workload.sigma: σ must be from 0 to 1 (one value, or [low, high]), found {}",
                        Shown(x)
                    ),
                )
            };
            match v.get_ref() {
                OneOrMany::One(x) if (0.0..=1.0).contains(x) => Sigma::Fixed(*x),
                OneOrMany::One(x) => return Err(bad(*x)),
                OneOrMany::Many(r) if r.len() == 2 && r[0] <= r[1] => {
                    for &x in r {
                        if !(0.0..=1.0).contains(&x) {
                            return Err(bad(x));
                        }
                    }
                    Sigma::Uniform(r[0], r[1])
                }
                OneOrMany::Many(_) => {
                    return Err(s.error_at(
                        v.span(),
                        "workload.sigma: give one value or a range [low, high] with low ≤ high",
                    ));
                }
            }
        }
    };
    // Scales bounded so that 100 times a mean stays far inside the
    // simulation's time (9.2e12 s).
    Ok(BlancoParams {
        interarrival_scale: positive(
            &w.interarrival_scale,
            "interarrival_scale",
            d.interarrival_scale,
            1e6,
        )?,
        interarrival_shape: positive(
            &w.interarrival_shape,
            "interarrival_shape",
            d.interarrival_shape,
            100.0,
        )?
        .max(0.1),
        runtime_scale: positive(&w.runtime_scale, "runtime_scale", d.runtime_scale, 1e6)?,
        runtime_shape: positive(&w.runtime_shape, "runtime_shape", d.runtime_shape, 100.0)?
            .max(0.1),
        size_shape: positive(&w.size_shape, "size_shape", d.size_shape, 1e3)?,
        size_scale: positive(&w.size_scale, "size_scale", d.size_scale, 1e3)?,
        size_reading: w
            .size_reading
            .as_ref()
            .map_or(d.size_reading, |x| *x.get_ref()),
        pow2_share: unit(&w.pow2_share, "pow2_share", d.pow2_share)?,
        bsbw: positive(&w.bsbw, "bsbw", d.bsbw, 1e6)?,
        sigma,
        max_size: platform.total_processors().min(u32::MAX as u64) as u32,
    })
}

/// The two-site grid's keys (the paper's values by default), each checked
/// where it is; the sites are the platform's clusters. Returns the
/// workload and the split overhead.
fn grid_params(
    s: &Scenario,
    w: &WorkloadSection,
    platform: &Platform,
) -> Result<(GridParams, f64), ScenarioError> {
    let d = GridParams::default();
    let within = |x: &Option<Spanned<f64>>, key: &str, default: f64, least: f64, most: f64| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if v_.is_finite() && v_ >= least && v_ <= most {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!(
                        "workload.{key} must be from {} to {}, found {}",
                        Shown(least),
                        Shown(most),
                        Shown(v_)
                    ),
                ))
            }
        })
    };
    let sites = platform.clusters.len();
    if sites > u16::MAX as usize {
        return Err(s.invalid("[platform] has too many clusters for grid sites"));
    }
    let params = GridParams {
        sites: sites as u16,
        local_rate: within(&w.local_rate, "local_rate", d.local_rate, 1e-6, 1e6)?,
        gang_rate: within(&w.gang_rate, "gang_rate", d.gang_rate, 1e-6, 1e6)?,
        gang_sizes: w.gang_sizes.as_ref().map_or(d.gang_sizes, |x| *x.get_ref()),
        gang_service: w
            .gang_service
            .as_ref()
            .map_or(d.gang_service, |x| *x.get_ref()),
        mean_service: within(&w.mean_service, "mean_service", d.mean_service, 1e-6, 1e6)?,
    };
    let overhead = within(&w.split_overhead, "split_overhead", 0.1, 0.0, 10.0)?;
    let widest = params.gang_sizes.largest() as u64;
    if widest > platform.total_processors() {
        return Err(s.error_at(
            w.gang_sizes
                .as_ref()
                .map_or_else(|| w.kind.span(), |x| x.span()),
            format!(
                "workload.gang_sizes: \"{}\" makes gangs of up to {widest} tasks, more than the {} processors of {} ({} site(s))",
                params.gang_sizes.as_str(),
                platform.total_processors(),
                platform.shape(),
                sites
            ),
        ));
    }
    Ok((params, overhead))
}

/// The moldable workload's keys, each checked where it is; defaults are
/// the paper's values (and schedscope's readings where the paper gives
/// none, documented in `scenarios/README.md`).
fn moldable_params(
    s: &Scenario,
    w: &WorkloadSection,
    platform: &Platform,
) -> Result<MoldableParams, ScenarioError> {
    let num = |x: &Option<Spanned<f64>>,
               key: &str,
               default: f64,
               ok: &dyn Fn(f64) -> bool,
               what: &str| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if v_.is_finite() && ok(v_) {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!("workload.{key} must be {what}, found {}", Shown(v_)),
                ))
            }
        })
    };
    let utilization = num(
        &w.utilization,
        "utilization",
        1.0,
        &|v| (0.001..=4.0).contains(&v),
        "from 0.001 to 4 (1 = 100 %)",
    )?;
    let short_load = num(
        &w.short_load,
        "short_load",
        0.2,
        &|v| (0.0..=4.0).contains(&v),
        "from 0 to 4",
    )?;
    if short_load > utilization {
        let span = w.short_load.as_ref().map_or(0..0, |x| x.span());
        let span = if span.is_empty() {
            w.utilization.as_ref().map_or(w.kind.span(), |x| x.span())
        } else {
            span
        };
        return Err(s.error_at(
            span,
            format!(
                "workload.short_load ({}) must be at most workload.utilization ({})",
                Shown(short_load),
                Shown(utilization)
            ),
        ));
    }
    let long_threshold = num(
        &w.long_threshold,
        "long_threshold",
        1000.0,
        &|v| v > 0.0 && v <= 1e9,
        "above 0 and at most 1e9 seconds",
    )?;
    let fold_overhead = num(
        &w.fold_overhead,
        "fold_overhead",
        0.1,
        &|v| (0.0..=10.0).contains(&v),
        "from 0 to 10",
    )?;
    let max_mpl = w.max_mpl.as_ref().map_or(4, |x| x.get_ref().0);
    if max_mpl > 64 {
        let span = w.max_mpl.as_ref().map_or(0..0, |x| x.span());
        return Err(s.error_at(
            span,
            format!("workload.max_mpl must be from 1 to 64, found {max_mpl}"),
        ));
    }
    let largest = platform
        .clusters
        .iter()
        .map(|c| c.processors)
        .max()
        .unwrap_or(0);
    let max_size = w
        .max_size
        .as_ref()
        .map_or(60.min(largest), |x| x.get_ref().0);
    if max_size > largest {
        let span = w.max_size.as_ref().map_or(w.kind.span(), |x| x.span());
        return Err(s.error_at(
            span,
            format!(
                "workload.max_size ({max_size}) must be at most the largest cluster ({largest} processors): a moldable job runs on one cluster"
            ),
        ));
    }
    let estimate_factor = match &w.estimate_factor {
        None => (0.5, 1.5),
        Some(v) => {
            let bad = |m: String| s.error_at(v.span(), format!("workload.estimate_factor: {m}"));
            let ok = |x: f64| x.is_finite() && x > 0.0 && x <= 1e3;
            match v.get_ref() {
                OneOrMany::One(x) if ok(*x) => (*x, *x),
                OneOrMany::Many(r) if r.len() == 2 && ok(r[0]) && ok(r[1]) && r[0] <= r[1] => {
                    (r[0], r[1])
                }
                OneOrMany::One(x) => {
                    return Err(bad(format!(
                        "a factor must be above 0 and at most 1000, found {}",
                        Shown(*x)
                    )));
                }
                OneOrMany::Many(_) => {
                    return Err(bad(
                        "give one factor or a range [low, high] with 0 < low ≤ high ≤ 1000".into(),
                    ));
                }
            }
        }
    };
    let short_min_size = w.short_min_size.as_ref().map_or(1, |x| x.get_ref().0);
    let mut speedup = crate::workload::moldable::PAPER_SPEEDUP;
    if let Some(sec) = &w.speedup {
        let sec = sec.get_ref();
        for (i, (key, entry)) in [
            ("bt_a", &sec.bt_a),
            ("cg_b", &sec.cg_b),
            ("lu_w", &sec.lu_w),
            ("sweep3d", &sec.sweep3d),
        ]
        .into_iter()
        .enumerate()
        {
            let Some(e) = entry else { continue };
            let d = e.get_ref();
            if let Some(a) = d.a {
                if !(a.is_finite() && (1.0..=1e6).contains(&a)) {
                    return Err(s.error_at_key(
                        &["workload", "speedup", key, "a"],
                        format!(
                            "workload.speedup.{key}.a (Downey's average parallelism) must be from 1 to 1e6, found {}",
                            Shown(a)
                        ),
                    ));
                }
                speedup[i].0 = a;
            }
            if let Some(sg) = d.sigma {
                if !(sg.is_finite() && (0.0..=1e3).contains(&sg)) {
                    return Err(s.error_at_key(
                        &["workload", "speedup", key, "sigma"],
                        format!(
                            "workload.speedup.{key}.sigma (Downey's variance of parallelism) must be from 0 to 1000, found {}",
                            Shown(sg)
                        ),
                    ));
                }
                speedup[i].1 = sg;
            }
        }
    }
    let types = crate::workload::moldable::types_with(
        max_size,
        long_threshold,
        fold_overhead,
        max_mpl,
        speedup,
        short_min_size,
    )
    .map_err(|m| {
        let span = w
            .short_min_size
            .as_ref()
            .map_or(w.kind.span(), |x| x.span());
        s.error_at(span, format!("workload.short_min_size: {m}"))
    })?;
    let params = MoldableParams {
        processors: platform.total_processors().min(u32::MAX as u64) as u32,
        long_load: utilization - short_load,
        short_load,
        jobs: s.file.run.jobs.0 as u64,
        types,
        estimate_factor: Some(estimate_factor),
    };
    let uspan = w.utilization.as_ref().map_or(w.kind.span(), |x| x.span());
    let generator = MoldableWorkload::new(&params, 1).map_err(|m| match &w.long_threshold {
        Some(t) if m.contains("long_threshold") => {
            s.error_at(t.span(), format!("workload.long_threshold: {m}"))
        }
        _ => s.error_at(uspan.clone(), format!("workload: {m}")),
    })?;
    // The last arrival must stay well inside the simulation's time.
    let last = generator.mean_gap() * (params.jobs as f64 + 100.0) * 4.0;
    if last > MAX_SECONDS / 2.0 {
        return Err(s.error_at(
            uspan,
            format!(
                "workload.utilization ({}) is too low for {} jobs: the arrivals would run past the simulation's time",
                Shown(utilization),
                params.jobs
            ),
        ));
    }
    Ok(params)
}

/// The generator's times must stay within what the simulation can hold:
/// the last arrival (about `jobs` mean inter-arrival times) and any run
/// time (an exponential sample past 100 times its mean has a chance of
/// e⁻¹⁰⁰), each with room for the other.
fn check_generated_times(
    s: &Scenario,
    w: &WorkloadSection,
    p: &NgubiriParams,
) -> Result<(), ScenarioError> {
    let half = MAX_SECONDS / 2.0;
    let arrivals = s.file.run.jobs.0 as f64 + 100.0;
    for (key, value, times, span) in [
        (
            "mean_interarrival",
            p.mean_interarrival,
            arrivals,
            w.mean_interarrival.as_ref().map(|x| x.span()),
        ),
        (
            "mean_runtime",
            p.mean_runtime,
            100.0,
            w.mean_runtime.as_ref().map(|x| x.span()),
        ),
    ] {
        if value * times > half {
            let why = if key == "mean_runtime" {
                "run times"
            } else {
                "arrivals of [run] jobs"
            };
            return Err(s.error_at(
                span.unwrap_or_else(|| w.kind.span()),
                format!(
                    "`{key}` = {} s would take {why} past the latest time the simulation can hold (9.2e12 s, about 292,000 years); here it can be at most {:.3e} s",
                    Shown(value),
                    half / times
                ),
            ));
        }
    }
    Ok(())
}

/// Every size the generator can make, split every way it can be split, must
/// fit the platform.
fn check_generated_sizes(
    s: &Scenario,
    p: &NgubiriParams,
    platform: &Platform,
    span: std::ops::Range<usize>,
) -> Result<(), ScenarioError> {
    let bounds = phased_bounds(p);
    for size in p.min_size..=p.max_size {
        let counts: Vec<u32> = if size <= p.threshold || p.max_components < 2 {
            vec![1]
        } else {
            match p.approach {
                crate::workload::ngubiri::SplitApproach::Random => {
                    (2..=p.max_components).map(|n| n.min(size)).collect()
                }
                crate::workload::ngubiri::SplitApproach::Phased => {
                    vec![2 + bounds.iter().filter(|&&b| size > b).count() as u32]
                }
            }
        };
        for n in counts {
            let widths = split_even(size, n);
            if !platform.can_ever_fit(&widths) {
                return Err(s.error_at(
                    span.clone(),
                    format!(
                        "a generated job of size {size} split as {} can never run on {} (largest cluster {}, {} cluster{}): lower max_size or split.threshold, or raise split.max_components",
                        join(&widths),
                        platform.shape(),
                        platform.largest_cluster(),
                        platform.clusters.len(),
                        if platform.clusters.len() == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn join(w: &[u32]) -> String {
    w.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("+")
}

fn inline_job(
    s: &Scenario,
    i: usize,
    j: &Spanned<InlineJob>,
    platform: &Platform,
) -> Result<JobSpec, ScenarioError> {
    let job = j.get_ref();
    let components: Vec<u32> = match (&job.components, job.size) {
        (Some(c), size) => {
            let c: Vec<u32> = c.iter().map(|x| x.0).collect();
            let sum: u32 = c.iter().sum();
            if let Some(size) = size
                && size.0 != sum
            {
                return Err(s.error_at(
                    j.span(),
                    format!(
                        "job {}: components {} add up to {sum}, not its size {}",
                        i + 1,
                        join(&c),
                        size.0
                    ),
                ));
            }
            if c.is_empty() {
                return Err(s.error_at(j.span(), format!("job {}: components is empty", i + 1)));
            }
            c
        }
        (None, Some(size)) => vec![size.0],
        (None, None) => {
            return Err(s.error_at(
                j.span(),
                format!("job {}: give `size` or `components`", i + 1),
            ));
        }
    };
    for (what, t) in [
        ("runtime", Some(job.runtime.0)),
        ("estimate", job.estimate.map(|e| e.0)),
    ] {
        if let Some(t) = t
            && job.submit.0 + t > MAX_SECONDS
        {
            return Err(s.error_at(
                j.span(),
                format!(
                    "job {}: submit + {what} = {} s is past the latest time the simulation can hold (9.2e12 s, about 292,000 years)",
                    i + 1,
                    Shown(job.submit.0 + t)
                ),
            ));
        }
    }
    if !platform.can_ever_fit(&components) {
        return Err(s.error_at(
            j.span(),
            format!(
                "job {}: components {} can never run on {} (largest cluster {}, each component needs its own cluster)",
                i + 1,
                join(&components),
                platform.shape(),
                platform.largest_cluster()
            ),
        ));
    }
    Ok(JobSpec {
        work: None,
        id: job.id.unwrap_or(i as u64 + 1),
        submit: SimTime::from_secs_f64(job.submit.0),
        size: components.iter().sum(),
        components,
        runtime: SimTime::from_secs_f64(job.runtime.0),
        estimate: job.estimate.map(|e| SimTime::from_secs_f64(e.0)),
        user: job.user,
        injected: false,
        home: None,
        app: None,
        comm: None,
        graph: None,
    })
}

/// Whether `policy` could run the injected job `j`, numbered `id`, however
/// the workload's split rule splits it.
fn injected_admitted(
    j: &crate::engine::InjectJob,
    id: u64,
    policy: &dyn crate::sched::Policy,
    facts: &WorkloadFacts,
) -> Result<(), String> {
    let splits: Vec<Vec<u32>> = match (&j.components, &facts.ngubiri) {
        (Some(c), _) => vec![c.clone()],
        (None, Some(p)) => {
            let bounds = phased_bounds(p);
            crate::workload::ngubiri::split_counts(p, &bounds, j.size)
                .map(|n| split_even(j.size, n.min(j.size)))
                .collect()
        }
        // No split rule: the policy splits it.
        (None, None) => vec![Vec::new()],
    };
    for components in splits {
        let probe = crate::sched::JobView {
            id,
            size: j.size,
            components,
            injected: true,
            home: j.site.map(|s| s as crate::model::ClusterIdx),
            ..Default::default()
        };
        policy
            .admits(&probe, &facts.platform)
            .map_err(|reason| format!("under {}, {reason}", policy.spec().label()))?;
    }
    Ok(())
}

fn check_command(
    s: &Scenario,
    c: &Command,
    platform: &Platform,
    span: std::ops::Range<usize>,
) -> Result<(), ScenarioError> {
    match c {
        Command::SetPolicy { policy } => {
            policy.build(platform).map_err(|m| {
                s.error_at(
                    span,
                    format!("timeline: {} cannot run here: {m}", policy.label()),
                )
            })?;
        }
        Command::InjectJobs { jobs } => {
            for j in jobs {
                let widths = j.components.clone().unwrap_or_else(|| vec![j.size]);
                if j.size == 0 || widths.iter().sum::<u32>() != j.size || widths.contains(&0) {
                    return Err(s.error_at(
                        span,
                        format!(
                            "timeline: injected job of size {} has components {}",
                            j.size,
                            join(&widths)
                        ),
                    ));
                }
                if let Some(e) = j.site_error(platform) {
                    return Err(s.error_at(span, format!("timeline: {e}")));
                }
                if let Some((what, e)) = j.time_error() {
                    return Err(s.error_at(span, format!("timeline: an injected job's {what} {e}")));
                }
            }
        }
        Command::SetEstimateError { estimates, .. } => {
            estimates
                .validate()
                .map_err(|m| s.error_at(span, format!("timeline: {m}")))?;
        }
        Command::SetLinkBandwidth { link, abw } => {
            if platform.network.is_none() {
                return Err(s.error_at(
                    span,
                    "timeline: set-link-bandwidth needs a platform with a network ([platform.network])",
                ));
            }
            let known = platform.clusters.iter().any(|c| &c.name == link)
                || link
                    .parse::<usize>()
                    .is_ok_and(|i| i < platform.clusters.len());
            if !known {
                let names: Vec<&str> = platform.clusters.iter().map(|c| c.name.as_str()).collect();
                return Err(s.error_at(
                    span,
                    format!(
                        "timeline: no link \"{link}\": the links are {}",
                        names.join(", ")
                    ),
                ));
            }
            if !(abw.is_finite() && *abw > 0.0) {
                return Err(s.error_at(
                    span,
                    format!(
                        "timeline: abw must be a bandwidth above 0, found {}",
                        Shown(*abw)
                    ),
                ));
            }
        }
    }
    Ok(())
}

impl Scenario {
    /// A relative path from the scenario is taken from the scenario file's
    /// folder; where nothing is there, from the current folder (so that
    /// scenarios may name files relative to the repository they run in).
    pub fn resolve(&self, path: &str) -> std::path::PathBuf {
        let p = std::path::Path::new(path);
        let beside = self.base_dir.join(p);
        if p.is_absolute() || beside.exists() || !p.exists() {
            beside
        } else {
            p.to_path_buf()
        }
    }

    pub fn platform(&self) -> &Platform {
        &self.facts.platform
    }

    pub fn facts(&self) -> &WorkloadFacts {
        &self.facts
    }

    /// Where time 0 stands in calendar time (see [`WorkloadFacts::clock`]).
    pub fn trace_clock(&self) -> &crate::report::swf_out::Clock {
        &self.facts.clock
    }

    /// The number of jobs each replication runs, if known in advance.
    pub fn jobs_per_replication(&self) -> Option<u64> {
        jobs_per_replication(&self.file, &self.facts)
    }

    /// An engine for one run seeded with `seed`. With `endless`, a generated
    /// workload never runs out (the console's mode).
    pub fn build_engine(&self, seed: u64, endless: bool) -> Result<Engine, ScenarioError> {
        self.build_engine_with(seed, endless, crate::policy::build)
    }

    /// [`Scenario::build_engine`] with policies from `build` instead of
    /// schedscope's catalog: a policy of one's own, written against the
    /// protocol in [`crate::sched`], runs on any scenario (see
    /// `examples/own_policy.rs`). `build` also serves policy switches.
    pub fn build_engine_with(
        &self,
        seed: u64,
        endless: bool,
        build: crate::sched::PolicyBuilder,
    ) -> Result<Engine, ScenarioError> {
        let f = &self.file;
        let count = if endless || f.run.completions.is_some() {
            None
        } else {
            Some(f.run.jobs.0 as u64)
        };
        self.build_engine_of(seed, count, build)
    }

    /// [`Scenario::build_engine_with`] on the first `count` jobs of the
    /// workload (`None`: all of a trace, or a generator's endless stream),
    /// whatever the scenario's own end: a run that ends when its jobs do.
    pub fn build_engine_of(
        &self,
        seed: u64,
        count: Option<u64>,
        build: crate::sched::PolicyBuilder,
    ) -> Result<Engine, ScenarioError> {
        let f = &self.file;
        let source = self.job_source(seed, count)?;
        let splitter: Option<crate::engine::Splitter> = self.facts.ngubiri.clone().map(|p| {
            let bounds = phased_bounds(&p);
            let mut rng = stream(seed ^ 0x5EED_1A7E, Purpose::Split);
            Box::new(move |size: u32| split_even(size, split_count(&p, &bounds, size, &mut rng)))
                as crate::engine::Splitter
        });
        let mut engine = Engine::with_builder(
            self.facts.platform.clone(),
            source,
            &f.policy,
            EngineConfig {
                seed,
                estimates: f.estimates.clone(),
                splitter,
            },
            build,
        )
        .map_err(|m| self.invalid(m))?;
        for entry in &f.timeline {
            let e = entry.get_ref();
            engine.schedule_command(SimTime::from_secs_f64(e.at.0), e.command.clone());
        }
        Ok(engine)
    }

    /// The workload's jobs for one run seeded with `seed`: `count` of them
    /// from a generator (`None`: endless), a trace or job list whole.
    pub fn job_source(
        &self,
        seed: u64,
        count: Option<u64>,
    ) -> Result<Box<dyn crate::workload::JobSource>, ScenarioError> {
        let source: Box<dyn crate::workload::JobSource> = if let Some(b) = &self.facts.blanco {
            Box::new(BlancoWorkload::new(b.clone(), seed, count))
        } else if let Some(m) = &self.facts.moldable {
            Box::new(MoldableWorkload::with_count(m, seed, count).map_err(|e| self.invalid(e))?)
        } else if let Some(g) = &self.facts.grid {
            let jobs = GridWorkload::new(g.clone(), seed);
            match count {
                Some(n) => Box::new(jobs.take(n as usize)),
                None => Box::new(jobs),
            }
        } else {
            match (&self.facts.ngubiri, &self.facts.jobs) {
                (Some(p), _) => Box::new(NgubiriWorkload::new(p.clone(), seed, count)),
                (None, Some(jobs)) => Box::new(inline::source(jobs.as_ref().clone())),
                (None, None) => return Err(self.invalid("the workload has no jobs")),
            }
        };
        Ok(match &self.facts.graphs {
            Some(g) => Box::new(crate::workload::graphs::WithGraphs::new(
                source,
                g.clone(),
                seed,
            )),
            None => source,
        })
    }

    pub fn group_bounds(&self) -> &GroupBounds {
        &self.file.metrics.groups
    }

    /// Fresh metrics for one run of this scenario.
    pub fn new_metrics(&self) -> Metrics {
        Metrics::new(
            self.file.metrics.groups.clone(),
            self.file.run.warmup_jobs,
            self.facts.platform.total_processors(),
        )
    }
}
