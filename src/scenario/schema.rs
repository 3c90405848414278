//! The scenario file, field by field (documented in `scenarios/README.md`).

use super::values::{AtLeastOne, OpenUnit, Positive, PositiveSeconds, Seconds};
use crate::engine::Command;
use crate::metrics::GroupBounds;
use crate::policy::{PolicySpec, SharedParams};
use crate::workload::estimates::EstimateModel;
use crate::workload::ngubiri::SplitApproach;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub platform: Option<Spanned<PlatformSection>>,
    pub workload: Spanned<WorkloadSection>,
    /// A Poisson stream of task graphs beside the workload's jobs.
    pub graphs: Option<Spanned<GraphsSection>>,
    /// Read by the catalog, which knows the keys of `[policy]`.
    #[serde(
        default = "default_policy",
        deserialize_with = "crate::policy::catalog::read"
    )]
    pub policy: PolicySpec,
    #[serde(default)]
    pub estimates: EstimateModel,
    #[serde(default)]
    pub run: RunSection,
    #[serde(default)]
    pub metrics: MetricsSection,
    #[serde(default)]
    pub timeline: Vec<Spanned<TimelineEntry>>,
    #[serde(default)]
    pub expect: BTreeMap<String, Spanned<Bound>>,
}

fn default_seed() -> u64 {
    1
}

fn default_policy() -> PolicySpec {
    PolicySpec::scenario_default()
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformSection {
    /// `"5x20"`: five clusters of twenty processors at speed 1.
    pub shape: Option<Spanned<String>>,
    #[serde(default)]
    pub clusters: Vec<Spanned<ClusterEntry>>,
    /// H, the spread of effective power Γ between clusters (0 ≤ H < 1):
    /// the first cluster Γ = 1, the last 1 − H, the others evenly between,
    /// in cluster order. Overrides the clusters' own `speed`/`gamma`.
    pub heterogeneity: Option<Spanned<f64>>,
    /// A star network: each cluster's link to a central switch.
    pub network: Option<Spanned<NetworkSection>>,
}

/// `[platform.network]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// Available bandwidth of each link (GB/s, the unit of BSBW): one
    /// value for every link, or one per cluster. Default 1 (the paper's
    /// gigabit network read as 1 GB/s).
    pub abw: Option<Spanned<OneOrMany>>,
}

/// A number, or a list of numbers.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(f64),
    Many(Vec<f64>),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterEntry {
    pub name: Option<String>,
    pub processors: AtLeastOne,
    #[serde(default = "unit_speed")]
    pub speed: Positive,
    /// The effective power Γ (0 < Γ ≤ 1), the paper's name for `speed`.
    pub gamma: Option<f64>,
}

fn unit_speed() -> Positive {
    Positive(1.0)
}

/// `[graphs]`: task graphs arriving beside the workload (see
/// [`crate::workload::graphs`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphsSection {
    /// How the stream's arrivals are set: a number of graphs over the
    /// span (`count`) or a mean time between graphs (`mean_interarrival`).
    pub arrivals: Option<Spanned<GraphArrivals>>,
    /// Graphs over the span, for `arrivals = "count"` (the paper: 2,400).
    pub count: Option<Spanned<AtLeastOne>>,
    /// Mean time between two graphs, for `arrivals = "rate"` (the paper:
    /// about 4 every 10 minutes).
    pub mean_interarrival: Option<Spanned<PositiveSeconds>>,
    /// Subtasks per graph: "7-12", "13-18" or "19-24".
    #[serde(default = "d_graph_size")]
    pub size: crate::taskgraph::generate::SizeClass,
    /// Target processors each graph is scheduled on.
    #[serde(default = "d_tpes")]
    pub tpes: AtLeastOne,
    /// Graphs in a row drawn from one leaf (family) of the generator.
    #[serde(default = "d_per_family")]
    pub per_family: AtLeastOne,
    /// Simulated seconds per weight unit of the graphs.
    #[serde(default = "d_unit")]
    pub unit: PositiveSeconds,
    /// No graph arrives after this many seconds, or `"trace"`: graphs
    /// arrive from the first to the last submit of the workload's jobs. By
    /// default from 0 to the last submit.
    pub until: Option<Spanned<GraphsUntil>>,
}

/// `[graphs] arrivals`: what sets the graph stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GraphArrivals {
    /// `count` graphs over the span, at the times of a Poisson process
    /// given that count (sorted uniform draws).
    #[default]
    Count,
    /// A Poisson process of mean gap `mean_interarrival` until the span
    /// ends.
    Rate,
}

/// `[graphs] until`: seconds, or the workload's span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GraphsUntil {
    At(Seconds),
    Trace,
}

