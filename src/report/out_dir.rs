//! `--out DIR`: a run's files written as one unit.
//!
//! A run writes several files that only make sense together (the summary of
//! a run and its per-job rows). Written one by one into the folder, an
//! interrupted write leaves a new summary beside an old run's rows. So the
//! files go into a staging folder beside the target, created before the
//! simulation (which is also where an unwritable or unsuitable target is
//! found, in milliseconds rather than after the run), and the staging folder
//! then takes the target's place in one rename: the target holds the old
//! complete result or the new one, never a mix. Where the target exists the
//! two folders are exchanged atomically (Linux and macOS), and the old one
//! is removed afterwards.
//!
//! SIGINT and SIGTERM remove every staging folder (and a replaced result
//! not yet removed) and end the process with 128 + the signal's number; the
//! rename itself runs under the same lock, so a signal sees the result
//! either before or after it. Files and folders get the umask's mode (a
//! replaced folder keeps its own).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

/// Every file a result folder may hold, with those of
/// [`super::interop`]: a folder holding anything else is not replaced.
pub const RESULT_FILES: [&str; 2] = ["summary.json", "jobs.csv"];

/// A folder to remove when a signal ends the process.
#[derive(Debug)]
struct Doomed {
    path: PathBuf,
    /// The target whose unfinished result it holds; `None` for a replaced
    /// result.
    unfinished_for: Option<PathBuf>,
}

static DOOMED: Mutex<Vec<Doomed>> = Mutex::new(Vec::new());

fn doomed() -> MutexGuard<'static, Vec<Doomed>> {
    // A panic while holding the lock leaves the list as it was: still right.
    DOOMED.lock().unwrap_or_else(|e| e.into_inner())
}

fn forget(path: &Path) {
    doomed().retain(|d| d.path != path);
}

/// What is wrong with an `--out` folder.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    #[error("--out {}: {what}: {source}", .dir.display())]
    Io {
        dir: PathBuf,
        what: String,
        #[source]
        source: io::Error,
    },
    #[error("--out {}: {message}", .dir.display())]
    Unsuitable { dir: PathBuf, message: String },
}

