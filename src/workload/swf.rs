//! Reading, writing and summarising traces in the Standard Workload Format
//! (SWF) of the Parallel Workloads Archive.
//!
//! An SWF file is a text file made of
//!
//! * header (comment) lines, which start with `;` — for example
//!   `; MaxProcs: 64` — and
//! * data lines, one per job, of 18 whitespace-separated numeric fields,
//!   where `-1` means "unknown".
//!
//! The 18 fields are, in order: job number, submit time, wait time, run time,
//! allocated processors, average CPU time used, used memory, requested
//! processors, requested time, requested memory, status, user id, group id,
//! executable number, queue number, partition number, preceding job number
//! and think time from preceding job. Fields 6, 7 and 10 (average CPU time,
//! used and requested memory) may be fractional; all others are integers.
//!
//! [`read_path`] and [`read_from`] parse a whole trace, plain or gzip
//! compressed (detected by its magic bytes), into an [`SwfTrace`] that keeps
//! every value as written, `-1` included. [`write_to`] writes a trace back
//! such that reading it again gives an equal [`SwfTrace`]. [`to_jobs`]
//! converts the records to the [`SwfJob`]s the simulator runs, skipping (and
//! counting, by reason) the records that cannot be simulated, and [`info`]
//! summarises a trace.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use serde::{Deserialize, Serialize};

/// Number of fields on an SWF data line.
pub const FIELD_COUNT: usize = 18;

/// Names of the 18 SWF fields; `FIELD_NAMES[i]` is field number `i + 1`.
pub const FIELD_NAMES: [&str; FIELD_COUNT] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time used",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time from preceding job",
];

/// Zero-based indices of the fields that may hold fractional values.
const FRACTIONAL_FIELDS: [usize; 3] = [5, 6, 9];

/// The value SWF uses for "unknown".
pub const UNKNOWN: i64 = -1;

/// The two bytes every gzip stream starts with.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Longest field text quoted in an error message.
const MAX_QUOTED: usize = 40;

/// Errors from reading an SWF trace. Every message names the file; those
/// about the content also name the line and, where relevant, the field.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SwfError {
    /// The trace file could not be opened.
    #[error("cannot open SWF trace {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// Reading (or decompressing) failed while reading line `line`.
    #[error("{file} line {line}: read error: {source}")]
    Read {
        file: String,
        line: usize,
        #[source]
        source: io::Error,
    },
    /// A data line does not have exactly 18 fields.
    #[error(
        "{file} line {line}: expected 18 fields, found {found} ({})",
        field_count_hint(*.found)
    )]
    FieldCount {
        file: String,
        line: usize,
        found: usize,
    },
    /// A field does not hold a value of the expected kind.
    #[error("{file} line {line}: field {field} ({name}): expected {expected}, found `{found}`")]
    BadField {
        file: String,
        line: usize,
        /// One-based field number, as in the SWF definition.
        field: usize,
        /// The field's name, e.g. `run time`.
        name: &'static str,
        /// What the field should hold, e.g. `a number`.
        expected: &'static str,
        /// The offending text (shortened when very long).
        found: String,
    },
}

fn field_count_hint(found: usize) -> &'static str {
    if found < FIELD_COUNT {
        "truncated line?"
    } else {
        "extra fields, or a comment without a leading `;`?"
    }
}

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

fn known(v: i64) -> Option<i64> {
    (v != UNKNOWN).then_some(v)
}

fn known_f(v: f64) -> Option<f64> {
    (v != UNKNOWN as f64).then_some(v)
}

