//! A scheduler schedscope starts itself, one per run (the parameter
//! `command`): every replication and every sweep point gets a process of
//! its own on a port of its own, so they can run side by side.
//!
//! The command line runs through `sh -c` (Unix only), with `{port}`
//! replaced by a free TCP port of the loopback and `{endpoint}` by
//! `tcp://*:PORT` (pybatsim's `-s` form). It runs in a fresh temporary
//! folder, removed when the run ends (pybatsim writes its `out_*.csv`
//! into its working folder), with no input and its output and errors in
//! `stdout.txt` and `stderr.txt` there.
//!
//! It runs in a process group of its own: stopping it stops whatever the
//! command started too. When the run ends the scheduler gets a moment to
//! exit on its own, then its group is killed; the same if the run stops
//! on an error, or the policy is dropped (a switch away in the console).
//! If schedscope ends through `exit` without dropping the policy (a
//! signal with `--out`) the groups still running are killed on the way
//! out. If it dies of a signal, nothing of it runs any more: on Linux the
//! shell that runs the command is told by the kernel (`PR_SET_PDEATHSIG`)
//! and kills its group, so the scheduler does not outlive schedscope
//! either. Either way the folder is removed too.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a scheduler gets to exit after its run ended.
pub const GRACE: Duration = Duration::from_secs(1);

/// How many of the last lines of its errors a failure quotes.
const LAST_LINES: usize = 5;

/// Whether `command` says where to listen: it holds `{port}` or
/// `{endpoint}`.
pub fn check_command(command: &str) -> Result<(), String> {
    if command.contains("{port}") || command.contains("{endpoint}") {
        Ok(())
    } else {
        Err(format!(
            "\"{command}\" must say where the scheduler listens, with {{port}} or \
             {{endpoint}} (e.g. \"pybatsim easyBackfill -s tcp://*:{{port}} -t 0\")"
        ))
    }
}

/// `command` with `{port}` and `{endpoint}` replaced.
pub fn substitute(command: &str, port: u16) -> String {
    command
        .replace("{endpoint}", &format!("tcp://*:{port}"))
        .replace("{port}", &port.to_string())
}

/// A free TCP port of the loopback: bound, read and released. Between
/// its release and the scheduler's bind another process may take it.
/// Then either the scheduler cannot listen and exits (its error, such as
/// "Address already in use", ends the run), or the other process answers
/// the connection and the run stops on its first reply that is not the
/// protocol's, or on the timeout: never silently.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port on 127.0.0.1 for the scheduler: {e}"))
}

/// The process groups of schedulers running now and their folders,
/// killed and removed if the process exits without dropping them.
static RUNNING: Mutex<Vec<(i32, PathBuf)>> = Mutex::new(Vec::new());

/// A scheduler process started for one run; killed when dropped.
pub struct Scheduler {
    /// The command line as given (with `{port}`), for messages.
    command: String,
    child: Child,
    dir: tempfile::TempDir,
    status: Option<ExitStatus>,
}

impl Scheduler {
    /// Starts `command` on a free port; the scheduler and the endpoint to
    /// connect to.
    pub fn start(command: &str) -> Result<(Scheduler, String), String> {
        check_command(command)?;
        let port = free_port()?;
        let line = substitute(command, port);
        let cannot =
            |what: &str, e: std::io::Error| format!("cannot start `{command}`: {what}: {e}");
        let dir = tempfile::Builder::new()
            .prefix("schedscope-scheduler-")
            .tempdir()
            .map_err(|e| cannot("no temporary folder", e))?;
        let out =
            File::create(dir.path().join("stdout.txt")).map_err(|e| cannot("stdout.txt", e))?;
        let err =
            File::create(dir.path().join("stderr.txt")).map_err(|e| cannot("stderr.txt", e))?;
        let child = spawn(&line, dir.path(), out, err).map_err(|e| cannot("sh -c", e))?;
        if let Ok(mut running) = RUNNING.lock() {
            running.push((child.id() as i32, dir.path().to_path_buf()));
        }
        kill_on_exit();
        tracing::debug!(command = %line, pid = child.id(), "scheduler started");
        let s = Scheduler {
            command: command.to_string(),
            child,
            dir,
            status: None,
        };
        Ok((s, format!("tcp://127.0.0.1:{port}")))
    }

    /// The command line as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The process's id (its group's too).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Whether the command has exited.
    pub fn exited(&mut self) -> bool {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status.is_some()
    }

    /// Why the scheduler is gone: the command, its exit status and the
    /// last lines of its errors.
    pub fn failure(&mut self) -> String {
        self.exited();
        let status = match self.status {
            Some(s) => describe(s),
            None => "stopped answering but still runs".to_string(),
        };
        let text = std::fs::read_to_string(self.stderr()).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let last = &lines[lines.len().saturating_sub(LAST_LINES)..];
        let said = if last.is_empty() {
            "nothing on stderr".to_string()
        } else {
            format!("its stderr ends with:\n    {}", last.join("\n    "))
        };
        format!("the scheduler `{}` {status}; {said}", self.command)
    }