impl<'de> Deserialize<'de> for GraphsUntil {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Word(w) if w == "trace" => Ok(GraphsUntil::Trace),
            Raw::Word(w) => Err(serde::de::Error::custom(format!(
                "must be a time in seconds or \"trace\", found \"{w}\""
            ))),
            Raw::Number(v) => {
                Seconds::deserialize(serde::de::value::F64Deserializer::<D::Error>::new(v))
                    .map(GraphsUntil::At)
            }
        }
    }
}

/// The paper's graph count for one branch of the test bench.
pub const GRAPH_COUNT: u32 = 2_400;
/// The paper's "about 4 every 10 minutes".
pub const GRAPH_GAP: f64 = 150.0;
fn d_graph_size() -> crate::taskgraph::generate::SizeClass {
    crate::taskgraph::generate::SizeClass::Gs7_12
}
fn d_tpes() -> AtLeastOne {
    AtLeastOne(4)
}
fn d_per_family() -> AtLeastOne {
    AtLeastOne(5)
}
fn d_unit() -> PositiveSeconds {
    PositiveSeconds(1.0)
}

/// `[workload]`: one table for every kind (so that each value keeps its
/// line for messages); validation says which keys a kind takes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// The kind's name (`scenario::kinds`), checked when validated.
    pub kind: Spanned<String>,
    // kind = "ngubiri"
    pub q: Option<Spanned<OpenUnit>>,
    pub min_size: Option<Spanned<AtLeastOne>>,
    pub max_size: Option<Spanned<AtLeastOne>>,
    pub mean_interarrival: Option<Spanned<PositiveSeconds>>,
    pub mean_runtime: Option<Spanned<PositiveSeconds>>,
    pub split: Option<Spanned<SplitSection>>,
    // kind = "jobs"
    pub jobs: Option<Vec<Spanned<InlineJob>>>,
    // kind = "swf"
    /// Relative paths are taken from the scenario file's folder.
    pub path: Option<Spanned<String>>,
    /// Take only the first N jobs of the trace.
    pub first_jobs: Option<Spanned<AtLeastOne>>,
    /// Take only jobs submitted at or after this many seconds.
    pub start_time: Option<Spanned<Seconds>>,
    /// Take only jobs submitted before this many seconds.
    pub end_time: Option<Spanned<Seconds>>,
    /// Jobs larger than the platform: reject the scenario, clamp them to the
    /// largest cluster, or skip them (counted).
    pub oversize: Option<Spanned<Oversize>>,
    /// Shift the selected jobs' submit times so that the first is 0.
    pub start_at_zero: Option<Spanned<bool>>,
    /// Where the file can be downloaded, said when it is missing.
    pub download: Option<Spanned<String>>,
    // kind = "blanco"
    pub interarrival_scale: Option<Spanned<f64>>,
    pub interarrival_shape: Option<Spanned<f64>>,
    pub runtime_scale: Option<Spanned<f64>>,
    pub runtime_shape: Option<Spanned<f64>>,
    pub size_shape: Option<Spanned<f64>>,
    pub size_scale: Option<Spanned<f64>>,
    pub size_reading: Option<Spanned<crate::workload::blanco::SizeReading>>,
    pub pow2_share: Option<Spanned<f64>>,
    pub bsbw: Option<Spanned<f64>>,
    pub sigma: Option<Spanned<OneOrMany>>,
    // kind = "grid"
    /// λ: local jobs per second at each site.
    pub local_rate: Option<Spanned<f64>>,
    /// λ3: gangs per second at the grid scheduler.
    pub gang_rate: Option<Spanned<f64>>,
    pub gang_sizes: Option<Spanned<crate::workload::grid::GangSizes>>,
    pub gang_service: Option<Spanned<crate::workload::grid::GangService>>,
    /// 1/μ, seconds.
    pub mean_service: Option<Spanned<f64>>,
    /// How much longer a gang split over sites runs (0.1: 10 %).
    pub split_overhead: Option<Spanned<f64>>,
    // kind = "moldable" (also max_size)
    /// Machine utilization in sequential CPU time (1.0 = 100 %).
    pub utilization: Option<Spanned<f64>>,
    /// The short jobs' share of the utilization.
    pub short_load: Option<Spanned<f64>>,
    /// A type is long when its sequential time is over this many seconds.
    pub long_threshold: Option<Spanned<f64>>,
    /// A job folded f times runs at 1/(f·(1 + fold_overhead)).
    pub fold_overhead: Option<Spanned<f64>>,
    /// The largest multiprogramming level a fold may reach.
    pub max_mpl: Option<Spanned<AtLeastOne>>,
    /// Estimated sequential time = actual × a factor drawn uniformly from
    /// [low, high] (one number: always that factor).
    pub estimate_factor: Option<Spanned<OneOrMany>>,
    /// The smallest size a short job may run at (allowed sizes below it
    /// are dropped).
    pub short_min_size: Option<Spanned<AtLeastOne>>,
    /// Downey's (A, σ) per application type.
    pub speedup: Option<Spanned<SpeedupSection>>,
    // a registered kind (`scenario::kinds::register`)
    /// `[workload.params]`: the keys of a kind of one's own, which its
    /// validation reads and checks.
    pub params: Option<Spanned<toml::Table>>,
}

