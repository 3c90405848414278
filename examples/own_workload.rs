//! A workload kind of your own, run by every command of schedscope.
//!
//! A kind is a [`WorkloadKindEntry`] (its name, one line on what it is,
//! the keys it reads and how it checks them) and a [`Workload`] (what each
//! run asks for its jobs), added with one call to [`kinds::register`]
//! before the command line is read. A registered kind reads its own keys
//! from `[workload.params]`; an error names the file, line and key like
//! any other.
//!
//! This one is `bursts`: `burst` jobs of `size` processors and `runtime`
//! seconds arrive together every `gap` seconds: the pattern of a
//! class submitting its exercises at the top of every hour.
//!
//! ```sh
//! cargo run --release --example own_workload -- run examples/bursts.toml
//! cargo run --release --example own_workload -- console examples/bursts.toml
//! cargo run --release --example own_workload -- workloads
//! ```

use schedscope::model::{JobSpec, SimTime};
use schedscope::scenario::kinds::{self, Validated, Workload, WorkloadKindEntry};
use schedscope::scenario::{Scenario, ScenarioError};
use schedscope::workload::JobSource;
use std::process::ExitCode;

/// The kind's parameters, checked.
#[derive(Clone, Debug)]
struct Bursts {
    burst: u64,
    gap: f64,
    size: u32,
    runtime: f64,
}

impl Workload for Bursts {
    fn source(&self, _seed: u64, count: Option<u64>) -> Result<Box<dyn JobSource>, String> {
        let b = self.clone();
        let jobs = (0..count.unwrap_or(u64::MAX)).map(move |i| {
            let submit = SimTime::from_secs_f64((i / b.burst) as f64 * b.gap);
            JobSpec::rigid(i + 1, submit, b.size, SimTime::from_secs_f64(b.runtime))
        });
        Ok(Box::new(jobs))
    }
}

/// `[workload.params]` key `key`: a number in `lo..=hi` (a whole one with
/// `whole`), `default` when left out; an error at the key otherwise.
fn number(
    s: &Scenario,
    params: Option<&toml::Table>,
    key: &str,
    default: f64,
    (lo, hi, whole): (f64, f64, bool),
) -> Result<f64, ScenarioError> {
    let Some(v) = params.and_then(|p| p.get(key)) else {
        return Ok(default);
    };
    let x = match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) if !whole => Some(*f),
        _ => None,
    };
    match x {
        Some(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(s.error_at_key(
            &["workload", "params", key],
            format!(
                "workload.params.{key} must be a {} from {lo} to {hi}, found {v}",
                if whole { "whole number" } else { "number" }
            ),
        )),
    }
}

fn entry() -> WorkloadKindEntry {
    WorkloadKindEntry {
        name: "bursts",
        summary: "`burst` jobs of `size` processors and `runtime` seconds every `gap` seconds",
        keys: &["params"],
        needs_platform: true,
        family: None,
        validate: |s, w, platform| {
            let params = w.params.as_ref().map(|p| p.get_ref());
            if let Some(key) = params.and_then(|p| {
                p.keys()
                    .find(|k| !["burst", "gap", "size", "runtime"].contains(&k.as_str()))
            }) {
                return Err(s.error_at_key(
                    &["workload", "params", key],
                    format!("unknown key `{key}` for workload kind \"bursts\" (it takes: burst, gap, size, runtime)"),
                ));
            }
            let most = platform.map_or(1, |p| p.largest_cluster()) as f64;
            Ok(Validated::of(Bursts {
                burst: number(s, params, "burst", 8.0, (1.0, 1e6, true))? as u64,
                gap: number(s, params, "gap", 3600.0, (1.0, 1e9, false))?,
                size: number(s, params, "size", 1.0, (1.0, most, true))? as u32,
                runtime: number(s, params, "runtime", 600.0, (1.0, 1e9, false))?,
            }))
        },
    }
}

fn main() -> ExitCode {
    if let Err(e) = kinds::register(entry()) {
        eprintln!("schedscope: {e}");
        return ExitCode::from(3);
    }
    schedscope::cli::main()
}
