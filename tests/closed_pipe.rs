//! A closed standard output (`schedscope check … | head -1`) ends a command
//! as it ends a Unix tool: quietly, exit 0, no panic and no message. Each
//! test spawns the binary on a real pipe and closes the read end before
//! the binary writes, so its first write meets EPIPE.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Runs schedscope with `args`, its standard output a pipe whose read end
/// is closed after `lines` lines have been read; returns (exit code, stderr).
fn with_closed_pipe(args: &[&str], lines: usize) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let stdout = child.stdout.take().expect("a piped stdout");
    let mut reader = BufReader::new(stdout);
    for _ in 0..lines {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a line");
    }
    // The read end closes here, as `head` closes it.
    drop(reader);
    let out = child.wait_with_output().expect("the binary ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_quiet(args: &[&str], lines: usize) {
    let (code, stderr) = with_closed_pipe(args, lines);
    assert_eq!(
        code,
        Some(0),
        "schedscope {} with a closed pipe: exit {code:?}, stderr:\n{stderr}",
        args.join(" ")
    );
    assert!(
        stderr.is_empty(),
        "schedscope {} with a closed pipe said:\n{stderr}",
        args.join(" ")
    );
}

#[test]
fn check_of_two_scenarios_into_a_closed_pipe_ends_quietly() {
    assert_quiet(
        &[
            "check",
            "scenarios/teach-jumping.toml",
            "scenarios/teach-backfill.toml",
        ],
        0,
    );
    assert_quiet(
        &[
            "check",
            "scenarios/teach-jumping.toml",
            "scenarios/teach-backfill.toml",
        ],
        1,
    );
}

#[test]
fn validate_into_a_closed_pipe_ends_quietly() {
    assert_quiet(
        &[
            "validate",
            "scenarios/teach-jumping.toml",
            "scenarios/default.toml",
        ],
        0,
    );
}

#[test]
fn workload_into_a_closed_pipe_ends_quietly() {
    assert_quiet(&["workload", "scenarios/default.toml"], 0);
}

#[test]
fn run_csv_into_a_closed_pipe_ends_quietly() {
    assert_quiet(
        &["run", "scenarios/teach-jumping.toml", "--format", "csv"],
        0,
    );
    // After the header, as `| head -1` reads it.
    assert_quiet(&["run", "scenarios/default.toml", "--format", "csv"], 1);
}

#[test]
fn tables_json_and_listings_into_a_closed_pipe_end_quietly() {
    assert_quiet(&["run", "scenarios/teach-jumping.toml"], 0);
    assert_quiet(
        &["run", "scenarios/teach-jumping.toml", "--format", "json"],
        0,
    );
    assert_quiet(&["policies"], 0);
    assert_quiet(
        &[
            "sweep",
            "scenarios/teach-jumping.toml",
            "--vary",
            "policy.name=fcfs,easy",
        ],
        0,
    );
}