/// `[workload.speedup]`: Downey's average parallelism `a` and variance of
/// parallelism `sigma` for each application type of the moldable workload.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeedupSection {
    pub bt_a: Option<Spanned<DowneyEntry>>,
    pub cg_b: Option<Spanned<DowneyEntry>>,
    pub lu_w: Option<Spanned<DowneyEntry>>,
    pub sweep3d: Option<Spanned<DowneyEntry>>,
}

/// One type's speedup parameters; a key left out keeps its default.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DowneyEntry {
    pub a: Option<f64>,
    pub sigma: Option<f64>,
}

impl WorkloadSection {
    /// The keys given, with their spans, for "does not apply" messages.
    pub fn given(&self) -> Vec<(&'static str, std::ops::Range<usize>)> {
        let mut v = Vec::new();
        macro_rules! g {
            ($($f:ident),*) => { $( if let Some(x) = &self.$f { v.push((stringify!($f), x.span())); } )* };
        }
        g!(
            q,
            min_size,
            max_size,
            mean_interarrival,
            mean_runtime,
            split
        );
        if let Some(j) = &self.jobs {
            v.push(("jobs", j.first().map_or(self.kind.span(), |x| x.span())));
        }
        g!(
            path,
            first_jobs,
            start_time,
            end_time,
            oversize,
            start_at_zero,
            download
        );
        g!(
            interarrival_scale,
            interarrival_shape,
            runtime_scale,
            runtime_shape,
            size_shape,
            size_scale,
            size_reading,
            pow2_share,
            bsbw,
            sigma
        );
        g!(
            utilization,
            short_load,
            long_threshold,
            fold_overhead,
            max_mpl,
            estimate_factor,
            short_min_size,
            speedup,
            local_rate,
            gang_rate,
            gang_sizes,
            gang_service,
            mean_service,
            split_overhead,
            params
        );
        v
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSection {
    /// The largest job that is not split (`thres`).
    #[serde(default = "d_thres")]
    pub threshold: u32,
    /// The most components a job may have (k).
    #[serde(default = "d_k")]
    pub max_components: AtLeastOne,
    #[serde(default)]
    pub approach: SplitApproach,
}

impl Default for SplitSection {
    fn default() -> Self {
        SplitSection {
            threshold: d_thres(),
            max_components: d_k(),
            approach: SplitApproach::Random,
        }
    }
}

fn d_thres() -> u32 {
    11
}
fn d_k() -> AtLeastOne {
    AtLeastOne(4)
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineJob {
    /// Defaults to the job's position in the list, from 1.
    pub id: Option<u64>,
    pub submit: Seconds,
    /// Total processors; may be left out when `components` is given.
    pub size: Option<AtLeastOne>,
    pub components: Option<Vec<AtLeastOne>>,
    pub runtime: Seconds,
    pub estimate: Option<Seconds>,
    pub user: Option<i64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oversize {
    #[default]
    Reject,
    Clamp,
    Skip,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Jobs per replication for generated workloads.
    #[serde(default = "d_jobs")]
    pub jobs: AtLeastOne,
    /// End each replication when this many jobs have completed (the jobs
    /// still queued or running are left out); a generated workload then
    /// arrives without end and `jobs` does not apply.
    pub completions: Option<AtLeastOne>,
    #[serde(default)]
    pub replications: Replications,
    #[serde(default)]
    pub warmup_jobs: u64,
    /// For `replications = "auto"`: stop when the 95 % half-width of ART is
    /// within this fraction of the mean.
    #[serde(default = "d_rel")]
    pub relative_error: OpenUnit,
    #[serde(default = "d_minrep")]
    pub min_replications: AtLeastOne,
    #[serde(default = "d_maxrep")]
    pub max_replications: AtLeastOne,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            jobs: d_jobs(),
            completions: None,
            replications: Replications::default(),
            warmup_jobs: 0,
            relative_error: d_rel(),
            min_replications: d_minrep(),
            max_replications: d_maxrep(),
        }
    }
}

fn d_jobs() -> AtLeastOne {
    AtLeastOne(10_000)
}
fn d_rel() -> OpenUnit {
    OpenUnit(0.05)
}
fn d_minrep() -> AtLeastOne {
    AtLeastOne(3)
}
fn d_maxrep() -> AtLeastOne {
    AtLeastOne(30)
}

/// The most replications a run takes: each one's summary is kept for the
/// confidence intervals, so the count bounds the memory a run needs.
pub const MAX_REPLICATIONS: u32 = 10_000;

/// A fixed number of replications, or `"auto"`: until the confidence
/// half-width of ART is within `relative_error` of the mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Replications {
    Fixed(u32),
    Auto,
}

impl Default for Replications {
    fn default() -> Self {
        Replications::Fixed(1)
    }
}

impl<'de> Deserialize<'de> for Replications {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(i64),
            S(String),
        }
        let msg =
            format!("replications must be a whole number from 1 to {MAX_REPLICATIONS} or \"auto\"");
        match Raw::deserialize(d).map_err(|_| serde::de::Error::custom(&msg))? {
            Raw::N(n) if (1..=MAX_REPLICATIONS as i64).contains(&n) => {
                Ok(Replications::Fixed(n as u32))
            }
            Raw::S(s) if s == "auto" => Ok(Replications::Auto),
            Raw::N(n) => Err(serde::de::Error::custom(format!("{msg}, found {n}"))),
            Raw::S(s) => Err(serde::de::Error::custom(format!("{msg}, found \"{s}\""))),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSection {
    #[serde(default)]
    pub groups: GroupBounds,
}

/// A `[[timeline]]` entry: a command, or a lesson's cue, at a simulated
/// time (seconds).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct TimelineEntry {
    pub at: Seconds,
    #[serde(flatten)]
    pub what: Timed,
}

impl TimelineEntry {
    /// The engine command, if this entry is one (not a cue).
    pub fn command(&self) -> Option<&Command> {
        match &self.what {
            Timed::Command(c) => Some(c),
            Timed::Cue(_) => None,
        }
    }
}

/// What a timeline entry holds: an operator command the engine carries
/// out, or a cue only the console reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Timed {
    Command(Command),
    Cue(Cue),
}

