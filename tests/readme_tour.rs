//! README's "A quick tour", run as a newcomer runs it: on a fresh clone of
//! the repository (its committed HEAD) in a temporary folder, with no
//! `shared/` beside it. Every command of the tour is run, with the built
//! binary standing for `cargo run --release --`, and must exit as the
//! README says. Where `../shared/data` is beside this repository, the
//! trace is then "downloaded" into the clone (copied), and the commands
//! that name it must run.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// How a command of the tour ends on a fresh clone.
#[derive(Clone, Copy, Debug)]
enum Ends {
    /// Exit 0.
    Ok,
    /// Exit 2, naming the missing trace, where to download it and the
    /// override to pass.
    NeedsTheTrace,
    /// Exit 2 on a clone without the data, 0 once the trace is there.
    NeedsTheDownload,
}

/// Every command of the tour (as in the README, `cargo run --release --`
/// left out) and how it ends.
const TOUR: &[(&str, Ends)] = &[
    ("run scenarios/ngubiri-fpfs10.toml", Ends::Ok),
    ("run scenarios/ngubiri-fpfs10.toml --format json", Ends::Ok),
    ("run scenarios/teach-jumping.toml --format csv", Ends::Ok),
    (
        "run scenarios/default.toml --set policy.max_jumps=5 --set workload.split.approach=phased --replications auto",
        Ends::Ok,
    ),
    (
        "run scenarios/ngubiri-fcfs.toml --out results/fcfs",
        Ends::Ok,
    ),
    (
        "sweep scenarios/ngubiri-maxjumps.toml --vary policy.max_jumps=0,1,2,5,10,20 --replications 4",
        Ends::Ok,
    ),
    ("check scenarios/*.toml", Ends::Ok),
    (
        "sweep scenarios/backfill-estimate-error.toml --vary estimates.error_percent=0,10,30 --vary estimates.on_overrun=continue,kill",
        Ends::Ok,
    ),
    ("validate scenarios/*.toml", Ends::NeedsTheTrace),
    (
        "sweep scenarios/trace-kth-sp2-1996-2.1.toml --vary policy.name=fcfs,easy,conservative",
        Ends::NeedsTheTrace,
    ),
    (
        "sweep scenarios/trace-kth-sp2-1996-2.1.toml --set workload.path=KTH-SP2-1996-2.1-cln.swf.gz --vary policy.name=fcfs,easy,conservative",
        Ends::NeedsTheDownload,
    ),
    (
        "swf info KTH-SP2-1996-2.1-cln.swf.gz",
        Ends::NeedsTheDownload,
    ),
];

const CARGO_RUN: &str = "cargo run --release -- ";

/// The commands of the README's tour, continuation lines joined, with
/// `cargo run --release --` left out.
fn tour_commands(readme: &str) -> Vec<String> {
    let tour = &readme[readme.find("## A quick tour").expect("README has a tour")..];
    let block = &tour[tour.find("```sh\n").expect("the tour has a sh block") + 6..];
    let block = &block[..block.find("```").expect("the block ends")];
    let mut commands = Vec::new();
    let mut current = String::new();
    for line in block.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (text, continues) = match line.strip_suffix('\\') {
            Some(t) => (t.trim(), true),
            None => (line, false),
        };
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(text);
        if !continues {
            let c = current
                .strip_prefix(CARGO_RUN)
                .unwrap_or_else(|| panic!("a tour command starts with `{CARGO_RUN}`: {current}"))
                .to_string();
            commands.push(c);
            current.clear();
        }
    }
    commands
}

/// A fresh clone of this repository's committed HEAD, or `None` (said
/// why) where there is no git or no repository.
fn fresh_clone(into: &Path) -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dest = into.join("schedscope");
    let cloned = Command::new("git")
        .args(["clone", "--quiet"])
        .arg(repo)
        .arg(&dest)
        .output();
    match cloned {
        Ok(o) if o.status.success() => Some(dest),
        other => {
            let why = match other {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must be able to clone the repository: {why}"
            );
            println!("skipping: cannot clone {}: {why}", repo.display());
            None
        }
    }
}

