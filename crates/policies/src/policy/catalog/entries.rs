//! The built-in policies: one entry each, with the parameters they share
//! and the labels and platform checks their entries call.

use super::{Param, ParamKind, PolicyEntry, choice, count};
use crate::model::{Platform, SimTime};
use crate::policy::coalloc::{CoAlloc, Strategy};
use crate::policy::{BuildPlacement, ar, conservative, easy, fjt, fpfs, grid, pinned};
use crate::sched::{BackfillOrder, Machines, MaxJumps, PolicyName, PolicySpec};
use crate::taskgraph::ar::RearrangeOrder;

const MAX_JUMPS: Param = Param {
    key: "max_jumps",
    title: "maxJumps",
    hint: "digits; u = ∞",
    kind: ParamKind::Limit {
        max: 100_000,
        default: 10,
    },
};
const PLACEMENT: Param = Param {
    key: "placement",
    title: "placement",
    hint: "",
    kind: ParamKind::Choice {
        values: &["worst-fit", "best-fit", "first-fit"],
        default: "worst-fit",
        shown: &["worst fit", "best fit", "first fit"],
    },
};
const ORDER: Param = Param {
    key: "order",
    title: "backfill",
    hint: "",
    kind: ParamKind::Choice {
        values: &["arrival", "shortest-estimate", "smallest"],
        default: "arrival",
        shown: &["arrival first", "shortest estimate first", "smallest first"],
    },
};
const MACHINES: Param = Param {
    key: "machines",
    title: "processors",
    hint: "pinned: one cluster only",
    kind: ParamKind::Choice {
        values: &["counted", "pinned"],
        default: "counted",
        shown: &[],
    },
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
        shown: &[],
    },
};

const BROKEN: Param = Param {
    key: "broken",
    title: "broken",
    hint: "re-placing a reservation an overrun broke",
    kind: ParamKind::Choice {
        values: &["in-order", "around-later"],
        default: "in-order",
        shown: &[],
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
                    shown: &[],
                },
            },
            Param {
                key: "rearrange",
                title: "rearrange",
                hint: "row order before moving subtasks",
                kind: ParamKind::Choice {
                    values: &["busiest-first", "least-busy-first"],
                    default: "busiest-first",
                    shown: &[],
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
            shown: &[],
        },
    },
    Param {
        key: "elapsed",
        title: "elapsed",
        hint: "time until a gang starts: exact or estimated",
        kind: ParamKind::Choice {
            values: &["exact", "estimated"],
            default: "exact",
            shown: &[],
        },
    },
    Param {
        key: "empty_queues",
        title: "queues",
        hint: "which empty queues a gang takes",
        kind: ParamKind::Choice {
            values: &["lowest", "idle-first", "random"],
            default: "lowest",
            shown: &[],
        },
    },
    Param {
        key: "wide",
        title: "wide",
        hint: "a gang no site holds: split on empty queues or only on idle",
        kind: ParamKind::Choice {
            values: &["queues", "idle"],
            default: "queues",
            shown: &[],
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
