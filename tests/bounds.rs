//! Memory bounds: inputs that cannot fit are refused when the scenario is
//! read, with the file, the line and the field; what can be streamed is
//! (rows of a run that never ends come out while it runs).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn write(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("bounds.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// `validate FILE` on `text`: (exit code, what it printed, the file's
/// path). `validate` lists each file's error on standard output.
fn validate(text: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), text);
    let o = schedscope(&["validate", p.to_str().unwrap()]);
    (
        o.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        p.display().to_string(),
    )
}

const NGUBIRI: &str = "[workload]\nkind = \"ngubiri\"\nq = 0.85\nmin_size = 1\n";

#[test]
fn a_platform_above_the_processor_bound_is_refused_at_its_shape() {
    let text = format!(
        "name = \"big\"\n[platform]\nshape = \"1x4000000000\"\n{NGUBIRI}max_size = 4000000000\n"
    );
    let (code, err, path) = validate(&text);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{path}:3:")),
        "names the shape's line: {err}"
    );
    assert!(
        err.contains(
            "[platform] has 4000000000 processors in all; schedscope holds at most 16777216 (it keeps the owner of every processor, 4 bytes each)"
        ),
        "{err}"
    );
}

#[test]
fn listed_clusters_above_the_processor_bound_are_refused_at_the_one_that_passes_it() {
    let text = "name = \"big\"\n[[platform.clusters]]\nprocessors = 16000000\n\n[[platform.clusters]]\nprocessors = 1000000\n\n[workload]\nkind = \"jobs\"\njobs = [{ submit = 0, size = 1, runtime = 1 }]\n";
    let (code, err, path) = validate(text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{path}:5:")), "{err}");
    assert!(
        err.contains(
            "[platform] has 17000000 processors in all; schedscope holds at most 16777216"
        ),
        "{err}"
    );
}

#[test]
fn the_largest_platform_allowed_is_read_and_a_job_as_wide_runs() {
    // 16 Mi processors: the owner maps take 64 MiB, the run one job.
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "name = \"widest\"\n[platform]\nshape = \"1x16777216\"\n[workload]\nkind = \"jobs\"\njobs = [{ submit = 0, size = 16777215, runtime = 1 }]\n",
    );
    let o = schedscope(&["run", p.to_str().unwrap(), "--format", "csv"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);
}

#[test]
fn a_generated_size_above_the_platform_is_refused_before_any_table_is_built() {
    let text =
        format!("name = \"big\"\n[platform]\nshape = \"5x20\"\n{NGUBIRI}max_size = 4000000000\n");
    let (code, err, path) = validate(&text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{path}:8:")), "{err}");
    assert!(
        err.contains("max_size (4000000000) must be at most the platform's 100 processors: a larger job can never run"),
        "{err}"
    );
}

#[test]
fn a_graph_stream_that_would_draw_too_many_graphs_is_refused() {
    let text = "name = \"graphs\"\n[platform]\nshape = \"1x16\"\n[workload]\nkind = \"jobs\"\njobs = [{ submit = 0, size = 1, runtime = 1 }]\n[graphs]\narrivals = \"rate\"\nmean_interarrival = 0.000001\nuntil = 432000\n";
    let (code, err, path) = validate(text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{path}:9:")), "{err}");
    assert!(
        err.contains("[graphs] mean_interarrival = 1e-6 s over 432000 s would draw about 4.320e11 graphs; at most 200000 are allowed (each waiting graph keeps its subtasks and schedule): raise mean_interarrival to at least 2.16 s or shorten the span"),
        "{err}"
    );
}

/// A run of 4,294,967,295 jobs never ends in a test, but its rows come out
/// as its jobs end: the first ones are read within seconds, and the run is
/// stopped there.
#[test]
fn csv_rows_of_a_huge_run_stream_while_it_runs() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args([
            "run",
            "scenarios/default.toml",
            "--set",
            "run.jobs=4294967295",
            "--format",
            "csv",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let started = Instant::now();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let header = lines.next().unwrap().unwrap();
    assert!(header.starts_with("job_id,submit,start,end"), "{header}");
    let rows: Vec<String> = lines.by_ref().take(1000).map(|l| l.unwrap()).collect();
    let took = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(rows.len(), 1000);
    assert!(
        rows.iter().all(|r| r.rsplit(',').nth(1) == Some("0")),
        "rows of replication 0"
    );
    assert!(took < Duration::from_secs(60), "took {took:?}");
}