/// A result folder being written: files go into a staging folder beside the
/// target until [`OutDir::commit`] puts it in the target's place. Dropped
/// without a commit, it removes the staging folder and leaves the target as
/// it was.
#[derive(Debug)]
pub struct OutDir {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl OutDir {
    /// Checks that `target` can receive a result and creates the staging
    /// folder beside it. The target must be absent, or a folder holding at
    /// most the files of an earlier result; its parent folders are created.
    pub fn prepare(target: &Path) -> Result<OutDir, OutDirError> {
        let io_err = |what: &str, source| OutDirError::Io {
            dir: target.to_path_buf(),
            what: what.to_string(),
            source,
        };
        let unsuitable = |message: String| OutDirError::Unsuitable {
            dir: target.to_path_buf(),
            message,
        };
        // A link to a folder stands for that folder.
        let resolved;
        let target = match fs::symlink_metadata(target) {
            Ok(m) if m.is_symlink() => {
                resolved =
                    fs::canonicalize(target).map_err(|e| io_err("cannot follow the link", e))?;
                resolved.as_path()
            }
            _ => target,
        };
        let name = target
            .file_name()
            .filter(|n| *n != "." && *n != "..")
            .ok_or_else(|| {
                unsuitable("name a folder by its own name (not `.`, `..` or `/`)".into())
            })?;
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        match fs::symlink_metadata(target) {
            Ok(m) if m.is_dir() => {
                let mut others: Vec<String> = Vec::new();
                for entry in fs::read_dir(target).map_err(|e| io_err("cannot read it", e))? {
                    let entry = entry.map_err(|e| io_err("cannot read it", e))?;
                    let n = entry.file_name().to_string_lossy().into_owned();
                    if !RESULT_FILES.contains(&n.as_str()) && !super::interop::is_written_here(&n) {
                        others.push(n);
                    }
                }
                if !others.is_empty() {
                    others.sort();
                    return Err(unsuitable(format!(
                        "the folder holds files other than a result ({}); a new result replaces the whole folder, so name a new or empty folder",
                        others.join(", ")
                    )));
                }
                // The old result is removed once replaced: it must be ours
                // to remove. An unnamed file leaves no trace where the
                // system supports one.
                tempfile::tempfile_in(target).map_err(|e| io_err("cannot write into it", e))?;
            }
            Ok(_) => return Err(unsuitable("it exists and is not a folder".into())),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                fs::create_dir_all(&parent).map_err(|e| {
                    io_err(&format!("cannot create the folder {}", parent.display()), e)
                })?;
            }
            Err(e) => return Err(io_err("cannot read it", e)),
        }
        remove_stale_staging(&parent, &name.to_string_lossy());
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let mut doomed = doomed();
        let staging = loop {
            let candidate = parent.join(format!(
                ".{}.partial-{}-{}",
                name.to_string_lossy(),
                std::process::id(),
                SEQ.fetch_add(1, Ordering::Relaxed)
            ));
            match fs::create_dir(&candidate) {
                Ok(()) => break candidate,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(io_err(
                        &format!("cannot create a folder in {}", parent.display()),
                        e,
                    ));
                }
            }
        };
        doomed.push(Doomed {
            path: staging.clone(),
            unfinished_for: Some(target.to_path_buf()),
        });
        Ok(OutDir {
            target: target.to_path_buf(),
            staging,
            committed: false,
        })
    }

    /// The folder the result goes to.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes one file of the result into the staging folder.
    pub fn write(
        &self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), OutDirError> {
        let err = |source| OutDirError::Io {
            dir: self.target.clone(),
            what: format!("cannot write {name}"),
            source,
        };
        // Created under the lock: once a signal has removed the staging
        // folder, nothing is created in its place.
        let file = {
            let doomed = doomed();
            if !doomed.iter().any(|d| d.path == self.staging) {
                return Err(err(io::Error::other("interrupted")));
            }
            File::create(self.staging.join(name)).map_err(err)?
        };
        let mut w = BufWriter::with_capacity(1 << 20, file);
        write(&mut w).map_err(err)?;
        let file = w.into_inner().map_err(|e| err(e.into_error()))?;
        file.sync_all().map_err(err)
    }

    /// Puts the staging folder in the target's place and removes the result
    /// it replaces.
    pub fn commit(mut self) -> Result<(), OutDirError> {
        let err = |what: &str, source| OutDirError::Io {
            dir: self.target.clone(),
            what: what.to_string(),
            source,
        };
        let replaced = {
            let mut doomed = doomed();
            let replaced = match fs::metadata(&self.target) {
                Ok(old) => {
                    // The folder keeps the mode it was given.
                    fs::set_permissions(&self.staging, old.permissions())
                        .map_err(|e| err("cannot set the folder's mode", e))?;
                    exchange(&self.staging, &self.target)
                        .map_err(|e| err("cannot replace the folder", e))?;
                    Some(self.staging.clone())
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::rename(&self.staging, &self.target)
                        .map_err(|e| err("cannot rename the new result into place", e))?;
                    None
                }
                Err(e) => return Err(err("cannot read it", e)),
            };
            // The staging path now holds the old result (or nothing): still
            // to be removed if a signal comes before we do.
            doomed.retain(|d| d.path != self.staging);
            if let Some(old) = &replaced {
                doomed.push(Doomed {
                    path: old.clone(),
                    unfinished_for: None,
                });
            }
            self.committed = true;
            replaced
        };
        if let Some(old) = replaced {
            let removed = fs::remove_dir_all(&old);
            forget(&old);
            removed.map_err(|e| {
                err(
                    &format!(
                        "the new result is in place, but the old one at {} could not be removed",
                        old.display()
                    ),
                    e,
                )
            })?;
        }
        Ok(())
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.staging);
            forget(&self.staging);
        }
    }
}

