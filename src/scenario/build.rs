//! Validation across fields, and building engines and metrics from a
//! scenario.

use super::kinds::{self, FigureFamily, Listed, Workload, join};
use super::schema::{
    Cue, GRAPH_COUNT, GRAPH_GAP, GraphArrivals, GraphsSection, GraphsUntil, ScenarioFile, Timed,
    TimelineEntry,
};
use super::values::Shown;
use super::{Scenario, ScenarioError};
use crate::engine::{Command, Engine, EngineConfig};
use crate::metrics::{GroupBounds, Metrics};
use crate::model::{JobSpec, Platform, SimTime};
use crate::policy::Catalogued;
use crate::workload::graphs::{GraphPace, GraphStreamParams};
use std::sync::Arc;
use toml::Spanned;

/// What validation learned about the workload, kept so that replications
/// do not read files again.
#[derive(Clone, Debug)]
pub struct WorkloadFacts {
    pub platform: Platform,
    /// The workload its kind made of `[workload]`.
    pub workload: Arc<dyn Workload>,
    /// Its kind's own family of figures, if the kind declares one.
    pub family: Option<&'static FigureFamily>,
    /// Task graphs arriving beside the jobs.
    pub graphs: Option<crate::workload::graphs::GraphStreamParams>,
    /// Human notes (skipped trace lines, clamped jobs …) for reports.
    pub notes: Vec<String>,
    /// Where an SWF trace's time 0 stands in calendar time (its header's
    /// `UnixStartTime` and `TimeZoneString`), for the schedule's SWF.
    pub clock: crate::report::swf_out::Clock,
}

impl Default for WorkloadFacts {
    fn default() -> Self {
        WorkloadFacts {
            platform: Platform::default(),
            workload: Arc::new(Listed {
                jobs: Arc::new(Vec::new()),
            }),
            family: None,
            graphs: None,
            notes: Vec::new(),
            clock: Default::default(),
        }
    }
}

