//! A sweep run as a job array on a real single-node Slurm: 16 points in 4
//! array tasks, into a folder whose path holds a space, quotes and a `%`,
//! merged, equal byte for byte to the same sweep run locally.
//!
//! Runs when `CI` is set or `SCHEDSCOPE_SLURM_TEST=1`, as root (it installs
//! Debian's slurm-wlm and munge when missing and starts the daemons by
//! hand with `.ci/slurm.sh`); otherwise it says why it skips. It stops the
//! daemons it started, by PID, whatever happens.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(root().join(".ci/slurm.sh"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const SWEEP: [&str; 12] = [
    "sweep",
    "scenarios/ngubiri-maxjumps.toml",
    "--set",
    "run.jobs=1500",
    "--set",
    "run.warmup_jobs=100",
    "--replications",
    "3",
    "--vary",
    "policy.max_jumps=0,1,2,5",
    "--vary",
    "workload.mean_interarrival=0.64,0.7,0.8,0.9",
];

fn schedscope(args: &[&str], conf: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(root())
        .env("SLURM_CONF", conf)
        .output()
        .expect("the binary runs")
}

#[test]
fn sixteen_points_as_a_slurm_array_merge_to_the_local_sweep() {
    if std::env::var_os("CI").is_none()
        && std::env::var("SCHEDSCOPE_SLURM_TEST").as_deref() != Ok("1")
    {
        println!("skipping: set SCHEDSCOPE_SLURM_TEST=1 (as root) to start a real Slurm");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let status = Command::new("bash")
        .arg(root().join(".ci/slurm.sh"))
        .arg("start")
        .arg(tmp.path().join("slurm"))
        .status()
        .expect("bash runs");
    let cluster = Cluster {
        dir: tmp.path().join("slurm"),
    };
    assert!(status.success(), "Slurm did not start");
    let started = t0.elapsed();
    let conf = cluster.conf();

    let mut want = Vec::new();
    for f in ["table", "json", "csv"] {
        let mut a = SWEEP.to_vec();
        a.extend(["--format", f]);
        let o = schedscope(&a, &conf);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        want.push(o.stdout);
    }
    assert_eq!(text(&want[0]).lines().count(), 17, "16 points");

    // A result folder whose path holds a space, quotes and a `%`: the
    // script's #SBATCH lines must name it as one word (sbatch refused the
    // unquoted `--output` line).
    let out = tmp.path().join("it's \"a\" 50% out");
    let t1 = Instant::now();
    let mut a = SWEEP.to_vec();
    a.extend([
        "--out",
        out.to_str().unwrap(),
        "--slurm",
        "--shards",
        "4",
        "--max-running",
        "2",
        "--time",
        "10",
        "--submit",
    ]);
    let o = schedscope(&a, &conf);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let job = text(&o.stdout).trim().to_string();
    assert!(
        !job.is_empty() && job.chars().all(|c| c.is_ascii_digit()),
        "a job id: {job:?}"
    );
    let script = std::fs::read_to_string(out.join("sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3%2"), "{script}");

    // Wait until the array has left the queue.
    loop {
        let q = Command::new("squeue")
            .args(["-h", "-j", &job, "-o", "%i %T"])
            .env("SLURM_CONF", &conf)
            .output()
            .unwrap();
        if text(&q.stdout).trim().is_empty() {
            break;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(240),
            "the array is still queued: {}",
            text(&q.stdout)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let ran = t1.elapsed();
    let logs: Vec<String> = (0..4)
        .map(|i| std::fs::read_to_string(out.join(format!("slurm/{job}_{i}.out"))).unwrap())
        .collect();
    for (i, l) in logs.iter().enumerate() {
        assert!(
            l.contains(&format!("shard {i}/4: 4 of 4 points run")),
            "task {i}: {l}"
        );
    }
    for (f, w) in ["table", "json", "csv"].iter().zip(&want) {
        let o = schedscope(&["merge", out.to_str().unwrap(), "--format", f], &conf);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(o.stdout == *w, "{f}: merged\n{}", text(&o.stdout));
    }
    println!(
        "Slurm: install and start {:.1} s, 16-point array in 4 tasks {:.1} s",
        started.as_secs_f64(),
        ran.as_secs_f64()
    );
    drop(cluster);
}
