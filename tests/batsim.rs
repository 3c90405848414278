//! Batsim's protocol against the real client: pybatsim 3.2.1's shipped
//! schedulers drive schedscope as the policy `external`, and scripted
//! schedulers (pyzmq) misbehave on purpose.
//!
//! pybatsim is looked for in the virtual environment `.ci/run` makes
//! (`.ci/venv`) or the one `SCHEDSCOPE_PYBATSIM_VENV` names. Where it is
//! absent the tests print why and skip; under CI they fail instead.

mod common;
#[path = "common/console.rs"]
mod console;

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The virtual environment with pybatsim, if there is one.
fn venv() -> Option<PathBuf> {
    let dir = std::env::var_os("SCHEDSCOPE_PYBATSIM_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/venv"));
    if dir.join("bin/pybatsim").exists() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "pybatsim is absent from {}, and CI must run this test",
            dir.display()
        );
    }
    println!("skipping: no pybatsim in {} (see .ci/run)", dir.display());
    None
}

fn medium_late() -> Option<PathBuf> {
    common::shared_data("reference_outputs/batsim_evalys_medium_late")
}

/// A free port on the loopback.
fn port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A scheduler process, killed when dropped.
struct Scheduler(Child);

impl Drop for Scheduler {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `pybatsim SCHED` listening on `port`, in `dir` (it writes its
/// `out_events.csv` there), waiting for messages as long as it takes
/// (`-t 0`: by default it gives up after 2 s without one).
fn pybatsim(venv: &Path, sched: &str, port: u16, dir: &Path) -> Scheduler {
    Scheduler(
        Command::new(venv.join("bin/pybatsim"))
            .args([
                sched,
                "-s",
                &format!("tcp://127.0.0.1:{port}"),
                "-v",
                "warning",
                "-t",
                "0",
            ])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("pybatsim starts"),
    )
}

/// A scripted scheduler: Python with pyzmq, replying with `replies(msg)`.
fn scripted(venv: &Path, port: u16, body: &str) -> Scheduler {
    let script = format!(
        "import json, sys, zmq\n\
         s = zmq.Context().socket(zmq.REP)\n\
         s.bind('tcp://127.0.0.1:{port}')\n\
         n = 0\n\
         while True:\n\
         \x20   msg = json.loads(s.recv())\n\
         \x20   n += 1\n\
         {body}\n"
    );
    Scheduler(
        Command::new(venv.join("bin/python"))
            .args(["-c", &script])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python starts"),
    )
}

/// `schedscope run SCENARIO --set …` under `external` at `port`.
fn run(scenario: &Path, port: u16, sets: &[&str], extra: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_schedscope"));
    c.arg("run").arg(scenario);
    c.args(["--set", "policy.name=external"]);
    c.args([
        "--set",
        &format!("policy.params.endpoint=\"tcp://127.0.0.1:{port}\""),
    ]);
    for s in sets {
        c.args(["--set", s]);
    }
    c.args(extra);
    c.output().expect("schedscope runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Rows of a CSV text, by column name.
fn rows(text: &str) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let h = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            h.iter()
                .map(String::from)
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn num(row: &HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {:?}", row[col]))
}

/// The scenario of the `medium_late` workload at `path` (its copy, or
/// the shipped one) on `processors` machines.
fn scenario(dir: &Path, workload: &Path, processors: u32) -> PathBuf {
    scenario_with(dir, workload, processors, "")
}

/// [`scenario`] with `estimates` keys of its own (`on_overrun = "kill"`).
fn scenario_with(dir: &Path, workload: &Path, processors: u32, estimates: &str) -> PathBuf {
    let p = dir.join("scenario.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"batsim-protocol\"\n\
             [platform]\nclusters = [{{ processors = {processors} }}]\n\
             [workload]\nkind = \"batsim\"\npath = \"{}\"\n\
             [policy]\nname = \"external\"\n\
             [estimates]\nsource = \"trace\"\n{estimates}\n",
            workload.display()
        ),
    )
    .unwrap();
    p
}

/// The scenario of a small workload (Batsim's JSON, `json`) on
/// `processors` machines, both written in `dir`.
fn small(dir: &Path, json: &str, processors: u32) -> PathBuf {
    let workload = dir.join("w.json");
    std::fs::write(&workload, json).unwrap();
    scenario(dir, &workload, processors)
}

/// Every job of the workload ran exactly once, for its own run time.
fn every_job_once(jobs: &[HashMap<String, String>], workload: &Path) {
    let w: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workload).unwrap()).unwrap();
    let profiles = &w["profiles"];
    let mut runtime: HashMap<u64, (f64, f64)> = HashMap::new();
    for j in w["jobs"].as_array().unwrap() {
        let delay = profiles[j["profile"].as_str().unwrap()]["delay"]
            .as_f64()
            .unwrap();
        let id = match &j["id"] {
            serde_json::Value::String(s) => s.rsplit('!').next().unwrap().parse().unwrap(),
            v => v.as_u64().unwrap(),
        };
        runtime.insert(id, (delay, j["walltime"].as_f64().unwrap_or(f64::INFINITY)));
    }
    assert_eq!(
        jobs.len(),
        runtime.len(),
        "every job of the workload has a row"
    );
    let mut seen = std::collections::HashSet::new();
    for r in jobs {
        let id: u64 = r["job_id"].parse().unwrap();
        assert!(seen.insert(id), "job {id} twice");
        let ran = num(r, "end") - num(r, "start");
        let (run, walltime) = runtime[&id];
        // A job killed at its walltime ran exactly that long.
        let due = if r["killed"] == "1" { walltime } else { run };
        assert!(
            r["killed"] == "0" || walltime < run,
            "job {id} killed within its walltime"
        );
        assert!(
            (ran - due).abs() < 1e-6,
            "job {id} ran {ran} s, not {due} s"
        );
        assert!(num(r, "start") >= num(r, "submit"));
    }
}

/// pybatsim's `fillerSched` on `medium_late` with 64 machines: every start
/// time and every allocation is Batsim's own (its reference output), the
/// scheduler's 0.005 s of decision time included.
#[test]
fn filler_sched_gives_batsims_own_schedule_job_by_job() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let workload = data.join("medium_late.json");
    let sc = scenario(dir.path(), &workload, 64);
    let port = port();
    let _s = pybatsim(&venv, "fillerSched", port, dir.path());
    let out = dir.path().join("out");
    let o = run(&sc, port, &[], &["--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ours = rows(&std::fs::read_to_string(out.join("out_jobs.csv")).unwrap());
    every_job_once(
        &rows(&std::fs::read_to_string(out.join("jobs.csv")).unwrap()),
        &workload,
    );
    // The reference numbers jobs by their order in the workload.
    let reference =
        rows(&std::fs::read_to_string(data.join("tests/filler_mediumWL_smallPF.csv")).unwrap());
    let hacky: HashMap<String, String> =
        rows(&std::fs::read_to_string(data.join("easy/out_jobs.csv")).unwrap())
            .into_iter()
            .map(|r| (r["job_id"].clone(), r["hacky_job_id"].clone()))
            .collect();
    let by_id: HashMap<&str, &HashMap<String, String>> =
        reference.iter().map(|r| (r["jobID"].as_str(), r)).collect();
    let mut compared = 0;
    for r in &ours {
        let Some(reference) = hacky.get(&r["job_id"]).and_then(|h| by_id.get(h.as_str())) else {
            continue;
        };
        compared += 1;
        assert!(
            (num(r, "starting_time") - num(reference, "starting_time")).abs() < 1e-5,
            "job {}: starts at {}, Batsim's at {}",
            r["job_id"],
            r["starting_time"],
            reference["starting_time"]
        );
        assert_eq!(
            r["allocated_resources"], reference["allocated_processors"],
            "job {}'s allocation",
            r["job_id"]
        );
    }
    assert_eq!(compared, 800, "the reference's 800 jobs compared");
}

/// pybatsim's `easyBackfill` runs `medium_late` on its 32 machines to the
/// end: every job once, for its run time.
#[test]
fn easy_backfill_runs_every_job_once() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let workload = data.join("medium_late.json");
    let sc = scenario(dir.path(), &workload, 32);
    let port = port();
    let _s = pybatsim(&venv, "easyBackfill", port, dir.path());
    let o = run(&sc, port, &[], &["--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let theirs = rows(&String::from_utf8_lossy(&o.stdout));
    every_job_once(&theirs, &workload);
    // Against schedscope's own EASY: how many jobs start at the same time.
    let own = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .arg("run")
        .arg(&sc)
        .args(["--set", "policy.name=easy", "--format", "csv"])
        .output()
        .unwrap();
    assert!(own.status.success(), "{}", stderr(&own));
    let own: HashMap<String, f64> = rows(&String::from_utf8_lossy(&own.stdout))
        .into_iter()
        .map(|r| (r["job_id"].clone(), num(&r, "start")))
        .collect();
    let same = theirs
        .iter()
        .filter(|r| (own[&r["job_id"]] - num(r, "start")).abs() < 1e-6)
        .count();
    println!(
        "easyBackfill and schedscope's EASY start {same} of {} jobs at the same time",
        theirs.len()
    );
}

/// Nothing listens: the run stops after the timeout with the endpoint
/// named, exit 2, and writes no output folder.
#[test]
fn no_scheduler_is_a_clear_error_and_no_output() {
    let Some(data) = medium_late() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    let port = port();
    let out = dir.path().join("out");
    let started = std::time::Instant::now();
    let o = run(
        &sc,
        port,
        &["policy.params.timeout=0.5"],
        &["--out", out.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("no scheduler listens at tcp://127.0.0.1:{port}")),
        "{}",
        stderr(&o)
    );
    assert!(started.elapsed().as_secs_f64() < 10.0, "no hang");
    assert!(!out.join("jobs.csv").exists(), "no half-written output");
}

/// Schedulers that break the protocol stop the run with what they broke.
#[test]
fn broken_replies_are_clear_errors() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), &data.join("medium_late.json"), 32);
    let cases: [(&str, &str); 5] = [
        ("    s.send(b'{not json')", "not JSON"),
        (
            "    s.send(json.dumps({'now': msg['now'] / 2, 'events': []}).encode())",
            "before the request's",
        ),
        (
            // Runs every job on resource 0, the second while the first runs.
            "    ev = [{'timestamp': msg['now'], 'type': 'EXECUTE_JOB', 'data': {'job_id': e['data']['job_id'], 'alloc': '0-%d' % (e['data']['job']['res'] - 1)}} for e in msg['events'] if e['type'] == 'JOB_SUBMITTED']\n    s.send(json.dumps({'now': msg['now'], 'events': ev}).encode())",
            "is busy",
        ),
        (
            "    s.send(json.dumps({'now': msg['now'], 'events': [{'timestamp': msg['now'], 'type': 'REGISTER_JOB', 'data': {}}]}).encode())",
            "REGISTER_JOB",
        ),
        (
            // Dies after three replies.
            "    s.send(json.dumps({'now': msg['now'], 'events': []}).encode())\n    if n == 3: sys.exit(0)",
            "stopped answering",
        ),
    ];
    for (body, says) in cases {
        let port = port();
        let _s = scripted(&venv, port, body);
        let out = dir.path().join(format!("out-{port}"));
        let o = run(
            &sc,
            port,
            &["policy.params.timeout=1"],
            &["--out", out.to_str().unwrap()],
        );
        assert_eq!(o.status.code(), Some(2), "{body}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(says),
            "{body}: expected {says:?} in {}",
            stderr(&o)
        );
        assert!(
            !out.join("jobs.csv").exists(),
            "{body}: no half-written output"
        );
    }
}

