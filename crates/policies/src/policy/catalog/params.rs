//! Parameters: a spec checked against the ones its entry declares, their
//! values read (the declared default when unset), and the listing of every
//! policy with them for `schedscope policies`.

use super::{Param, ParamKind, PolicyEntry, all, find, known};
use crate::sched::{Machines, ParamValue, PolicySpec};

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
