//! A run's jobs in Batsim's `out_jobs.csv` form, so that evalys and other
//! Batsim tooling read a schedscope run as they read a Batsim one.
//!
//! The columns, their order and their number formats are Batsim 3's (six
//! decimals for times, `success` 1 or 0, `final_state`, `allocated_resources`
//! as intervals of machine numbers, `consumed_energy` -1 when not simulated,
//! an empty quoted `metadata`). Two columns say what schedscope does not
//! model itself:
//!
//! * `profile` is the job's run time in seconds, the name converters from
//!   SWF give a job's delay profile;
//! * `allocated_resources` numbers processors across clusters (cluster 0's
//!   first). The engine records how many processors a job held on each
//!   cluster, not which, so the numbers are rebuilt from the schedule: in
//!   time order (ends before starts at the same instant), each job takes the
//!   lowest-numbered processors free on its clusters. That is a valid
//!   allocation of the simulated schedule, though under pinned policies not
//!   necessarily the processors the policy reserved.

use crate::model::{JobRecord, Platform, SimTime};
use std::collections::BTreeSet;
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
pub fn intervals(ids: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            ids[i].to_string()
        } else {
            format!("{}-{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    out.join(" ")
}

/// Processor numbers for every record (see the module comment), in
/// `records` order.
pub fn allocations(records: &[JobRecord], platform: &Platform) -> Vec<Vec<u32>> {
    let mut offset = Vec::with_capacity(platform.clusters.len());
    let mut free: Vec<BTreeSet<u32>> = Vec::with_capacity(platform.clusters.len());
    let mut next = 0u32;
    for c in &platform.clusters {
        offset.push(next);
        free.push((next..next + c.processors).collect());
        next += c.processors;
    }
    // (time, 0 = end / 1 = start of a job that runs for no time / 2 =
    // start, record index)
    let mut events: Vec<(SimTime, u8, usize)> = Vec::with_capacity(records.len() * 2);
    for (i, r) in records.iter().enumerate() {
        if r.end > r.start {
            events.push((r.end, 0, i));
            events.push((r.start, 2, i));
        } else {
            events.push((r.start, 1, i));
        }
    }
    events.sort_unstable();
    let mut held: Vec<Vec<u32>> = vec![Vec::new(); records.len()];
    for (_, kind, i) in events {
        let r = &records[i];
        if kind == 0 {
            for &p in &held[i] {
                let c = offset.partition_point(|&o| o <= p) - 1;
                free[c].insert(p);
            }
            continue;
        }
        let mut ids = Vec::with_capacity(r.size as usize);
        for (&c, &w) in r.clusters.iter().zip(&r.components) {
            let Some(pool) = free.get_mut(c as usize) else {
                continue;
            };
            let take: Vec<u32> = pool.iter().take(w as usize).copied().collect();
            for p in &take {
                pool.remove(p);
            }
            ids.extend(take);
        }
        ids.sort_unstable();
        if kind == 1 {
            // Runs for no time: its processors are free again at once.
            for &p in &ids {
                let c = offset.partition_point(|&o| o <= p) - 1;
                free[c].insert(p);
            }
        }
        held[i] = ids;
    }
    held
}

/// A CSV field, quoted when it has to be.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

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

/// Writes `records` (one replication) in submit order.
pub fn write_jobs(
    w: &mut dyn Write,
    workload_name: &str,
    records: &[JobRecord],
    platform: &Platform,
) -> std::io::Result<()> {
    let alloc = allocations(records, platform);
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| (records[i].submit, records[i].arrival));
    writeln!(w, "{}", HEADER.join(","))?;
    let name = field(workload_name);
    for i in order {
        let r = &records[i];
        let exec = r.elapsed();
        let turnaround = r.response();
        let stretch = turnaround.ticks() as f64 / exec.ticks().max(1) as f64;
        let (success, state) = if r.killed {
            (0, "COMPLETED_WALLTIME_REACHED")
        } else {
            (1, "COMPLETED_SUCCESSFULLY")
        };
        writeln!(
            w,
            "{},{name},{},{},{},{},{success},{state},{},{},{},{},{},{:.6},{},-1.000000,\"\"",
            r.id,
            profile(r.runtime),
            secs6(r.submit),
            r.size,
            secs6(r.estimate),
            secs6(r.start),
            secs6(exec),
            secs6(r.end),
            secs6(r.wait()),
            secs6(turnaround),
            stretch,
            intervals(&alloc[i]),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            moldable: None,
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

    #[test]
    fn processors_are_reused_after_an_end_at_the_same_instant() {
        // Two clusters of 4 (numbers 0-3 and 4-7).
        let p = Platform::uniform(2, 4);
        let rs = vec![
            rec(1, 0, 3, 0, 10),
            rec(2, 0, 1, 0, 5),
            rec(3, 1, 4, 2, 4),
            rec(4, 0, 2, 10, 12), // takes job 1's processors at its end
            rec(5, 0, 1, 5, 5),   // runs for no time on job 2's processor
        ];
        let a = allocations(&rs, &p);
        assert_eq!(a[0], [0, 1, 2]);
        assert_eq!(a[1], [3]);
        assert_eq!(a[2], [4, 5, 6, 7]);
        assert_eq!(a[3], [0, 1]);
        assert_eq!(a[4], [3]);
    }
}
