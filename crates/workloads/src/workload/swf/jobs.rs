//! From records to the jobs the simulator runs, with skipped records counted.

use super::*;

/// A job as the simulator sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwfJob {
    /// Job number (field 1).
    pub id: u64,
    /// Submit time in seconds from the start of the trace (field 2).
    pub submit: i64,
    /// Processors needed (see [`SwfRecord::job_size`]).
    pub size: u32,
    /// Run time in seconds (field 4).
    pub run_time: i64,
    /// User run-time estimate in seconds (field 9), `None` when unknown.
    pub requested_time: Option<i64>,
    /// User id (field 12), `None` when unknown.
    pub user: Option<i64>,
    /// Line of the record in the trace.
    pub line: usize,
}

/// Why a record was not turned into a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SkipReason {
    /// Run time (field 4) is `-1`.
    UnknownRunTime,
    /// Run time (field 4) is negative but not `-1`.
    InvalidRunTime,
    /// Requested processors (field 8) are 2^32 or more, or negative but
    /// not `-1`: no count a job can have, and not "unknown" either.
    InvalidRequestedProcs,
    /// Neither requested (field 8) nor allocated (field 5) processors hold a
    /// positive count.
    UnknownSize,
    /// Submit time (field 2) is negative.
    NegativeSubmit,
    /// Job number (field 1) is negative.
    InvalidJobNumber,
}

impl SkipReason {
    /// Every reason, in the order they are checked.
    pub const ALL: [SkipReason; 6] = [
        SkipReason::UnknownRunTime,
        SkipReason::InvalidRunTime,
        SkipReason::InvalidRequestedProcs,
        SkipReason::UnknownSize,
        SkipReason::NegativeSubmit,
        SkipReason::InvalidJobNumber,
    ];

    /// A short description, e.g. `unknown run time`.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::UnknownRunTime => "unknown run time",
            SkipReason::InvalidRunTime => "negative run time",
            SkipReason::InvalidRequestedProcs => "bad requested procs",
            SkipReason::UnknownSize => "unknown size",
            SkipReason::NegativeSubmit => "negative submit time",
            SkipReason::InvalidJobNumber => "negative job number",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.describe())
    }
}

/// What [`to_jobs`] left out or changed: how many records were skipped, by
/// reason (each skipped record counted once, under the first reason of
/// [`SkipReason::ALL`] that applies), and whether the jobs were reordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipCounts {
    pub unknown_run_time: usize,
    pub invalid_run_time: usize,
    #[serde(default)]
    pub invalid_requested_procs: usize,
    pub unknown_size: usize,
    pub negative_submit: usize,
    pub invalid_job_number: usize,
    /// The kept jobs were not in submit-time order in the trace and have been
    /// sorted (stably) by submit time.
    pub reordered: bool,
}

impl SkipCounts {
    /// The count for one reason.
    pub fn get(&self, reason: SkipReason) -> usize {
        match reason {
            SkipReason::UnknownRunTime => self.unknown_run_time,
            SkipReason::InvalidRunTime => self.invalid_run_time,
            SkipReason::InvalidRequestedProcs => self.invalid_requested_procs,
            SkipReason::UnknownSize => self.unknown_size,
            SkipReason::NegativeSubmit => self.negative_submit,
            SkipReason::InvalidJobNumber => self.invalid_job_number,
        }
    }

    /// Counts one more record skipped for `reason`.
    pub fn add(&mut self, reason: SkipReason) {
        let slot = match reason {
            SkipReason::UnknownRunTime => &mut self.unknown_run_time,
            SkipReason::InvalidRunTime => &mut self.invalid_run_time,
            SkipReason::InvalidRequestedProcs => &mut self.invalid_requested_procs,
            SkipReason::UnknownSize => &mut self.unknown_size,
            SkipReason::NegativeSubmit => &mut self.negative_submit,
            SkipReason::InvalidJobNumber => &mut self.invalid_job_number,
        };
        *slot += 1;
    }

    /// The number of skipped records.
    pub fn total(&self) -> usize {
        SkipReason::ALL.iter().map(|&r| self.get(r)).sum()
    }
}

/// Converts the trace's records to simulator jobs, skipping those that
/// cannot be simulated (see [`SwfRecord::to_job`]); no kept job is altered.
/// Jobs keep the trace's order unless that order is not by submit time, in
/// which case they are sorted stably by submit time and
/// [`SkipCounts::reordered`] is set.
pub fn to_jobs(trace: &SwfTrace) -> (Vec<SwfJob>, SkipCounts) {
    let mut skips = SkipCounts::default();
    let mut jobs = Vec::with_capacity(trace.records.len());
    for record in &trace.records {
        match record.to_job() {
            Ok(job) => jobs.push(job),
            Err(reason) => skips.add(reason),
        }
    }
    if !jobs.is_sorted_by_key(|j| j.submit) {
        jobs.sort_by_key(|j| j.submit);
        skips.reordered = true;
    }
    (jobs, skips)
}
