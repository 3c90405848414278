//! Reading a trace, plain or gzip, with errors that name the line and field.

use super::*;

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
pub(super) fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

pub(super) fn parse_lines<B: BufRead>(mut input: B, name: &str) -> Result<SwfTrace, SwfError> {
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
        let record = parse_record(content, line_no).map_err(|e| {
            // A line that does not parse and holds control bytes is most
            // likely not text at all: say so rather than count its fields.
            match line.iter().position(|&b| is_control(b)) {
                Some(at) => SwfError::NotText {
                    file: name.to_string(),
                    line: line_no,
                    byte: line[at],
                    column: at + 1,
                },
                None => e.into_error(name, line_no),
            }
        })?;
        records.push(record);
    }
    Ok(SwfTrace {
        header: SwfHeader::from_lines(header_lines),
        records,
        comments,
        source_name: name.to_string(),
    })
}

/// A byte no text line of a trace holds: a control character other than
/// the white space ones.
fn is_control(b: u8) -> bool {
    (b < 0x20 && !matches!(b, b'\t' | 0x0b | 0x0c | b'\r')) || b == 0x7f
}

/// A data-line problem, before the file name and line number are attached.
pub(super) enum LineError {
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

pub(super) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() <= MAX_QUOTED {
        text.into_owned()
    } else {
        let mut short: String = text.chars().take(MAX_QUOTED).collect();
        short.push('…');
        short
    }
}

pub(super) fn parse_record(content: &[u8], line: usize) -> Result<SwfRecord, LineError> {
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

pub(super) const EXPECTED_NUMBER: &str = "a number";
pub(super) const EXPECTED_WHOLE: &str = "a whole number";
pub(super) const EXPECTED_RANGE: &str = "a number within the 64-bit integer range";

/// Parses a plain decimal integer of at most 18 digits, with an optional
/// sign; `None` for anything else.
pub(super) fn parse_small_int(text: &[u8]) -> Option<i64> {
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
pub(super) fn parse_i64(text: &[u8]) -> Result<i64, &'static str> {
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
pub(super) fn parse_f64(text: &[u8]) -> Result<f64, &'static str> {
    let s = std::str::from_utf8(text).map_err(|_| EXPECTED_NUMBER)?;
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(EXPECTED_NUMBER),
    }
}
