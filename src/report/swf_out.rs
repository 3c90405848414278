//! The simulated schedule as a Standard Workload Format trace: submit,
//! wait and run time and processors as simulated, so the Parallel Workloads
//! Archive's tools (and schedscope's own reader) can take a run's output.
//!
//! SWF times are whole seconds: each instant is rounded to the nearest
//! second and wait and run time are differences of rounded instants, so
//! that submit + wait is the rounded start and start + run the rounded end.
//! The status is 1 for a completed job and 0 for one killed at its
//! estimate; the partition is the job's cluster (from 1), or -1 for a job
//! spread over several.
//!
//! SWF numbers jobs from 1: a run whose workload numbers from 0 (Batsim's
//! workloads; inline jobs given id 0) writes each job as its id + 1, and
//! says so in the header. The header gives `UnixStartTime` and
//! `TimeZoneString`, which SWF tools read to place the trace in calendar
//! time: those of the trace the workload came from where it gives them
//! (times are the trace's own), and otherwise 0 and `UTC`, with a note
//! that simulated time has no calendar origin.

use crate::model::{JobRecord, Platform, SimTime};
use crate::workload::swf::{self, SwfHeader, SwfRecord, SwfTrace};
use std::io::Write;

/// Whole seconds, rounded half away from zero.
fn whole(t: SimTime) -> i64 {
    let us = t.ticks();
    let s = us.div_euclid(1_000_000);
    if us.rem_euclid(1_000_000) >= 500_000 {
        s + 1
    } else {
        s
    }
}

/// Where simulated time 0 stands in calendar time: a trace's
/// `UnixStartTime` and `TimeZoneString`, where it gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub unix_start_time: Option<i64>,
    pub time_zone: Option<String>,
}

impl Clock {
    pub fn of(header: &SwfHeader) -> Clock {
        Clock {
            unix_start_time: header.unix_start_time,
            time_zone: header.time_zone().map(str::to_string),
        }
    }
}

/// The trace of one replication's records, in submit order.
pub fn trace(
    records: &[JobRecord],
    platform: &Platform,
    clock: &Clock,
    about: &[String],
) -> SwfTrace {
    let mut order: Vec<&JobRecord> = records.iter().collect();
    order.sort_by_key(|r| (r.submit, r.arrival));
    let procs = platform.total_processors();
    let offset = records.iter().any(|r| r.id == 0) as i64;
    let mut lines = vec![
        "; Version: 2.2".to_string(),
        "; Computer: schedscope (simulated)".to_string(),
    ];
    lines.extend(about.iter().map(|a| format!("; Note: {a}")));
    lines.extend([
        "; Note: times are rounded to whole seconds".to_string(),
        "; Note: status 1 completed, 0 killed at its estimate".to_string(),
    ]);
    if offset > 0 {
        lines.push("; Note: job number = the workload's job id + 1 (its ids start at 0)".into());
    }
    if clock.unix_start_time.is_none() {
        lines.push(
            "; Note: simulated time has no calendar origin: UnixStartTime 0 stands for time 0"
                .into(),
        );
    }
    lines.extend([
        format!("; UnixStartTime: {}", clock.unix_start_time.unwrap_or(0)),
        format!(
            "; TimeZoneString: {}",
            clock.time_zone.as_deref().unwrap_or("UTC")
        ),
        format!("; MaxJobs: {}", order.len()),
        format!("; MaxRecords: {}", order.len()),
        format!("; MaxProcs: {procs}"),
        format!("; MaxNodes: {procs}"),
        format!("; MaxPartitions: {}", platform.clusters.len()),
    ]);
    for (i, c) in platform.clusters.iter().enumerate() {
        lines.push(format!(
            "; Partition: {} {} ({} processors, speed {})",
            i + 1,
            c.name,
            c.processors,
            c.speed
        ));
    }
    let mut records = Vec::with_capacity(order.len());
    for (k, r) in order.into_iter().enumerate() {
        let (submit, start, end) = (whole(r.submit), whole(r.start), whole(r.end));
        records.push(SwfRecord {
            job_number: r.id as i64 + offset,
            submit_time: submit,
            wait_time: start - submit,
            run_time: end - start,
            allocated_procs: r.size as i64,
            avg_cpu_time: -1.0,
            used_memory: -1.0,
            requested_procs: r.size as i64,
            requested_time: whole(r.estimate),
            requested_memory: -1.0,
            status: if r.killed { 0 } else { 1 },
            user_id: r.user.unwrap_or(-1),
            group_id: -1,
            executable: -1,
            queue: -1,
            partition: match r.clusters.as_slice() {
                [c] => *c as i64 + 1,
                _ => -1,
            },
            preceding_job: -1,
            think_time: -1,
            line: lines.len() + k + 1,
        });
    }
    SwfTrace {
        header: SwfHeader::from_lines(lines),
        records,
        comments: Vec::new(),
        source_name: String::new(),
    }
}

