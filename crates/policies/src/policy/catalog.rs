//! Every policy schedscope can run, each declaring its name, what it is,
//! the parameters it reads with their ranges, its label and its builder.
//! Scenarios, commands, the console's picker and the help all read this
//! list: adding a policy is one entry here plus its own file.

use super::coalloc::{CoAlloc, Strategy};
use super::{Policy, ar, conservative, easy, fjt, fpfs, grid, pinned};
use crate::model::{Platform, SimTime};
use crate::policy::BuildPlacement;
use crate::sched::{
    BackfillOrder, Machines, MaxJumps, ParamValue, PolicyBuilder, PolicyName, PolicySpec,
};
use crate::taskgraph::ar::RearrangeOrder;

/// One policy as the rest of schedscope knows it.
pub struct PolicyEntry {
    pub name: PolicyName,
    /// One line on what the policy does, for the picker and the help.
    pub summary: &'static str,
    /// The parameters it reads, in the order the picker shows them.
    pub params: &'static [Param],
    /// A short human label for a spec of this policy, e.g.
    /// `FPFS(maxJumps 10) + worst fit`.
    pub label: fn(&PolicySpec) -> String,
    /// Builds it for a platform, or says why it cannot run there.
    pub build: PolicyBuilder,
}

/// A parameter a policy reads.
pub struct Param {
    /// The key in a scenario: one of the common keys (`max_jumps`,
    /// `placement`, `order`, `machines`) or a key of `[policy.params]`.
    pub key: &'static str,
    /// Its name on the picker.
    pub title: &'static str,
    /// A few words on what it changes, for the picker.
    pub hint: &'static str,
    pub kind: ParamKind,
}

/// What values a parameter takes.
pub enum ParamKind {
    /// `max_jumps`: a count or unlimited.
    MaxJumps,
    /// `placement`: a placement rule.
    Placement,
    /// `order`: the backfilling scan order.
    Order,
    /// `machines`: counted or pinned processors.
    Machines,
    /// A whole number in `min..=max`.
    Count { min: i64, max: i64, default: i64 },
    /// A number in `min..=max`, stepped by `step` on the picker.
    Number {
        min: f64,
        max: f64,
        step: f64,
        default: f64,
    },
    /// One of a few words.
    Choice {
        values: &'static [&'static str],
        default: &'static str,
    },
}

const MAX_JUMPS: Param = Param {
    key: "max_jumps",
    title: "maxJumps",
    hint: "digits; u = ∞",
    kind: ParamKind::MaxJumps,
};
const PLACEMENT: Param = Param {
    key: "placement",
    title: "placement",
    hint: "",
    kind: ParamKind::Placement,
};
const ORDER: Param = Param {
    key: "order",
    title: "backfill",
    hint: "",
    kind: ParamKind::Order,
};
const MACHINES: Param = Param {
    key: "machines",
    title: "processors",
    hint: "pinned: one cluster only",
    kind: ParamKind::Machines,
};

const LONG_MIN: Param = Param {
    key: "long_min",
    title: "long min",
    hint: "fewest processes of a long job",
    kind: ParamKind::Count {
        min: 1,
        max: 4096,
        default: 16,
    },
};
const WINDOW: Param = Param {
    key: "window",
    title: "window",
    hint: "when a backfilled job's window expires",
    kind: ParamKind::Choice {
        values: &fjt::WindowRule::WORDS,
        default: "estimate",
    },
};

const BROKEN: Param = Param {
    key: "broken",
    title: "broken",
    hint: "re-placing a reservation an overrun broke",
    kind: ParamKind::Choice {
        values: &["in-order", "around-later"],
        default: "in-order",
    },
};