/// A decision takes effect at its event's timestamp, as in Batsim: a
/// scheduler that takes 2.5 s to decide starts each job 2.5 s after it is
/// told, and is told nothing while it is busy.
#[test]
fn decisions_take_effect_at_their_timestamps() {
    let Some(venv) = venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = small(
        dir.path(),
        r#"{"nb_res": 4, "jobs": [
            {"id": 1, "subtime": 10, "res": 2, "walltime": 100, "profile": "d5"},
            {"id": 2, "subtime": 11, "res": 2, "walltime": 100, "profile": "d5"}],
           "profiles": {"d5": {"type": "delay", "delay": 5}}}"#,
        4,
    );
    let port = port();
    let body = "    later = msg['now'] + 2.5 if msg['events'][0]['type'] != 'SIMULATION_BEGINS' else msg['now']\n\
                \x20   ev = [{'timestamp': later, 'type': 'EXECUTE_JOB', 'data': {'job_id': e['data']['job_id'], 'alloc': '0-1' if e['data']['job_id'].endswith('!1') else '2-3'}} for e in msg['events'] if e['type'] == 'JOB_SUBMITTED']\n\
                \x20   s.send(json.dumps({'now': later, 'events': ev}).encode())";
    let _s = scripted(&venv, port, body);
    let o = run(&sc, port, &[], &["--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let jobs = rows(&String::from_utf8_lossy(&o.stdout));
    let start = |id: &str| num(jobs.iter().find(|r| r["job_id"] == id).unwrap(), "start");
    // Job 1 is told at 10 and starts at 12.5; job 2 arrives at 11 while
    // the scheduler is busy, is told at 12.5 and starts at 15.
    assert_eq!(start("1"), 12.5);
    assert_eq!(start("2"), 15.0);
}

/// In the console, a run the scheduler's absence stops says so: the state
/// is "stopped" and the message line gives the reason.
#[test]
fn the_console_says_why_the_run_stopped() {
    schedscope_batsim::register();
    let dir = tempfile::tempdir().unwrap();
    let sc = small(
        dir.path(),
        r#"{"nb_res": 4, "jobs": [{"id": 1, "subtime": 1, "res": 2, "walltime": 9, "profile": "d"}],
           "profiles": {"d": {"type": "delay", "delay": 5}}}"#,
        4,
    );
    let sets = [
        format!("policy.params.endpoint=\"tcp://127.0.0.1:{}\"", port()),
        "policy.params.timeout=0.2".to_string(),
    ];
    let sc = schedscope::scenario::Scenario::load_with(&sc, &sets).unwrap();
    let mut c = console::Console::on(sc, 120, 30);
    c.session
        .advance_to(schedscope::model::SimTime::from_secs(10), usize::MAX);
    c.publish();
    let screen = c.screen();
    assert!(screen.contains("■ stopped"), "{screen}");
    assert!(screen.contains("✗ the run stopped at t = 1"), "{screen}");
    assert!(screen.contains("no scheduler listens"), "{screen}");
}

