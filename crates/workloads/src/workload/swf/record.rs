//! One SWF record, the header and a whole trace, kept as written.

use super::*;

/// One SWF data line, with every field as written (`-1` kept as is).
///
/// The helper methods turn the raw values into `Option`s, `None` meaning the
/// trace gave `-1` (unknown).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SwfRecord {
    /// 1: job number.
    pub job_number: i64,
    /// 2: submit time, in seconds from the start of the trace.
    pub submit_time: i64,
    /// 3: wait time in the queue, in seconds.
    pub wait_time: i64,
    /// 4: run time (wall clock), in seconds.
    pub run_time: i64,
    /// 5: number of allocated processors.
    pub allocated_procs: i64,
    /// 6: average CPU time used per processor, in seconds (may be fractional).
    pub avg_cpu_time: f64,
    /// 7: used memory per processor, in kilobytes (may be fractional).
    pub used_memory: f64,
    /// 8: number of requested processors.
    pub requested_procs: i64,
    /// 9: requested time (user estimate of the run time), in seconds.
    pub requested_time: i64,
    /// 10: requested memory per processor, in kilobytes (may be fractional).
    pub requested_memory: f64,
    /// 11: status (1 completed, 0 failed, 5 cancelled, ...).
    pub status: i64,
    /// 12: user id.
    pub user_id: i64,
    /// 13: group id.
    pub group_id: i64,
    /// 14: executable (application) number.
    pub executable: i64,
    /// 15: queue number.
    pub queue: i64,
    /// 16: partition number.
    pub partition: i64,
    /// 17: preceding job number.
    pub preceding_job: i64,
    /// 18: think time from the preceding job, in seconds.
    pub think_time: i64,
    /// One-based line number of the record in its source text.
    pub line: usize,
}

pub(super) fn known(v: i64) -> Option<i64> {
    (v != UNKNOWN).then_some(v)
}

pub(super) fn known_f(v: f64) -> Option<f64> {
    (v != UNKNOWN as f64).then_some(v)
}

pub(super) fn positive_u32(v: i64) -> Option<u32> {
    u32::try_from(v).ok().filter(|&n| n > 0)
}

impl SwfRecord {
    /// Field 1, `None` when unknown.
    pub fn job_number(&self) -> Option<i64> {
        known(self.job_number)
    }
    /// Field 2, `None` when unknown.
    pub fn submit_time(&self) -> Option<i64> {
        known(self.submit_time)
    }
    /// Field 3, `None` when unknown.
    pub fn wait_time(&self) -> Option<i64> {
        known(self.wait_time)
    }
    /// Field 4, `None` when unknown.
    pub fn run_time(&self) -> Option<i64> {
        known(self.run_time)
    }
    /// Field 5, `None` when unknown.
    pub fn allocated_procs(&self) -> Option<i64> {
        known(self.allocated_procs)
    }
    /// Field 6, `None` when unknown.
    pub fn avg_cpu_time(&self) -> Option<f64> {
        known_f(self.avg_cpu_time)
    }
    /// Field 7, `None` when unknown.
    pub fn used_memory(&self) -> Option<f64> {
        known_f(self.used_memory)
    }
    /// Field 8, `None` when unknown.
    pub fn requested_procs(&self) -> Option<i64> {
        known(self.requested_procs)
    }
    /// Field 9, `None` when unknown.
    pub fn requested_time(&self) -> Option<i64> {
        known(self.requested_time)
    }
    /// Field 10, `None` when unknown.
    pub fn requested_memory(&self) -> Option<f64> {
        known_f(self.requested_memory)
    }
    /// Field 11, `None` when unknown.
    pub fn status(&self) -> Option<i64> {
        known(self.status)
    }
    /// Field 12, `None` when unknown.
    pub fn user_id(&self) -> Option<i64> {
        known(self.user_id)
    }
    /// Field 13, `None` when unknown.
    pub fn group_id(&self) -> Option<i64> {
        known(self.group_id)
    }
    /// Field 14, `None` when unknown.
    pub fn executable(&self) -> Option<i64> {
        known(self.executable)
    }
    /// Field 15, `None` when unknown.
    pub fn queue(&self) -> Option<i64> {
        known(self.queue)
    }
    /// Field 16, `None` when unknown.
    pub fn partition(&self) -> Option<i64> {
        known(self.partition)
    }
    /// Field 17, `None` when unknown.
    pub fn preceding_job(&self) -> Option<i64> {
        known(self.preceding_job)
    }
    /// Field 18, `None` when unknown.
    pub fn think_time(&self) -> Option<i64> {
        known(self.think_time)
    }

    /// The number of processors the job needs: the requested processors
    /// (field 8), or the allocated ones (field 5) when field 8 is unknown or
    /// zero. `None` when neither holds a positive count that fits in a `u32`.
    pub fn job_size(&self) -> Option<u32> {
        positive_u32(self.requested_procs).or_else(|| positive_u32(self.allocated_procs))
    }

