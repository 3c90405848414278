//! The engine and the policies meet only in the protocol (`crates/protocol`):
//! no file under `src/engine` names the policies (the policies are a crate,
//! `crates/policies`, that cannot name the engine). This test reads the sources and fails
//! on the first such reference.

use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn offenders(layer: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(!files.is_empty(), "no sources under {}", root.display());
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if forbidden.iter().any(|w| code.contains(w)) {
                bad.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    bad
}

#[test]
fn the_engine_does_not_import_the_policies() {
    let bad = offenders("engine", &["crate::policy", "super::policy", "policy::"]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_check_would_see_an_import() {
    // Not vacuous: over the whole crate it finds the one place that hands
    // the engine its policies.
    let found = offenders("", &["crate::policy::CATALOG"]);
    assert!(
        found.iter().any(|l| l.contains("simulation.rs")),
        "{found:?}"
    );
}

/// The layers below the application, each with the layers it may import
/// (`crate::…`, comments aside): the domain model (with the task-graph
/// algorithms it carries; a crate of its own) at the bottom, the protocol
/// on it, then the engine, the policies, the workloads and the metrics
/// side by side, none of which imports another. Until they too are crates
/// of their own, this test holds them.
#[test]
fn every_layer_imports_only_the_layers_below_it() {
    const MODULES: &[&str] = &[
        "taskgraph",
        "model",
        "sched",
        "engine",
        "policy",
        "workload",
        "metrics",
        "scenario",
        "console",
        "report",
        "runner",
        "sweep",
        "plot",
        "cli",
        "grid_study",
        "simulation",
    ];
    // The domain (model, taskgraph), the protocol (sched), the policies
    // and the workloads are crates of their own (`crates/model`,
    // `crates/protocol`, `crates/policies`, `crates/workloads`): cargo
    // keeps them from importing anything above or beside them.
    let allowed: &[(&str, &[&str])] = &[("engine", &["model", "sched"]), ("metrics", &["model"])];
    let mut bad = Vec::new();
    for (layer, may) in allowed {
        let forbidden: Vec<String> = MODULES
            .iter()
            .filter(|m| *m != layer && !may.contains(m))
            .map(|m| format!("crate::{m}::"))
            .collect();
        let forbidden: Vec<&str> = forbidden.iter().map(String::as_str).collect();
        bad.extend(offenders(layer, &forbidden));
    }
    assert!(
        bad.is_empty(),
        "imports across the layers:\n{}",
        bad.join("\n")
    );
    // Not vacuous: the scan sees imports where there are some.
    assert!(!offenders("scenario", &["crate::engine::"]).is_empty());
    assert!(!offenders("engine", &["crate::sched::"]).is_empty());
}
