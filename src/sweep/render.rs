//! A sweep's rows as a table, JSON or CSV.
//!
//! Every report is rendered from each point's JSON summary (the document
//! `run --format json` prints), whether the points ran in this process or
//! were read back from a result folder: one path, so `merge` prints what a
//! local `sweep` prints, byte for byte.

use super::paired::{self, Paired, Pairing};
use crate::metrics::Replicated;
use crate::report::table::cell;
use crate::scenario::kinds::{Columns, Figure, FigureFamily};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt::Write;

/// One row: a point's settings and its summary.
#[derive(Clone, Copy, Debug)]
pub struct Row<'a> {
    pub settings: &'a [(String, String)],
    pub summary: &'a Value,
}

/// The report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    Table,
    Json,
    Csv,
}

/// The overall figures of the CSV, each followed by its half-width.
pub const CSV_FIGURES: [&str; 8] = [
    "jobs",
    "art",
    "mean_wait",
    "mean_slowdown",
    "mean_bounded_slowdown",
    "utilization",
    "killed",
    "requeued",
];

/// A figure of a summary by its dotted name, as `[expect]` names it:
/// `art`, `overall.art`, `groups.<grouping>.<label>.<figure>` (the
/// groupings are size, components, widest and user), or a workload kind's
/// family figure as the family names it (`grid.rt`, `long.response`). A
/// figure that was not a finite number reads as NaN.
pub fn figure(summary: &Value, name: &str) -> Option<Replicated> {
    let parts: Vec<&str> = name.split('.').collect();
    let (table, n) = match parts.as_slice() {
        [n] | ["overall", n] => (summary.pointer("/metrics/overall")?, *n),
        _ if family_figure(name).is_some() => {
            let (family, f) = family_figure(name)?;
            let (table, n) = f.place(family.name);
            let path = match table {
                Some(t) => format!("/metrics/{}/{t}", family.name),
                None => format!("/metrics/{}", family.name),
            };
            (summary.pointer(&path)?, n)
        }
        ["groups", g, label, n] => {
            let rows = summary.pointer(&format!("/metrics/groups/{g}"))?;
            let row = rows
                .as_array()?
                .iter()
                .find(|r| r.get("label").and_then(Value::as_str) == Some(label))?;
            (row, *n)
        }
        _ => return None,
    };
    let v = table.get(n)?;
    let mean = if v.is_null() { f64::NAN } else { v.as_f64()? };
    let half_width = table
        .get("half_width")
        .and_then(|h| h.get(n))
        .and_then(Value::as_f64);
    Some(Replicated { mean, half_width })
}

/// Whether the figure [`figure`] reads by `name` can never be negative by
/// its definition: the summaries' own figures as [`crate::metrics`]
/// declares them, a kind's family figures as the family does (`*` may
/// stand for a group label).
pub fn never_negative(name: &str) -> bool {
    match family_figure(name) {
        Some((_, f)) => f.never_negative,
        None => crate::metrics::never_negative(name),
    }
}

fn fig(r: &Row, name: &str) -> Replicated {
    figure(r.summary, name).unwrap_or(Replicated::ZERO)
}

/// The rows in a format; with `paired`, each point's paired differences
/// against its base point too (see [`super::paired`]).
pub fn render(report: Report, keys: &[String], rows: &[Row], paired: Option<&Paired>) -> String {
    match (report, paired) {
        (Report::Table, None) => table(keys, rows),
        (Report::Table, Some(p)) => {
            let mut out = table(keys, rows);
            out.push('\n');
            out.push_str(&paired_table(keys, rows, p));
            out
        }
        (Report::Json, _) => json_paired(rows, paired),
        (Report::Csv, _) => csv_paired(keys, rows, paired),
    }
}

/// A column of a sweep's table: the figure's dotted name, its title and
/// its decimals.
type Column = (Cow<'static, str>, &'static str, usize);

