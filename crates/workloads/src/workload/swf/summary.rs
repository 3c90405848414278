//! A summary of a trace for `schedscope swf info`.

use super::*;

/// A summary of a trace, as printed by `schedscope swf info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwfInfo {
    pub source_name: String,
    /// Data lines in the trace.
    pub records: usize,
    /// Jobs kept by [`to_jobs`].
    pub jobs: usize,
    /// Earliest submit time of the kept jobs, in seconds.
    pub first_submit: Option<i64>,
    /// Latest submit time of the kept jobs, in seconds.
    pub last_submit: Option<i64>,
    /// `MaxProcs` from the header.
    pub header_max_procs: Option<u32>,
    /// `MaxNodes` from the header.
    pub header_max_nodes: Option<u32>,
    /// `UnixStartTime` from the header.
    pub unix_start_time: Option<i64>,
    /// Largest size among the kept jobs.
    pub max_job_size: Option<u32>,
    /// Kept jobs larger than the header's `MaxProcs`.
    pub jobs_over_max_procs: usize,
    pub skips: SkipCounts,
}

impl SwfInfo {
    /// Seconds from the first to the last submit.
    pub fn submit_span(&self) -> Option<i64> {
        Some(self.last_submit? - self.first_submit?)
    }
}

/// Summarises `trace`.
pub fn info(trace: &SwfTrace) -> SwfInfo {
    let (jobs, skips) = to_jobs(trace);
    let max_procs = trace.header.max_procs;
    SwfInfo {
        source_name: trace.source_name.clone(),
        records: trace.records.len(),
        jobs: jobs.len(),
        first_submit: jobs.first().map(|j| j.submit),
        last_submit: jobs.last().map(|j| j.submit),
        header_max_procs: max_procs,
        header_max_nodes: trace.header.max_nodes,
        unix_start_time: trace.header.unix_start_time,
        max_job_size: jobs.iter().map(|j| j.size).max(),
        jobs_over_max_procs: max_procs.map_or(0, |m| jobs.iter().filter(|j| j.size > m).count()),
        skips,
    }
}

/// `12345` as `3h 25m 45s`, `1d 0h 0m 5s`, ...
pub(super) fn human_duration(seconds: i64) -> String {
    let (d, rest) = (seconds / 86_400, seconds % 86_400);
    let (h, m, s) = (rest / 3600, rest % 3600 / 60, rest % 60);
    if d > 0 {
        format!("{d}d {h}h {m}m {s}s")
    } else if h > 0 {
        format!("{h}h {m}m {s}s")
    } else if m > 0 {
        format!("{m}m {s}s")
    } else {
        format!("{s}s")
    }
}

pub(super) fn or_unknown<T: fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

impl fmt::Display for SwfInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const W: usize = 24;
        writeln!(f, "{:<W$}{}", "trace", self.source_name)?;
        writeln!(f, "{:<W$}{}", "records", self.records)?;
        writeln!(f, "{:<W$}{}", "jobs", self.jobs)?;
        match (self.first_submit, self.last_submit, self.submit_span()) {
            (Some(first), Some(last), Some(span)) => writeln!(
                f,
                "{:<W$}{first} .. {last} s ({})",
                "submit span",
                human_duration(span)
            )?,
            _ => writeln!(f, "{:<W$}none", "submit span")?,
        }
        if let Some(start) = self.unix_start_time {
            writeln!(f, "{:<W$}{start}", "unix start time")?;
        }
        writeln!(
            f,
            "{:<W$}{} (header), {} (largest job)",
            "max procs",
            or_unknown(self.header_max_procs),
            or_unknown(self.max_job_size)
        )?;
        writeln!(
            f,
            "{:<W$}{} (header)",
            "max nodes",
            or_unknown(self.header_max_nodes)
        )?;
        if self.jobs_over_max_procs > 0 {
            writeln!(
                f,
                "{:<W$}{}",
                "jobs over max procs", self.jobs_over_max_procs
            )?;
        }
        writeln!(f, "{:<W$}{}", "skipped", self.skips.total())?;
        for reason in SkipReason::ALL {
            writeln!(f, "  {:<w$}{}", reason, self.skips.get(reason), w = W - 2)?;
        }
        write!(
            f,
            "{:<W$}{}",
            "reordered",
            if self.skips.reordered {
                "yes (sorted by submit time)"
            } else {
                "no (already in submit order)"
            }
        )
    }
}
