//! The command line around the console: headless when stdout is not a
//! terminal, clear errors for bad input.

use std::process::Command;

fn schedscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .env(
            "SCHEDSCOPE_LOG_DIR",
            std::env::temp_dir().join("schedscope-test-logs"),
        )
        .output()
        .unwrap()
}

#[test]
fn no_command_off_a_terminal_prints_the_default_table() {
    let out = schedscope(&[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("tour · 24/16/16/8 · EASY backfilling + worst fit · seed 1"),
        "{text}"
    );
    assert!(text.contains("ART (mean response)"), "{text}");
}

#[test]
fn console_explains_bad_input() {
    let out = schedscope(&["console", "no-such-scenario.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no-such-scenario.toml: cannot read the scenario"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, schedscope::scenario::DEFAULT_SCENARIO).unwrap();
    let out = schedscope(&["console", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("the console needs a terminal"), "{err}");
}