/// The figures a table shows for these rows.
fn columns(rows: &[Row]) -> Vec<Column> {
    let families = families_of(rows);
    if let Some(family) = families
        .iter()
        .find(|f| matches!(f.columns, Columns::Instead(_)))
    {
        return family_columns(family, rows);
    }
    let mut cols: Vec<(&'static str, &'static str, usize)> = vec![
        ("jobs", "jobs", 0),
        ("art", "ART", 3),
        ("mean_wait", "mean wait", 3),
        ("mean_slowdown", "slowdown", 3),
        ("mean_bounded_slowdown", "bnd slowdown", 3),
        ("utilization", "util", 4),
    ];
    for (f, title) in [("killed", "killed"), ("requeued", "requeued")] {
        if rows.iter().any(|r| fig(r, f).mean > 0.0) {
            cols.push((f, title, 0));
        }
    }
    let mut cols: Vec<Column> = cols
        .into_iter()
        .map(|(f, title, d)| (Cow::Borrowed(f), title, d))
        .collect();
    for family in families {
        cols.extend(family_columns(family, rows));
    }
    cols
}

/// The paired differences as a second table: one line per point that is
/// not a base point, each figure as the mean of its per-seed differences
/// from the base point ± its 95 % half-width, marked `*` where the
/// interval excludes zero; then the points that could not be paired.
fn paired_table(keys: &[String], rows: &[Row], p: &Paired) -> String {
    let cols: Vec<_> = columns(rows)
        .into_iter()
        .filter(|(f, _, _)| f != "jobs")
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "paired against {}: each point minus the point with {} and the same other \
         settings, seed by seed (mean ± 95 % half-width; * beyond noise)",
        p.label(),
        p.label()
    );
    let mut line = String::new();
    for k in keys {
        let _ = write!(line, "{k:>24} ");
    }
    for (_, title, _) in &cols {
        let _ = write!(line, "{:>20} ", format!("Δ {title}"));
    }
    let _ = writeln!(out, "{}", line.trim_end());
    let mut unpaired = Vec::new();
    for (r, pairing) in rows.iter().zip(paired::pair(rows, p)) {
        let base = match pairing {
            Pairing::Base => continue,
            Pairing::With(b) => &rows[b],
            Pairing::Unpaired(why) => {
                let label: Vec<String> =
                    r.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
                unpaired.push(format!("  {}: {why}", label.join(" ")));
                continue;
            }
        };
        let mut line = String::new();
        for (_, v) in r.settings {
            let _ = write!(line, "{v:>24} ");
        }
        for (f, _, d) in &cols {
            let text = match paired::difference(r, base, f) {
                Some(x) => {
                    let mark = if paired::beyond_noise(x) { "*" } else { " " };
                    format!("{}{mark}", cell(x, *d))
                }
                None => "—".to_string(),
            };
            let _ = write!(line, "{text:>20} ");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if !unpaired.is_empty() {
        let _ = writeln!(out, "not paired:");
        for u in unpaired {
            let _ = writeln!(out, "{u}");
        }
    }
    out
}

/// Each row's paired differences as JSON: `{"against": {KEY: BASE},
/// "difference": {figure: {"mean", "half_width"}}}`, or `{"against",
/// "unpaired": why}`; `None` for a base point.
fn paired_json(rows: &[Row], p: &Paired, names: &[String]) -> Vec<Option<Value>> {
    let against = Value::Object(Map::from_iter([(p.key.clone(), point_value(&p.base))]));
    rows.iter()
        .zip(paired::pair(rows, p))
        .map(|(r, pairing)| match pairing {
            Pairing::Base => None,
            Pairing::Unpaired(why) => Some(serde_json::json!({
                "against": against, "unpaired": why,
            })),
            Pairing::With(b) => {
                let mut d = Map::new();
                for n in names {
                    if let Some(x) = paired::difference(r, &rows[b], n) {
                        d.insert(
                            n.clone(),
                            serde_json::json!({"mean": num(x.mean), "half_width": x.half_width.map(num)}),
                        );
                    }
                }
                Some(serde_json::json!({"against": against, "difference": d}))
            }
        })
        .collect()
}

fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The figure names of the CSV for these rows.
fn csv_names(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = CSV_FIGURES.iter().map(|s| s.to_string()).collect();
    for family in families_of(rows) {
        names.extend(family.csv.iter().map(|n| n.to_string()));
    }
    names
}

fn json_paired(rows: &[Row], paired: Option<&Paired>) -> String {
    let Some(p) = paired else {
        return json(rows);
    };
    let diffs = paired_json(rows, p, &csv_names(rows));
    let text = json(rows);
    let Ok(Value::Array(mut items)) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    for (item, d) in items.iter_mut().zip(diffs) {
        if let (Value::Object(o), Some(d)) = (item, d) {
            o.insert("paired".into(), d);
        }
    }
    crate::report::json::to_text(&Value::Array(items))
}

/// A point's value as JSON: a number where the text is one (`0.7`, `10`),
/// else the text.
fn point_value(v: &str) -> Value {
    if let Ok(i) = v.parse::<i64>() {
        return Value::from(i);
    }
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() => Value::from(x),
        _ => Value::String(v.to_string()),
    }
}