fn positive_u32(v: i64) -> Option<u32> {
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
    fn push_fields(&self, out: &mut Vec<u8>) {
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

fn push_i64(out: &mut Vec<u8>, v: i64) {
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
fn push_f64(out: &mut Vec<u8>, v: f64) {
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

/// Reads an SWF trace from a file, plain or gzip compressed (detected by the
/// gzip magic bytes, whatever the extension). Error messages name the path
/// as given; [`SwfTrace::source_name`] is its file name.
pub fn read_path(path: impl AsRef<Path>) -> Result<SwfTrace, SwfError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|source| SwfError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut trace = read_from(file, &path.display().to_string())?;
    if let Some(name) = path.file_name() {
        trace.source_name = name.to_string_lossy().into_owned();
    }
    Ok(trace)
}

/// Reads an SWF trace, plain or gzip compressed (detected by the gzip magic
/// bytes), from `reader`; `name` names it in error messages and becomes
/// [`SwfTrace::source_name`].
pub fn read_from<R: Read>(mut reader: R, name: &str) -> Result<SwfTrace, SwfError> {
    let read_error = |source| SwfError::Read {
        file: name.to_string(),
        line: 1,
        source,
    };
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < magic.len() {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read_error(e)),
        }
    }
    let chained = (&magic[..got]).chain(reader);
    if magic[..got] == GZIP_MAGIC {
        let decoder = MultiGzDecoder::new(chained);
        parse_lines(BufReader::with_capacity(1 << 16, decoder), name)
    } else {
        parse_lines(BufReader::with_capacity(1 << 16, chained), name)
    }
}

/// Decodes a header line: UTF-8 when valid, Latin-1 otherwise (old traces
/// sometimes carry Latin-1 names), so no byte is ever rejected.
fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

fn parse_lines<B: BufRead>(mut input: B, name: &str) -> Result<SwfTrace, SwfError> {
    let mut header_lines = Vec::new();
    let mut records: Vec<SwfRecord> = Vec::new();
    let mut comments = Vec::new();
    let mut buf = Vec::with_capacity(256);
    let mut line_no = 0usize;
    loop {
        buf.clear();
        line_no += 1;
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|source| SwfError::Read {
                file: name.to_string(),
                line: line_no,
                source,
            })?;
        if n == 0 {
            break;
        }
        let mut line = buf.as_slice();
        if let Some(rest) = line.strip_suffix(b"\n") {
            line = rest;
        }
        if let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        if line_no == 1
            && let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF")
        {
            // A UTF-8 byte order mark.
            line = rest;
        }
        let content = line.trim_ascii_start();
        if content.is_empty() || content[0] == b';' {
            let text = decode_text(line);
            if records.is_empty() {
                header_lines.push(text);
            } else {
                comments.push(SwfComment {
                    after_records: records.len(),
                    text,
                });
            }
            continue;
        }
        let record = parse_record(content, line_no).map_err(|e| e.into_error(name, line_no))?;
        records.push(record);
    }
    Ok(SwfTrace {
        header: SwfHeader::from_lines(header_lines),
        records,
        comments,
        source_name: name.to_string(),
    })
}

/// A data-line problem, before the file name and line number are attached.
enum LineError {
    FieldCount(usize),
    BadField {
        index: usize,
        expected: &'static str,
        found: String,
    },
}

impl LineError {
    fn into_error(self, file: &str, line: usize) -> SwfError {
        match self {
            LineError::FieldCount(found) => SwfError::FieldCount {
                file: file.to_string(),
                line,
                found,
            },
            LineError::BadField {
                index,
                expected,
                found,
            } => SwfError::BadField {
                file: file.to_string(),
                line,
                field: index + 1,
                name: FIELD_NAMES[index],
                expected,
                found,
            },
        }
    }
}

fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() <= MAX_QUOTED {
        text.into_owned()
    } else {
        let mut short: String = text.chars().take(MAX_QUOTED).collect();
        short.push('…');
        short
    }
}