/// Runs one tour command in `dir` through the shell (for the globs), the
/// built binary standing for `cargo run --release --`.
fn run(dir: &Path, command: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("\"$0\" {command}"))
        .arg(env!("CARGO_BIN_EXE_schedscope"))
        .current_dir(dir)
        .env_remove("CI")
        .output()
        .expect("sh runs")
}

fn says_how_to_get_the_trace(command: &str, o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    let all = format!("{out}{err}");
    assert_eq!(o.status.code(), Some(2), "{command}:\n{all}");
    assert!(
        all.contains("KTH-SP2-1996-2.1-cln.swf.gz"),
        "{command} names the trace:\n{all}"
    );
    if command.starts_with("swf ") {
        return;
    }
    assert!(
        all.contains("--set workload.path=/path/to/KTH-SP2-1996-2.1-cln.swf.gz")
            && all.contains("https://www.cs.huji.ac.il/labs/parallel/workload/logs.html"),
        "{command} says where to download the trace and how to name it:\n{all}"
    );
    assert!(
        !err.contains("with --set"),
        "{command}: no --set was given:\n{err}"
    );
}

#[test]
fn every_tour_command_exits_as_the_readme_says_on_a_fresh_clone() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(clone) = fresh_clone(tmp.path()) else {
        return;
    };
    assert!(!tmp.path().join("shared").exists());
    let readme = std::fs::read_to_string(clone.join("README.md")).unwrap();
    let commands = tour_commands(&readme);
    let listed: Vec<&str> = TOUR.iter().map(|(c, _)| *c).collect();
    assert_eq!(
        commands, listed,
        "the README's tour and this test list the same commands"
    );

    let mut validated = None;
    for &(command, ends) in TOUR {
        let o = run(&clone, command);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        match ends {
            Ends::Ok => assert_eq!(o.status.code(), Some(0), "{command}:\n{all}"),
            Ends::NeedsTheTrace | Ends::NeedsTheDownload => says_how_to_get_the_trace(command, &o),
        }
        println!("{command}: exit {:?}", o.status.code());
        if command == "validate scenarios/*.toml" {
            validated = Some(o);
        }
    }
    // What the commands said they did.
    let results = clone.join("results/fcfs");
    for f in ["summary.json", "jobs.csv"] {
        assert!(results.join(f).is_file(), "--out wrote {f}");
    }
    let o = validated.expect("the tour validates every scenario");
    let out = String::from_utf8_lossy(&o.stdout);
    for line in out.lines() {
        let needs_data = [
            "scenarios/trace-",
            "scenarios/batsim-",
            "scenarios/sulistio-",
        ]
        .iter()
        .any(|p| line.contains(p));
        let expected = if needs_data { "missing " } else { "ok " };
        assert!(line.starts_with(expected), "{line}");
    }

    // The download, from ../shared/data when it is beside this repository.
    let Some(trace) = common::shared_data("swf/KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    std::fs::copy(&trace, clone.join("KTH-SP2-1996-2.1-cln.swf.gz")).unwrap();
    for &(command, ends) in TOUR {
        if let Ends::NeedsTheDownload = ends {
            let o = run(&clone, command);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{command} with the trace downloaded:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            println!("{command}, trace downloaded: exit 0");
        }
    }
}

