//! A run's jobs in Batsim's `out_jobs.csv` form, so that evalys and other
//! Batsim tooling read a schedscope run as they read a Batsim one.
//!
//! The columns, their order and their number formats are Batsim 3's (six
//! decimals for times, `success` 1 or 0, `final_state`, `allocated_resources`
//! as intervals of machine numbers, `consumed_energy` -1 when not simulated),
//! written by the `csv` crate (fields quoted only where they must be, so an
//! empty `metadata` is an empty field where Batsim writes `""`: pandas
//! reads both as missing). What Batsim does not define:
//!
//! * `profile` is the job's run time in seconds, the name converters from
//!   SWF give a job's delay profile;
//! * `stretch` is turnaround over execution time, and for a job that ran
//!   for no time turnaround over one second: the convention of `jobs.csv`'s
//!   `slowdown` (the same number, from [`JobFigures`]);
//! * `allocated_resources` numbers processors across clusters (cluster 0's
//!   first) and gives the processors the engine gave the job (its
//!   [`JobRecord::placements`]). A moldable job folded or expanded while it
//!   ran held different sets over time, which Batsim has no way to say:
//!   its row gives every processor it held at some time in its run, and
//!   `metadata` gives each set and from when;
//! * `metadata` is empty for most jobs and otherwise a JSON object:
//!   `"warmup": true` for the warm-up jobs the summary leaves out (`[run]
//!   warmup_jobs`), and `"placements": [[from, "intervals"], ...]` for a job
//!   whose processors changed while it ran (`from` in seconds, as the
//!   times).

use crate::metrics::{JobFigures, measured};
use crate::model::{JobRecord, SimTime};
use std::io::Write;

pub const HEADER: [&str; 17] = [
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
];

/// Seconds with six decimals, exactly (times are whole microseconds).
pub fn secs6(t: SimTime) -> String {
    let us = t.ticks();
    let sign = if us < 0 { "-" } else { "" };
    let us = us.unsigned_abs();
    format!("{sign}{}.{:06}", us / 1_000_000, us % 1_000_000)
}

/// Processor numbers as Batsim writes interval sets: `0-3 8 10-11`.
pub use schedscope_batsim::wire::format_set as intervals;

