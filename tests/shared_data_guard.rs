//! Tests that read `../shared/data` go through `common::shared_data`, which
//! skips with a printed reason on a clone without the folder and fails when
//! `CI` is set: a test with its own existence check would turn into a
//! silent pass the day the folder moves.

use std::fs;
use std::path::Path;

#[test]
fn data_dependent_tests_fail_under_ci_without_the_data() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut checked = 0;
    let mut guarded = 0;
    let mut own = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let code: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        checked += 1;
        // This file names the folder in its own checks only.
        if path
            .file_name()
            .is_some_and(|n| n == "shared_data_guard.rs")
        {
            continue;
        }
        if code.iter().any(|l| l.contains("common::shared_data(")) {
            guarded += 1;
        }
        if code.iter().any(|l| l.contains("\"../shared/data")) {
            own.push(path.display().to_string());
        }
    }
    assert!(
        checked > 20,
        "only {checked} test files found in {}",
        dir.display()
    );
    // batsim_agreement, cli, console_session, readme_tour, swf_traces,
    // tool_outputs, trace_policies at least.
    assert!(
        guarded >= 7,
        "only {guarded} test files read the data through common::shared_data"
    );
    assert!(
        own.is_empty(),
        "these tests look for ../shared/data themselves instead of through common::shared_data: {own:?}"
    );
}
