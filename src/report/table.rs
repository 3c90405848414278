//! Plain-text tables for the terminal.

use crate::metrics::{Grouping, Replicated};
use crate::policy::Catalogued;
use crate::runner::{ReplicatedSummary, RunResult};
use crate::scenario::Scenario;
use std::fmt::Write;

/// `12.34` or `12.34 ± 0.56`.
pub fn cell(r: Replicated, decimals: usize) -> String {
    match r.half_width {
        Some(h) => format!("{:.*} ± {:.*}", decimals, r.mean, decimals, h),
        None => format!("{:.*}", decimals, r.mean),
    }
}

pub fn render(scenario: &Scenario, result: &RunResult) -> String {
    let s = result.summary();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} · {} · {} · seed {} · {} replication{}",
        scenario.name(),
        scenario.platform().shape(),
        scenario.file.policy.label(),
        result.seed,
        s.replications,
        if s.replications == 1 { "" } else { "s" }
    );
    let left: u64 = result.replications.iter().map(|r| r.left).sum();
    if left > 0 {
        let _ = writeln!(
            out,
            "stopped at {} completions per replication with {left} jobs still queued or running (over all replications): the figures are of the jobs that ended",
            scenario.file.run.completions.map_or(0, |c| c.0)
        );
    }
    if let Some(u) = &result.unconverged {
        let _ = writeln!(out, "note: {u}");
    }
    out.push_str(&overall(&s));
    if let Some((family, values)) = &s.family {
        out.push('\n');
        out.push_str(&(family.block)(family, values));
    }
    for g in Grouping::ALL {
        out.push('\n');
        out.push_str(&groups(&s, g));
    }
    if !s.users.is_empty() {
        out.push('\n');
        out.push_str(&users(&s, 10));
    }
    out
}

pub fn overall(s: &ReplicatedSummary) -> String {
    let mut out = String::new();
    let f = |n: &str| s.get(n).unwrap_or(Replicated::ZERO);
    let _ = writeln!(out, "  jobs                  {}", cell(f("jobs"), 0));
    let _ = writeln!(out, "  ART (mean response)   {}", cell(f("art"), 3));
    let _ = writeln!(out, "  mean wait             {}", cell(f("mean_wait"), 3));
    let _ = writeln!(out, "  sd of wait            {}", cell(f("sd_wait"), 3));
    let _ = writeln!(
        out,
        "  mean slowdown         {}",
        cell(f("mean_slowdown"), 3)
    );
    let _ = writeln!(
        out,
        "  mean bounded slowdown {}",
        cell(f("mean_bounded_slowdown"), 3)
    );
    let _ = writeln!(out, "  utilization           {}", cell(f("utilization"), 4));
    let _ = writeln!(out, "  makespan              {}", cell(f("makespan"), 1));
    let _ = writeln!(
        out,
        "  started ahead         {}",
        cell(f("jumped_ahead"), 0)
    );
    if f("jumped_ahead").mean > 0.0 {
        let _ = writeln!(
            out,
            "    wait / slowdown     {} / {} (in order: {} / {})",
            cell(f("jumped_ahead_wait"), 3),
            cell(f("jumped_ahead_slowdown"), 3),
            cell(f("in_order_wait"), 3),
            cell(f("in_order_slowdown"), 3)
        );
    }
    for (name, label) in [("killed", "killed"), ("requeued", "requeued")] {
        let k = f(name);
        if k.mean > 0.0 {
            let _ = writeln!(out, "  {label:<21} {}", cell(k, 0));
        }
    }
    out
}

/// The busiest users (by job count) of an SWF workload.
pub fn users(s: &ReplicatedSummary, most: usize) -> String {
    let mut out = String::new();
    if s.users.is_empty() {
        return out;
    }
    let mut rows: Vec<_> = s.users.iter().collect();
    rows.sort_by(|a, b| {
        b.count
            .mean
            .total_cmp(&a.count.mean)
            .then(a.label.cmp(&b.label))
    });
    let _ = writeln!(
        out,
        "  {:<8} {:>10} {:>8} {:>8} {:>14} {:>14} {:>14}   ({} of {} users)",
        "by user",
        "jobs",
        "num %",
        "load %",
        "ART",
        "mean wait",
        "slowdown",
        most.min(rows.len()),
        rows.len()
    );
    for r in rows.into_iter().take(most) {
        let _ = writeln!(
            out,
            "  {:<8} {:>10} {:>8} {:>8} {:>14} {:>14} {:>14}",
            r.label,
            cell(r.count, 0),
            format!("{:.2}", r.number_pct.mean),
            format!("{:.2}", r.load_pct.mean),
            cell(r.art, 1),
            cell(r.mean_wait, 1),
            cell(r.mean_slowdown, 3),
        );
    }
    out
}

pub fn groups(s: &ReplicatedSummary, g: Grouping) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<6} {:>8} {:>10} {:>8} {:>8} {:>14} {:>14} {:>14}",
        format!("by {}", g.name()),
        "range",
        "jobs",
        "num %",
        "load %",
        "ART",
        "mean wait",
        "slowdown"
    );
    for r in &s.groups[g as usize] {
        let _ = writeln!(
            out,
            "  {:<6} {:>8} {:>10} {:>8} {:>8} {:>14} {:>14} {:>14}",
            r.label,
            r.range,
            cell(r.count, 0),
            format!("{:.2}", r.number_pct.mean),
            format!("{:.2}", r.load_pct.mean),
            cell(r.art, 3),
            cell(r.mean_wait, 3),
            cell(r.mean_slowdown, 3),
        );
    }
    out
}
