//! pybatsim's shipped schedulers drive schedscope job by job, and scripted
//! schedulers misbehave on purpose.

use crate::*;

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
