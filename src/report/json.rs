//! The JSON summary (`--format json`, `summary.json`). The schema is in
//! `scenarios/README.md`; `schema_version` changes when it does.

use crate::metrics::{Grouping, Replicated};
use crate::policy::Catalogued;
use crate::runner::{ReplicatedRow, RunResult};
use crate::scenario::Scenario;
use crate::scenario::kinds::FigureFamily;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

pub const SCHEMA_VERSION: u32 = 1;

fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// Adds `name: mean` to `obj` and, with a half-width, `half_width.name`.
fn put(obj: &mut Map<String, Value>, hw: &mut Map<String, Value>, name: &str, r: Replicated) {
    obj.insert(name.to_string(), num(r.mean));
    if let Some(h) = r.half_width {
        hw.insert(name.to_string(), num(h));
    }
}

fn row(r: &ReplicatedRow) -> Value {
    let mut o = Map::new();
    let mut hw = Map::new();
    o.insert("label".into(), Value::String(r.label.clone()));
    o.insert("range".into(), Value::String(r.range.clone()));
    put(&mut o, &mut hw, "count", r.count);
    put(&mut o, &mut hw, "number_pct", r.number_pct);
    put(&mut o, &mut hw, "load_pct", r.load_pct);
    put(&mut o, &mut hw, "art", r.art);
    put(&mut o, &mut hw, "mean_wait", r.mean_wait);
    put(&mut o, &mut hw, "mean_slowdown", r.mean_slowdown);
    if !hw.is_empty() {
        o.insert("half_width".into(), Value::Object(hw));
    }
    Value::Object(o)
}

/// The summary document of a run.
pub fn summary(scenario: &Scenario, result: &RunResult) -> Value {
    let s = result.summary();
    let mut overall = Map::new();
    let mut hw = Map::new();
    for (name, r) in &s.overall {
        put(&mut overall, &mut hw, name, *r);
    }
    if !hw.is_empty() {
        overall.insert("half_width".into(), Value::Object(hw));
    }
    let mut groups = Map::new();
    for g in Grouping::ALL {
        groups.insert(
            g.name().to_string(),
            Value::Array(s.groups[g as usize].iter().map(row).collect()),
        );
    }
    groups.insert(
        "user".to_string(),
        Value::Array(s.users.iter().map(row).collect()),
    );
    let mut metrics = Map::new();
    metrics.insert("overall".into(), Value::Object(overall));
    metrics.insert("groups".into(), Value::Object(groups));
    if let Some((family, values)) = &s.family {
        metrics.insert(family.name.into(), family_table(family, values));
    }
    let policy = &scenario.file.policy;
    let platform = scenario.platform();
    let jobs: u64 = result.replications.iter().map(|r| r.summary.jobs).sum();
    let left: u64 = result.replications.iter().map(|r| r.left).sum();
    let mut out = json!({
        "schema_version": SCHEMA_VERSION,
        "scenario": scenario.name(),
        "description": scenario.file.description,
        "seed": result.seed,
        "replications": result.replications.len(),
        "replication_seeds": result.replications.iter().map(|r| r.seed).collect::<Vec<_>>(),
        "policy": {
            "name": policy.name.as_str(),
            "label": policy.label(),
            "spec": serde_json::to_value(policy).unwrap_or(Value::Null),
        },
        "estimates": scenario.file.estimates.to_string(),
        "platform": {
            "shape": platform.shape(),
            "processors": platform.total_processors(),
            "clusters": platform.clusters.iter().map(|c| json!({
                "name": c.name, "processors": c.processors, "speed": c.speed,
            })).collect::<Vec<_>>(),
        },
        "jobs": jobs,
        "warmup_jobs": scenario.file.run.warmup_jobs,
        "notes": scenario.facts().notes,
        "metrics": Value::Object(metrics),
    });
    // A run stopped by `[run] completions` says how many jobs it left.
    if left > 0
        && let Value::Object(o) = &mut out
    {
        o.insert("jobs_left_at_stop".into(), json!(left));
    }
    // Only where it happened: every other summary reads as it did.
    if let (Some(u), Value::Object(o)) = (&result.unconverged, &mut out) {
        o.insert(
            "unconverged".into(),
            json!({
                "replications": u.replications,
                "relative_error": u.relative_error,
                "target": u.target,
                "note": u.to_string(),
            }),
        );
    }
    out
}

/// A family's figures as a table, each with its half-width: a figure whose
/// dotted name starts with the family's name in the table itself
/// (`grid.rt` as `rt`), any other in a table of its own there
/// (`long.response` as `long.response`).
fn family_table(family: &FigureFamily, values: &[Replicated]) -> Value {
    type Table = Map<String, Value>;
    let mut tables: BTreeMap<Option<&str>, (Table, Table)> = BTreeMap::new();
    for (f, r) in family.figures.iter().zip(values) {
        let (table, name) = f.place(family.name);
        let (o, hw) = tables.entry(table).or_default();
        put(o, hw, name, *r);
    }
    let (mut out, hw) = tables.remove(&None).unwrap_or_default();
    for (table, (mut o, h)) in tables {
        if !h.is_empty() {
            o.insert("half_width".into(), Value::Object(h));
        }
        out.insert(table.unwrap_or_default().into(), Value::Object(o));
    }
    if !hw.is_empty() {
        out.insert("half_width".into(), Value::Object(hw));
    }
    Value::Object(out)
}

/// Pretty JSON text with a final newline.
pub fn to_text(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
