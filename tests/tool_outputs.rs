//! `run --out` writes files other tools read: Batsim's `out_jobs.csv`, with
//! Batsim's columns and number formats, and the schedule as SWF. On Batsim's
//! `medium_late` workload under pinned EASY and pinned conservative
//! backfilling, every start time in our `out_jobs.csv` is, character for
//! character, the one in Batsim's, and so is every job's set of machines.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn reference_dir() -> Option<PathBuf> {
    common::shared_data("reference_outputs/batsim_evalys_medium_late/medium_late.json")?;
    common::shared_data("reference_outputs")
}

/// Header and rows (as strings) of a CSV file.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let h = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    (h, rows)
}

/// Runs `scenario` with `args` into a fresh folder.
fn run_out(scenario: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .arg("run")
        .arg(scenario)
        .args(args)
        .args(["--out", out.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (tmp, out)
}

fn run_pinned(policy: &str) -> (tempfile::TempDir, PathBuf) {
    let name = format!("policy.name={policy}");
    run_out(
        "scenarios/batsim-medium-late.toml",
        &["--set", "policy.machines=pinned", "--set", &name],
    )
}

fn run_pinned_easy() -> (tempfile::TempDir, PathBuf) {
    run_pinned("easy")
}

/// What a Batsim column holds.
fn kind(column: &str) -> &'static str {
    match column {
        "job_id" | "requested_number_of_resources" | "success" => "int",
        "workload_name" | "profile" | "metadata" => "text",
        "final_state" => "state",
        "allocated_resources" => "intervals",
        _ => "float",
    }
}

fn fits(kind: &str, v: &str) -> bool {
    match kind {
        "int" => v.parse::<i64>().is_ok(),
        "float" => v.parse::<f64>().is_ok_and(f64::is_finite),
        "state" => ["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED"].contains(&v),
        "intervals" => v.split(' ').all(|part| {
            part.split('-').count() <= 2 && part.split('-').all(|n| n.parse::<u32>().is_ok())
        }),
        _ => true,
    }
}

#[test]
fn out_jobs_has_batsims_columns_and_types() {
    let Some(refs) = reference_dir() else { return };
    let (_tmp, out) = run_pinned_easy();
    // Batsim 3.1's own output (another workload) fixes the column set.
    let (ref_header, ref_rows) = read_csv(&refs.join("batsim_hcmut_easy/easy_out_jobs.csv"));
    let (header, rows) = read_csv(&out.join("out_jobs.csv"));
    assert_eq!(header, ref_header);
    assert_eq!(rows.len(), 801);
    for (c, name) in header.iter().enumerate() {
        let k = kind(name);
        for r in ref_rows.iter().take(2000) {
            assert!(fits(k, &r[c]), "reference {name} = {:?} is not {k}", r[c]);
        }
        for r in &rows {
            assert!(fits(k, &r[c]), "our {name} = {:?} is not {k}", r[c]);
        }
    }
    // Same literal forms: six decimals, -1 energy, an empty metadata (left
    // unquoted by the csv writer; Batsim writes `""`).
    let ours = std::fs::read_to_string(out.join("out_jobs.csv")).unwrap();
    let line = ours.lines().nth(1).unwrap();
    assert!(line.ends_with(",-1.000000,"), "{line}");
    assert!(line.contains(",COMPLETED_SUCCESSFULLY,0.000000,"), "{line}");
}

/// Every start, submission and end time of our run under pinned `policy`
/// is Batsim's, and so is every job's set of machines: the engine's own
/// choice (lowest-numbered free processors, outside the head's reservation
/// for a job that would overlap it) is batsched's.
fn pinned_run_is_batsims(policy: &str) {
    let Some(refs) = reference_dir() else { return };
    let (_tmp, out) = run_pinned(policy);
    let (rh, rrows) =
        read_csv(&refs.join(format!("batsim_evalys_medium_late/{policy}/out_jobs.csv")));
    let (h, rows) = read_csv(&out.join("out_jobs.csv"));
    let col = |h: &[String], n: &str| h.iter().position(|x| x == n).unwrap();
    let reference: HashMap<&str, &Vec<String>> = rrows
        .iter()
        .map(|r| (r[col(&rh, "job_id")].as_str(), r))
        .collect();
    assert_eq!(rows.len(), reference.len());
    let mut same_machines = 0;
    for r in &rows {
        let b = reference[r[col(&h, "job_id")].as_str()];
        for name in ["submission_time", "starting_time", "finish_time"] {
            assert_eq!(r[col(&h, name)], b[col(&rh, name)], "job {}: {name}", r[0]);
        }
        // Batsim subtracts floats; ours is exact in microseconds.
        let wait = |row: &Vec<String>, h: &[String]| -> f64 {
            row[col(h, "waiting_time")].parse().unwrap()
        };
        assert!((wait(r, &h) - wait(b, &rh)).abs() < 1.5e-6, "job {}", r[0]);
        same_machines +=
            (r[col(&h, "allocated_resources")] == b[col(&rh, "allocated_resources")]) as usize;
    }
    // Rebuilt from the schedule after the run, as they once were, the
    // machines were Batsim's for 295 (EASY) and 283 (conservative) jobs.
    assert_eq!(
        same_machines, 801,
        "{policy}: allocated_resources equal to Batsim's"
    );
}

#[test]
fn pinned_easy_start_times_and_machines_are_batsims() {
    pinned_run_is_batsims("easy");
}

#[test]
fn pinned_conservative_start_times_and_machines_are_batsims() {
    pinned_run_is_batsims("conservative");
}

#[test]
fn the_schedule_swf_reads_back_as_simulated() {
    let Some(_) = reference_dir() else { return };
    let (_tmp, out) = run_pinned_easy();
    let trace = schedscope::workload::swf::read_path(out.join("schedule.swf")).unwrap();
    let (_, rows) = read_csv(&out.join("out_jobs.csv"));
    assert_eq!(trace.records.len(), 801);
    assert_eq!(trace.header.max_procs, Some(32));
    let (jobs, skipped) = schedscope::workload::swf::to_jobs(&trace);
    assert_eq!((jobs.len(), skipped.total()), (801, 0));
    // SWF numbers from 1, Batsim from 0; the header places the trace.
    assert_eq!(trace.header.unix_start_time, Some(0));
    assert_eq!(trace.header.time_zone(), Some("UTC"));
    // Both files are in submit order: row i and record i are the same job.
    for (s, r) in trace.records.iter().zip(&rows) {
        assert_eq!(s.job_number, r[0].parse::<i64>().unwrap() + 1);
        let secs = |i: usize| r[i].parse::<f64>().unwrap().round() as i64;
        assert_eq!(s.submit_time, secs(3));
        assert_eq!(s.submit_time + s.wait_time, secs(8), "job {}", r[0]);
        assert_eq!(s.submit_time + s.wait_time + s.run_time, secs(10));
        assert_eq!(s.allocated_procs.to_string(), r[4]);
        assert_eq!(s.status, 1);
    }
}

/// The column `name` of `rows` (with `header`).
fn column<'a>(header: &[String], rows: &'a [Vec<String>], name: &str) -> Vec<&'a str> {
    let c = header.iter().position(|x| x == name).unwrap();
    rows.iter().map(|r| r[c].as_str()).collect()
}