/// A lesson's cue (`action = "cue"`): the console pauses when simulated
/// time reaches it, shows `text`, selects job `select` and focuses
/// `pane`. The engine never sees a cue: a headless run of the scenario is
/// the same with its cues as without them.
#[derive(Clone, Debug, PartialEq)]
pub struct Cue {
    pub text: String,
    pub select: Option<u64>,
    pub pane: Option<CuePane>,
}

impl Cue {
    /// The cue of a timeline entry's keys (`action` taken out), each
    /// error naming its key.
    fn of(mut table: toml::Table) -> Result<Cue, String> {
        let field = |key: &str, e: toml::de::Error| {
            format!(
                "`{key}` {}",
                super::messages::plain(e.message().trim_end(), "")
            )
        };
        let text = match table.remove("text") {
            Some(v) => String::deserialize(v).map_err(|e| field("text", e))?,
            None => return Err("missing field `text`".into()),
        };
        let select = table
            .remove("select")
            .map(u64::deserialize)
            .transpose()
            .map_err(|e| field("select", e))?;
        let pane = table
            .remove("pane")
            .map(CuePane::deserialize)
            .transpose()
            .map_err(|e| field("pane", e))?;
        if let Some(k) = table.keys().next() {
            return Err(format!(
                "unknown field `{k}`, expected one of `at`, `action`, `text`, `select`, `pane`"
            ));
        }
        Ok(Cue { text, select, pane })
    }
}

/// The console panes a cue may focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CuePane {
    Queue,
    Clusters,
    Backfill,
    Groups,
    History,
}

/// The action that makes an entry a cue.
pub const CUE_ACTION: &str = "cue";

impl<'de> Deserialize<'de> for Timed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        let action = table
            .get("action")
            .and_then(|a| a.as_str())
            .map(str::to_string);
        if action.as_deref() == Some(CUE_ACTION) {
            table.remove("action");
            return Cue::of(table).map(Timed::Cue).map_err(D::Error::custom);
        }
        // A policy is read by the catalog, as `[policy]` is.
        let policy = match action.as_deref() {
            Some("set-policy") => table
                .get("policy")
                .cloned()
                .map(crate::policy::catalog::read)
                .transpose()
                .map_err(|e| D::Error::custom(e.message().trim_end()))?,
            _ => None,
        };
        let command = Command::deserialize(toml::Value::Table(table)).map_err(|e| {
            let m = e.message().trim_end();
            // An unknown action: the list of actions has the cue too.
            match action {
                Some(a) if m.starts_with(&format!("unknown variant `{a}`")) => {
                    D::Error::custom(format!("{m}, `{CUE_ACTION}`"))
                }
                _ => D::Error::custom(m),
            }
        })?;
        Ok(Timed::Command(match (command, policy) {
            (Command::SetPolicy { .. }, Some(policy)) => Command::SetPolicy { policy },
            (command, _) => command,
        }))
    }
}

/// Bounds on a named figure for `schedscope check`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bound {
    pub min: Option<f64>,
    pub max: Option<f64>,
}