/// A copy of `medium_late` with every job submitted 1 s later, for the
/// schedulers that refuse to decide at time 0.
fn submitted_late(dir: &Path, data: &Path) -> PathBuf {
    let mut w: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("medium_late.json")).unwrap())
            .unwrap();
    for j in w["jobs"].as_array_mut().unwrap() {
        j["subtime"] = serde_json::json!(j["subtime"].as_f64().unwrap() + 1.0);
    }
    let workload = dir.join("late.json");
    std::fs::write(&workload, w.to_string()).unwrap();
    workload
}

/// pybatsim's `schedEasySjfBackfill` runs `medium_late` (submitted from
/// 1 s on) to the end: every job once, for its run time.
#[test]
fn easy_sjf_backfill_runs_every_job_once() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let workload = submitted_late(dir.path(), &data);
    let sc = scenario(dir.path(), &workload, 32);
    let port = port();
    let _s = pybatsim(&venv, "schedEasySjfBackfill", port, dir.path());
    let o = run(&sc, port, &[], &["--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    every_job_once(&rows(&String::from_utf8_lossy(&o.stdout)), &workload);
}

/// FCFS with each job on the lowest-numbered block of consecutive free
/// processors, written from its definition: (job id, start, first
/// processor) per job, in submission order.
fn fcfs_contiguous(workload: &Path, processors: usize) -> Vec<(u64, f64, usize)> {
    let w: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workload).unwrap()).unwrap();
    let mut jobs: Vec<(f64, usize, u64, usize, f64)> = w["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let id = j["id"].as_u64().unwrap();
            let run = w["profiles"][j["profile"].as_str().unwrap()]["delay"]
                .as_f64()
                .unwrap();
            let sub = j["subtime"].as_f64().unwrap();
            (sub, i, id, j["res"].as_u64().unwrap() as usize, run)
        })
        .collect();
    jobs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut free_at = vec![0.0f64; processors];
    let mut previous = 0.0f64;
    let mut out = Vec::new();
    for (sub, _, id, res, run) in jobs {
        let mut t = sub.max(previous);
        let first = loop {
            let block =
                (0..=processors - res).find(|&a| free_at[a..a + res].iter().all(|&f| f <= t));
            match block {
                Some(a) => break a,
                None => {
                    t = free_at
                        .iter()
                        .copied()
                        .filter(|&f| f > t)
                        .fold(f64::INFINITY, f64::min)
                }
            }
        };
        free_at[first..first + res]
            .iter_mut()
            .for_each(|f| *f = t + run);
        previous = t;
        out.push((id, t, first));
    }
    out
}

