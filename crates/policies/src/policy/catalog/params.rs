//! Parameters: a spec checked against the ones its entry declares, their
//! values read (the declared default when unset), and the listing of every
//! policy with them for `schedscope policies`.

use super::shared::{self, Machines, SHARED};
use super::{Param, ParamKind, PolicyEntry, UNLIMITED, all, find, known};
use crate::policy::SharedParams;
use crate::sched::{ParamValue, PolicySpec};

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
    // A spec read from a scenario holds only the shared keys, each as its
    // type reads; one built otherwise is held to the same.
    for (key, v) in &spec.shared {
        let Some(p) = SHARED.iter().find(|p| p.key == key) else {
            let allowed: Vec<String> = ["name"]
                .into_iter()
                .chain(COMMON)
                .chain(["params"])
                .map(|k| format!("`{k}`"))
                .collect();
            return Err((
                at(&[key]),
                format!("unknown key `{key}` (allowed: {})", allowed.join(", ")),
            ));
        };
        if !shared::takes(key, v) {
            let m = check_value(p, v)
                .err()
                .unwrap_or_else(|| format!("cannot be {v}"));
            return Err((at(&[key]), format!("{key} {m}")));
        }
    }
    // The common keys are accepted and ignored by policies that do not
    // read them (a sweep varies the policy under one set of keys), except
    // pinned processors, which change what a run means.
    if spec.machines() == Machines::Pinned && param(entry, "machines").is_none() {
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
            .filter(|p| !is_common(p.key))
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
    let keys: Vec<String> = entry.params.iter().map(|p| scenario_key(p.key)).collect();
    keys.join(", ")
}

/// The keys several policies share, written in `[policy]` itself and held
/// in the spec's `shared`; every other key is in `[policy.params]`.
const COMMON: [&str; 4] = [SHARED[0].key, SHARED[1].key, SHARED[2].key, SHARED[3].key];

fn is_common(key: &str) -> bool {
    COMMON.contains(&key)
}

/// How a scenario spells the key: `max_jumps`, or `params.threshold`.
fn scenario_key(key: &str) -> String {
    if is_common(key) {
        key.to_string()
    } else {
        format!("params.{key}")
    }
}

fn check_value(p: &Param, v: &ParamValue) -> Result<(), String> {
    match (&p.kind, v) {
        (ParamKind::Limit { max, .. }, ParamValue::Int(i)) if (0..=*max).contains(i) => Ok(()),
        (ParamKind::Limit { .. }, ParamValue::Text(t)) if t == UNLIMITED => Ok(()),
        (ParamKind::Limit { max, .. }, _) => Err(format!(
            "must be a whole number from 0 to {max} or \"{UNLIMITED}\", found {v}"
        )),
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
        (ParamKind::Text { check, .. }, ParamValue::Text(t)) if !t.trim().is_empty() => {
            check.map_or(Ok(()), |c| c(t))
        }
        (ParamKind::Text { .. }, _) => Err(format!("must be a non-empty text, found {v}")),
        (ParamKind::Choice { values, .. }, _) => Err(format!(
            "must be one of {}, found {v}",
            values
                .iter()
                .map(|w| format!("\"{w}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The value of a declared parameter: the spec's, else the declared
/// default.
pub fn value(spec: &PolicySpec, p: &Param) -> ParamValue {
    let set = if is_common(p.key) {
        spec.shared(p.key)
    } else {
        spec.params.get(p.key)
    };
    set.cloned().unwrap_or_else(|| default_value(p))
}

/// The declared default of `p`.
pub(super) fn default_value(p: &Param) -> ParamValue {
    match p.kind {
        ParamKind::Count { default, .. } | ParamKind::Limit { default, .. } => {
            ParamValue::Int(default)
        }
        ParamKind::Number { default, .. } => ParamValue::Float(default),
        ParamKind::Choice { default, .. } | ParamKind::Text { default, .. } => {
            ParamValue::Text(default.to_string())
        }
    }
}

/// Sets the declared parameter `p` of `spec` to `v`, checked against its
/// kind: a common key among the spec's shared ones (kept in the catalog's
/// order), any other in `params`.
pub fn set(spec: &mut PolicySpec, p: &Param, v: ParamValue) -> Result<(), String> {
    check_value(p, &v).map_err(|m| format!("{} {m}", scenario_key(p.key)))?;
    if is_common(p.key) {
        spec.set_shared(p.key, v);
        *spec = shared::normalize(std::mem::replace(spec, PolicySpec::new(spec.name)));
    } else {
        spec.params.insert(p.key.to_string(), v);
    }
    Ok(())
}

/// `spec` with only what its policy declares: the parameters of
/// `[policy.params]` it reads, and counted processors unless it reads
/// `machines` (pinned ones are refused for the others). The common keys
/// it does not read are kept, as a sweep keeps them across policies.
pub fn declared_only(mut spec: PolicySpec) -> PolicySpec {
    let Some(entry) = find(spec.name) else {
        return spec;
    };
    spec.params.retain(|k, _| param(entry, k).is_some());
    if param(entry, "machines").is_none() {
        spec.remove_shared("machines");
    }
    spec
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

/// A word or text parameter of `[policy.params]` (its default if unset).
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
            let takes = match &p.kind {
                ParamKind::Count { min, max, default } => {
                    format!("a whole number from {min} to {max} (default {default})")
                }
                ParamKind::Limit { default, .. } => {
                    format!("a whole number ≥ 0 or \"{UNLIMITED}\" (default {default})")
                }
                ParamKind::Number {
                    min, max, default, ..
                } => format!("a number from {min} to {max} (default {default})"),
                ParamKind::Choice {
                    values, default, ..
                } => format!("{} (default {default})", one_of(values)),
                ParamKind::Text { default: "", .. } => "a text (unset by default)".to_string(),
                ParamKind::Text { default, .. } => format!("a text (default \"{default}\")"),
            };
            out.push_str(&format!("    policy.{}: {takes}\n", scenario_key(p.key)));
        }
    }
    out
}

/// The built-in policies as a Markdown table (name, what it does, the
/// scenario keys it reads), for the README, which a test holds to it.
pub fn markdown_table() -> String {
    let mut out = String::from("| `policy.name` | what it does | its keys |\n|---|---|---|\n");
    for e in super::entries::POLICIES {
        let keys: Vec<String> = e
            .params
            .iter()
            .map(|p| format!("`policy.{}`", scenario_key(p.key)))
            .collect();
        let keys = if keys.is_empty() {
            "–".to_string()
        } else {
            keys.join(", ")
        };
        out.push_str(&format!(
            "| `{}` | {} | {keys} |\n",
            e.name.as_str(),
            e.summary,
        ));
    }
    out
}

/// `"a", "b" or "c"`.
fn one_of(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}