pub(super) fn validate(s: &Scenario) -> Result<WorkloadFacts, ScenarioError> {
    let f = &s.file;
    let platform = match &f.platform {
        Some(p) => Some(super::platform::platform_of(s, p)?),
        None => None,
    };
    f.estimates
        .validate()
        .map_err(|m| s.invalid(format!("[estimates] {m}")))?;
    f.metrics.groups.validate().map_err(|m| s.invalid(m))?;
    if f.run.max_replications.0 > super::schema::MAX_REPLICATIONS {
        return Err(s.invalid(format!(
            "[run] max_replications ({}) is more than {}: every replication's summary is kept for the confidence intervals",
            f.run.max_replications,
            super::schema::MAX_REPLICATIONS
        )));
    }
    if f.run.min_replications.0 > f.run.max_replications.0 {
        return Err(s.invalid(format!(
            "[run] min_replications ({}) is larger than max_replications ({})",
            f.run.min_replications, f.run.max_replications
        )));
    }
    let w = f.workload.get_ref();
    let name = w.kind.get_ref().as_str();
    let entry = kinds::find(name).ok_or_else(|| {
        let names: Vec<String> = kinds::all()
            .iter()
            .map(|e| format!("\"{}\"", e.name))
            .collect();
        s.error_at(
            w.kind.span(),
            format!(
                "`kind` must be one of {}, found \"{name}\"",
                names.join(", ")
            ),
        )
    })?;
    for (key, span) in w.given() {
        if !entry.keys.contains(&key) {
            return Err(s.error_at(
                span,
                format!(
                    "`{key}` does not apply to workload kind \"{name}\" (it takes: {})",
                    entry.keys.join(", ")
                ),
            ));
        }
    }
    let validated = (entry.validate)(s, w, platform.as_ref())?;
    let mut facts = WorkloadFacts {
        platform: validated.platform.or(platform).unwrap_or_default(),
        workload: validated.workload,
        family: entry.family,
        graphs: None,
        notes: validated.notes,
        clock: validated.clock,
    };
    if let Some(g) = &f.graphs {
        let stream = graph_stream(s, g, facts.workload.listed())?;
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
    let mut timeline: Vec<(usize, &Spanned<TimelineEntry>)> =
        f.timeline.iter().enumerate().collect();
    timeline.sort_by(|a, b| a.1.get_ref().at.0.total_cmp(&b.1.get_ref().at.0));
    let mut next_id = crate::engine::INJECTED_ID_BASE + 1;
    for (index, entry) in timeline {
        let command = match &entry.get_ref().what {
            Timed::Command(c) => c,
            Timed::Cue(cue) => {
                check_cue(s, cue, index, entry.span(), &facts, next_id)?;
                continue;
            }
        };
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
    names.extend(
        facts
            .family
            .iter()
            .flat_map(|f| f.names())
            .map(String::from),
    );
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
    // A job count that would be ignored is refused: a run with
    // `completions` ends there, and a list of jobs runs whole.
    if s.gives(&["run", "jobs"]) {
        let why = if let Some(n) = f.run.completions {
            Some(format!(
                "with `[run] completions` = {n}: the run ends at its {n}th completion"
            ))
        } else if facts.workload.listed().is_some() {
            let first = if entry.keys.contains(&"first_jobs") {
                "; take the first N with `workload.first_jobs`"
            } else {
                ""
            };
            Some(format!(
                "to workload kind \"{name}\": every job it lists runs{first}"
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(s.error_at_key(
                &["run", "jobs"],
                format!("`[run] jobs` does not apply {why}"),
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
    // Graphs beside a list of jobs add to it as they arrive; a generator
    // makes `[run] jobs` whatever arrives beside it.
    if facts.graphs.is_some() && facts.workload.listed().is_some() {
        return None;
    }
    facts.workload.jobs_per_replication(f.run.jobs.0 as u64)
}

/// The graph stream of `[graphs]` beside `jobs` (a trace's or inline
/// jobs; none for a generated workload).
fn graph_stream(
    s: &Scenario,
    g: &Spanned<GraphsSection>,
    jobs: Option<&[JobSpec]>,
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

/// Whether `policy` could run the injected job `j`, numbered `id`, however
/// the workload's split rule splits it.
fn injected_admitted(
    j: &crate::engine::InjectJob,
    id: u64,
    policy: &dyn crate::sched::Policy,
    facts: &WorkloadFacts,
) -> Result<(), String> {
    let splits: Vec<Vec<u32>> = match &j.components {
        Some(c) => vec![c.clone()],
        // No split rule of the workload's: the policy splits it.
        None => facts
            .workload
            .splits(j.size)
            .unwrap_or_else(|| vec![Vec::new()]),
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

/// The most characters a cue's text may have: what a box of four lines
/// holds on an 80-column terminal.
pub const CUE_TEXT_MAX: usize = 280;

/// A cue's text says something in one paragraph of at most
/// [`CUE_TEXT_MAX`] characters, and the job it selects is one the
/// workload has (where the workload is a list known before the run: a
/// listed job, or one the timeline injected before the cue; `next_id` is
/// the id the next injected job gets).
fn check_cue(
    s: &Scenario,
    cue: &Cue,
    index: usize,
    entry: std::ops::Range<usize>,
    facts: &WorkloadFacts,
    next_id: u64,
) -> Result<(), ScenarioError> {
    let at = |key: &str, m: String| {
        let span = timeline_key_span(s, index, key).unwrap_or_else(|| entry.clone());
        s.error_at(span, format!("timeline: cue `{key}` {m}"))
    };
    let text = cue.text.trim();
    if text.is_empty() {
        return Err(at("text", "must say something, found an empty text".into()));
    }
    let n = cue.text.chars().count();
    if n > CUE_TEXT_MAX {
        return Err(at(
            "text",
            format!(
                "must be at most {CUE_TEXT_MAX} characters (about four lines of an 80-column terminal), found {n}"
            ),
        ));
    }
    if let Some(c) = cue.text.chars().find(|c| c.is_control()) {
        return Err(at(
            "text",
            format!("must be one paragraph without control characters, found {c:?}"),
        ));
    }
    if let Some(id) = cue.select
        && facts.graphs.is_none()
        && let Some(jobs) = facts.workload.listed()
    {
        let injected = (crate::engine::INJECTED_ID_BASE + 1..next_id).contains(&id);
        if !injected && !jobs.iter().any(|j| j.id == id) {
            let mut ids: Vec<u64> = jobs.iter().map(|j| j.id).collect();
            ids.sort_unstable();
            let shown: Vec<String> = ids.iter().take(12).map(u64::to_string).collect();
            let more = if ids.len() > 12 { ", …" } else { "" };
            return Err(at(
                "select",
                format!(
                    "names job {id}, which the workload does not have (its jobs: {}{more})",
                    shown.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The text span of `key` in the timeline's entry number `index` (in file
/// order), where the file writes it.
fn timeline_key_span(s: &Scenario, index: usize, key: &str) -> Option<std::ops::Range<usize>> {
    let doc = toml_edit::Document::parse(s.text()).ok()?;
    doc.as_item().get("timeline")?.get(index)?.get(key)?.span()
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

    /// The workload its kind made of `[workload]`; a part of schedscope
    /// that serves one kind finds its parameters with
    /// `downcast` on `dyn Workload`.
    pub fn workload(&self) -> &dyn Workload {
        self.facts.workload.as_ref()
    }

    /// The workload kind's own family of figures, reported by every run
    /// beside the common ones, if the kind declares one.
    pub fn family(&self) -> Option<&'static FigureFamily> {
        self.facts.family
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
        self.build_engine_with(seed, endless, crate::policy::CATALOG)
    }

    /// [`Scenario::build_engine`] with policies from `build` instead of
    /// schedscope's catalog: a policy of one's own, written against the
    /// protocol in [`crate::sched`], runs on any scenario (see
    /// `examples/own_policy.rs`). `build` also serves policy switches.
    pub fn build_engine_with(
        &self,
        seed: u64,
        endless: bool,
        policies: crate::sched::Policies,
    ) -> Result<Engine, ScenarioError> {
        let f = &self.file;
        let count = if endless || f.run.completions.is_some() {
            None
        } else {
            Some(f.run.jobs.0 as u64)
        };
        self.build_engine_of(seed, count, policies)
    }

    /// [`Scenario::build_engine_with`] on the first `count` jobs of the
    /// workload (`None`: all of a trace, or a generator's endless stream),
    /// whatever the scenario's own end: a run that ends when its jobs do.
    pub fn build_engine_of(
        &self,
        seed: u64,
        count: Option<u64>,
        policies: crate::sched::Policies,
    ) -> Result<Engine, ScenarioError> {
        let f = &self.file;
        let source = self.job_source(seed, count)?;
        let splitter = self.facts.workload.splitter(seed);
        let mut engine = Engine::with_builder(
            self.facts.platform.clone(),
            source,
            &f.policy,
            EngineConfig {
                seed,
                estimates: f.estimates.clone(),
                splitter,
            },
            policies,
        )
        .map_err(|m| self.invalid(m))?;
        // Cues are the console's: the engine never sees them.
        for entry in &f.timeline {
            let e = entry.get_ref();
            if let Some(command) = e.command() {
                engine.schedule_command(SimTime::from_secs_f64(e.at.0), command.clone());
            }
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
        let source = self
            .facts
            .workload
            .source(seed, count)
            .map_err(|e| self.invalid(e))?;
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

    /// Metrics of every job from the first, for what the console shows
    /// while the warm-up lasts; `None` when the scenario has no warm-up.
    pub fn warmup_metrics(&self) -> Option<Metrics> {
        (self.file.run.warmup_jobs > 0).then(|| {
            Metrics::new(
                self.file.metrics.groups.clone(),
                0,
                self.facts.platform.total_processors(),
            )
        })
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
