//! The engine and the policies meet only in the protocol (`src/sched`):
//! no file under `src/engine` names the policies, and no file under
//! `src/policy` names the engine. This test reads the sources and fails
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
fn the_policies_do_not_import_the_engine() {
    let bad = offenders("policy", &["crate::engine", "super::engine", "engine::"]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_check_would_see_an_import() {
    // Not vacuous: over the whole crate it finds the one place that hands
    // the engine its policies.
    let found = offenders("", &["crate::policy::build"]);
    assert!(
        found.iter().any(|l| l.contains("simulation.rs")),
        "{found:?}"
    );
}