#[test]
fn the_stretch_of_a_job_that_runs_for_no_time_is_its_slowdown() {
    // One processor under FCFS: a job of 9 s, and two jobs of no run time
    // that wait for it and end as they start, at 9 s.
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("zero.toml");
    std::fs::write(
        &scenario,
        r#"
name = "zero-runtime"
description = "a job of 9 s, then two jobs of no run time behind it"
[platform]
shape = "1x1"
[workload]
kind = "jobs"
jobs = [
  { id = 1, submit = 0, size = 1, runtime = 9, estimate = 9 },
  { id = 2, submit = 0, size = 1, runtime = 0, estimate = 1 },
  { id = 3, submit = 0, size = 1, runtime = 0, estimate = 1 },
]
[policy]
name = "fcfs"
[estimates]
source = "trace"
"#,
    )
    .unwrap();
    let (_tmp, out) = run_out(scenario.to_str().unwrap(), &[]);
    let (bh, brows) = read_csv(&out.join("out_jobs.csv"));
    let (jh, jrows) = read_csv(&out.join("jobs.csv"));
    let stretch = column(&bh, &brows, "stretch");
    // Jobs 2 and 3 wait 9 s and run for no time: 9 over one second, as
    // jobs.csv's slowdown (it was 9 over one microsecond, 9,000,000).
    assert_eq!(stretch, ["1.000000", "9.000000", "9.000000"]);
    let ids = column(&jh, &jrows, "job_id");
    let slowdown = column(&jh, &jrows, "slowdown");
    for (id, s) in column(&bh, &brows, "job_id").iter().zip(&stretch) {
        let k = ids.iter().position(|i| i == id).unwrap();
        let jobs_csv: f64 = slowdown[k].parse().unwrap();
        assert_eq!(format!("{jobs_csv:.6}"), *s, "job {id}");
    }
}

