//! The parameters several policies share (written in `[policy]` itself)
//! and the label and platform rules their entries call: a policy of its
//! own file declares its entry with these.

use super::shared::{BackfillOrder, Machines};
use super::{Param, ParamKind};
use crate::model::Platform;
use crate::policy::SharedParams;
use crate::sched::PolicySpec;

/// FPFS's limit on jumps over the head.
pub const MAX_JUMPS: Param = Param {
    key: "max_jumps",
    title: "maxJumps",
    hint: "digits; u = ∞",
    kind: ParamKind::Limit {
        max: 100_000,
        default: 10,
    },
};
/// Where a job's components go.
pub const PLACEMENT: Param = Param {
    key: "placement",
    title: "placement",
    hint: "",
    kind: ParamKind::Choice {
        values: &["worst-fit", "best-fit", "first-fit"],
        default: "worst-fit",
        shown: &["worst fit", "best fit", "first fit"],
    },
};
/// The order in which backfilling considers queued jobs.
pub const ORDER: Param = Param {
    key: "order",
    title: "backfill",
    hint: "",
    kind: ParamKind::Choice {
        values: &["arrival", "shortest-estimate", "smallest"],
        default: "arrival",
        shown: &["arrival first", "shortest estimate first", "smallest first"],
    },
};
/// Counted or pinned processors under backfilling.
pub const MACHINES: Param = Param {
    key: "machines",
    title: "processors",
    hint: "pinned: one cluster only",
    kind: ParamKind::Choice {
        values: &["counted", "pinned"],
        default: "counted",
        shown: &[],
    },
};

/// The placement rule in words (`worst fit`).
pub fn place(s: &PolicySpec) -> String {
    s.placement().as_str().replace('-', " ")
}

/// A backfilling policy's label: its name, its order unless arrival, and
/// its placement or pinned processors.
pub fn backfill_label(name: &str, s: &PolicySpec) -> String {
    // Pinned processors are always the lowest-numbered that fit: placement
    // plays no part.
    let tail = if s.machines() == Machines::Pinned {
        ", pinned processors".to_string()
    } else {
        format!(" + {}", place(s))
    };
    match s.order() {
        BackfillOrder::Arrival => format!("{name}{tail}"),
        o => format!("{name} ({} first){tail}", o.describe()),
    }
}

/// Pinned processors need a platform of one cluster.
pub fn one_cluster(platform: &Platform) -> Result<(), String> {
    match platform.clusters.len() {
        1 => Ok(()),
        n => Err(format!(
            "machines = \"pinned\" needs a platform of one cluster; this one has {n}"
        )),
    }
}