    /// Converts the record to a simulator job, or tells why it cannot be
    /// simulated. When several reasons apply, the first in the order of
    /// [`SkipReason::ALL`] is given.
    pub fn to_job(&self) -> Result<SwfJob, SkipReason> {
        if self.run_time == UNKNOWN {
            return Err(SkipReason::UnknownRunTime);
        }
        if self.run_time < 0 {
            return Err(SkipReason::InvalidRunTime);
        }
        // Field 8 is a count, 0 or -1 (unknown): anything else is not
        // silently replaced by field 5.
        if self.requested_procs != UNKNOWN && u32::try_from(self.requested_procs).is_err() {
            return Err(SkipReason::InvalidRequestedProcs);
        }
        let Some(size) = self.job_size() else {
            return Err(SkipReason::UnknownSize);
        };
        if self.submit_time < 0 {
            return Err(SkipReason::NegativeSubmit);
        }
        let Ok(id) = u64::try_from(self.job_number) else {
            return Err(SkipReason::InvalidJobNumber);
        };
        Ok(SwfJob {
            id,
            submit: self.submit_time,
            size,
            run_time: self.run_time,
            requested_time: self.requested_time(),
            user: self.user_id(),
            line: self.line,
        })
    }

    /// Appends the 18 fields, separated by single spaces, to `out`.
    pub(super) fn push_fields(&self, out: &mut Vec<u8>) {
        let ints = |out: &mut Vec<u8>, values: &[i64]| {
            for &v in values {
                push_i64(out, v);
                out.push(b' ');
            }
        };
        ints(
            out,
            &[
                self.job_number,
                self.submit_time,
                self.wait_time,
                self.run_time,
                self.allocated_procs,
            ],
        );
        push_f64(out, self.avg_cpu_time);
        out.push(b' ');
        push_f64(out, self.used_memory);
        out.push(b' ');
        ints(out, &[self.requested_procs, self.requested_time]);
        push_f64(out, self.requested_memory);
        out.push(b' ');
        ints(
            out,
            &[
                self.status,
                self.user_id,
                self.group_id,
                self.executable,
                self.queue,
                self.partition,
                self.preceding_job,
            ],
        );
        push_i64(out, self.think_time);
    }
}

pub(super) fn push_i64(out: &mut Vec<u8>, v: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = v.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// Writes `v` so that it parses back to the same value: whole values of
/// moderate size as integers, others in Rust's shortest round-trip form.
pub(super) fn push_f64(out: &mut Vec<u8>, v: f64) {
    if v.fract() == 0.0 && v.abs() < 1e15 && !(v == 0.0 && v.is_sign_negative()) {
        push_i64(out, v as i64);
    } else {
        // Writing to a Vec cannot fail.
        let _ = write!(out, "{v}");
    }
}

impl fmt::Display for SwfRecord {
    /// The 18 fields separated by single spaces, as [`write_to`] writes them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = Vec::with_capacity(96);
        self.push_fields(&mut buf);
        f.write_str(&String::from_utf8_lossy(&buf))
    }
}

/// The header of an SWF trace: its comment lines, kept verbatim, and the
/// values of the best known header fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SwfHeader {
    /// Every comment or blank line before the first record, verbatim
    /// (without the line terminator).
    pub lines: Vec<String>,
    /// `; MaxProcs: N`.
    pub max_procs: Option<u32>,
    /// `; MaxNodes: N`.
    pub max_nodes: Option<u32>,
    /// `; MaxJobs: N`.
    pub max_jobs: Option<u64>,
    /// `; MaxRecords: N`.
    pub max_records: Option<u64>,
    /// `; UnixStartTime: N`.
    pub unix_start_time: Option<i64>,
}

impl SwfHeader {
    /// Builds a header from its lines, parsing the known fields. A value is
    /// the first word after the colon, so trailing remarks such as
    /// `MaxNodes: 32 (dual CPU)` are tolerated; a value that does not parse
    /// leaves the field `None`.
    pub fn from_lines(lines: Vec<String>) -> SwfHeader {
        let mut header = SwfHeader {
            lines,
            ..SwfHeader::default()
        };
        header.max_procs = header.number("MaxProcs");
        header.max_nodes = header.number("MaxNodes");
        header.max_jobs = header.number("MaxJobs");
        header.max_records = header.number("MaxRecords");
        header.unix_start_time = header.number("UnixStartTime");
        header
    }

    /// `; TimeZoneString: Zone` (a tz database name such as
    /// `Europe/Amsterdam`), without the remark some traces put after it.
    pub fn time_zone(&self) -> Option<&str> {
        self.value("TimeZoneString")?
            .split_ascii_whitespace()
            .next()
    }

    /// The text after the colon of the first `; Key: value` line whose key
    /// equals `key` (ignoring case), trimmed.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.lines.iter().find_map(|line| {
            let rest = line.trim_start().strip_prefix(';')?;
            let (k, v) = rest.split_once(':')?;
            k.trim().eq_ignore_ascii_case(key).then(|| v.trim())
        })
    }

    fn number<T: std::str::FromStr>(&self, key: &str) -> Option<T> {
        self.value(key)?
            .split_ascii_whitespace()
            .next()?
            .parse()
            .ok()
    }
}

/// A comment or blank line found after the first record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwfComment {
    /// How many records precede the line.
    pub after_records: usize,
    /// The line, verbatim (without the line terminator).
    pub text: String,
}

/// A whole SWF trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SwfTrace {
    pub header: SwfHeader,
    /// The data lines, in file order.
    pub records: Vec<SwfRecord>,
    /// Comment or blank lines among or after the records, in file order, so
    /// that writing the trace puts them back where they were.
    pub comments: Vec<SwfComment>,
    /// The name the trace was read under (the file name for [`read_path`]).
    pub source_name: String,
}
