//! Batsim's protocol against the real client: pybatsim 3.2.1's shipped
//! schedulers drive schedscope as the policy `external`, and scripted
//! schedulers (pyzmq) misbehave on purpose.
//!
//! pybatsim is looked for in the virtual environment `.ci/run` makes
//! (`.ci/venv`) or the one `SCHEDSCOPE_PYBATSIM_VENV` names. Where it is
//! absent the tests print why and skip; under CI they fail instead.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/console.rs"]
mod console;

/// pybatsim's shipped schedulers and scripted ones against schedscope.
mod pybatsim;
/// Schedulers schedscope starts itself, per run and per sweep point.
mod started;

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The virtual environment with pybatsim, if there is one.
pub(crate) fn venv() -> Option<PathBuf> {
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

pub(crate) fn medium_late() -> Option<PathBuf> {
    common::shared_data("reference_outputs/batsim_evalys_medium_late")
}

/// A free port on the loopback.
pub(crate) fn port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A scheduler process, killed when dropped.
pub(crate) struct Scheduler(Child);

impl Drop for Scheduler {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `pybatsim SCHED` listening on `port`, in `dir` (it writes its
/// `out_events.csv` there), waiting for messages as long as it takes
/// (`-t 0`: by default it gives up after 2 s without one).
pub(crate) fn pybatsim(venv: &Path, sched: &str, port: u16, dir: &Path) -> Scheduler {
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
pub(crate) fn scripted(venv: &Path, port: u16, body: &str) -> Scheduler {
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
pub(crate) fn run(scenario: &Path, port: u16, sets: &[&str], extra: &[&str]) -> Output {
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

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Rows of a CSV text, by column name.
pub(crate) fn rows(text: &str) -> Vec<HashMap<String, String>> {
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

pub(crate) fn num(row: &HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {:?}", row[col]))
}

/// The scenario of the `medium_late` workload at `path` (its copy, or
/// the shipped one) on `processors` machines.
pub(crate) fn scenario(dir: &Path, workload: &Path, processors: u32) -> PathBuf {
    scenario_with(dir, workload, processors, "")
}

/// [`scenario`] with `estimates` keys of its own (`on_overrun = "kill"`).
pub(crate) fn scenario_with(
    dir: &Path,
    workload: &Path,
    processors: u32,
    estimates: &str,
) -> PathBuf {
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
pub(crate) fn small(dir: &Path, json: &str, processors: u32) -> PathBuf {
    let workload = dir.join("w.json");
    std::fs::write(&workload, json).unwrap();
    scenario(dir, &workload, processors)
}

/// Every job of the workload ran exactly once, for its own run time.
pub(crate) fn every_job_once(jobs: &[HashMap<String, String>], workload: &Path) {
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