/// Every policy, in the order the picker lists them.
pub static POLICIES: &[PolicyEntry] = &[
    PolicyEntry {
        name: PolicyName::Fcfs,
        summary: "first come, first served: only the head of the queue starts",
        params: &[PLACEMENT],
        label: |s| format!("FCFS + {}", place(s)),
        build: |s, _| {
            Ok(Box::new(fpfs::Fpfs::new(
                MaxJumps::Limit(0),
                s.placement.build(),
                s.clone(),
            )))
        },
    },
    PolicyEntry {
        name: PolicyName::Fpfs,
        summary: "fit processors first served: the first job that fits starts, \
                  the head jumped at most maxJumps times",
        params: &[MAX_JUMPS, PLACEMENT],
        label: |s| format!("FPFS(maxJumps {}) + {}", s.max_jumps, place(s)),
        build: |s, _| {
            Ok(Box::new(fpfs::Fpfs::new(
                s.max_jumps,
                s.placement.build(),
                s.clone(),
            )))
        },
    },
    PolicyEntry {
        name: PolicyName::Easy,
        summary: "EASY backfilling: the head holds a reservation, later jobs \
                  start early if they do not delay it",
        params: &[ORDER, PLACEMENT, MACHINES],
        label: |s| backfill_label("EASY backfilling", s),
        build: |s, p| match s.machines {
            Machines::Pinned => {
                one_cluster(p)?;
                Ok(Box::new(pinned::PinnedEasy::new(s.clone())))
            }
            Machines::Counted => Ok(Box::new(easy::Easy::new(s.placement.build(), s.clone()))),
        },
    },
    PolicyEntry {
        name: PolicyName::Conservative,
        summary: "conservative backfilling: every queued job holds a \
                  reservation, a job starts early only if it delays none",
        params: &[ORDER, PLACEMENT, MACHINES, BROKEN],
        label: |s| backfill_label("conservative backfilling", s),
        build: |s, p| match s.machines {
            Machines::Pinned => {
                one_cluster(p)?;
                Ok(Box::new(pinned::PinnedConservative::new(s.clone())))
            }
            Machines::Counted => Ok(Box::new(conservative::Conservative::new(
                s.placement.build(),
                s.clone(),
            ))),
        },
    },
    PolicyEntry {
        name: PolicyName::new("cbs"),
        summary: "chunk big small: FCFS, at least 75 % of a job's tasks on one \
                  cluster, the rest elsewhere",
        params: &[],
        label: |_| "CBS (chunk big small)".to_string(),
        build: |s, _| Ok(Box::new(CoAlloc::new(Strategy::Cbs, s.clone()))),
    },
    PolicyEntry {
        name: PolicyName::new("jpr"),
        summary: "job preferences on resources: FCFS, the most powerful free \
                  processors, co-allocating when needed",
        params: &[],
        label: |_| "JPR (most powerful processors)".to_string(),
        build: |s, _| Ok(Box::new(CoAlloc::new(Strategy::Jpr, s.clone()))),
    },
    PolicyEntry {
        name: PolicyName::new("pas"),
        summary: "package allocation: the queued jobs that fit the free \
                  processors, placed together by one mixed-integer program",
        params: &[],
        label: |_| "PAS (package + MIP allocation)".to_string(),
        build: |s, _| Ok(Box::new(CoAlloc::new(Strategy::Pas, s.clone()))),
    },
    PolicyEntry {
        name: PolicyName::Grid1,
        summary: "two-site grid, approach 1: a gang runs on one site; a FIFO \
                  queue per processor, local jobs backfill behind a waiting gang",
        params: GRID_PARAMS,
        label: |_| "grid approach 1 (one site)".to_string(),
        build: |s, _| Ok(Box::new(grid::Grid::new(s.clone()))),
    },
    PolicyEntry {
        name: PolicyName::Grid2,
        summary: "two-site grid, approach 2: as approach 1, and a gang may be \
                  split over both sites' idle processors (with the overhead)",
        params: GRID_PARAMS,
        label: |_| "grid approach 2 (may split)".to_string(),
        build: |s, _| Ok(Box::new(grid::Grid::new(s.clone()))),
    },
    PolicyEntry {
        name: PolicyName::new("ar"),
        summary: "advance reservations for task graphs: every interval, up to \
                  `group` graphs of one family rearranged, moved, interwoven \
                  and backfilled in one reservation; other jobs FCFS or EASY",
        params: &[
            Param {
                key: "interval",
                title: "request every (s)",
                hint: "seconds between reservation requests",
                kind: ParamKind::Count {
                    min: 1,
                    max: 86_400,
                    default: 1_800,
                },
            },
            Param {
                key: "group",
                title: "graphs per reservation",
                hint: "of one family",
                kind: ParamKind::Count {
                    min: 1,
                    max: 50,
                    default: 5,
                },
            },
            Param {
                key: "independent",
                title: "independent jobs",
                hint: "outside reservations",
                kind: ParamKind::Choice {
                    values: &["fcfs", "easy"],
                    default: "fcfs",
                },
            },
            Param {
                key: "rearrange",
                title: "rearrange",
                hint: "row order before moving subtasks",
                kind: ParamKind::Choice {
                    values: &["busiest-first", "least-busy-first"],
                    default: "busiest-first",
                },
            },
        ],
        label: |s| {
            format!(
                "AR (reservations every {} s, {} graphs; others {})",
                count(s, "interval").unwrap_or(1_800),
                count(s, "group").unwrap_or(5),
                choice(s, "independent").unwrap_or_default().to_uppercase()
            )
        },
        build: |s, p| {
            if p.clusters.len() != 1 {
                return Err(format!(
                    "ar needs a platform of one cluster; this one has {}",
                    p.clusters.len()
                ));
            }
            let order = match choice(s, "rearrange").as_deref() {
                Some("least-busy-first") => RearrangeOrder::LeastBusyFirst,
                _ => RearrangeOrder::BusiestFirst,
            };
            Ok(Box::new(ar::Ar::new(
                s.clone(),
                SimTime::from_secs(count(s, "interval").unwrap_or(1_800)),
                count(s, "group").unwrap_or(5) as usize,
                choice(s, "independent").as_deref() == Some("easy"),
                order,
            )))
        },
    },
    PolicyEntry {
        name: fjt::FIFO,
        summary: "moldable jobs in arrival order, each at its largest allowed \
                  size",
        params: &[],
        label: |_| "FIFO".to_string(),
        build: |s, p| fjt::Fjt::build(s.clone(), p),
    },
    PolicyEntry {
        name: fjt::FJT4,
        summary: "FJT sizes each moldable job at start; long jobs may start \
                  folded up to 4 processes a processor and expand later",
        params: &[LONG_MIN],
        label: |_| "FJT4".to_string(),
        build: |s, p| fjt::Fjt::build(s.clone(), p),
    },
    PolicyEntry {
        name: fjt::FJT4_BFA,
        summary: "FJT4 with aggressive backfilling; a backfilled job whose \
                  window expires is aborted and requeued",
        params: &[LONG_MIN, WINDOW],
        label: |_| "FJT4+BFA".to_string(),
        build: |s, p| fjt::Fjt::build(s.clone(), p),
    },
    PolicyEntry {
        name: fjt::FJT1_BFA,
        summary: "FJT sizing without folding, aggressive backfilling with \
                  aborts of expired backfilled jobs",
        params: &[LONG_MIN, WINDOW],
        label: |_| "FJT1+BFA".to_string(),
        build: |s, p| fjt::Fjt::build(s.clone(), p),
    },
    PolicyEntry {
        name: fjt::FJT1_BFM,
        summary: "FJT sizing without folding, backfilling with malleability: \
                  expired backfilled jobs are folded until the head fits",
        params: &[LONG_MIN, WINDOW],
        label: |_| "FJT1+BFM".to_string(),
        build: |s, p| fjt::Fjt::build(s.clone(), p),
    },
];

