//! `schedscope taskgraph`: a schedule printed for a small STG file, the
//! exact scheduler on it, and bad input reported with file, line and field
//! (exit 2).

use std::process::{Command, Output};

fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A chain of two subtasks on one processor: counts of one are singular.
#[test]
fn one_edge_and_one_processor_are_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("chain.stg");
    std::fs::write(&f, "2\n0 0 0\n1 5 1 0\n2 7 1 1\n3 0 1 2\n").unwrap();
    let out = schedscope(&["taskgraph", "schedule", f.to_str().unwrap(), "--procs", "1"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2 subtasks, 1 edge, work 12"), "{text}");
    assert!(text.contains("on 1 processor: makespan 12"), "{text}");
    assert!(text.contains("1 processor used"), "{text}");
}

/// A diamond of four subtasks (plus the format's two dummies).
const DIAMOND: &str = "4\n0 0 0\n1 2 1 0\n2 3 1 1\n3 4 1 1\n4 1 2 2 3\n5 0 1 4\n";

#[test]
fn schedules_a_small_graph_and_prints_every_subtask() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("diamond.stg");
    std::fs::write(&f, DIAMOND).unwrap();
    let out = schedscope(&[
        "taskgraph",
        "schedule",
        f.to_str().unwrap(),
        "--procs",
        "2",
        "--scheduler",
        "hlfet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Without communication: T0 0–2, then T2 (4) and T1 (3) side by side
    // from 2, T3 at 6: makespan 7 = the critical path 2 + 4 + 1.
    assert!(
        text.contains("4 subtasks, 4 edges, work 10, critical path 7"),
        "{text}"
    );
    assert!(
        text.contains("HLFET on 2 processors: makespan 7 (lower bound 7)"),
        "{text}"
    );
    assert!(text.contains("P0   T0@0-2 T2@2-6 T3@6-7"), "{text}");
    assert!(text.contains("P1   T1@2-5"), "{text}");

    let out = schedscope(&[
        "taskgraph",
        "schedule",
        f.to_str().unwrap(),
        "--procs",
        "2",
        "--scheduler",
        "bnb",
        "--copies",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("branch-and-bound on 2 processors: makespan 7"),
        "{text}"
    );
    assert!(
        text.contains("2 copies interwoven on 2 processors: length"),
        "{text}"
    );
}

#[test]
fn bad_input_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.stg");
    std::fs::write(&f, DIAMOND.replace("3 4 1 1", "3 4 1 9")).unwrap();
    let out = schedscope(&["taskgraph", "schedule", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad.stg:5: predecessor: 9 is not an earlier subtask than 3"),
        "{err}"
    );

    let out = schedscope(&["taskgraph", "gaps", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("no Optimal_values")
    );
}
