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
    /// A data line that does not parse holds a control byte: the file is
    /// most likely not a trace (or not one in plain text or gzip).
    #[error(
        "{file} line {line}: not text (byte {byte:#04x} at column {column}): is this an SWF \
         trace, plain or gzip-compressed?"
    )]
    NotText {
        file: String,
        line: usize,
        byte: u8,
        column: usize,
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

mod jobs;
mod reader;
mod record;
mod summary;
mod writer;

pub use jobs::*;
pub use reader::*;
pub use record::*;
pub use summary::*;
pub use writer::*;

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
8 9 0 5 8 -1 -1 4294967296 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
9 9 0 5 8 -1 -1 -2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
";
        let trace = parse(text).unwrap();
        let (jobs, skips) = to_jobs(&trace);
        // Field 8 of 2^32 or -2 is no count: skipped and counted, not
        // replaced by field 5.
        assert_eq!(
            skips,
            SkipCounts {
                unknown_run_time: 1,
                invalid_run_time: 1,
                invalid_requested_procs: 2,
                unknown_size: 1,
                negative_submit: 1,
                invalid_job_number: 1,
                reordered: false,
            }
        );
        assert_eq!(skips.total(), 7);
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
        assert_eq!(info.records, 9);
        assert_eq!(info.jobs, 2);
        assert_eq!(info.submit_span(), Some(9));
        assert_eq!(info.max_job_size, Some(8));
        assert_eq!(info.jobs_over_max_procs, 1);
        let table = info.to_string();
        assert!(table.contains("\n  unknown run time      1\n"), "{table}");
        assert!(table.contains("\nskipped                 7\n"), "{table}");
        assert!(table.contains("\n  bad requested procs   2\n"), "{table}");
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

    /// A file that is not text (a binary, or a gzip file cut short before
    /// its magic bytes) is named as such, not as a line with too few
    /// fields.
    #[test]
    fn a_line_that_is_not_text_is_named_as_such() {
        let mut bytes = format!("{LINE_A}\n").into_bytes();
        bytes.extend_from_slice(b"\x8b\x00\x03 7 \x01\xff\n");
        let err = read_from(bytes.as_slice(), "t.swf.gz").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.swf.gz line 2: not text (byte 0x00 at column 2): is this an SWF trace, \
             plain or gzip-compressed?"
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
