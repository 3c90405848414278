//! The layers are crates, and cargo keeps each from importing what it does
//! not list. This test holds the lists themselves: which of schedscope's
//! crates each core crate may depend on, and that none of them depends on
//! a terminal, plotting, command-line or async crate. The metrics, still a
//! module of the application, are held by reading their imports.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The names in `[dependencies]` of the manifest at `dir` (dev- and
/// build-dependencies aside: a test may run real policies).
fn dependencies(dir: &str) -> Vec<String> {
    let path = root().join(dir).join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    let mut names: Vec<String> = manifest
        .get("dependencies")
        .and_then(|d| d.as_table())
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

const FRONT_ENDS: &[&str] = &[
    "ratatui",
    "crossterm",
    "plotters",
    "clap",
    "tokio",
    "indicatif",
];

#[test]
fn each_core_crate_depends_only_on_the_layers_below_it() {
    // The domain at the bottom; the protocol on it; the engine, the
    // policies and the workloads side by side, none of which names another.
    let layers: &[(&str, &[&str])] = &[
        ("crates/model", &[]),
        ("crates/protocol", &["schedscope-model"]),
        ("crates/engine", &["schedscope-protocol"]),
        ("crates/policies", &["schedscope-protocol"]),
        ("crates/workloads", &["schedscope-model"]),
    ];
    let mut bad = Vec::new();
    for (dir, may) in layers {
        for dep in dependencies(dir) {
            if dep.starts_with("schedscope") && !may.contains(&dep.as_str()) {
                bad.push(format!("{dir} depends on {dep}"));
            }
            if FRONT_ENDS.contains(&dep.as_str()) {
                bad.push(format!("{dir} depends on the front-end crate {dep}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Not vacuous: the manifests are read, and the application's lists
    // the crates this test forbids below it.
    let app = dependencies(".");
    for dep in [
        "schedscope-engine",
        "schedscope-policies",
        "ratatui",
        "clap",
    ] {
        assert!(app.iter().any(|d| d == dep), "{dep} not in {app:?}");
    }
    assert!(
        dependencies("crates/engine")
            .iter()
            .any(|d| d == "schedscope-protocol")
    );
}

/// The metrics import the domain alone (`crate::model`), not the engine,
/// the scenarios or the console.
#[test]
fn the_metrics_import_only_the_domain() {
    const MODULES: &[&str] = &[
        "engine",
        "sched",
        "policy",
        "workload",
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
    let dir = root().join("src/metrics");
    let mut bad = Vec::new();
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            seen += usize::from(code.contains("crate::model::"));
            if MODULES
                .iter()
                .any(|m| code.contains(&format!("crate::{m}::")))
            {
                bad.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "imports across the layers:\n{}",
        bad.join("\n")
    );
    assert!(seen > 0, "the scan saw no import of the domain");
}
