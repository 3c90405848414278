//! Reading errors in the scenario's own terms. The TOML reader reports a
//! wrong value as serde does, naming Rust types ("invalid type: string
//! "abc", expected u32"); a user wrote a scenario, not a struct, so these
//! say what the key takes ("a whole number from 0 to 4294967295") and what
//! was found, in TOML's words.

use super::kinds::{self, WorkloadKindEntry};

/// The message, with Rust types and serde's wording put in the user's
/// terms; `text` is the scenario (for the workload kind, when a key is
/// unknown in `[workload]`).
pub fn plain(message: &str, text: &str) -> String {
    if let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        && let Some((found, expected)) = rest.rsplit_once(", expected ")
    {
        return format!(
            "must be {}, found {}",
            expected_words(expected),
            found_words(found)
        );
    }
    if let Some(rest) = message.strip_prefix("unknown variant ")
        && let Some((found, allowed)) = rest.split_once(", expected ")
    {
        let allowed = allowed.strip_prefix("one of ").unwrap_or(allowed);
        return format!(
            "must be one of {}, found {}",
            quoted_list(allowed),
            quoted(found)
        );
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (key, allowed) = match rest.split_once(", expected ") {
            Some((k, a)) => (k, Some(a.strip_prefix("one of ").unwrap_or(a))),
            None => (rest.split(',').next().unwrap_or(rest), None),
        };
        let names: Vec<&str> = allowed
            .map(|a| {
                a.split([',', ' '])
                    .filter_map(|w| w.strip_prefix('`')?.strip_suffix('`'))
                    .collect()
            })
            .unwrap_or_default();
        if is_workload_section(&names) {
            return unknown_workload_key(key, text);
        }
        return match names.is_empty() {
            true => format!("unknown key {key}: this table takes no keys"),
            false => format!("unknown key {key} (allowed: {})", backticked(&names)),
        };
    }
    if let Some(key) = message.strip_prefix("missing field ") {
        return format!("{key} is missing");
    }
    if let Some(key) = message.strip_prefix("duplicate field ") {
        return format!("{key} is given twice");
    }
    if message == "wanted string or table" {
        return "must be a name in quotes".to_string();
    }
    message.to_string()
}

/// What a key takes, for `expected …`.
fn expected_words(expected: &str) -> String {
    let whole = |max: &str| format!("a whole number from 0 to {max}");
    match expected {
        "u8" => whole("255"),
        "u16" => whole("65535"),
        "u32" => whole("4294967295"),
        "u64" | "usize" => whole("18446744073709551615"),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a string" => "a string in quotes".into(),
        "a sequence" => "a list, [ … ]".into(),
        "a boolean" => "true or false".into(),
        "a map" => "a table".into(),
        "struct PolicySpec" => "a policy table, e.g. { name = \"easy\" }".into(),
        "struct EstimateModel" => "an estimates table, e.g. { source = \"exact\" }".into(),
        other if other.starts_with("struct ") || other.contains("tagged enum") => "a table".into(),
        other => other.to_string(),
    }
}

/// What was found, in TOML's words, for serde's `invalid type: …`.
fn found_words(found: &str) -> String {
    if let Some(s) = found.strip_prefix("string ") {
        return s.to_string();
    }
    for kind in ["integer ", "floating point ", "boolean "] {
        if let Some(v) = found.strip_prefix(kind) {
            return v.trim_end_matches(" as i128").trim_matches('`').to_string();
        }
    }
    match found {
        "map" => "a table".into(),
        "sequence" => "a list".into(),
        other => other.to_string(),
    }
}

/// `` `foo` `` → `"foo"`.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.trim_matches('`'))
}

/// `` `a`, `b` or `c` `` → `"a", "b", "c"`.
fn quoted_list(list: &str) -> String {
    let names: Vec<String> = list
        .split([',', ' '])
        .filter_map(|w| w.strip_prefix('`')?.strip_suffix('`'))
        .map(|n| format!("\"{n}\""))
        .collect();
    if names.is_empty() {
        list.to_string()
    } else {
        names.join(", ")
    }
}