/// A run time as a profile name: whole seconds without decimals.
fn profile(runtime: SimTime) -> String {
    let us = runtime.ticks();
    if us % 1_000_000 == 0 {
        (us / 1_000_000).to_string()
    } else {
        secs6(runtime)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Every processor the job held in its run, sorted.
fn held(r: &JobRecord) -> Vec<u32> {
    let mut ids: Vec<u32> = r
        .placements
        .iter()
        .flat_map(|p| p.processors.iter().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The `metadata` field (see the module comment).
fn metadata(r: &JobRecord, warmup: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if warmup {
        parts.push("\"warmup\":true".into());
    }
    if r.placements.len() > 1 {
        let sets: Vec<String> = r
            .placements
            .iter()
            .map(|p| format!("[{},\"{}\"]", secs6(p.from), intervals(&p.processors)))
            .collect();
        parts.push(format!("\"placements\":[{}]", sets.join(",")));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", parts.join(","))
    }
}

/// Writes `records` (one replication) in submit order; the first
/// `warmup_jobs` to arrive are marked in `metadata`.
pub fn write_jobs(
    w: &mut dyn Write,
    workload_name: &str,
    records: &[JobRecord],
    warmup_jobs: u64,
) -> std::io::Result<()> {
    let mut order: Vec<&JobRecord> = records.iter().collect();
    order.sort_by_key(|r| (r.submit, r.arrival));
    let mut out = csv::Writer::from_writer(w);
    out.write_record(HEADER)?;
    for r in order {
        let (success, state) = if r.killed {
            ("0", "COMPLETED_WALLTIME_REACHED")
        } else {
            ("1", "COMPLETED_SUCCESSFULLY")
        };
        out.write_record([
            r.id.to_string().as_str(),
            workload_name,
            &profile(r.runtime),
            &secs6(r.submit),
            &r.size.to_string(),
            &secs6(r.estimate),
            success,
            state,
            &secs6(r.start),
            &secs6(r.elapsed()),
            &secs6(r.end),
            &secs6(r.wait()),
            &secs6(r.response()),
            &format!("{:.6}", JobFigures::of(r).slowdown),
            &intervals(&held(r)),
            "-1.000000",
            &metadata(r, !measured(r, warmup_jobs)),
        ])?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Placement;

    fn rec(id: u64, cluster: u16, size: u32, start: i64, end: i64) -> JobRecord {
        JobRecord {
            id,
            arrival: id,
            submit: SimTime::ZERO,
            start: SimTime::from_secs(start),
            end: SimTime::from_secs(end),
            size,
            components: vec![size],
            clusters: vec![cluster],
            estimate: SimTime::from_secs(end - start),
            runtime: SimTime::from_secs(end - start),
            user: None,
            injected: false,
            jumped_ahead: false,
            killed: false,
            requeues: 0,
            held: 0.0,
            busy: 0.0,
            moldable: None,
            placements: Vec::new(),
        }
    }

    #[test]
    fn times_intervals_and_profiles() {
        assert_eq!(secs6(SimTime(4_709_164)), "4.709164");
        assert_eq!(secs6(SimTime(16_000_000_000)), "16000.000000");
        assert_eq!(intervals(&[0, 1, 2, 3, 8, 10, 11]), "0-3 8 10-11");
        assert_eq!(intervals(&[5]), "5");
        assert_eq!(profile(SimTime(88_510_000)), "88.51");
        assert_eq!(profile(SimTime(61_000_000)), "61");
    }

    fn written(records: &[JobRecord], name: &str, warmup: u64) -> Vec<Vec<String>> {
        let mut text = Vec::new();
        write_jobs(&mut text, name, records, warmup).unwrap();
        let mut r = csv::Reader::from_reader(&text[..]);
        assert_eq!(
            r.headers().unwrap(),
            &csv::StringRecord::from(HEADER.to_vec())
        );
        r.records()
            .map(|x| x.unwrap().iter().map(String::from).collect())
            .collect()
    }

    #[test]
    fn stretch_of_a_job_that_ran_for_no_time_is_jobs_csvs_slowdown() {
        // Submitted at 0, started and ended at 9 s: turnaround 9 over one
        // second, as jobs.csv's slowdown (once 9 over one microsecond).
        let mut r = rec(1, 0, 2, 9, 9);
        r.runtime = SimTime::ZERO;
        let rows = written(&[r.clone()], "w", 0);
        assert_eq!(rows[0][13], "9.000000");
        assert_eq!(JobFigures::of(&r).slowdown, 9.0);
        // Any other job: turnaround over execution time.
        let rows = written(&[rec(2, 0, 2, 3, 7)], "w", 0);
        assert_eq!(rows[0][13], "1.750000");
    }

    #[test]
    fn processors_are_the_engines_and_a_resized_job_says_when() {
        let mut plain = rec(1, 0, 3, 0, 10);
        plain.placements = vec![Placement {
            from: SimTime::ZERO,
            processors: vec![4, 5, 9],
        }];
        let mut folded = rec(2, 0, 4, 0, 10);
        folded.placements = vec![
            Placement {
                from: SimTime::ZERO,
                processors: vec![0, 1, 2, 3],
            },
            Placement {
                from: SimTime(2_500_000),
                processors: vec![0, 1],
            },
            Placement {
                from: SimTime::from_secs(6),
                processors: vec![0, 1, 6],
            },
        ];
        let rows = written(&[plain, folded], "w", 0);
        assert_eq!((rows[0][14].as_str(), rows[0][16].as_str()), ("4-5 9", ""));
        assert_eq!(rows[1][14], "0-3 6");
        let m: serde_json::Value = serde_json::from_str(&rows[1][16]).unwrap();
        assert_eq!(
            m,
            serde_json::json!({"placements": [[0.0, "0-3"], [2.5, "0-1"], [6.0, "0-1 6"]]})
        );
    }

    #[test]
    fn warm_up_jobs_are_marked_and_fields_are_quoted_by_the_csv_writer() {
        let rs = [rec(0, 0, 1, 0, 1), rec(1, 0, 1, 0, 1), rec(2, 0, 1, 0, 1)];
        let name = "a \"quoted\", name";
        let rows = written(&rs, name, 2);
        let meta: Vec<&str> = rows.iter().map(|r| r[16].as_str()).collect();
        assert_eq!(meta, [r#"{"warmup":true}"#, r#"{"warmup":true}"#, ""]);
        assert!(rows.iter().all(|r| r[1] == name));
    }
}