/// The two-site grid's open readings, the literal one as default.
const GRID_PARAMS: &[Param] = &[
    Param {
        key: "threshold",
        title: "T",
        hint: "seconds a backfill may delay a gang",
        kind: ParamKind::Number {
            min: 0.0,
            max: 1e6,
            step: 0.5,
            default: 0.0,
        },
    },
    Param {
        key: "idle",
        title: "idle",
        hint: "what the grid scheduler counts as idle",
        kind: ParamKind::Choice {
            values: &["not-executing", "unclaimed"],
            default: "not-executing",
        },
    },
    Param {
        key: "elapsed",
        title: "elapsed",
        hint: "time until a gang starts: exact or estimated",
        kind: ParamKind::Choice {
            values: &["exact", "estimated"],
            default: "exact",
        },
    },
    Param {
        key: "empty_queues",
        title: "queues",
        hint: "which empty queues a gang takes",
        kind: ParamKind::Choice {
            values: &["lowest", "idle-first", "random"],
            default: "lowest",
        },
    },
    Param {
        key: "wide",
        title: "wide",
        hint: "a gang no site holds: split on empty queues or only on idle",
        kind: ParamKind::Choice {
            values: &["queues", "idle"],
            default: "queues",
        },
    },
];

fn place(s: &PolicySpec) -> String {
    s.placement.as_str().replace('-', " ")
}

