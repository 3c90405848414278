//! `--set key.path=value` overrides and saving a session's command log as
//! `[[timeline]]` entries, both as edits of the scenario's own text.

use super::ScenarioError;
use super::values::Seconds;
use crate::engine::Command;
use crate::model::SimTime;
use toml_edit::{DocumentMut, Item, Table, Value};

/// Applies each `key.path=value` to the scenario text. The value is read as
/// a TOML value; a bare word that is not one is taken as a string.
pub fn apply(text: &str, sets: &[String]) -> Result<String, ScenarioError> {
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| ScenarioError::Invalid {
                path: "scenario".into(),
                message: e.to_string(),
            })?;
    for arg in sets {
        let err = |message: String| ScenarioError::Override {
            arg: arg.clone(),
            message,
        };
        let (path, raw) = arg
            .split_once('=')
            .ok_or_else(|| err("expected KEY.PATH=VALUE, e.g. policy.max_jumps=5".into()))?;
        let keys: Vec<&str> = path.trim().split('.').collect();
        if keys.iter().any(|k| k.is_empty()) {
            return Err(err(format!("\"{path}\" is not a dotted key path")));
        }
        let raw = raw.trim();
        let value: Value = match raw.parse() {
            Ok(v) => v,
            // A number TOML cannot hold would otherwise become a string
            // and be refused as one, which says nothing about its size.
            Err(_) if looks_numeric(raw) => {
                return Err(err(format!(
                    "{raw} is not a number TOML can hold (whole numbers run from -9223372036854775808 to 9223372036854775807)"
                )));
            }
            Err(_) => Value::from(raw),
        };
        set_path(doc.as_item_mut(), &keys, value).map_err(err)?;
    }
    Ok(doc.to_string())
}

/// Digits with an optional sign, point and exponent: meant as a number.
fn looks_numeric(raw: &str) -> bool {
    let body = raw.strip_prefix(['+', '-']).unwrap_or(raw);
    body.starts_with(|c: char| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || "_.eE+-".contains(c))
}

fn set_path(item: &mut Item, keys: &[&str], value: Value) -> Result<(), String> {
    let (first, rest) = keys.split_first().ok_or("empty key path")?;
    if item.is_none() {
        *item = Item::Table(Table::new());
    }
    if let Some(arr) = item.as_array_of_tables_mut() {
        let i: usize = first
            .parse()
            .map_err(|_| format!("`{first}` indexes a list of tables: use a number"))?;
        let len = arr.len();
        let t = arr
            .get_mut(i)
            .ok_or_else(|| format!("index {i} is past the {len} entries"))?;
        return set_in_table(t, rest, value);
    }
    if let Some(t) = item.as_table_like_mut() {
        if rest.is_empty() {
            t.insert(first, Item::Value(value));
            return Ok(());
        }
        let child = t.entry(first).or_insert(Item::Table(Table::new()));
        if let Some(v) = child.as_value()
            && !v.is_inline_table()
        {
            return Err(format!("`{first}` is a value, not a table"));
        }
        return set_path(child, rest, value);
    }
    Err(format!("cannot set `{first}` inside a plain value"))
}

fn set_in_table(t: &mut Table, keys: &[&str], value: Value) -> Result<(), String> {
    let (first, rest) = keys
        .split_first()
        .ok_or("a list entry needs a key after its index")?;
    if rest.is_empty() {
        t.insert(first, Item::Value(value));
        return Ok(());
    }
    let child = t.entry(first).or_insert(Item::Table(Table::new()));
    set_path(child, rest, value)
}

/// A command as a `[[timeline]]` entry writes it.
#[derive(serde::Serialize)]
struct Entry<'a> {
    at: Seconds,
    #[serde(flatten)]
    command: &'a Command,
}

/// The scenario text with one `[[timeline]]` entry appended per command.
/// The scenario text without its table `name` (and the comments above
/// it), or `None` when it has none.
pub fn without_table(text: &str, name: &str) -> Option<String> {
    let mut doc: DocumentMut = text.parse().ok()?;
    doc.remove(name)?;
    Some(doc.to_string())
}

pub fn append_timeline(text: &str, log: &[(SimTime, Command)]) -> String {
    let mut out = text.trim_end().to_string();
    out.push('\n');
    if !log.is_empty() {
        out.push_str("\n# Commands recorded in the console, replayed in order.\n");
    }
    for (at, command) in log {
        let entry = Entry {
            at: Seconds(at.as_secs_f64()),
            command,
        };
        out.push_str("\n[[timeline]]\n");
        if let Ok(toml::Value::Table(t)) = toml::Value::try_from(&entry) {
            // `at` first, then `action`, then the rest.
            let mut keys: Vec<&String> = t.keys().collect();
            keys.sort_by_key(|k| match k.as_str() {
                "at" => 0,
                "action" => 1,
                _ => 2,
            });
            for k in keys {
                out.push_str(&format!("{} = {}\n", key(k), inline(&t[k.as_str()])));
            }
        }
    }
    out
}

fn key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        toml::Value::String(k.to_string()).to_string()
    }
}

/// A TOML value on one line (tables as inline tables).
fn inline(v: &toml::Value) -> String {
    match v {
        toml::Value::Table(t) => {
            let parts: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{} = {}", key(k), inline(v)))
                .collect();
            format!("{{ {} }}", parts.join(", "))
        }
        toml::Value::Array(a) => {
            let parts: Vec<String> = a.iter().map(inline).collect();
            format!("[{}]", parts.join(", "))
        }
        toml::Value::Float(f) => {
            // Keep a decimal point so the value reads back as a float.
            if f.fract() == 0.0 && f.is_finite() {
                format!("{f:.1}")
            } else {
                format!("{f}")
            }
        }
        other => other.to_string(),
    }
}