/// pybatsim's `schedFcfs` (on a copy of `medium_late` submitted from 1 s
/// on: it refuses decisions at time 0) runs every job once, and agrees
/// with FCFS on the lowest-numbered consecutive processors job by job,
/// start and allocation, until the first job where it takes another
/// block of consecutive free processors than the lowest-numbered one (its
/// list of free processors is not kept in number order): from there the
/// schedules part, as two different allocations make them.
#[test]
fn sched_fcfs_is_fcfs_on_consecutive_processors() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let workload = submitted_late(dir.path(), &data);
    let sc = scenario(dir.path(), &workload, 32);
    let port = port();
    let _s = pybatsim(&venv, "schedFcfs", port, dir.path());
    let out = dir.path().join("out");
    let o = run(&sc, port, &[], &["--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    every_job_once(
        &rows(&std::fs::read_to_string(out.join("jobs.csv")).unwrap()),
        &workload,
    );
    let ours: HashMap<u64, (f64, String)> =
        rows(&std::fs::read_to_string(out.join("out_jobs.csv")).unwrap())
            .into_iter()
            .map(|r| {
                let id = r["job_id"].parse().unwrap();
                (
                    id,
                    (num(&r, "starting_time"), r["allocated_resources"].clone()),
                )
            })
            .collect();
    let mut agreed = 0;
    for (id, start, first) in fcfs_contiguous(&workload, 32) {
        let (their_start, alloc) = &ours[&id];
        assert!(
            (their_start - start).abs() < 1e-5,
            "job {id}: starts at {their_start}, FCFS at {start} (after {agreed} jobs agreed)"
        );
        let their_first: usize = alloc.split(['-', ' ']).next().unwrap().parse().unwrap();
        if their_first != first {
            // Another block of the same start: the first place the two part.
            assert!(agreed > 400, "they part early, at job {id}");
            break;
        }
        agreed += 1;
    }
    println!("schedFcfs agrees with FCFS on consecutive processors for the first {agreed} jobs");
}