#[test]
fn a_folded_job_says_which_processors_it_held_and_when() {
    // Under per-job windows, jobs 46 and 52 of replication 1 are folded;
    // their rows were empty, so evalys dropped them.
    let (_tmp, out) = run_out(
        "scenarios/utrera-moldable.toml",
        &["--set", "policy.params.window=estimate"],
    );
    let (h, rows) = read_csv(&out.join("out_jobs.r1.csv"));
    let ids = column(&h, &rows, "job_id");
    let alloc = column(&h, &rows, "allocated_resources");
    let start = column(&h, &rows, "starting_time");
    let size = column(&h, &rows, "requested_number_of_resources");
    let meta = column(&h, &rows, "metadata");
    let set = |s: &str| -> Vec<u32> {
        s.split(' ')
            .flat_map(|part| {
                let (a, b) = part.split_once('-').unwrap_or((part, part));
                a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap()
            })
            .collect()
    };
    for id in ["46", "52"] {
        let k = ids.iter().position(|i| *i == id).unwrap();
        assert!(!alloc[k].is_empty(), "job {id}");
    }
    let mut resized = 0;
    for k in 0..rows.len() {
        assert!(!alloc[k].is_empty(), "job {}", ids[k]);
        if meta[k].is_empty() {
            assert_eq!(set(alloc[k]).len(), size[k].parse::<usize>().unwrap());
            continue;
        }
        // Each set from its time on; the row's machines are their union.
        let m: serde_json::Value = serde_json::from_str(meta[k]).unwrap();
        let sets = m["placements"].as_array().unwrap();
        assert!(sets.len() > 1, "job {}", ids[k]);
        assert_eq!(
            format!("{:.6}", sets[0][0].as_f64().unwrap()),
            start[k],
            "job {}",
            ids[k]
        );
        let mut union: Vec<u32> = sets
            .iter()
            .flat_map(|s| set(s[1].as_str().unwrap()))
            .collect();
        union.sort_unstable();
        union.dedup();
        assert_eq!(union, set(alloc[k]), "job {}", ids[k]);
        resized += 1;
    }
    assert!(resized >= 2, "{resized}");
}

#[test]
fn warm_up_jobs_are_marked_and_the_rest_give_the_summarys_mean_wait() {
    let (_tmp, out) = run_out("scenarios/default.toml", &[]);
    let (h, rows) = read_csv(&out.join("out_jobs.csv"));
    let meta = column(&h, &rows, "metadata");
    let wait = column(&h, &rows, "waiting_time");
    let kept: Vec<f64> = (0..rows.len())
        .filter(|&k| !meta[k].contains("\"warmup\":true"))
        .map(|k| wait[k].parse().unwrap())
        .collect();
    assert_eq!((rows.len(), kept.len()), (20_000, 19_000));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let mean = kept.iter().sum::<f64>() / kept.len() as f64;
    let want = summary["metrics"]["overall"]["mean_wait"].as_f64().unwrap();
    // Six decimals per row: within 1e-6 (it was 5.367 against 5.448).
    assert!((mean - want).abs() < 1e-6, "{mean} {want}");
}

#[test]
fn a_trace_runs_schedule_keeps_the_traces_calendar_origin() {
    let Some(_) = common::shared_data("swf/DAS2-fs1-2003-1.swf") else {
        return;
    };
    let (_tmp, out) = run_out(
        "scenarios/trace-das2-fs1-2003-1.toml",
        &["--set", "workload.first_jobs=200"],
    );
    let trace = schedscope::workload::swf::read_path(out.join("schedule.swf")).unwrap();
    assert_eq!(trace.header.unix_start_time, Some(1_041_377_305));
    assert_eq!(trace.header.time_zone(), Some("Europe/Amsterdam"));
    assert_eq!(trace.records[0].job_number, 1);
}
