//! Checks the SWF reader against the real traces in `../shared/data/swf`:
//! the skip counts must match a plain, independent count of the raw lines,
//! the job counts must match those listed in `../shared/data/SOURCES.md`,
//! and read → write → read must give the same trace.

mod common;

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use schedscope::workload::swf::{self, SkipCounts, SwfTrace};

/// The trace files, or `None` (with the reason printed) when the data
/// folder is absent.
fn trace_files() -> Option<Vec<PathBuf>> {
    let dir = common::shared_data("swf")?;
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    Some(files)
}

/// The whole file as text, gunzipped when it starts with the gzip magic.
fn raw_text(path: &Path) -> String {
    let bytes = fs::read(path).unwrap();
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    } else {
        bytes
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Counts, straight from the text, the data lines and how many of them
/// `to_jobs` should skip for each reason, and whether the kept submit times
/// are out of order.
fn independent_counts(text: &str) -> (usize, SkipCounts) {
    let mut counts = SkipCounts::default();
    let mut data_lines = 0;
    let mut last_submit = i64::MIN;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with(';') {
            continue;
        }
        data_lines += 1;
        // Only fields 1 to 8 matter here (the reader checks there are 18).
        let mut words = t.split_ascii_whitespace();
        let mut f = [""; 8];
        for slot in &mut f {
            *slot = words
                .next()
                .unwrap_or_else(|| panic!("short line `{line}`"));
        }
        let int = |i: usize| f[i - 1].parse::<i64>().unwrap();
        let positive = |v: i64| v > 0 && v <= i64::from(u32::MAX);
        if f[3] == "-1" {
            counts.unknown_run_time += 1;
        } else if int(4) < 0 {
            counts.invalid_run_time += 1;
        } else if !positive(int(8)) && !positive(int(5)) {
            counts.unknown_size += 1;
        } else if int(2) < 0 {
            counts.negative_submit += 1;
        } else if int(1) < 0 {
            counts.invalid_job_number += 1;
        } else {
            if int(2) < last_submit {
                counts.reordered = true;
            }
            last_submit = last_submit.max(int(2));
        }
    }
    (data_lines, counts)
}

/// From SOURCES.md: file name → (data lines, lines whose field 4 is -1).
fn listed_counts() -> HashMap<String, (usize, usize)> {
    let Some(path) = common::shared_data("SOURCES.md") else {
        return HashMap::new();
    };
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let number = |s: &str| -> usize {
        let digits: String = s
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(|c| *c != ',')
            .collect();
        digits.parse().unwrap()
    };
    let mut out = HashMap::new();
    let mut current: Option<String> = None;
    let mut jobs = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("### swf/") {
            current = Some(name.trim().to_string());
            jobs = None;
        } else if let Some(rest) = line.strip_prefix("- jobs (data lines): ") {
            jobs = Some(number(rest));
        } else if let Some(rest) = line.split("f4 runtime=").nth(1)
            && let (Some(name), Some(jobs)) = (&current, jobs)
        {
            out.insert(name.clone(), (jobs, number(rest)));
        }
    }
    out
}

fn round_trip(trace: &SwfTrace) {
    let mut out = Vec::new();
    swf::write_to(trace, &mut out).unwrap();
    let again = swf::read_from(&out[..], &trace.source_name).unwrap();
    assert!(
        again == *trace,
        "{}: read → write → read changed the trace",
        trace.source_name
    );
}

#[test]
fn real_traces_parse_count_and_round_trip() {
    let Some(files) = trace_files() else {
        return;
    };
    let listed = listed_counts();
    let mut checked_listed = Vec::new();
    for path in &files {
        let start = Instant::now();
        let trace = swf::read_path(path).unwrap_or_else(|e| panic!("{e}"));
        let parse_time = start.elapsed();
        let name = trace.source_name.clone();
        eprintln!(
            "{name}: {} records parsed in {:.3} s",
            trace.records.len(),
            parse_time.as_secs_f64()
        );

        let (jobs, skips) = swf::to_jobs(&trace);
        let (data_lines, expected) = independent_counts(&raw_text(path));
        assert_eq!(trace.records.len(), data_lines, "{name}: record count");
        assert_eq!(skips, expected, "{name}: skip counts");
        assert_eq!(jobs.len() + skips.total(), data_lines, "{name}");
        assert!(jobs.is_sorted_by_key(|j| j.submit), "{name}");

        if let Some(&(listed_jobs, listed_unknown_run_time)) = listed.get(&name) {
            assert_eq!(data_lines, listed_jobs, "{name}: SOURCES.md job count");
            assert_eq!(
                skips.unknown_run_time, listed_unknown_run_time,
                "{name}: SOURCES.md count of field 4 = -1"
            );
            checked_listed.push(name.clone());
        }

        let info = swf::info(&trace);
        assert_eq!(info.records, data_lines);
        assert_eq!(info.jobs, jobs.len());
        assert!(info.to_string().contains(&name));

        round_trip(&trace);
    }
    if !listed.is_empty() {
        for name in [
            "KTH-SP2-1996-2.1-cln.swf.gz",
            "HPC2N-2002-2.2-cln.swf.gz",
            "DAS2-fs1-2003-1.swf",
        ] {
            assert!(
                checked_listed.iter().any(|n| n == name),
                "{name} not checked against SOURCES.md"
            );
        }
    }
}

#[test]
fn listed_job_counts() {
    if common::shared_data("swf").is_none() {
        return;
    }
    for (file, records, max_procs) in [
        ("KTH-SP2-1996-2.1-cln.swf.gz", 28_476, Some(100)),
        ("HPC2N-2002-2.2-cln.swf.gz", 202_871, Some(240)),
        ("DAS2-fs1-2003-1.swf", 40_315, Some(64)),
    ] {
        let Some(path) = common::shared_data(&format!("swf/{file}")) else {
            continue;
        };
        let trace = swf::read_path(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.records.len(), records, "{file}");
        assert_eq!(trace.header.max_records, Some(records as u64), "{file}");
        assert_eq!(trace.header.max_procs, max_procs, "{file}");
    }
}
