//! Reports: the JSON summary, the per-job CSV, the text tables and files for
//! other tools (Batsim's `out_jobs.csv`, the schedule as SWF), written
//! atomically (a temporary file in the target folder, then a rename).

pub mod batsim;
pub mod csv;
pub mod interop;
pub mod json;
pub mod swf_out;
pub mod table;

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` so that readers see either the old file or the
/// whole new one, never half of it.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
