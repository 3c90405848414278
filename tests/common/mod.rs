//! What the test files share.

use std::path::{Path, PathBuf};

/// `../shared/data/<sub>` beside the repository (real traces and reference
/// outputs, too large to ship). Where it is absent, the test prints why and
/// skips; under CI (the `CI` variable set), where it must be there, the test
/// fails instead.
#[allow(dead_code)] // not every test file that shares this module uses it
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(sub);
    if p.exists() {
        return Some(p);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} is absent, and CI must run this test", p.display());
    }
    println!("skipping: {} is absent", p.display());
    None
}

/// The shipped scenario files (`scenarios/*.toml`) whose file names pass
/// `keep`, sorted.
#[allow(dead_code)]
pub fn shipped_scenarios(keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("scenarios/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter(|p| keep(&p.file_name().unwrap().to_string_lossy()))
        .collect();
    v.sort();
    v
}

/// The group-wise co-allocation study, `scenarios/default.toml` (the
/// tests' standard scenario; `schedscope` without one opens the tour).
#[allow(dead_code)]
pub fn ngubiri() -> schedscope::scenario::Scenario {
    schedscope::scenario::Scenario::parse(
        include_str!("../../scenarios/default.toml"),
        "scenarios/default.toml",
        Path::new("."),
        &[],
    )
    .unwrap()
}