fn backfill_label(name: &str, s: &PolicySpec) -> String {
    // Pinned processors are always the lowest-numbered that fit: placement
    // plays no part.
    let tail = if s.machines == Machines::Pinned {
        ", pinned processors".to_string()
    } else {
        format!(" + {}", place(s))
    };
    match s.order {
        BackfillOrder::Arrival => format!("{name}{tail}"),
        o => format!("{name} ({} first){tail}", o.describe()),
    }
}

fn one_cluster(platform: &Platform) -> Result<(), String> {
    match platform.clusters.len() {
        1 => Ok(()),
        n => Err(format!(
            "machines = \"pinned\" needs a platform of one cluster; this one has {n}"
        )),
    }
}

/// Policies added by [`register`], after the built-in ones.
static REGISTERED: std::sync::RwLock<Vec<&'static PolicyEntry>> =
    std::sync::RwLock::new(Vec::new());

/// Adds a policy of your own to the catalog for the life of the process:
/// scenarios, `run`, `sweep`, `check`, `schedscope policies` and the
/// console's picker then know it by its name like a built-in one. Call it
/// before the command line is read (see `crates/sjf-easy` for a whole
/// program). A name already in the catalog, or one that is not lowercase
/// words joined by `-`, is refused.
pub fn register(entry: PolicyEntry) -> Result<(), String> {
    let name = entry.name.as_str();
    if !crate::sched::is_catalog_name(name) {
        return Err(format!(
            "a policy name is lowercase letters and digits in words joined by \"-\", \
             not \"{name}\""
        ));
    }
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if POLICIES
        .iter()
        .chain(registered.iter().copied())
        .any(|e| e.name == entry.name)
    {
        return Err(format!(
            "a policy named \"{name}\" is already in the catalog"
        ));
    }
    registered.push(Box::leak(Box::new(entry)));
    Ok(())
}

/// Every policy: the built-in ones in picker order, then the registered.
pub fn all() -> Vec<&'static PolicyEntry> {
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    POLICIES.iter().chain(registered.iter().copied()).collect()
}

/// The entry for `name`, if there is such a policy.
pub fn find(name: PolicyName) -> Option<&'static PolicyEntry> {
    if let Some(e) = POLICIES.iter().find(|e| e.name == name) {
        return Some(e);
    }
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    registered.iter().copied().find(|e| e.name == name)
}

/// Every policy's name, in catalog order.
pub fn names() -> impl Iterator<Item = PolicyName> {
    all().into_iter().map(|e| e.name)
}

fn known() -> String {
    let names: Vec<String> = all()
        .iter()
        .map(|e| format!("\"{}\"", e.name.as_str()))
        .collect();
    names.join(", ")
}

/// The declared parameter `key` of `entry`.
pub fn param(entry: &PolicyEntry, key: &str) -> Option<&'static Param> {
    entry.params.iter().find(|p| p.key == key)
}

/// Checks `spec` against its entry: a known name, only declared
/// parameters in `[policy.params]`, each of the kind and range declared,
/// so that a typo in a scenario cannot go unnoticed.
pub fn check(spec: &PolicySpec) -> Result<&'static PolicyEntry, String> {
    check_key(spec).map_err(|(_, m)| m)
}

/// [`check`], with the key the error is about (`name`, `machines` or
/// `params.KEY`), so a scenario can point at its line.
pub fn check_key(spec: &PolicySpec) -> Result<&'static PolicyEntry, (Vec<String>, String)> {
    let at = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let entry = find(spec.name).ok_or_else(|| {
        (
            at(&["name"]),
            format!(
                "name must be one of {}, found \"{}\"",
                known(),
                spec.name.as_str()
            ),
        )
    })?;
    // The common keys are accepted and ignored by policies that do not
    // read them (a sweep varies the policy under one set of keys), except
    // pinned processors, which change what a run means.
    if spec.machines == Machines::Pinned && param(entry, "machines").is_none() {
        let readers: Vec<&str> = all()
            .iter()
            .filter(|e| param(e, "machines").is_some())
            .map(|e| e.name.as_str())
            .collect();
        return Err((
            at(&["machines"]),
            format!(
                "machines = \"pinned\" is for {}, not {}",
                readers.join(" and "),
                spec.name.as_str()
            ),
        ));
    }
    for (key, value) in &spec.params {
        let p = param(entry, key)
            .filter(|p| {
                !matches!(
                    p.kind,
                    ParamKind::MaxJumps
                        | ParamKind::Placement
                        | ParamKind::Order
                        | ParamKind::Machines
                )
            })
            .ok_or_else(|| {
                (
                    at(&["params", key]),
                    format!(
                        "{} has no parameter params.{key} (it reads: {})",
                        spec.name.as_str(),
                        declared(entry)
                    ),
                )
            })?;
        check_value(p, value).map_err(|m| (at(&["params", key]), format!("params.{key} {m}")))?;
    }
    Ok(entry)
}

