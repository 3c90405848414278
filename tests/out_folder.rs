//! `run --out DIR` writes its files as one unit: the folder holds an earlier
//! complete result or the new one, never a mix, and nothing is left behind
//! when a signal stops the run or the write. The folder is checked before
//! the simulation, and files get the umask's mode.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_schedscope");

fn scenario(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A large run into `dir`: seconds of simulation, then a jobs.csv of some
/// 65 MB and other files of over 100 MB written (seconds in a test build,
/// long enough for a signal to land in the middle).
fn start_large(dir: &Path) -> Child {
    Command::new(BIN)
        .args([
            "run",
            &scenario("default.toml"),
            "--set",
            "run.jobs=500000",
            "--out",
            dir.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Every entry of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The staging folder of a run into `parent/name`, once it exists.
fn staging(parent: &Path, name: &str) -> Option<PathBuf> {
    entries(parent)
        .into_iter()
        .find(|e| e.starts_with(&format!(".{name}.partial-")))
        .map(|e| parent.join(e))
}

/// Waits (at most a minute) until `ready` holds.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("kill runs")
        .success();
    assert!(ok, "kill {sig} {}", child.id());
}

#[test]
fn a_signal_during_the_run_or_the_write_leaves_the_folder_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let parent = tmp.path();

    // SIGTERM while simulating, into a folder that did not exist: nothing
    // new appears.
    let fresh = parent.join("fresh");
    let child = start_large(&fresh);
    wait_for("the staging folder", || staging(parent, "fresh").is_some());
    signal(&child, "-TERM");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + 15), "{err}");
    assert!(
        err.contains("SIGTERM") && err.contains("as it was"),
        "{err}"
    );
    assert!(entries(parent).is_empty(), "left: {:?}", entries(parent));

    // SIGINT while jobs.csv is being written, over an earlier result: the
    // earlier pair stays, byte for byte.
    let dir = parent.join("result");
    let o = run(&[
        "run",
        &scenario("teach-jumping.toml"),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let files = ["jobs.csv", "out_jobs.csv", "schedule.swf", "summary.json"];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| fs::read(dir.join(f)).unwrap())
        .collect();
    let child = start_large(&dir);
    wait_for("jobs.csv to be half written", || {
        staging(parent, "result")
            .and_then(|s| fs::metadata(s.join("jobs.csv")).ok())
            .is_some_and(|m| m.len() > 1_000_000)
    });
    signal(&child, "-INT");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + 2), "{err}");
    assert!(err.contains("SIGINT"), "{err}");
    assert_eq!(entries(parent), ["result"], "no staging folder is left");
    assert_eq!(entries(&dir), files);
    let after: Vec<Vec<u8>> = files
        .iter()
        .map(|f| fs::read(dir.join(f)).unwrap())
        .collect();
    assert!(before == after, "the earlier result is untouched");
}

#[test]
fn an_unusable_folder_is_refused_before_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    fs::write(&file, "not a folder").unwrap();
    let locked = tmp.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes through permission bits: the locked folder is a case only
    // for other users.
    let root = fs::write(locked.join("probe"), "").is_ok();
    let mut cases = vec![
        (file.join("result"), "cannot create the folder"),
        (file.clone(), "not a folder"),
    ];
    if root {
        println!("running as root: skipping the read-only folder case");
    } else {
        cases.push((locked.join("result"), "cannot create a folder in"));
        cases.push((locked.clone(), "cannot write into it"));
    }
    for (dir, says) in cases {
        let started = Instant::now();
        // Two million jobs take seconds to simulate; the refusal takes none.
        let o = run(&[
            "run",
            &scenario("default.toml"),
            "--set",
            "run.jobs=2000000",
            "--out",
            dir.to_str().unwrap(),
        ]);
        let took = started.elapsed();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("--out {}", dir.display())) && err.contains(says),
            "{err}"
        );
        assert!(o.stdout.is_empty(), "nothing ran");
        assert!(took < Duration::from_secs(3), "refused after {took:?}");
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    // A folder holding other files is not replaced.
    let mine = tmp.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("notes.txt"), "keep me").unwrap();
    let o = run(&[
        "run",
        &scenario("teach-jumping.toml"),
        "--out",
        mine.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("notes.txt"), "{err}");
    assert_eq!(entries(&mine), ["notes.txt"]);
}

#[test]
fn files_get_the_umask_mode_and_a_replaced_folder_keeps_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("result");
    let under_umask = |umask: &str| {
        let o = Command::new("sh")
            .args(["-c", &format!("umask {umask} && exec \"$@\""), "sh", BIN])
            .args([
                "run",
                &scenario("teach-jumping.toml"),
                "--out",
                dir.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    under_umask("027");
    assert_eq!(mode(&dir), 0o750);
    assert_eq!(mode(&dir.join("summary.json")), 0o640);
    assert_eq!(mode(&dir.join("jobs.csv")), 0o640);
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    under_umask("022");
    assert_eq!(mode(&dir), 0o700, "the folder keeps the mode it was given");
    assert_eq!(mode(&dir.join("summary.json")), 0o644);
    assert_eq!(mode(&dir.join("jobs.csv")), 0o644);
    assert_eq!(entries(tmp.path()), ["result"]);
}

#[test]
fn a_staging_folder_left_by_a_killed_run_goes_on_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    // A process that has ended: its pid names no running process.
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let stale = dir.path().join(format!(".res.partial-{}-0", gone.id()));
    fs::create_dir_all(stale.join("deep")).unwrap();
    fs::write(stale.join("deep/jobs.csv"), "left by SIGKILL").unwrap();
    let out = dir.path().join("res");
    let o = run(&[
        "run",
        &scenario("teach-jumping.toml"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(entries(dir.path()), vec!["res".to_string()]);
}

#[test]
fn sweep_out_refuses_a_folder_that_holds_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mine");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = run(&[
        "sweep",
        &scenario("teach-jumping.toml"),
        "--vary",
        "policy.name=fcfs,easy",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("holds files and no sweep.json (notes.txt)"),
        "{err}"
    );
    assert_eq!(entries(&out), vec!["notes.txt".to_string()]);
}