fn parse_record(content: &[u8], line: usize) -> Result<SwfRecord, LineError> {
    // One pass over the bytes, without allocating: each field is delimited
    // and, in the common case of a plain integer, converted on the way. A
    // wrong field count is reported in preference to a bad field.
    let mut ints = [0i64; FIELD_COUNT];
    let mut floats = [0f64; FIELD_COUNT];
    let mut first_bad: Option<LineError> = None;
    let mut count = 0usize;
    let n = content.len();
    let mut i = 0usize;
    while i < n {
        if content[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let negative = content[i] == b'-';
        if negative {
            i += 1;
        }
        let digits_start = i;
        let mut value = 0i64;
        let mut plain = true;
        while i < n && !content[i].is_ascii_whitespace() {
            let digit = content[i].wrapping_sub(b'0');
            if digit < 10 {
                value = value.wrapping_mul(10).wrapping_add(i64::from(digit));
            } else {
                plain = false;
            }
            i += 1;
        }
        if count < FIELD_COUNT && first_bad.is_none() {
            let index = count;
            let field = &content[start..i];
            let digits = i - digits_start;
            let fractional = FRACTIONAL_FIELDS.contains(&index);
            // Up to 15 digits: no overflow, and exact as an f64.
            let parsed = if plain && digits > 0 && digits <= 15 {
                if fractional {
                    // Negating the float keeps the sign of `-0`.
                    let magnitude = value as f64;
                    floats[index] = if negative { -magnitude } else { magnitude };
                } else {
                    ints[index] = if negative { -value } else { value };
                }
                Ok(())
            } else if fractional {
                parse_f64(field).map(|v| floats[index] = v)
            } else {
                parse_i64(field).map(|v| ints[index] = v)
            };
            if let Err(expected) = parsed {
                first_bad = Some(LineError::BadField {
                    index,
                    expected,
                    found: quote(field),
                });
            }
        }
        count += 1;
    }
    if count != FIELD_COUNT {
        return Err(LineError::FieldCount(count));
    }
    if let Some(bad) = first_bad {
        return Err(bad);
    }
    Ok(SwfRecord {
        job_number: ints[0],
        submit_time: ints[1],
        wait_time: ints[2],
        run_time: ints[3],
        allocated_procs: ints[4],
        avg_cpu_time: floats[5],
        used_memory: floats[6],
        requested_procs: ints[7],
        requested_time: ints[8],
        requested_memory: floats[9],
        status: ints[10],
        user_id: ints[11],
        group_id: ints[12],
        executable: ints[13],
        queue: ints[14],
        partition: ints[15],
        preceding_job: ints[16],
        think_time: ints[17],
        line,
    })
}

const EXPECTED_NUMBER: &str = "a number";
const EXPECTED_WHOLE: &str = "a whole number";
const EXPECTED_RANGE: &str = "a number within the 64-bit integer range";

/// Parses a plain decimal integer of at most 18 digits, with an optional
/// sign; `None` for anything else.
fn parse_small_int(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut value = 0i64;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i64::from(d - b'0');
    }
    Some(if negative { -value } else { value })
}

/// Parses an integer field. Besides plain integers, any number that is
/// exactly a whole value (such as `3600.0` or `1e3`) is accepted, since it
/// converts without loss; fractions are rejected.
fn parse_i64(text: &[u8]) -> Result<i64, &'static str> {
    if let Some(v) = parse_small_int(text) {
        return Ok(v);
    }
    let s = std::str::from_utf8(text).map_err(|_| EXPECTED_NUMBER)?;
    if let Ok(v) = s.parse::<i64>() {
        return Ok(v);
    }
    let v: f64 = s.parse().map_err(|_| EXPECTED_NUMBER)?;
    if !v.is_finite() {
        Err(EXPECTED_NUMBER)
    } else if v.fract() != 0.0 {
        Err(EXPECTED_WHOLE)
    } else if v.abs() > 9_007_199_254_740_992.0 {
        // Beyond 2^53 a decimal written with a fraction or an exponent may
        // not be the integer it looks like; ask for plain digits instead.
        Err(EXPECTED_RANGE)
    } else {
        Ok(v as i64)
    }
}

/// Parses a field that may be fractional. Infinities and NaN are rejected.
fn parse_f64(text: &[u8]) -> Result<f64, &'static str> {
    let s = std::str::from_utf8(text).map_err(|_| EXPECTED_NUMBER)?;
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(EXPECTED_NUMBER),
    }
}