fn backticked(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether serde's list of allowed keys is `[workload]`'s, which holds every
/// kind's keys: the message should list only the kind's own.
fn is_workload_section(names: &[&str]) -> bool {
    names.contains(&"kind") && names.contains(&"mean_interarrival") && names.contains(&"path")
}

fn unknown_workload_key(key: &str, text: &str) -> String {
    let kind = text
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| kinds::find(t.get("workload")?.get("kind")?.as_str()?));
    let takes = |kind: &WorkloadKindEntry| {
        let mut keys = vec!["kind"];
        keys.extend(kind.keys);
        backticked(&keys)
    };
    match kind {
        Some(kind) => format!(
            "unknown key {key} for workload kind \"{}\" (it takes: {})",
            kind.name,
            takes(kind)
        ),
        None => {
            let each: Vec<String> = ["ngubiri", "jobs", "swf", "batsim"]
                .into_iter()
                .filter_map(kinds::find)
                .map(|k| format!("kind \"{}\" takes {}", k.name, takes(k)))
                .collect();
            format!("unknown key {key} in [workload] ({})", each.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn rust_types_become_what_the_key_takes() {
        let p = |m: &str| plain(m, "");
        assert_eq!(
            p("invalid type: string \"abc\", expected u32"),
            "must be a whole number from 0 to 4294967295, found \"abc\""
        );
        assert_eq!(
            p("invalid value: integer `-3`, expected u64"),
            "must be a whole number from 0 to 18446744073709551615, found -3"
        );
        assert_eq!(
            p("invalid type: integer `123456789012345678901234567890` as i128, expected u64"),
            "must be a whole number from 0 to 18446744073709551615, found 123456789012345678901234567890"
        );
        assert_eq!(
            p("invalid type: string \"x\", expected f64"),
            "must be a number, found \"x\""
        );
        assert_eq!(
            p("invalid type: string \"fcfs\", expected struct PolicySpec"),
            "must be a policy table, e.g. { name = \"easy\" }, found \"fcfs\""
        );
        assert_eq!(
            p("invalid type: map, expected a sequence"),
            "must be a list, [ … ], found a table"
        );
        assert_eq!(
            p("unknown variant `foo`, expected one of `auto`, `exact`"),
            "must be one of \"auto\", \"exact\", found \"foo\""
        );
        assert_eq!(
            p("unknown field `bogus`, expected `shape` or `clusters`"),
            "unknown key `bogus` (allowed: `shape`, `clusters`)"
        );
        for m in [
            "invalid type: string \"abc\", expected u32",
            "invalid type: string \"fcfs\", expected struct PolicySpec",
            "invalid type: integer `5`, expected struct RunSection",
        ] {
            let out = p(m);
            for rust in ["u32", "u64", "f64", "struct", "i128", "invalid type"] {
                assert!(!out.contains(rust), "{out}");
            }
        }
    }

    #[test]
    fn an_unknown_workload_key_lists_only_that_kinds_keys() {
        let serde = "unknown field `bogus`, expected one of `kind`, `q`, `min_size`, `max_size`, `mean_interarrival`, `mean_runtime`, `split`, `jobs`, `path`, `first_jobs`, `start_time`, `end_time`, `oversize`, `download`";
        let m = plain(serde, "[workload]\nkind = \"ngubiri\"\nbogus = 1\n");
        assert_eq!(
            m,
            "unknown key `bogus` for workload kind \"ngubiri\" (it takes: `kind`, `q`, `min_size`, `max_size`, `mean_interarrival`, `mean_runtime`, `split`)"
        );
        let m = plain(serde, "[workload]\nkind = \"swf\"\nbogus = 1\n");
        assert!(
            m.contains("\"swf\"") && m.contains("`path`") && !m.contains("`q`"),
            "{m}"
        );
    }
}