/// The README's commands outside its tour, each with the test that runs
/// it (or what it needs that a test cannot have). A command added to the
/// README must be added to the tour or here.
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "cargo run --release",
        "tests/console_in_tmux.rs (the console with no arguments)",
    ),
    ("cargo test --workspace", ".ci/run"),
    (
        "schedscope sweep scenarios/ngubiri-maxjumps.toml --vary policy.max_jumps=0,1,2,5,10,20 --replications 10 --out results/maxjumps --slurm --shards 6 --max-running 3 --partition short --time 30:00 --cpus-per-task 4 --submit",
        "tests/slurm_array.rs (a single-node Slurm)",
    ),
    (
        "schedscope merge results/maxjumps",
        "tests/slurm_array.rs, tests/sweep_shards.rs",
    ),
    (
        "schedscope sweep scenarios/ngubiri-maxjumps.toml --vary policy.max_jumps=0,1,2,3,5,7,10,15,20 --vary workload.split.approach=random,phased --plot figures/art-maxjumps",
        "tests/figures.rs (scenarios/paper-figures.sh draws it)",
    ),
    (
        "cargo run --release -p schedscope-sjf-easy -- sweep scenarios/trace-lublin_256.toml --vary policy.name=easy,sjf-easy",
        "crates/sjf-easy/tests/sjf_easy.rs",
    ),
    (
        "cargo run --release -p schedscope-sjf-easy -- console scenarios/default.toml",
        "crates/sjf-easy/tests/sjf_easy.rs (the picker lists it)",
    ),
    (
        "python3 -m venv venv && venv/bin/pip install --no-deps pybatsim==3.2.1",
        ".ci/pybatsim.sh",
    ),
    (
        "venv/bin/pip install pyzmq procset sortedcontainers docopt",
        ".ci/pybatsim.sh",
    ),
    (
        "venv/bin/pybatsim easyBackfill -s 'tcp://*:28000' -t 0 &",
        "tests/batsim/pybatsim.rs",
    ),
    (
        "schedscope console scenarios/batsim-medium-late.toml --set policy.name=external",
        "tests/batsim/pybatsim.rs (the console driven by pybatsim)",
    ),
];

/// Every command of the README's `sh` blocks, continuation lines joined
/// and comments after `#` dropped.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut rest = readme;
    while let Some(start) = rest.find("```sh\n") {
        let block = &rest[start + 6..];
        let end = block.find("```").expect("a sh block ends");
        let mut current = String::new();
        for line in block[..end].lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let line = match line.find("   #") {
                Some(i) => line[..i].trim(),
                None => line,
            };
            match line.strip_suffix('\\') {
                Some(t) => {
                    current.push_str(t.trim());
                    current.push(' ');
                }
                None => {
                    current.push_str(line);
                    commands.push(std::mem::take(&mut current));
                }
            }
        }
        rest = &block[end + 3..];
    }
    commands
}

#[test]
fn every_readme_command_is_run_by_a_test() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut unaccounted = Vec::new();
    for c in readme_commands(&readme) {
        let in_tour = c
            .strip_prefix(CARGO_RUN)
            .is_some_and(|rest| TOUR.iter().any(|(t, _)| *t == rest));
        let elsewhere = ELSEWHERE.iter().find(|(e, _)| *e == c);
        if let Some((_, by)) = elsewhere {
            let file = by.split_whitespace().next().unwrap().trim_end_matches(',');
            assert!(root.join(file).exists(), "{c}: {file} does not exist");
        } else if !in_tour {
            unaccounted.push(c);
        }
    }
    assert!(
        unaccounted.is_empty(),
        "README commands no test runs (add them to TOUR or ELSEWHERE):\n{}",
        unaccounted.join("\n")
    );
    assert!(readme_commands(&readme).len() >= ELSEWHERE.len() + TOUR.len());
}

/// The scenario of "Scenarios in five minutes" is complete: it runs, and
/// its bounds hold (and would not under FCFS).
#[test]
fn the_readmes_scenario_runs_and_its_bounds_hold() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let part = &readme[readme
        .find("## Scenarios in five minutes")
        .expect("the section")..];
    let start = part.find("```toml\n").expect("a toml block") + 8;
    let text = &part[start..start + part[start..].find("```").expect("it ends")];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mine.toml"), text).unwrap();
    let o = run(dir.path(), "check mine.toml");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let fcfs = text.replace("name = \"easy\"", "name = \"fcfs\"");
    assert_ne!(fcfs, text);
    std::fs::write(dir.path().join("fcfs.toml"), fcfs).unwrap();
    let o = run(dir.path(), "check fcfs.toml");
    assert_eq!(o.status.code(), Some(1), "FCFS fails the bound");
}
