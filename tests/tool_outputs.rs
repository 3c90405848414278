//! `run --out` writes files other tools read: Batsim's `out_jobs.csv`, with
//! Batsim's columns and number formats, and the schedule as SWF. On Batsim's
//! `medium_late` workload under pinned EASY, every start time in our
//! `out_jobs.csv` is, character for character, the one in Batsim's.

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

fn run_pinned_easy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args([
            "run",
            "scenarios/batsim-medium-late.toml",
            "--set",
            "policy.machines=pinned",
            "--out",
            out.to_str().unwrap(),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (tmp, out)
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
    // Same literal forms: six decimals, -1 energy, an empty quoted metadata.
    let ours = std::fs::read_to_string(out.join("out_jobs.csv")).unwrap();
    let line = ours.lines().nth(1).unwrap();
    assert!(line.ends_with(",-1.000000,\"\""), "{line}");
    assert!(line.contains(",COMPLETED_SUCCESSFULLY,0.000000,"), "{line}");
}

#[test]
fn pinned_easy_start_times_are_batsims_to_the_microsecond() {
    let Some(refs) = reference_dir() else { return };
    let (_tmp, out) = run_pinned_easy();
    let (rh, rrows) = read_csv(&refs.join("batsim_evalys_medium_late/easy/out_jobs.csv"));
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
    println!("allocated_resources equal to Batsim's for {same_machines} of 801 jobs");
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
    // Both files are in submit order: row i and record i are the same job.
    for (s, r) in trace.records.iter().zip(&rows) {
        assert_eq!(s.job_number.to_string(), r[0]);
        let secs = |i: usize| r[i].parse::<f64>().unwrap().round() as i64;
        assert_eq!(s.submit_time, secs(3));
        assert_eq!(s.submit_time + s.wait_time, secs(8), "job {}", r[0]);
        assert_eq!(s.submit_time + s.wait_time + s.run_time, secs(10));
        assert_eq!(s.allocated_procs.to_string(), r[4]);
        assert_eq!(s.status, 1);
    }
}