/// Writes `trace` as SWF text: the header lines verbatim, then one line per
/// record (fields separated by single spaces), with the other comment lines
/// back between the records they were found between. Integers are written as
/// integers and fractional fields in the shortest form that parses back to
/// the same value, so reading the output gives a trace equal to `trace`
/// (provided `source_name` is the same and the records' `line` numbers are
/// those of a file in this layout, as they are for any trace read from text).
pub fn write_to<W: Write>(trace: &SwfTrace, writer: W) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 16, writer);
    for line in &trace.header.lines {
        writeln!(w, "{line}")?;
    }
    let mut comments = trace.comments.iter().peekable();
    let mut line = Vec::with_capacity(128);
    for (i, record) in trace.records.iter().enumerate() {
        while let Some(c) = comments.next_if(|c| c.after_records <= i) {
            writeln!(w, "{}", c.text)?;
        }
        line.clear();
        record.push_fields(&mut line);
        line.push(b'\n');
        w.write_all(&line)?;
    }
    for c in comments {
        writeln!(w, "{}", c.text)?;
    }
    w.flush()
}

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
    pub const ALL: [SkipReason; 5] = [
        SkipReason::UnknownRunTime,
        SkipReason::InvalidRunTime,
        SkipReason::UnknownSize,
        SkipReason::NegativeSubmit,
        SkipReason::InvalidJobNumber,
    ];

    /// A short description, e.g. `unknown run time`.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::UnknownRunTime => "unknown run time",
            SkipReason::InvalidRunTime => "negative run time",
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
fn human_duration(seconds: i64) -> String {
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

fn or_unknown<T: fmt::Display>(v: Option<T>) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    const LINE_A: &str = "1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1";

    fn parse(text: &str) -> Result<SwfTrace, SwfError> {
        read_from(text.as_bytes(), "test.swf")
    }

    fn one(line: &str) -> SwfRecord {
        parse(line).expect("parses").records[0]
    }

    #[test]
    fn header_fields_are_parsed() {
        let text = "\
;       Version: 2.2
;      MaxNodes: 32 (dual CPU)
;      MaxProcs: 64
;       MaxJobs: 40315
;    MaxRecords: 40314
; UnixStartTime: 1041377305
;      TimeZone: 3600\t # DEPRECATED
;
";
        let trace = parse(text).unwrap();
        let h = &trace.header;
        assert_eq!(h.max_nodes, Some(32));
        assert_eq!(h.max_procs, Some(64));
        assert_eq!(h.max_jobs, Some(40315));
        assert_eq!(h.max_records, Some(40314));
        assert_eq!(h.unix_start_time, Some(1041377305));
        assert_eq!(h.value("version"), Some("2.2"));
        assert_eq!(h.value("TimeZone"), Some("3600\t # DEPRECATED"));
        assert_eq!(h.lines.len(), 8);
        assert_eq!(h.lines[6], ";      TimeZone: 3600\t # DEPRECATED");
        assert!(trace.records.is_empty());
    }

    #[test]
    fn header_values_that_do_not_parse_are_none() {
        let h = SwfHeader::from_lines(vec![
            "; MaxProcs: many".into(),
            "; MaxNodes:".into(),
            "; UnixStartTime -5".into(),
        ]);
        assert_eq!(h.max_procs, None);
        assert_eq!(h.max_nodes, None);
        assert_eq!(h.unix_start_time, None);
        let h = SwfHeader::from_lines(vec!["; MaxNodes: 338 (batch partition; 512 total)".into()]);
        assert_eq!(h.max_nodes, Some(338));
    }

    #[test]
    fn no_header_is_fine() {
        let trace = parse(LINE_A).unwrap();
        assert!(trace.header.lines.is_empty());
        assert_eq!(trace.header.max_procs, None);
        assert_eq!(trace.records.len(), 1);
        assert_eq!(trace.records[0].line, 1);
    }

    #[test]
    fn unknown_values_are_kept_raw_and_helpers_give_none() {
        let r = one(LINE_A);
        assert_eq!(r.job_number, 1);
        assert_eq!(r.run_time, 100);
        assert_eq!(r.run_time(), Some(100));
        assert_eq!(r.avg_cpu_time, -1.0);
        assert_eq!(r.avg_cpu_time(), None);
        assert_eq!(r.requested_memory(), None);
        assert_eq!(r.queue, -1);
        assert_eq!(r.queue(), None);
        assert_eq!(r.requested_time(), Some(200));
        let r = one("7 5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1");
        assert_eq!(r.run_time, -1);
        assert_eq!(r.run_time(), None);
        assert_eq!(r.requested_time(), None);
        assert_eq!(r.job_size(), None);
        assert_eq!(r.to_job(), Err(SkipReason::UnknownRunTime));
    }

    #[test]
    fn fractional_fields() {
        let r = one("1 0 0 10 1 9.25 1024.5 1 60 0.125 1 1 1 1 1 1 -1 -1");
        assert_eq!(r.avg_cpu_time, 9.25);
        assert_eq!(r.used_memory, 1024.5);
        assert_eq!(r.requested_memory, 0.125);
        // Whole numbers written with a fraction are accepted in integer fields.
        let r = one("1 0 0 10.00 1 1 1 1 60 1 1 1 1 1 1 1 -1 -1");
        assert_eq!(r.run_time, 10);
    }

    #[test]
    fn size_falls_back_from_requested_to_allocated() {
        // Field 8 given: used even if field 5 differs.
        assert_eq!(
            one("1 0 0 10 8 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1").job_size(),
            Some(4)
        );
        // Field 8 unknown: field 5.
        assert_eq!(
            one("1 0 0 10 8 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1").job_size(),
            Some(8)
        );
        // Field 8 zero: field 5.
        assert_eq!(
            one("1 0 0 10 8 -1 -1 0 -1 -1 1 -1 -1 -1 -1 -1 -1 -1").job_size(),
            Some(8)
        );
        // Neither.
        assert_eq!(
            one("1 0 0 10 0 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1").job_size(),
            None
        );
        // Too large for u32.
        assert_eq!(
            one("1 0 0 10 -1 -1 -1 99999999999 -1 -1 1 -1 -1 -1 -1 -1 -1 -1").job_size(),
            None
        );
    }

    #[test]
    fn to_jobs_skips_and_counts_by_reason() {
        let text = "\
; MaxProcs: 4
1 0 0 10 4 -1 -1 -1 -1 -1 1 7 -1 -1 -1 -1 -1 -1
2 5 0 -1 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
3 6 0 10 -1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
4 -3 0 10 2 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
5 7 0 -7 2 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
-1 8 0 7 2 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
7 9 0 0 8 -1 -1 -1 30 -1 1 -1 -1 -1 -1 -1 -1 -1
";
        let trace = parse(text).unwrap();
        let (jobs, skips) = to_jobs(&trace);
        assert_eq!(
            skips,
            SkipCounts {
                unknown_run_time: 1,
                invalid_run_time: 1,
                unknown_size: 1,
                negative_submit: 1,
                invalid_job_number: 1,
                reordered: false,
            }
        );
        assert_eq!(skips.total(), 5);
        assert_eq!(
            jobs,
            vec![
                SwfJob {
                    id: 1,
                    submit: 0,
                    size: 4,
                    run_time: 10,
                    requested_time: None,
                    user: Some(7),
                    line: 2
                },
                SwfJob {
                    id: 7,
                    submit: 9,
                    size: 8,
                    run_time: 0,
                    requested_time: Some(30),
                    user: None,
                    line: 8
                },
            ]
        );
        let info = info(&trace);
        assert_eq!(info.records, 7);
        assert_eq!(info.jobs, 2);
        assert_eq!(info.submit_span(), Some(9));
        assert_eq!(info.max_job_size, Some(8));
        assert_eq!(info.jobs_over_max_procs, 1);
        let table = info.to_string();
        assert!(table.contains("\n  unknown run time      1\n"), "{table}");
        assert!(table.contains("\nskipped                 5\n"), "{table}");
        assert!(table.contains("4 (header), 8 (largest job)"), "{table}");
    }

    #[test]
    fn unsorted_traces_are_sorted_stably_and_flagged() {
        let text = "\
1 50 0 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
2 20 0 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
3 50 0 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
4 20 0 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
";
        let (jobs, skips) = to_jobs(&parse(text).unwrap());
        assert!(skips.reordered);
        let ids: Vec<u64> = jobs.iter().map(|j| j.id).collect();
        assert_eq!(ids, [2, 4, 1, 3]);
        let (_, skips) = to_jobs(&parse(LINE_A).unwrap());
        assert!(!skips.reordered);
    }

    #[test]
    fn truncated_line_error_names_file_line_and_count() {
        let text = format!("; MaxProcs: 4\n{LINE_A}\n1 2 3 4 5 6 7 8 9 10 11 12\n");
        let err = parse(&text).unwrap_err();
        assert!(matches!(
            err,
            SwfError::FieldCount {
                line: 3,
                found: 12,
                ..
            }
        ));
        assert_eq!(
            err.to_string(),
            "test.swf line 3: expected 18 fields, found 12 (truncated line?)"
        );
        let err = parse(&format!("{LINE_A} 5")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.swf line 1: expected 18 fields, found 19 \
             (extra fields, or a comment without a leading `;`?)"
        );
    }

    #[test]
    fn non_numeric_field_error_names_file_line_and_field() {
        let text =
            format!("{LINE_A}\n{LINE_A}\n1 0 10 abc 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1\n");
        let err = read_from(text.as_bytes(), "KTH.swf").unwrap_err();
        assert!(matches!(
            err,
            SwfError::BadField {
                line: 3,
                field: 4,
                ..
            }
        ));
        assert_eq!(
            err.to_string(),
            "KTH.swf line 3: field 4 (run time): expected a number, found `abc`"
        );
        let err = parse("1 0 10 100 4 -1 -1 4 2.5 -1 1 3 1 -1 -1 -1 -1 -1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.swf line 1: field 9 (requested time): expected a whole number, found `2.5`"
        );
        let err = parse("1 0 10 100 4 NaN -1 4 2 -1 1 3 1 -1 -1 -1 -1 -1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.swf line 1: field 6 (average CPU time used): expected a number, found `NaN`"
        );
        let err = parse("1 0 10 100 4 1 -1 4 2 -1 1 3 1 -1 -1 -1 -1 1e300").unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.swf line 1: field 18 (think time from preceding job): \
             expected a number within the 64-bit integer range, found `1e300`"
        );
        let long = "9".repeat(100);
        let err = parse(&format!(
            "1 0 10 100 4 1 -1 4 2 -1 1 3 1 -1 -1 -1 -1 {long}"
        ))
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("found `9999999999999999999999999999999999999999…`")
        );
    }

    #[test]
    fn missing_file_error_names_path() {
        let err = read_path("/nonexistent/dir/trace.swf").unwrap_err();
        assert!(matches!(err, SwfError::Open { .. }));
        let msg = err.to_string();
        assert!(
            msg.starts_with("cannot open SWF trace /nonexistent/dir/trace.swf: "),
            "{msg}"
        );
    }

    #[test]
    fn corrupt_gzip_is_a_read_error() {
        let mut data = vec![0x1f, 0x8b];
        data.extend_from_slice(b"not really deflate data at all");
        let err = read_from(&data[..], "bad.swf.gz").unwrap_err();
        assert!(matches!(err, SwfError::Read { line: 1, .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("bad.swf.gz line 1: read error: ")
        );
    }

    #[test]
    fn gzip_is_detected_by_magic_bytes() {
        use flate2::{Compression, write::GzEncoder};
        let text = format!("; MaxProcs: 4\n{LINE_A}\n");
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        let gz = enc.finish().unwrap();
        let from_gz = read_from(&gz[..], "t").unwrap();
        let from_text = read_from(text.as_bytes(), "t").unwrap();
        assert_eq!(from_gz, from_text);
        assert_eq!(from_gz.header.max_procs, Some(4));
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for text in [
            "",
            "\n",
            ";",
            "-",
            "+",
            "\u{feff}1",
            "\r\n\r\n",
            "1",
            "\0\0\0",
            "\x1f",
        ] {
            let _ = parse(text);
        }
        let latin1 = b"; Installation: Universit\xe4t\n";
        let trace = read_from(&latin1[..], "l1").unwrap();
        let bom = read_from("\u{feff}; MaxProcs: 3\n".as_bytes(), "bom").unwrap();
        assert_eq!(bom.header.max_procs, Some(3));
        assert_eq!(trace.header.lines[0], "; Installation: Universität");
        let err =
            read_from(&b"1 0 10 \xff 4 -1 -1 4 2 -1 1 3 1 -1 -1 -1 -1 -1"[..], "x").unwrap_err();
        assert!(err.to_string().contains("field 4 (run time)"));
    }

    #[test]
    fn numbers_are_written_so_they_parse_back_unchanged() {
        for v in [
            0,
            1,
            -1,
            42,
            -1234567,
            i64::MAX,
            i64::MIN,
            999_999_999_999_999,
        ] {
            let mut out = Vec::new();
            push_i64(&mut out, v);
            assert_eq!(std::str::from_utf8(&out).unwrap(), v.to_string());
            assert_eq!(parse_i64(&out), Ok(v));
        }
        for v in [
            0.0,
            -0.0,
            -1.0,
            0.1,
            1e-7,
            2.5e-300,
            123456789.5,
            1e15,
            5e15,
            1e20,
            1.7e308,
            -3.25,
            12.345678901234567,
        ] {
            let mut out = Vec::new();
            push_f64(&mut out, v);
            let mut line = b"1 0 0 0 0 ".to_vec();
            line.extend_from_slice(&out);
            line.extend_from_slice(b" 0 0 0 0 0 0 0 0 0 0 0 0");
            assert_eq!(parse_f64(&out).unwrap().to_bits(), v.to_bits());
            let Ok(record) = parse_record(&line, 1) else {
                panic!("{v} written as {out:?}");
            };
            let back = record.avg_cpu_time;
            assert_eq!(back.to_bits(), v.to_bits(), "{v} written as {out:?}");
        }
        let mut out = Vec::new();
        push_f64(&mut out, 3.0);
        assert_eq!(out, b"3");
    }

    #[test]
    fn write_then_read_gives_the_same_trace() {
        let text = "\
; Version: 2
;   MaxProcs: 64  (note)

1 0 10 100 4 12.345678901234567 -1 4 200 0.1 1 3 1 -1 -1 -1 -1 -1\r
; a comment between records
2 1 10 100 4 1e-7 123456789.5 4 200 -1 1 3 1 -1 -1 -1 -1 -1

3   2   10  100   4   -1   -1   4  200   -1   1   3   1  -1  -1  -1  -1  -1
; trailing
";
        let trace = parse(text).unwrap();
        assert_eq!(trace.records.len(), 3);
        assert_eq!(trace.comments.len(), 3);
        let mut out = Vec::new();
        write_to(&trace, &mut out).unwrap();
        let again = parse(std::str::from_utf8(&out).unwrap()).unwrap();
        assert_eq!(again, trace);
        assert_eq!(again.records[2].line, 8);
        assert_eq!(
            trace.records[0].to_string(),
            "1 0 10 100 4 12.345678901234567 -1 4 200 0.1 1 3 1 -1 -1 -1 -1 -1"
        );
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn finite() -> impl Strategy<Value = f64> {
            prop_oneof![
                Just(-1.0),
                -1e6..1e6f64,
                proptest::num::f64::NORMAL
                    | proptest::num::f64::SUBNORMAL
                    | proptest::num::f64::ZERO,
            ]
        }

        fn int() -> impl Strategy<Value = i64> {
            prop_oneof![Just(-1i64), -10i64..100_000, any::<i64>()]
        }

        proptest! {
            #[test]
            fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
                let _ = read_from(&bytes[..], "fuzz");
            }

            #[test]
            fn arbitrary_lines_never_panic(
                words in proptest::collection::vec("[-+0-9.eE;a-z]{0,6}|-1|[0-9]{1,22}", 0..25)
            ) {
                let _ = read_from(words.join(" ").as_bytes(), "fuzz");
            }

            #[test]
            fn records_round_trip(
                rows in proptest::collection::vec(
                    (proptest::array::uniform15(int()), finite(), finite(), finite()),
                    0..20,
                )
            ) {
                let records: Vec<SwfRecord> = rows
                    .iter()
                    .enumerate()
                    .map(|(i, (n, a, b, c))| SwfRecord {
                        job_number: n[0],
                        submit_time: n[1],
                        wait_time: n[2],
                        run_time: n[3],
                        allocated_procs: n[4],
                        avg_cpu_time: *a,
                        used_memory: *b,
                        requested_procs: n[5],
                        requested_time: n[6],
                        requested_memory: *c,
                        status: n[7],
                        user_id: n[8],
                        group_id: n[9],
                        executable: n[10],
                        queue: n[11],
                        partition: n[12],
                        preceding_job: n[13],
                        think_time: n[14],
                        line: i + 2,
                    })
                    .collect();
                let trace = SwfTrace {
                    header: SwfHeader::from_lines(vec!["; MaxProcs: 8".into()]),
                    records,
                    comments: Vec::new(),
                    source_name: "p".into(),
                };
                let mut out = Vec::new();
                write_to(&trace, &mut out).unwrap();
                let again = read_from(&out[..], "p").unwrap();
                prop_assert_eq!(&again, &trace);
                for (x, y) in again.records.iter().zip(&trace.records) {
                    prop_assert_eq!(x.avg_cpu_time.to_bits(), y.avg_cpu_time.to_bits());
                    prop_assert_eq!(x.used_memory.to_bits(), y.used_memory.to_bits());
                    prop_assert_eq!(x.requested_memory.to_bits(), y.requested_memory.to_bits());
                }
            }
        }
    }
}