/// `KILL_JOB` kills a running job at once: it ends as killed, the
/// scheduler hears of it as `JOB_KILLED` in the next message (never as
/// `JOB_COMPLETED`), and the jobs behind it run.
#[test]
fn kill_job_kills_and_is_reported_as_killed() {
    let Some(venv) = venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = small(
        dir.path(),
        r#"{"nb_res": 2, "jobs": [
            {"id": 1, "subtime": 1, "res": 2, "walltime": 100, "profile": "d50"},
            {"id": 2, "subtime": 5, "res": 2, "walltime": 100, "profile": "d50"}],
           "profiles": {"d50": {"type": "delay", "delay": 50}}}"#,
        2,
    );
    let port = port();
    // Starts each job when told of it and there is room; kills job 1 when
    // job 2 arrives; any JOB_COMPLETED of job 1 breaks the protocol.
    let body = "    ev = []\n\
                \x20   for e in msg['events']:\n\
                \x20       t, d = e['type'], e['data']\n\
                \x20       if t == 'JOB_SUBMITTED' and d['job_id'] == 'w0!1':\n\
                \x20           ev.append({'timestamp': msg['now'], 'type': 'EXECUTE_JOB', 'data': {'job_id': 'w0!1', 'alloc': '0-1'}})\n\
                \x20       if t == 'JOB_SUBMITTED' and d['job_id'] == 'w0!2':\n\
                \x20           ev.append({'timestamp': msg['now'], 'type': 'KILL_JOB', 'data': {'job_ids': ['w0!1']}})\n\
                \x20       if t == 'JOB_KILLED' and d['job_ids'] == ['w0!1'] and 'w0!1' in d['job_progress']:\n\
                \x20           ev.append({'timestamp': msg['now'], 'type': 'EXECUTE_JOB', 'data': {'job_id': 'w0!2', 'alloc': '0-1'}})\n\
                \x20       if t == 'JOB_COMPLETED' and d['job_id'] == 'w0!1':\n\
                \x20           ev.append({'timestamp': msg['now'], 'type': 'NO_SUCH_EVENT', 'data': {}})\n\
                \x20   s.send(json.dumps({'now': msg['now'], 'events': ev}).encode())";
    let _s = scripted(&venv, port, body);
    let o = run(&sc, port, &[], &["--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let jobs = rows(&String::from_utf8_lossy(&o.stdout));
    let job = |id: &str| jobs.iter().find(|r| r["job_id"] == id).unwrap();
    assert_eq!(job("1")["killed"], "1");
    assert_eq!(num(job("1"), "end"), 5.0, "killed when job 2 arrived");
    assert_eq!(job("2")["killed"], "0");
    assert_eq!(
        num(job("2"), "start"),
        5.0,
        "started once job 1 was reported killed"
    );
    assert_eq!(num(job("2"), "end"), 55.0);
}

/// A workload with walltime kills (every fifth job of `medium_late` asks
/// for half its run time; `on_overrun = "kill"`): pybatsim's
/// `easyBackfill` and `fillerSched` run it to the end, every job once,
/// each killed job for exactly its walltime, and the scheduler counts as
/// timed out (`COMPLETED_WALLTIME_REACHED`) exactly the jobs schedscope
/// killed.
#[test]
fn walltime_kills_reach_the_scheduler() {
    let (Some(venv), Some(data)) = (venv(), medium_late()) else {
        return;
    };
    for sched in ["easyBackfill", "fillerSched"] {
        let dir = tempfile::tempdir().unwrap();
        let mut w: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(data.join("medium_late.json")).unwrap())
                .unwrap();
        let delays = w["profiles"].clone();
        for (i, j) in w["jobs"].as_array_mut().unwrap().iter_mut().enumerate() {
            if i % 5 == 0 {
                let delay = delays[j["profile"].as_str().unwrap()]["delay"]
                    .as_f64()
                    .unwrap();
                j["walltime"] = serde_json::json!((delay / 2.0).max(1.0));
            }
        }
        let workload = dir.path().join("short.json");
        std::fs::write(&workload, w.to_string()).unwrap();
        let sc = scenario_with(dir.path(), &workload, 64, "on_overrun = \"kill\"");
        let port = port();
        let log = std::fs::File::create(dir.path().join("pybatsim.log")).unwrap();
        let mut s = Scheduler(
            Command::new(venv.join("bin/pybatsim"))
                .args([
                    sched,
                    "-s",
                    &format!("tcp://127.0.0.1:{port}"),
                    "-v",
                    "warning",
                ])
                .current_dir(dir.path())
                .stdout(log)
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let o = run(&sc, port, &[], &["--format", "csv"]);
        assert!(o.status.success(), "{sched}: {}", stderr(&o));
        let jobs = rows(&String::from_utf8_lossy(&o.stdout));
        every_job_once(&jobs, &workload);
        let killed = jobs.iter().filter(|r| r["killed"] == "1").count();
        assert!(killed > 50, "{sched}: {killed} jobs killed");
        // It ends on SIMULATION_ENDS, having said what it counted.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while s.0.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            s.0.try_wait().unwrap().is_some(),
            "{sched} ended with the simulation"
        );
        let said = std::fs::read_to_string(dir.path().join("pybatsim.log")).unwrap();
        assert!(
            said.contains(&format!("timeout: {killed} ")),
            "{sched}: {killed} killed, the scheduler says: {said}"
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

/// Where pybatsim's `easyBackfill` and schedscope's EASY part, worked by
/// hand on 4 machines: jobs 1 (1 machine, 5 s) and 2 (1 machine, 50 s)
/// start at 3 s on machines 0 and 1. Job 3 (3 machines) arrives at 4 s:
/// when job 1 ends at 8 s, machines 0, 2 and 3 are free, three by count,
/// and schedscope's EASY starts it then. easyBackfill allocates consecutive
/// machines only: 0, 2, 3 is not a block, so its reservation for job 3 is
/// when job 2 ends, at 53 s, and job 5 (2 machines, 5 s) backfills at 5 s.
#[test]
fn easy_backfill_takes_consecutive_machines_only() {
    let Some(venv) = venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sc = small(
        dir.path(),
        r#"{"nb_res": 4, "jobs": [
            {"id": 1, "subtime": 3, "res": 1, "walltime": 5, "profile": "d5"},
            {"id": 2, "subtime": 3, "res": 1, "walltime": 50, "profile": "d50"},
            {"id": 3, "subtime": 4, "res": 3, "walltime": 10, "profile": "d10"},
            {"id": 4, "subtime": 4, "res": 3, "walltime": 10, "profile": "d10"},
            {"id": 5, "subtime": 5, "res": 2, "walltime": 5, "profile": "d5"}],
           "profiles": {"d5": {"type": "delay", "delay": 5}, "d10": {"type": "delay", "delay": 10},
                        "d50": {"type": "delay", "delay": 50}}}"#,
        4,
    );
    let starts = |o: &Output| -> HashMap<String, f64> {
        assert!(o.status.success(), "{}", stderr(o));
        rows(&String::from_utf8_lossy(&o.stdout))
            .into_iter()
            .map(|r| (r["job_id"].clone(), num(&r, "start")))
            .collect()
    };
    let own = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .arg("run")
        .arg(&sc)
        .args(["--set", "policy.name=easy", "--format", "csv"])
        .output()
        .unwrap();
    let own = starts(&own);
    assert_eq!((own["3"], own["4"], own["5"]), (8.0, 18.0, 28.0));
    let port = port();
    let _s = pybatsim(&venv, "easyBackfill", port, dir.path());
    let theirs = starts(&run(&sc, port, &[], &["--format", "csv"]));
    assert_eq!((theirs["1"], theirs["2"]), (3.0, 3.0));
    assert_eq!(theirs["5"], 5.0, "job 5 backfills");
    assert_eq!(
        theirs["3"], 53.0,
        "job 3 waits for a block of 3 consecutive machines"
    );
    assert_eq!(theirs["4"], 63.0);
}

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
