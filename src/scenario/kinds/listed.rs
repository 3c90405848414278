//! Workloads that are a list of jobs: `kind = "jobs"` (written in the
//! scenario), `kind = "swf"` (a Standard Workload Format trace) and
//! `kind = "batsim"` (a Batsim JSON workload of `delay` profiles).

use super::{Validated, Workload, WorkloadKindEntry, join, need_platform};
use crate::model::platform::MAX_PROCESSORS;
use crate::model::{Cluster, JobSpec, Platform, SimTime};
use crate::scenario::schema::{InlineJob, Oversize, WorkloadSection};
use crate::scenario::values::{MAX_SECONDS, Shown};
use crate::scenario::{Scenario, ScenarioError};
use crate::workload::{JobSource, batsim, inline, swf};
use std::sync::Arc;
use toml::Spanned;

/// Where the Standard Workload Format traces come from.
pub const PARALLEL_WORKLOADS_ARCHIVE: &str =
    "the Parallel Workloads Archive (https://www.cs.huji.ac.il/labs/parallel/workload/logs.html)";

/// A fixed list of jobs, read once at validation.
#[derive(Clone, Debug)]
pub struct Listed {
    pub jobs: Arc<Vec<JobSpec>>,
}

impl Workload for Listed {
    fn source(&self, _seed: u64, _count: Option<u64>) -> Result<Box<dyn JobSource>, String> {
        Ok(Box::new(inline::source(self.jobs.as_ref().clone())))
    }

    fn jobs_per_replication(&self, _run_jobs: u64) -> Option<u64> {
        Some(self.jobs.len() as u64)
    }

    fn listed(&self) -> Option<&[JobSpec]> {
        Some(&self.jobs)
    }
}

const TRACE_KEYS: &[&str] = &[
    "path",
    "first_jobs",
    "start_time",
    "end_time",
    "oversize",
    "start_at_zero",
    "download",
];

pub(super) const JOBS: WorkloadKindEntry = WorkloadKindEntry {
    name: "jobs",
    summary: "jobs written in the scenario, one [[workload.jobs]] entry each",
    keys: &["jobs"],
    needs_platform: true,
    family: None,
    validate: |s, w, platform| {
        let platform = need_platform(s, platform)?;
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
            specs.push(inline_job(s, i, j, platform)?);
        }
        Ok(Validated::of(Listed {
            jobs: Arc::new(specs),
        }))
    },
};

pub(super) const SWF: WorkloadKindEntry = WorkloadKindEntry {
    name: "swf",
    summary: "a Standard Workload Format trace (the Parallel Workloads Archive's)",
    keys: TRACE_KEYS,
    needs_platform: false,
    family: None,
    validate: |s, w, platform| trace(s, w, TraceFormat::Swf, platform),
};

pub(super) const BATSIM: WorkloadKindEntry = WorkloadKindEntry {
    name: "batsim",
    summary: "a Batsim JSON workload (jobs with `delay` profiles)",
    keys: TRACE_KEYS,
    needs_platform: false,
    family: None,
    validate: |s, w, platform| trace(s, w, TraceFormat::Batsim, platform),
};

/// The trace formats schedscope reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TraceFormat {
    Swf,
    Batsim,
}

impl TraceFormat {
    fn name(self) -> &'static str {
        match self {
            TraceFormat::Swf => "swf",
            TraceFormat::Batsim => "batsim",
        }
    }
}

fn trace(
    s: &Scenario,
    w: &WorkloadSection,
    format: TraceFormat,
    platform: Option<&Platform>,
) -> Result<Validated, ScenarioError> {
    let (jobs, trace_platform, notes, clock) = trace_jobs(s, w, format, platform)?;
    Ok(Validated {
        workload: Arc::new(Listed {
            jobs: Arc::new(jobs),
        }),
        platform: platform.is_none().then_some(trace_platform),
        notes,
        clock,
    })
}

/// Reads the trace (SWF or Batsim), applies the job selection, and sizes
/// the platform.
fn trace_jobs(
    s: &Scenario,
    w: &WorkloadSection,
    format: TraceFormat,
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
            format!("kind = \"{}\" needs `path` to the trace", format.name()),
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
                (format == TraceFormat::Swf).then(|| PARALLEL_WORKLOADS_ARCHIVE.to_string())
            });
        return Err(ScenarioError::MissingData(Box::new(
            crate::scenario::MissingData {
                at: s.location(path.span()),
                what: if format == TraceFormat::Swf {
                    "the trace"
                } else {
                    "the workload file"
                },
                given: path.get_ref().clone(),
                looked,
                download,
            },
        )));
    }
    let mut notes = Vec::new();
    let mut clock = crate::report::swf_out::Clock::default();
    // (job, where it is in the trace) for every runnable job.
    let (jobs, where_, trace_procs, name): (Vec<JobSpec>, Vec<String>, u32, String) = match format {
        TraceFormat::Batsim => {
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
        let what = if job.components.is_some() {
            format!("components {}", join(&components))
        } else {
            format!(
                "size {} is one component (give `components` to split it) and",
                join(&components)
            )
        };
        return Err(s.error_at(
            j.span(),
            format!(
                "job {}: {what} can never run on {} (largest cluster {}, each component needs its own cluster)",
                i + 1,
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
