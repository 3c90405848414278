//! Workload kinds: each declares its name, what it is, the `[workload]`
//! keys it reads and how it checks them and makes its jobs. Scenarios,
//! validation messages and `schedscope workloads` all read this one list;
//! adding a kind is its own file plus one entry (built in) or one call to
//! [`register`] (a kind of one's own, with its keys under
//! `[workload.params]`).
//!
//! A kind's [`WorkloadKindEntry::validate`] reads the scenario's
//! `[workload]` table once, checking each key where it is written, and
//! returns a [`Workload`]: what every run of the scenario then asks for
//! jobs (no file is read again).

mod blanco;
pub mod figures;
mod grid;
pub(super) mod listed;
mod moldable;
mod ngubiri;

pub use figures::{Columns, FamilyValues, Figure, FigureFamily, FigureFold, lines};
pub use listed::Listed;

use super::schema::WorkloadSection;
use super::{Scenario, ScenarioError};
use crate::model::Platform;
use crate::workload::JobSource;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A validated workload: what each run asks for its jobs.
pub trait Workload: fmt::Debug + Send + Sync + Any {
    /// The jobs of one run seeded with `seed`: the first `count` of a
    /// generator (`None`: endless), a listed workload whole.
    fn source(&self, seed: u64, count: Option<u64>) -> Result<Box<dyn JobSource>, String>;

    /// How many jobs one replication runs when `[run] jobs` is `run_jobs`,
    /// if known in advance. A generator runs `run_jobs` (the default); a
    /// listed workload runs its list.
    fn jobs_per_replication(&self, run_jobs: u64) -> Option<u64> {
        Some(run_jobs)
    }

    /// The jobs, when the workload is a fixed list (a trace, inline jobs):
    /// a `[graphs]` stream beside them spans their submit times.
    fn listed(&self) -> Option<&[crate::model::JobSpec]> {
        None
    }

    /// How the workload splits a job given without components into
    /// components, for injected jobs (the engine's splitter), if it has a
    /// rule of its own; without one the policy places a job's size.
    fn splitter(&self, _seed: u64) -> Option<crate::engine::Splitter> {
        None
    }

    /// Every split [`Workload::splitter`] may give a job of `size`, for
    /// checking an injected job before it runs (`None`: no rule of its own).
    fn splits(&self, _size: u32) -> Option<Vec<Vec<u32>>> {
        None
    }

    /// Whether its jobs belong to sites (clusters): injected jobs may name
    /// one (the two-site grid's local jobs).
    fn has_sites(&self) -> bool {
        false
    }
}

impl dyn Workload {
    /// The workload as its own type, when it is one: how a part of
    /// schedscope that serves one kind (the grid study's figures) finds
    /// its parameters.
    pub fn downcast<T: Workload>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

/// What validation learned from `[workload]`.
pub struct Validated {
    pub workload: Arc<dyn Workload>,
    /// The platform the kind runs on when it differs from `[platform]` (a
    /// trace's own machine when `[platform]` is left out, the grid's split
    /// overhead), else `None`.
    pub platform: Option<Platform>,
    /// Human notes (skipped trace lines, clamped jobs …) for reports.
    pub notes: Vec<String>,
    /// Where the workload's time 0 stands in calendar time.
    pub clock: crate::report::swf_out::Clock,
}

impl Validated {
    /// A workload with nothing else to say.
    pub fn of(workload: impl Workload) -> Validated {
        Validated {
            workload: Arc::new(workload),
            platform: None,
            notes: Vec::new(),
            clock: Default::default(),
        }
    }
}

/// Checks a scenario's `[workload]` for one kind: `platform` is
/// `[platform]`'s, when the scenario has one.
pub type Validate =
    fn(&Scenario, &WorkloadSection, Option<&Platform>) -> Result<Validated, ScenarioError>;

/// One workload kind as the rest of schedscope knows it.
pub struct WorkloadKindEntry {
    /// `kind = "…"` in a scenario.
    pub name: &'static str,
    /// One line on what it is, for `schedscope workloads`.
    pub summary: &'static str,
    /// The `[workload]` keys it reads besides `kind` (`params` for the
    /// table `[workload.params]`, where a registered kind keeps its own).
    pub keys: &'static [&'static str],
    /// Whether it needs `[platform]` (a trace brings its own machine).
    pub needs_platform: bool,
    pub validate: Validate,
    /// Its own family of figures, if it has one: every run of the kind
    /// reports them beside the common ones (its table, the JSON summary,
    /// sweeps' columns and CSV, `[expect]` and plots read them here).
    pub family: Option<&'static FigureFamily>,
}

/// The built-in kinds, in the order messages list them.
static KINDS: &[WorkloadKindEntry] = &[
    ngubiri::ENTRY,
    listed::JOBS,
    listed::SWF,
    listed::BATSIM,
    blanco::ENTRY,
    moldable::ENTRY,
    grid::ENTRY,
];

static REGISTERED: std::sync::RwLock<Vec<&'static WorkloadKindEntry>> =
    std::sync::RwLock::new(Vec::new());

/// Adds a workload kind of your own for the life of the process: scenarios
/// with `kind = "NAME"` then run it, its keys read from `[workload.params]`
/// (list `"params"` in its keys). Call it before the command line is read.
/// A name already taken, or one that is not lowercase words joined by `-`,
/// is refused.
pub fn register(entry: WorkloadKindEntry) -> Result<(), String> {
    let name = entry.name;
    if !crate::sched::is_catalog_name(name) {
        return Err(format!(
            "a workload kind is lowercase letters and digits in words joined by \"-\", not \"{name}\""
        ));
    }
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if KINDS
        .iter()
        .chain(registered.iter().copied())
        .any(|e| e.name == name)
    {
        return Err(format!("a workload kind named \"{name}\" already exists"));
    }
    registered.push(Box::leak(Box::new(entry)));
    Ok(())
}

/// Every kind: the built-in ones, then the registered.
pub fn all() -> Vec<&'static WorkloadKindEntry> {
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    KINDS.iter().chain(registered.iter().copied()).collect()
}

/// The kind named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static WorkloadKindEntry> {
    all().into_iter().find(|e| e.name == name)
}

/// Every kind with what it is and the keys it reads, for
/// `schedscope workloads`.
pub fn describe() -> String {
    let mut out = String::new();
    for e in all() {
        out.push_str(&format!("{}\n    {}\n", e.name, e.summary));
        let keys: Vec<String> = e.keys.iter().map(|k| format!("`{k}`")).collect();
        let keys = if keys.is_empty() {
            "none".to_string()
        } else {
            keys.join(", ")
        };
        out.push_str(&format!("    keys: {keys}"));
        if !e.needs_platform {
            out.push_str(" ([platform] optional)");
        }
        out.push('\n');
    }
    out.push_str(
        "\nThe keys go in [workload] beside `kind`; scenarios/README.md says what each takes.",
    );
    out
}

/// `[platform]`, which `kind` needs.
fn need_platform<'a>(s: &Scenario, p: Option<&'a Platform>) -> Result<&'a Platform, ScenarioError> {
    p.ok_or_else(|| {
        s.invalid("[platform] is missing: give `shape = \"5x20\"` or [[platform.clusters]] entries (only SWF workloads may leave it out)")
    })
}

pub(super) fn join(w: &[u32]) -> String {
    w.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("+")
}
