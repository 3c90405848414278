//! Writing a trace back so that it reads as it was.

use super::*;

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
