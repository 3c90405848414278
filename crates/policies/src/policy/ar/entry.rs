//! AR's catalog entry: its parameters, label and how it is built.

use super::Ar;
use crate::model::SimTime;
use crate::policy::catalog::{Param, ParamKind, PolicyEntry, choice, count};
use crate::sched::PolicyName;
use crate::taskgraph::ar::RearrangeOrder;

/// Its catalog entry.
pub const AR_ENTRY: PolicyEntry = PolicyEntry {
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
        Ok(Box::new(Ar::new(
            s.clone(),
            SimTime::from_secs(count(s, "interval").unwrap_or(1_800)),
            count(s, "group").unwrap_or(5) as usize,
            choice(s, "independent").as_deref() == Some("easy"),
            order,
        )))
    },
};