    fn stderr(&self) -> PathBuf {
        self.dir.path().join("stderr.txt")
    }

    /// Waits up to `grace` for the scheduler to exit, then kills its
    /// process group, and waits for it.
    pub fn stop(&mut self, grace: Duration) {
        let deadline = Instant::now() + grace;
        while !self.exited() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        // The group may outlive its leader (what the command started).
        kill_group(self.child.id() as i32);
        if self.status.is_none() {
            self.status = self.child.wait().ok();
        }
        if let Ok(mut running) = RUNNING.lock() {
            running.retain(|(g, _)| *g != self.child.id() as i32);
        }
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.stop(Duration::ZERO);
    }
}

/// "exited with status 3", "was killed by signal 9".
fn describe(s: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return format!("was killed by signal {sig}");
        }
    }
    match s.code() {
        Some(c) => format!("exited with status {c}"),
        None => format!("ended ({s})"),
    }
}

/// The shell around the command: the command runs in a shell of its own
/// (`$1`), and a SIGTERM to this one (the kernel's, when schedscope dies)
/// removes the scheduler's folder (`$2`) and kills the whole group. The
/// command's exit status is the shell's.
#[cfg(unix)]
const WRAPPER: &str = "trap 'cd /; rm -rf \"$2\"; kill -s KILL 0' TERM; sh -c \"$1\" & wait $!";

#[cfg(unix)]
fn spawn(line: &str, dir: &std::path::Path, out: File, err: File) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new("sh");
    c.args(["-c", WRAPPER, "schedscope-scheduler", line])
        .arg(dir)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork
    // and exec.
    unsafe {
        c.pre_exec(|| {
            // Told if schedscope dies without stopping it.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    c.spawn()
}

#[cfg(not(unix))]
fn spawn(_: &str, _: &std::path::Path, _: File, _: File) -> std::io::Result<Child> {
    Err(std::io::Error::other(
        "starting a scheduler is supported on Unix only",
    ))
}

#[cfg(unix)]
fn kill_group(group: i32) {
    // SAFETY: a plain system call on a group this process created.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_: i32) {}

/// Kills the schedulers still running when the process exits, and
/// removes their folders.
fn kill_on_exit() {
    #[cfg(unix)]
    {
        extern "C" fn kill_running() {
            if let Ok(running) = RUNNING.try_lock() {
                for (g, dir) in running.iter() {
                    kill_group(*g);
                    let _ = std::fs::remove_dir_all(dir);
                }
            }
        }
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: registers a function that only sends signals.
        ONCE.call_once(|| unsafe {
            libc::atexit(kill_running);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_and_endpoint_are_replaced() {
        assert_eq!(
            substitute("pybatsim easyBackfill -s {endpoint} -t 0", 28001),
            "pybatsim easyBackfill -s tcp://*:28001 -t 0"
        );
        assert_eq!(
            substitute("x -s tcp://*:{port} {port}", 5),
            "x -s tcp://*:5 5"
        );
        assert!(check_command("x {port}").is_ok());
        assert!(check_command("x {endpoint}").is_ok());
        assert!(check_command("pybatsim easyBackfill").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_failing_command_says_its_status_and_errors() {
        let (mut s, endpoint) = Scheduler::start("echo boom >&2; exit 3 # {port}").unwrap();
        assert!(endpoint.starts_with("tcp://127.0.0.1:"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !s.exited() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let why = s.failure();
        assert!(why.contains("exited with status 3"), "{why}");
        assert!(why.contains("boom") && why.contains("exit 3"), "{why}");
    }

    #[cfg(unix)]
    #[test]
    fn a_scheduler_that_does_not_exit_is_killed_with_what_it_started() {
        let (mut s, _) = Scheduler::start("sleep 600 & sleep 600 # {port}").unwrap();
        let dir = s.dir.path().to_path_buf();
        assert!(dir.join("stderr.txt").exists());
        let group = s.id() as i32;
        let started = Instant::now();
        s.stop(Duration::from_millis(50));
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(s.exited());
        // Nothing of its group is left running (the background sleep
        // included; a zombie waits for its reaper).
        let deadline = Instant::now() + Duration::from_secs(5);
        while running_in(group) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(running_in(group), 0, "the group is gone");
        drop(s);
        assert!(!dir.exists(), "its folder is removed");
    }

    /// How many processes of `group` are alive and not zombies.
    #[cfg(unix)]
    fn running_in(group: i32) -> usize {
        let Ok(procs) = std::fs::read_dir("/proc") else {
            // No /proc: whether the group can be signalled at all.
            // SAFETY: signal 0 only asks whether the group exists.
            return usize::from(unsafe { libc::kill(-group, 0) } == 0);
        };
        procs
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
            .filter(|stat| {
                // pid (comm) state ppid pgrp ...
                let after = stat.rsplit_once(')').map_or("", |(_, a)| a);
                let f: Vec<&str> = after.split_whitespace().collect();
                f.len() > 2 && f[2] == group.to_string() && f[0] != "Z"
            })
            .count()
    }
}