pub fn write(
    w: &mut dyn Write,
    records: &[JobRecord],
    platform: &Platform,
    clock: &Clock,
    about: &[String],
) -> std::io::Result<()> {
    swf::write_to(&trace(records, platform, clock, about), w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_submit_plus_wait_at_the_start() {
        assert_eq!(whole(SimTime(4_709_164)), 5);
        assert_eq!(whole(SimTime(4_499_999)), 4);
        assert_eq!(whole(SimTime(0)), 0);
        let r = JobRecord {
            id: 7,
            arrival: 0,
            submit: SimTime(1_400_000),
            start: SimTime(2_600_000),
            end: SimTime(3_400_000),
            size: 3,
            components: vec![1, 2],
            clusters: vec![0, 1],
            estimate: SimTime(9_000_000),
            runtime: SimTime(800_000),
            user: Some(4),
            injected: false,
            jumped_ahead: false,
            killed: false,
            requeues: 0,
            held: 0.0,
            busy: 0.0,
            moldable: None,
            placements: Vec::new(),
        };
        let t = trace(&[r], &Platform::uniform(2, 4), &Clock::default(), &[]);
        let s = &t.records[0];
        assert_eq!(
            (
                s.submit_time,
                s.wait_time,
                s.run_time,
                s.partition,
                s.user_id
            ),
            (1, 2, 0, -1, 4)
        );
        let mut text = Vec::new();
        swf::write_to(&t, &mut text).unwrap();
        let back = swf::read_from(&text[..], "x").unwrap();
        assert_eq!(back.records, t.records);
        assert_eq!(back.header.max_procs, Some(8));
    }

    #[test]
    fn numbers_from_one_and_a_calendar_origin_in_the_header() {
        let rec = |id: u64| JobRecord {
            id,
            arrival: id,
            submit: SimTime::from_secs(id as i64),
            start: SimTime::from_secs(id as i64),
            end: SimTime::from_secs(id as i64 + 1),
            size: 1,
            components: vec![1],
            clusters: vec![0],
            estimate: SimTime::from_secs(1),
            runtime: SimTime::from_secs(1),
            user: None,
            injected: false,
            jumped_ahead: false,
            killed: false,
            requeues: 0,
            held: 1.0,
            busy: 1.0,
            moldable: None,
            placements: Vec::new(),
        };
        let p = Platform::uniform(1, 4);
        // Ids from 0 (a Batsim workload): written from 1.
        let t = trace(&[rec(0), rec(1)], &p, &Clock::default(), &[]);
        let numbers: Vec<i64> = t.records.iter().map(|r| r.job_number).collect();
        assert_eq!(numbers, [1, 2]);
        assert_eq!(t.header.unix_start_time, Some(0));
        assert_eq!(t.header.time_zone(), Some("UTC"));
        assert!(t.header.lines.iter().any(|l| l.contains("id + 1")));
        // Ids from 1 keep their numbers; a trace's clock is kept.
        let clock = Clock {
            unix_start_time: Some(1_041_377_305),
            time_zone: Some("Europe/Amsterdam".into()),
        };
        let t = trace(&[rec(1), rec(2)], &p, &clock, &[]);
        let numbers: Vec<i64> = t.records.iter().map(|r| r.job_number).collect();
        assert_eq!(numbers, [1, 2]);
        let mut text = Vec::new();
        swf::write_to(&t, &mut text).unwrap();
        let back = swf::read_from(&text[..], "x").unwrap();
        assert_eq!(back.header.unix_start_time, Some(1_041_377_305));
        assert_eq!(back.header.time_zone(), Some("Europe/Amsterdam"));
        assert!(!back.header.lines.iter().any(|l| l.contains("id + 1")));
    }
}
