//! Schedulers schedscope starts itself (`policy.params.command`): one per
//! run serving every replication, one per sweep point, and none left behind.

use crate::*;

/// `policy.params.command` starting `pybatsim SCHED` from `venv`, its
/// processes carrying `mark` in their environment.
fn command_set(venv: &Path, sched: &str, mark: &str) -> String {
    format!(
        "policy.params.command={mark} {} {sched} -s {{endpoint}} -v warning -t 0",
        venv.join("bin/pybatsim").display()
    )
}

/// A marker no other test's processes carry.
fn marker(name: &str) -> String {
    format!("SCHEDSCOPE_TEST_MARK={name}-{}", std::process::id())
}

/// The live processes carrying `mark` (in their command line or
/// environment), by their `/proc/PID/stat`.
fn carrying(mark: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let p = e.path();
        let stat = std::fs::read_to_string(p.join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, s)| s.starts_with('Z'));
        let carries = ["cmdline", "environ"].iter().any(|f| {
            std::fs::read(p.join(f)).is_ok_and(|b| {
                b.split(|&c| c == 0)
                    .any(|w| String::from_utf8_lossy(w).contains(mark))
            })
        });
        if carries && !zombie {
            found.push(stat);
        }
    }
    found
}

/// [`carrying`], after giving the processes up to 5 s to go: none when
/// nothing was left behind.
fn left_behind(mark: &str) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let found = carrying(mark);
        if found.is_empty() || std::time::Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `schedscope ARGS` in `cwd`.
fn schedscope_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("schedscope runs")
}

/// Nothing was written in `cwd` (pybatsim writes `out_*.csv` into its
/// working folder, which is a temporary one).
fn untouched(cwd: &Path) {
    let left: Vec<_> = std::fs::read_dir(cwd).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?} in the working folder");
}

/// Per-job rows of one replication, in job order, without the
/// replication's number.
fn replication(rows: &[HashMap<String, String>], r: &str) -> Vec<Vec<(String, String)>> {
    let mut v: Vec<Vec<(String, String)>> = rows
        .iter()
        .filter(|row| row["replication"] == r)
        .map(|row| {
            let mut kv: Vec<(String, String)> = row
                .iter()
                .filter(|(k, _)| *k != "replication")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            kv.sort();
            kv
        })
        .collect();
    v.sort();
    v
}

/// With `command`, each replication starts its own `easyBackfill`: three
/// replications run side by side, every job runs once in each, and each
/// gives the schedule of a run of one replication; no scheduler is left
/// running and nothing is written in the working folder.
#[test]
fn a_scheduler_per_run_serves_every_replication() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/batsim-medium-late.toml");
    let sc = scenario.to_str().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mark = marker("replications");
    let command = command_set(&venv, "easyBackfill", &mark);
    let base = [
        "run",
        sc,
        "--set",
        "policy.name=external",
        "--set",
        &command,
        "--format",
        "csv",
    ];
    let three = schedscope_in(cwd.path(), &[&base[..], &["--replications", "3"]].concat());
    assert!(three.status.success(), "{}", stderr(&three));
    let one = schedscope_in(cwd.path(), &[&base[..], &["--replications", "1"]].concat());
    assert!(one.status.success(), "{}", stderr(&one));
    let three = rows(&String::from_utf8_lossy(&three.stdout));
    let one = rows(&String::from_utf8_lossy(&one.stdout));
    let workload = data.join("medium_late.json");
    every_job_once(&one, &workload);
    let single = replication(&one, "0");
    for r in ["0", "1", "2"] {
        let rep = replication(&three, r);
        assert_eq!(rep.len(), 801, "replication {r} ran every job");
        assert!(
            rep == single,
            "replication {r} is the run of one replication"
        );
    }
    assert_eq!(
        left_behind(&mark),
        Vec::<String>::new(),
        "no scheduler left"
    );
    untouched(cwd.path());
}

