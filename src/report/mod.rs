//! Reports: the JSON summary, the per-job CSV, the text tables and files for
//! other tools (Batsim's `out_jobs.csv`, the schedule as SWF), and the
//! result folder they are written into as one unit (`--out`).

pub mod batsim;
pub mod csv;
pub mod interop;
pub mod json;
pub mod out_dir;
pub mod swf_out;
pub mod table;

use std::io::Write;
use std::path::Path;

/// A temporary file beside `path`, with the mode a new file would get (the
/// umask's), for writing and then renaming onto `path`.
pub fn temp_beside(path: &Path, suffix: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut b = tempfile::Builder::new();
    b.suffix(suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir)
}

/// Writes one file so that readers see either the old file or the whole
/// new one, never half of it: a temporary file beside it, synced, then
/// renamed. (A run's `--out` folder is written as one unit by
/// [`out_dir`].)
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp = temp_beside(path, "")?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