fn declared(entry: &PolicyEntry) -> String {
    if entry.params.is_empty() {
        return "nothing".to_string();
    }
    let keys: Vec<String> = entry
        .params
        .iter()
        .map(|p| match p.kind {
            ParamKind::MaxJumps | ParamKind::Placement | ParamKind::Order | ParamKind::Machines => {
                p.key.to_string()
            }
            _ => format!("params.{}", p.key),
        })
        .collect();
    keys.join(", ")
}

fn check_value(p: &Param, v: &ParamValue) -> Result<(), String> {
    match (&p.kind, v) {
        (ParamKind::Count { min, max, .. }, ParamValue::Int(i)) if (min..=max).contains(&i) => {
            Ok(())
        }
        (ParamKind::Count { min, max, .. }, _) => Err(format!(
            "must be a whole number from {min} to {max}, found {v}"
        )),
        (ParamKind::Number { min, max, .. }, _)
            if v.as_f64().is_some_and(|x| x >= *min && x <= *max) =>
        {
            Ok(())
        }
        (ParamKind::Number { min, max, .. }, _) => {
            Err(format!("must be a number from {min} to {max}, found {v}"))
        }
        (ParamKind::Choice { values, .. }, ParamValue::Text(t)) if values.contains(&t.as_str()) => {
            Ok(())
        }
        (ParamKind::Choice { values, .. }, _) => Err(format!(
            "must be one of {}, found {v}",
            values
                .iter()
                .map(|w| format!("\"{w}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => Ok(()),
    }
}

/// The value of a declared parameter of `[policy.params]`: the spec's, else
/// the declared default.
pub fn value(spec: &PolicySpec, p: &Param) -> ParamValue {
    if let Some(v) = spec.params.get(p.key) {
        return v.clone();
    }
    match p.kind {
        ParamKind::Count { default, .. } => ParamValue::Int(default),
        ParamKind::Number { default, .. } => ParamValue::Float(default),
        ParamKind::Choice { default, .. } => ParamValue::Text(default.to_string()),
        ParamKind::MaxJumps => ParamValue::Text(spec.max_jumps.to_string()),
        ParamKind::Placement => ParamValue::Text(spec.placement.as_str().to_string()),
        ParamKind::Order => ParamValue::Text(spec.order.as_str().to_string()),
        ParamKind::Machines => ParamValue::Text(
            match spec.machines {
                Machines::Counted => "counted",
                Machines::Pinned => "pinned",
            }
            .to_string(),
        ),
    }
}

/// A whole-number parameter of `[policy.params]` (its default if unset).
pub fn count(spec: &PolicySpec, key: &str) -> Option<i64> {
    let p = param(find(spec.name)?, key)?;
    match value(spec, p) {
        ParamValue::Int(i) => Some(i),
        _ => None,
    }
}

/// A number parameter of `[policy.params]` (its default if unset).
pub fn number(spec: &PolicySpec, key: &str) -> Option<f64> {
    let p = param(find(spec.name)?, key)?;
    value(spec, p).as_f64()
}

/// A word parameter of `[policy.params]` (its default if unset).
pub fn choice(spec: &PolicySpec, key: &str) -> Option<String> {
    let p = param(find(spec.name)?, key)?;
    match value(spec, p) {
        ParamValue::Text(t) => Some(t),
        _ => None,
    }
}

/// Every policy with its summary and parameters, for `schedscope policies`.
pub fn describe() -> String {
    let mut out = String::new();
    for e in all() {
        out.push_str(&format!("{}\n    {}\n", e.name.as_str(), e.summary));
        for p in e.params {
            let (key, takes) = match &p.kind {
                ParamKind::MaxJumps => (
                    p.key.to_string(),
                    "a whole number ≥ 0 or \"unlimited\" (default 10)".to_string(),
                ),
                ParamKind::Placement => (
                    p.key.to_string(),
                    "\"worst-fit\", \"best-fit\" or \"first-fit\" (default worst-fit)".to_string(),
                ),
                ParamKind::Order => (
                    p.key.to_string(),
                    "\"arrival\", \"shortest-estimate\" or \"smallest\" (default arrival)"
                        .to_string(),
                ),
                ParamKind::Machines => (
                    p.key.to_string(),
                    "\"counted\" or \"pinned\" (default counted)".to_string(),
                ),
                ParamKind::Count { min, max, default } => (
                    format!("params.{}", p.key),
                    format!("a whole number from {min} to {max} (default {default})"),
                ),
                ParamKind::Number {
                    min, max, default, ..
                } => (
                    format!("params.{}", p.key),
                    format!("a number from {min} to {max} (default {default})"),
                ),
                ParamKind::Choice { values, default } => (
                    format!("params.{}", p.key),
                    format!(
                        "{} (default {default})",
                        values
                            .iter()
                            .map(|v| format!("\"{v}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            };
            out.push_str(&format!("    policy.{key}: {takes}\n"));
        }
    }
    out
}

/// What the catalog knows of a spec: its label and how to build it.
pub trait Catalogued {
    /// A short human label, e.g. `FPFS(maxJumps 10) + worst fit`; its own
    /// parameters follow in brackets when set.
    fn label(&self) -> String;
    /// Builds the policy, or says why it cannot run on `platform`.
    fn build(&self, platform: &Platform) -> Result<Box<dyn Policy>, String>;
}

impl Catalogued for PolicySpec {
    fn label(&self) -> String {
        label(self)
    }

    fn build(&self, platform: &Platform) -> Result<Box<dyn Policy>, String> {
        let entry = check(self)?;
        (entry.build)(self, platform)
    }
}

/// [`Catalogued::label`].
pub fn label(spec: &PolicySpec) -> String {
    let Some(entry) = find(spec.name) else {
        return spec.name.as_str().to_string();
    };
    format!(
        "{}{}",
        (entry.label)(spec),
        crate::sched::params_suffix(spec)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::PlacementName;

    #[test]
    fn every_entry_builds_on_a_platform_of_its_own_and_is_found_by_name() {
        assert!(POLICIES.len() >= 4);
        for e in POLICIES {
            assert!(std::ptr::eq(find(e.name).unwrap(), e));
            assert_eq!(PolicyName::intern(e.name.as_str()), e.name);
            let spec = PolicySpec {
                name: e.name,
                ..PolicySpec::default()
            };
            assert!(spec.build(&Platform::uniform(1, 8)).is_ok(), "{}", e.name);
            assert!(!spec.label().is_empty());
        }
    }

    #[test]
    fn unknown_names_and_parameters_are_refused_with_what_is_known() {
        let spec = PolicySpec {
            name: PolicyName::intern("easyy"),
            ..PolicySpec::default()
        };
        let e = spec.build(&Platform::uniform(1, 8)).err().unwrap();
        assert!(
            e.contains("must be one of \"fcfs\", \"fpfs\", \"easy\", \"conservative\""),
            "{e}"
        );
        assert!(e.contains("found \"easyy\""), "{e}");
        let mut spec = PolicySpec::fcfs();
        spec.params.insert("threshold".into(), ParamValue::Int(3));
        let e = spec.build(&Platform::uniform(1, 8)).err().unwrap();
        assert!(e.contains("fcfs has no parameter params.threshold"), "{e}");
        assert!(e.contains("(it reads: placement)"), "{e}");
        let spec = PolicySpec {
            machines: Machines::Pinned,
            ..PolicySpec::fcfs()
        };
        let e = spec.build(&Platform::uniform(1, 8)).err().unwrap();
        assert!(
            e.contains("machines = \"pinned\" is for easy and conservative, not fcfs"),
            "{e}"
        );
    }

    #[test]
    fn parameter_values_are_checked_against_their_kind_and_range() {
        let check = |name: &str, key: &str, v: ParamValue| {
            let mut spec = PolicySpec {
                name: PolicyName::intern(name),
                ..PolicySpec::default()
            };
            spec.params.insert(key.into(), v);
            check(&spec).map(|_| ())
        };
        let text = |t: &str| ParamValue::Text(t.into());
        // A count: whole numbers from its min to its max.
        for ok in [1, 86_400] {
            assert_eq!(check("ar", "interval", ParamValue::Int(ok)), Ok(()));
        }
        for bad in [
            ParamValue::Int(0),
            ParamValue::Int(86_401),
            ParamValue::Float(60.0),
        ] {
            assert_eq!(
                check("ar", "interval", bad.clone()),
                Err(format!(
                    "params.interval must be a whole number from 1 to 86400, found {bad}"
                ))
            );
        }
        // A number: whole or not, from its min to its max.
        for ok in [
            ParamValue::Float(0.0),
            ParamValue::Int(3),
            ParamValue::Float(1e6),
        ] {
            assert_eq!(check("grid-1", "threshold", ok), Ok(()));
        }
        for bad in [
            ParamValue::Float(-0.5),
            ParamValue::Float(1e6 + 1.0),
            text("3"),
        ] {
            assert_eq!(
                check("grid-1", "threshold", bad.clone()),
                Err(format!(
                    "params.threshold must be a number from 0 to 1000000, found {bad}"
                ))
            );
        }
        // A choice: one of its words.
        assert_eq!(check("ar", "independent", text("easy")), Ok(()));
        for bad in [text("sjf"), ParamValue::Int(1)] {
            assert_eq!(
                check("ar", "independent", bad.clone()),
                Err(format!(
                    "params.independent must be one of \"fcfs\", \"easy\", found {bad}"
                ))
            );
        }
    }

    #[test]
    fn a_parameter_reads_as_set_else_as_declared() {
        let mut grid = PolicySpec {
            name: PolicyName::Grid1,
            ..PolicySpec::default()
        };
        assert_eq!(number(&grid, "threshold"), Some(0.0));
        grid.params
            .insert("threshold".into(), ParamValue::Float(2.5));
        assert_eq!(number(&grid, "threshold"), Some(2.5));
        grid.params.insert("threshold".into(), ParamValue::Int(3));
        assert_eq!(number(&grid, "threshold"), Some(3.0));
        assert_eq!(choice(&grid, "idle").as_deref(), Some("not-executing"));
        assert_eq!(number(&grid, "interval"), None, "not a parameter of grid-1");
        let mut ar = PolicySpec {
            name: PolicyName::new("ar"),
            ..PolicySpec::default()
        };
        assert_eq!(count(&ar, "interval"), Some(1_800));
        ar.params.insert("interval".into(), ParamValue::Int(60));
        assert_eq!(count(&ar, "interval"), Some(60));
        assert_eq!(count(&ar, "independent"), None, "a word, not a count");
    }

    #[test]
    fn the_listing_names_every_policy_and_parameter() {
        let text = describe();
        for e in POLICIES {
            assert!(text.contains(&format!("{}\n    {}", e.name.as_str(), e.summary)));
        }
        assert!(
            text.contains("policy.max_jumps: a whole number ≥ 0"),
            "{text}"
        );
        assert!(
            text.contains("policy.machines: \"counted\" or \"pinned\""),
            "{text}"
        );
    }

    #[test]
    fn labels_are_the_ones_reports_have_always_carried() {
        assert_eq!(
            PolicySpec::fpfs(MaxJumps::Limit(10)).label(),
            "FPFS(maxJumps 10) + worst fit"
        );
        assert_eq!(
            PolicySpec::fcfs()
                .with_placement(PlacementName::BestFit)
                .label(),
            "FCFS + best fit"
        );
        let pinned = PolicySpec {
            name: PolicyName::Conservative,
            machines: Machines::Pinned,
            ..PolicySpec::default()
        };
        assert_eq!(
            pinned.label(),
            "conservative backfilling, pinned processors"
        );
        let sjf = PolicySpec {
            name: PolicyName::Easy,
            order: BackfillOrder::ShortestEstimate,
            ..PolicySpec::default()
        };
        assert_eq!(
            sjf.label(),
            "EASY backfilling (shortest estimate first) + worst fit"
        );
    }
}