/// A sweep over two commands runs its points side by side, each with its
/// own scheduler: two rows, as different as easyBackfill and fillerSched.
#[test]
fn a_sweep_over_schedulers_runs_each_point_with_its_own() {
    let (Some(venv), Some(_)) = (venv(), medium_late()) else {
        return;
    };
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/batsim-medium-late.toml");
    let cwd = tempfile::tempdir().unwrap();
    let mark = marker("sweep");
    let easy = command_set(&venv, "easyBackfill", &mark);
    let filler = command_set(&venv, "fillerSched", &mark);
    let filler = filler.split_once('=').unwrap().1;
    let vary = format!("{easy},{filler}");
    let o = schedscope_in(
        cwd.path(),
        &[
            "sweep",
            scenario.to_str().unwrap(),
            "--set",
            "policy.name=external",
            "--vary",
            &vary,
            "--format",
            "csv",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let points = rows(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(points.len(), 2, "{points:?}");
    assert!(points[0]["policy.params.command"].contains("easyBackfill"));
    assert!(points[1]["policy.params.command"].contains("fillerSched"));
    for p in &points {
        assert_eq!(num(p, "jobs"), 801.0);
    }
    // fillerSched starts whatever fits; easyBackfill keeps the head's
    // reservation: their mean waits differ.
    assert!(
        (num(&points[0], "mean_wait") - num(&points[1], "mean_wait")).abs() > 1.0,
        "{points:?}"
    );
    assert_eq!(
        left_behind(&mark),
        Vec::<String>::new(),
        "no scheduler left"
    );
    untouched(cwd.path());
}

/// A command that fails stops the run with the command, its status and
/// its last errors; one that does not say where to listen is refused at
/// its line of the scenario.
#[test]
fn a_failing_command_is_a_clear_error() {
    let Some(data) = medium_late() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    let cwd = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mark = marker("failing");
    let o = schedscope_in(
        cwd.path(),
        &[
            "run",
            sc.to_str().unwrap(),
            "--set",
            &format!("policy.params.command=echo boom >&2; {mark} sleep 0.2; exit 3 # {{port}}"),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let said = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("`echo boom >&2;"), "{said}");
    assert!(said.contains("exited with status 3"), "{said}");
    assert!(said.contains("boom"), "{said}");
    assert!(!out.exists(), "no output");
    assert_eq!(left_behind(&mark), Vec::<String>::new());
    let no_port = dir.path().join("no-port.toml");
    let text = std::fs::read_to_string(&sc).unwrap().replace(
        "name = \"external\"\n",
        "name = \"external\"\n[policy.params]\ncommand = \"pybatsim easyBackfill\"\n",
    );
    std::fs::write(&no_port, text).unwrap();
    let o = schedscope_in(cwd.path(), &["run", no_port.to_str().unwrap()]);
    let said = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("no-port.toml:10"), "{said}");
    assert!(
        said.contains("params.command") && said.contains("{port}"),
        "{said}"
    );
    untouched(cwd.path());
}

/// A started scheduler that breaks the protocol, and would wait for more
/// forever, is killed when its run stops.
#[test]
fn a_started_scheduler_that_breaks_the_protocol_is_killed() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    let script = dir.path().join("garbage.py");
    std::fs::write(
        &script,
        "import sys, time, zmq\n\
         s = zmq.Context().socket(zmq.REP)\n\
         s.bind('tcp://127.0.0.1:' + sys.argv[1])\n\
         s.recv()\n\
         s.send(b'{not json')\n\
         time.sleep(600)\n",
    )
    .unwrap();
    let mark = marker("garbage");
    let cwd = tempfile::tempdir().unwrap();
    let o = schedscope_in(
        cwd.path(),
        &[
            "run",
            sc.to_str().unwrap(),
            "--set",
            &format!(
                "policy.params.command={mark} {} {} {{port}}",
                venv.join("bin/python").display(),
                script.display()
            ),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not JSON"), "{}", stderr(&o));
    assert_eq!(left_behind(&mark), Vec::<String>::new(), "killed");
    untouched(cwd.path());
}

/// In the console, a restart starts a new scheduler and stops the old
/// one, and a switch away from `external` stops the one it started.
#[test]
fn the_console_stops_the_scheduler_it_started() {
    use schedscope::console::session::Request;
    use schedscope::engine::Command;
    use schedscope::policy::PolicySpec;
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    schedscope_batsim::register();
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    let mark = marker("console");
    let sets = [command_set(&venv, "easyBackfill", &mark)];
    let sc = schedscope::scenario::Scenario::load_with(&sc, &sets).unwrap();
    let external = sc.file.policy.clone();
    let mut c = console::Console::on(sc, 120, 30);
    c.session
        .advance_to(schedscope::model::SimTime::from_secs(300), usize::MAX);
    c.publish();
    assert!(!c.screen().contains("■ stopped"), "{}", c.screen());
    let first = carrying(&mark);
    assert!(!first.is_empty(), "the scheduler runs");
    c.session.handle(Request::Restart { new_seed: false });
    c.session
        .advance_to(schedscope::model::SimTime::from_secs(300), usize::MAX);
    c.publish();
    assert!(!c.screen().contains("■ stopped"), "{}", c.screen());
    let pid = |stat: &String| stat.split(' ').next().unwrap().to_string();
    let old: Vec<String> = first.iter().map(pid).collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let mut now = carrying(&mark);
    while now.iter().any(|p| old.contains(&pid(p))) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        now = carrying(&mark);
    }
    assert!(!now.is_empty(), "a new scheduler runs");
    assert!(
        now.iter().all(|p| !old.contains(&pid(p))),
        "the first scheduler is gone: {first:?} {now:?}"
    );
    c.session.handle(Request::Apply(Command::SetPolicy {
        policy: PolicySpec {
            name: schedscope::policy::PolicyName::new("easy"),
            params: Default::default(),
            ..external
        },
    }));
    assert_eq!(left_behind(&mark), Vec::<String>::new(), "stopped");
}

/// A run ended by a signal while its scheduler runs leaves nothing
/// behind: SIGINT with `--out` (schedscope removes its staging folder and
/// exits) and SIGTERM without (schedscope dies of it).
#[test]
fn a_signal_leaves_no_scheduler_behind() {
    let Some(data) = medium_late() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    for (signal, out) in [("-INT", true), ("-TERM", false)] {
        let mark = marker(&format!("signal{signal}"));
        let out_dir = dir.path().join(format!("out{signal}"));
        let mut args = vec![
            "run".to_string(),
            sc.display().to_string(),
            "--set".to_string(),
            "policy.params.timeout=60".to_string(),
            "--set".to_string(),
            // Never listens: the run waits for it until the signal.
            format!("policy.params.command={mark} sleep 600 # {{port}}"),
        ];
        if out {
            args.extend(["--out".to_string(), out_dir.display().to_string()]);
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_schedscope"))
            .args(&args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let sleeping = || carrying(&mark).iter().any(|p| p.contains("(sleep)"));
        while !sleeping() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(sleeping(), "{signal}: the scheduler runs");
        // The scheduler's working folder, a temporary one.
        let sleep = carrying(&mark)
            .into_iter()
            .find(|p| p.contains("(sleep)"))
            .unwrap();
        let pid = sleep.split(' ').next().unwrap();
        let folder = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap();
        assert!(
            folder.to_string_lossy().contains("schedscope-scheduler-"),
            "{}",
            folder.display()
        );
        let killed = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert!(!status.success(), "{signal}: {status:?}");
        assert_eq!(left_behind(&mark), Vec::<String>::new(), "{signal}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while folder.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            !folder.exists(),
            "{signal}: {} is removed",
            folder.display()
        );
    }
}

/// In the console, a switch away from the scheduler ends its simulation
/// (pybatsim hears SIMULATION_ENDS and exits) and the built-in policy
/// takes the queue over. A switch back waits for the jobs EASY started to
/// end (a scheduler is told only of processors it allocates), says so,
/// then a new scheduler takes the queue as it stands and the run goes to
/// its end: every job once. A switch back to a fixed endpoint whose
/// scheduler has gone stops the run with the reason.
#[test]
fn switching_away_and_back_in_the_console() {
    use schedscope::console::session::Request;
    use schedscope::engine::Command;
    use schedscope::model::SimTime;
    use schedscope::policy::PolicySpec;
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    schedscope_batsim::register();
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    let mark = marker("switch");
    let sets = [command_set(&venv, "easyBackfill", &mark)];
    let sc = schedscope::scenario::Scenario::load_with(&sc, &sets).unwrap();
    let external = sc.file.policy.clone();
    let mut c = console::Console::on(sc, 120, 30);
    c.session.advance_to(SimTime::from_secs(300), usize::MAX);
    let easy = PolicySpec {
        name: schedscope::policy::PolicyName::new("easy"),
        params: Default::default(),
        ..external.clone()
    };
    c.session
        .handle(Request::Apply(Command::SetPolicy { policy: easy }));
    assert_eq!(
        left_behind(&mark),
        Vec::<String>::new(),
        "its scheduler ended"
    );
    c.session.advance_to(SimTime::from_secs(600), usize::MAX);
    let running = c.session.engine().running_len();
    assert!(running > 0, "EASY runs jobs");
    c.session.handle(Request::Apply(Command::SetPolicy {
        policy: external.clone(),
    }));
    c.session.step_events(1);
    c.publish();
    let screen = c.screen();
    assert!(!screen.contains("■ stopped"), "{screen}");
    assert!(screen.contains("waiting for"), "{screen}");
    assert!(carrying(&mark).is_empty(), "no scheduler yet");
    // On to the end: the new scheduler begins once EASY's jobs end.
    while !c.session.engine().is_done() {
        c.session.advance_to(SimTime::MAX, 1 << 16);
    }
    c.publish();
    let screen = c.screen();
    assert!(screen.contains("■ finished"), "{screen}");
    let counters = c.session.engine().counters();
    assert_eq!(counters.finished, counters.arrived, "every job ran once");
    assert!(counters.arrived > 700);
    assert!(!carrying(&mark).is_empty(), "the second scheduler ran it");
    // Its simulation ends with the console's run (quit, restart, switch).
    drop(c);
    assert_eq!(left_behind(&mark), Vec::<String>::new(), "and is gone");

    // A fixed endpoint: its scheduler exits when its simulation ends, so a
    // switch back finds no one and stops the run with the reason.
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    let port = port();
    let mut s = pybatsim(&venv, "easyBackfill", port, dir.path());
    let sets = [
        format!("policy.params.endpoint=\"tcp://127.0.0.1:{port}\""),
        "policy.params.timeout=1".to_string(),
    ];
    let sc = schedscope::scenario::Scenario::load_with(&sc, &sets).unwrap();
    let external = sc.file.policy.clone();
    let mut c = console::Console::on(sc, 120, 30);
    c.session.advance_to(SimTime::from_secs(300), usize::MAX);
    c.session.handle(Request::Apply(Command::SetPolicy {
        policy: PolicySpec {
            name: schedscope::policy::PolicyName::new("easy"),
            params: Default::default(),
            ..external.clone()
        },
    }));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while s.0.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        s.0.try_wait().unwrap().is_some(),
        "the scheduler's simulation ended"
    );
    c.session
        .handle(Request::Apply(Command::SetPolicy { policy: external }));
    while !c.session.engine().is_done() && c.session.engine().failure().is_none() {
        c.session.advance_to(SimTime::MAX, 1 << 16);
    }
    c.publish();
    let screen = c.screen();
    assert!(screen.contains("■ stopped"), "{screen}");
    assert!(screen.contains("no scheduler listens"), "{screen}");
}