/// Swaps two existing folders in one step where the system can, and
/// otherwise moves `target` aside, `staging` in, and the old one to
/// `staging`'s name.
fn exchange(staging: &Path, target: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, staging, CWD, target, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            // Filesystems without the exchange fall through to two renames.
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut aside = staging.as_os_str().to_os_string();
    aside.push("-old");
    let aside = PathBuf::from(aside);
    fs::rename(target, &aside)?;
    if let Err(e) = fs::rename(staging, target) {
        let _ = fs::rename(&aside, target);
        return Err(e);
    }
    fs::rename(&aside, staging)
}

/// Removes the staging folders (`.NAME.partial-PID-N`) that runs for
/// `NAME` in `parent` left behind when killed outright (SIGKILL, a power
/// cut): those of a process that no longer runs. Where that cannot be
/// told (no `/proc`), nothing is removed.
fn remove_stale_staging(parent: &Path, name: &str) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let prefix = format!(".{name}.partial-");
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        let Some((pid, seq)) = rest.split_once('-') else {
            continue;
        };
        let (Ok(pid), Ok(_)) = (pid.parse::<u32>(), seq.parse::<u32>()) else {
            continue;
        };
        if pid != std::process::id()
            && !proc.join(pid.to_string()).exists()
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// On SIGINT or SIGTERM, removes every staging folder (and any replaced
/// result not yet removed) and ends the process with 128 + the signal's
/// number. Installed once; later calls do nothing.
pub fn remove_on_signal() -> io::Result<()> {
    static INSTALL: Once = Once::new();
    let mut result = Ok(());
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            Ok(mut signals) => {
                std::thread::spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        // Held until the process ends: no staging folder is
                        // created, written into or renamed after this.
                        let doomed = doomed();
                        let what = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
                        eprintln!("schedscope: stopped by {what}");
                        for d in doomed.iter() {
                            let _ = fs::remove_dir_all(&d.path);
                            if let Some(t) = &d.unfinished_for {
                                eprintln!(
                                    "schedscope: the unfinished result was removed; {} is as it was",
                                    t.display()
                                );
                            }
                        }
                        std::process::exit(128 + sig);
                    }
                });
            }
            Err(e) => result = Err(e),
        }
    });
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn write_pair(dir: &Path, text: &str) {
        let out = OutDir::prepare(dir).unwrap();
        for name in RESULT_FILES {
            out.write(name, |w| w.write_all(text.as_bytes())).unwrap();
        }
        out.commit().unwrap();
    }

    #[test]
    fn a_new_folder_appears_whole_and_nothing_else_is_left() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("a/b/result");
        write_pair(&target, "one");
        assert_eq!(files(&target), ["jobs.csv", "summary.json"]);
        assert_eq!(files(&tmp.path().join("a/b")), ["result"]);
    }

    #[test]
    fn an_earlier_result_is_replaced_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("result");
        write_pair(&target, "one");
        write_pair(&target, "two");
        for name in RESULT_FILES {
            assert_eq!(fs::read_to_string(target.join(name)).unwrap(), "two");
        }
        assert_eq!(files(tmp.path()), ["result"]);
    }

    #[test]
    fn dropped_without_commit_leaves_the_earlier_result() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("result");
        write_pair(&target, "one");
        let out = OutDir::prepare(&target).unwrap();
        out.write("summary.json", |w| w.write_all(b"two")).unwrap();
        drop(out);
        assert_eq!(
            fs::read_to_string(target.join("summary.json")).unwrap(),
            "one"
        );
        assert_eq!(files(tmp.path()), ["result"]);
        assert!(!doomed().iter().any(|d| d.path.starts_with(tmp.path())));
    }

    #[test]
    fn a_folder_with_other_files_or_a_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("result");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("notes.txt"), "mine").unwrap();
        let e = OutDir::prepare(&target).unwrap_err().to_string();
        assert!(
            e.contains("notes.txt") && e.contains("new or empty folder"),
            "{e}"
        );
        let file = tmp.path().join("file");
        fs::write(&file, "").unwrap();
        let e = OutDir::prepare(&file).unwrap_err().to_string();
        assert!(e.contains("not a folder"), "{e}");
        let e = OutDir::prepare(&file.join("below"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot create the folder"), "{e}");
        assert!(OutDir::prepare(Path::new(".")).is_err());
    }
}
