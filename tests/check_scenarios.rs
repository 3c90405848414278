//! `schedscope check scenarios/*.toml` is a regression suite: every paper
//! and teaching scenario carries `[expect]` bounds, they all hold, and they
//! are tight enough to tell the paper's policies apart.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn check(paths: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .arg("check")
        .args(paths)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

/// Every shipped scenario, as `scenarios/NAME.toml`, sorted.
fn shipped() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".toml"))
        .map(|n| format!("scenarios/{n}"))
        .collect();
    v.sort();
    v
}

/// Scenarios that read data from outside the repository: their figures are
/// tested against that data elsewhere (tests/trace_policies.rs,
/// tests/batsim_agreement.rs, tests/sulistio_findings.rs).
fn reads_data(path: &str) -> bool {
    path.starts_with("scenarios/trace-")
        || path.starts_with("scenarios/batsim-")
        || path.starts_with("scenarios/sulistio-")
}

#[test]
fn every_paper_and_teaching_scenario_passes_its_bounds() {
    let paths = shipped();
    assert!(paths.len() >= 11, "{paths:?}");
    let o = check(&paths);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for p in &paths {
        let unbounded = out.contains(&format!("{p} has no [expect] bounds"));
        assert_eq!(
            unbounded,
            reads_data(p),
            "{p}: bounds on every paper and teaching scenario, none needed on data scenarios\n{out}"
        );
        if !reads_data(p) {
            assert!(out.contains(&format!("{p} (")), "{p} was checked:\n{out}");
        }
    }
    assert!(!out.contains("FAIL"), "{out}");
}

#[test]
fn the_bounds_tell_fcfs_from_fpfs() {
    // FPFS(10)'s scenario run under FCFS must fail its bounds, and the
    // other way round: the bounds hold the paper's finding, not just any
    // plausible figure.
    let dir = tempfile::tempdir().unwrap();
    let swap = |from: &str, policy: &str, to: &str| -> String {
        let text = std::fs::read_to_string(root().join(from)).unwrap();
        let old = format!("[policy]\nname = \"{policy}\"\n");
        assert!(text.contains(&old), "{from} has {old}");
        let p = dir.path().join(from.replace('/', "-"));
        let new = format!("[policy]\nname = \"{to}\"\n");
        std::fs::write(&p, text.replace(&old, &new)).unwrap();
        p.display().to_string()
    };
    for (scenario, policy, to) in [
        ("scenarios/ngubiri-fpfs10.toml", "fpfs", "fcfs"),
        ("scenarios/ngubiri-fcfs.toml", "fcfs", "fpfs"),
    ] {
        let o = check(&[swap(scenario, policy, to)]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{scenario} under {to}:\n{out}");
        assert!(out.contains("FAIL  art"), "{out}");
    }
}
