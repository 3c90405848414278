//! The files of `--out` that other tools read: Batsim's `out_jobs.csv` and
//! the schedule as an SWF trace, one of each per replication (`out_jobs.csv`
//! and `schedule.swf` for the first, `out_jobs.rN.csv` and `schedule.rN.swf`
//! for replication N after it).

use super::{batsim, swf_out, write_atomic};
use crate::runner::RunResult;
use crate::scenario::Scenario;
use std::path::Path;

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

/// Writes the files into `dir` (which exists), each atomically; on error,
/// the name of the file that could not be written.
pub fn write_into(
    dir: &Path,
    scenario: &Scenario,
    result: &RunResult,
) -> Result<(), (String, std::io::Error)> {
    let platform = scenario.platform();
    for rep in &result.replications {
        let (jobs, swf) = file_names(rep.index);
        write_atomic(&dir.join(&jobs), |w| {
            batsim::write_jobs(w, scenario.name(), &rep.records, platform)
        })
        .map_err(|e| (jobs, e))?;
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
        write_atomic(&dir.join(&swf), |w| {
            swf_out::write(w, &rep.records, platform, &about)
        })
        .map_err(|e| (swf, e))?;
    }
    Ok(())
}