/// An array of `{"point": {key: value}, "summary": {...}}`, numeric values
/// as numbers.
pub fn json(rows: &[Row]) -> String {
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut point = Map::new();
            for (k, v) in r.settings {
                point.insert(k.clone(), point_value(v));
            }
            let mut o = Map::new();
            o.insert("point".into(), Value::Object(point));
            o.insert("summary".into(), r.summary.clone());
            Value::Object(o)
        })
        .collect();
    crate::report::json::to_text(&Value::Array(rows))
}

/// The varied keys, then each of [`CSV_FIGURES`] and its half-width
/// (empty with one replication).
pub fn csv(keys: &[String], rows: &[Row]) -> String {
    csv_paired(keys, rows, None)
}

/// [`csv`], and with `paired` each figure's paired difference and its
/// half-width after the figures (`paired_<figure>`, empty for a base point
/// or one not paired).
fn csv_paired(keys: &[String], rows: &[Row], paired: Option<&Paired>) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let names = csv_names(rows);
    let mut header: Vec<String> = keys.to_vec();
    for f in &names {
        header.push(f.clone());
        header.push(format!("{f}_half_width"));
    }
    if paired.is_some() {
        for f in &names {
            header.push(format!("paired_{f}"));
            header.push(format!("paired_{f}_half_width"));
        }
    }
    let pairings = paired.map(|p| paired::pair(rows, p));
    let cells = |x: Replicated, rec: &mut Vec<String>| {
        rec.push(format!("{}", x.mean));
        rec.push(x.half_width.map(|h| format!("{h}")).unwrap_or_default());
    };
    // Writing into memory cannot fail.
    let _ = w.write_record(&header);
    for (i, r) in rows.iter().enumerate() {
        let mut rec: Vec<String> = r.settings.iter().map(|(_, v)| v.clone()).collect();
        for f in &names {
            cells(fig(r, f), &mut rec);
        }
        if let Some(pairings) = &pairings {
            for f in &names {
                match &pairings[i] {
                    Pairing::With(b) => match paired::difference(r, &rows[*b], f) {
                        Some(d) => cells(d, &mut rec),
                        None => rec.extend([String::new(), String::new()]),
                    },
                    _ => rec.extend([String::new(), String::new()]),
                }
            }
        }
        let _ = w.write_record(&rec);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// One line per point; killed and requeued jobs get columns whenever a
/// point has any, since a lower ART bought by killing jobs is no
/// improvement.
pub fn table(keys: &[String], rows: &[Row]) -> String {
    table_of(keys, rows, columns(rows))
}

/// The workload kinds' families of figures, and the figure of one of them
/// named `name` (`grid.rt`, `long.response`), if it is one.
fn family_figure(name: &str) -> Option<(&'static FigureFamily, &'static Figure)> {
    crate::scenario::kinds::all()
        .into_iter()
        .filter_map(|k| k.family)
        .find_map(|f| Some((f, f.figure(name)?)))
}

/// The workload kinds' families of figures some point reported, in the
/// kinds' order.
fn families_of(rows: &[Row]) -> Vec<&'static FigureFamily> {
    let mut out: Vec<&'static FigureFamily> = Vec::new();
    for f in crate::scenario::kinds::all()
        .into_iter()
        .filter_map(|k| k.family)
    {
        let reported = rows
            .iter()
            .any(|r| r.summary.pointer(&format!("/metrics/{}", f.name)).is_some());
        if reported && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// A family's columns: its figures with a column, in the family's column
/// order, each shown only where some point needs it.
fn family_columns(family: &FigureFamily, rows: &[Row]) -> Vec<Column> {
    family
        .columns
        .names()
        .iter()
        .filter_map(|&n| family.figure(n))
        .filter(|f| {
            f.unless_equal_to.is_none_or(|other| {
                rows.iter()
                    .any(|r| fig(r, f.name).mean != fig(r, other).mean)
            })
        })
        .filter_map(|f| Some((Cow::Borrowed(f.name), f.column?, f.decimals)))
        .collect()
}

fn table_of(keys: &[String], rows: &[Row], cols: Vec<Column>) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for k in keys {
        let _ = write!(line, "{k:>24} ");
    }
    for (_, title, _) in &cols {
        let _ = write!(line, "{title:>18} ");
    }
    let _ = writeln!(out, "{}", line.trim_end());
    for r in rows {
        let mut line = String::new();
        for (_, v) in r.settings {
            let _ = write!(line, "{v:>24} ");
        }
        for (f, _, d) in &cols {
            let _ = write!(line, "{:>18} ", cell(fig(r, f), *d));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn summary(art: f64, killed: f64) -> Value {
        json!({"metrics": {
            "overall": {"jobs": 10.0, "art": art, "killed": killed, "requeued": 0.0,
                        "half_width": {"art": 0.5}},
            "groups": {"size": [{"label": "g1", "range": "1-2", "art": 3.25,
                                 "half_width": {"art": 0.25}}]},
        }})
    }

    #[test]
    fn figures_by_dotted_name() {
        let s = summary(12.5, 0.0);
        assert_eq!(
            figure(&s, "art"),
            Some(Replicated {
                mean: 12.5,
                half_width: Some(0.5)
            })
        );
        assert_eq!(figure(&s, "overall.jobs").unwrap().half_width, None);
        assert_eq!(figure(&s, "groups.size.g1.art").unwrap().mean, 3.25);
        assert_eq!(figure(&s, "groups.size.g1.range"), None);
        assert_eq!(figure(&s, "groups.size.g9.art"), None);
        assert_eq!(figure(&s, "nonsense"), None);
    }

    #[test]
    fn the_signs_of_figures_come_from_their_declarations() {
        for n in [
            "art",
            "overall.utilization",
            "groups.size.*.art",
            "long.wait",
        ] {
            assert!(never_negative(n), "{n}");
        }
        // A family's figures as the family declares them.
        for n in ["grid.rt", "grid.wsld", "grid.busy_utilization"] {
            assert!(never_negative(n), "{n}");
        }
        for n in ["grid.nonsense", "nonsense", "groups.size.S1.nonsense"] {
            assert!(!never_negative(n), "{n}");
        }
    }

    #[test]
    fn killed_column_only_when_some_point_killed() {
        let keys = vec!["policy.name".to_string()];
        let a = [("policy.name".to_string(), "easy".to_string())];
        let (s0, s1) = (summary(1.0, 0.0), summary(1.0, 3.0));
        let quiet = table(
            &keys,
            &[Row {
                settings: &a,
                summary: &s0,
            }],
        );
        assert!(!quiet.contains("killed"), "{quiet}");
        let loud = table(
            &keys,
            &[
                Row {
                    settings: &a,
                    summary: &s0,
                },
                Row {
                    settings: &a,
                    summary: &s1,
                },
            ],
        );
        assert!(loud.lines().next().unwrap().ends_with("killed"), "{loud}");
        assert!(!loud.contains("requeued"), "{loud}");
    }

    #[test]
    fn numeric_point_values_are_json_numbers() {
        let a = [
            ("policy.name".to_string(), "easy".to_string()),
            ("policy.max_jumps".to_string(), "10".to_string()),
            ("workload.mean_interarrival".to_string(), "0.70".to_string()),
        ];
        let s = summary(1.0, 0.0);
        let text = json(&[Row {
            settings: &a,
            summary: &s,
        }]);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v[0]["point"],
            json!({"policy.name": "easy", "policy.max_jumps": 10,
                   "workload.mean_interarrival": 0.7})
        );
    }
}
