//! The files of `--out` that other tools read: Batsim's `out_jobs.csv` and
//! the schedule as an SWF trace, one of each per replication (`out_jobs.csv`
//! and `schedule.swf` for the first, `out_jobs.rN.csv` and `schedule.rN.swf`
//! for replication N after it).

use super::{batsim, swf_out};
use crate::policy::Catalogued;
use crate::runner::RunResult;
use crate::scenario::Scenario;
use std::io::Write;

/// The names of the files written for replication `index`.
pub fn file_names(index: u32) -> (String, String) {
    if index == 0 {
        ("out_jobs.csv".into(), "schedule.swf".into())
    } else {
        (
            format!("out_jobs.r{index}.csv"),
            format!("schedule.r{index}.swf"),
        )
    }
}

/// Writes the files through `put(name, write)`, which creates the file
/// `name` in the result folder and hands `write` its contents' writer (the
/// `--out` folder writes them with the run's other files, as one unit).
pub fn write_files<E>(
    mut put: impl FnMut(&str, &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> Result<(), E>,
    scenario: &Scenario,
    result: &RunResult,
) -> Result<(), E> {
    let platform = scenario.platform();
    for rep in &result.replications {
        let (jobs, swf) = file_names(rep.index);
        put(&jobs, &mut |w| {
            batsim::write_jobs(
                w,
                scenario.name(),
                &rep.records,
                scenario.file.run.warmup_jobs,
            )
        })?;
        let about = [
            format!("the schedule schedscope simulated for {}", scenario.name()),
            format!(
                "policy {}, seed {}, replication {} (seed {})",
                scenario.file.policy.label(),
                result.seed,
                rep.index,
                rep.seed
            ),
        ];
        put(&swf, &mut |w| {
            swf_out::write(w, &rep.records, platform, scenario.trace_clock(), &about)
        })?;
    }
    Ok(())
}

/// Whether `name` is one of the files [`write_files`] writes.
pub fn is_written_here(name: &str) -> bool {
    let numbered = |s: &str, pre: &str, post: &str| {
        s.strip_prefix(pre)
            .and_then(|r| r.strip_suffix(post))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    matches!(name, "out_jobs.csv" | "schedule.swf")
        || numbered(name, "out_jobs.r", ".csv")
        || numbered(name, "schedule.r", ".swf")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_per_replication() {
        for i in [0, 1, 12] {
            let (a, b) = file_names(i);
            assert!(is_written_here(&a) && is_written_here(&b), "{a} {b}");
        }
        for other in ["out_jobs.r.csv", "schedule.rx.swf", "notes.txt", "jobs.csv"] {
            assert!(!is_written_here(other), "{other}");
        }
    }
}
