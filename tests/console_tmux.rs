//! The console in a real terminal: tmux runs the binary, keys go in, the
//! pane is captured. Skipped (with the reason printed) without tmux.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> Option<String> {
    let out = Command::new("tmux").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

struct Session(String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = tmux(&["kill-session", "-t", &self.0]);
    }
}

impl Session {
    fn capture(&self) -> String {
        tmux(&["capture-pane", "-p", "-t", &self.0]).unwrap_or_default()
    }

    fn send(&self, key: &str) {
        tmux(&["send-keys", "-t", &self.0, key]).expect("tmux send-keys");
    }

    /// Waits until the pane shows `text`; the pane on failure.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let pane = self.capture();
            if pane.contains(text) {
                return pane;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("the pane never showed {text:?}:\n{pane}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn wait_for_file(path: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(path)
            && s.ends_with('\n')
        {
            return s;
        }
        if start.elapsed() > Duration::from_secs(30) {
            panic!("the console did not exit");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn console_in_tmux_policy_inject_estimate_quit() {
    if tmux(&["-V"]).is_none() {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exit_file = dir.path().join("exit");
    let bin = env!("CARGO_BIN_EXE_schedscope");
    let name = format!("schedscope-smoke-{}", std::process::id());
    let script = format!(
        "cd '{d}' && SCHEDSCOPE_LOG_DIR='{d}' '{bin}'; echo $? > '{e}'; sleep 30",
        d = dir.path().display(),
        e = exit_file.display(),
    );
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        &name,
        "-x",
        "150",
        "-y",
        "40",
        "sh",
        "-c",
        &script,
    ]);
    if started.is_none() {
        eprintln!("skipped: tmux cannot start a session here");
        return;
    }
    let s = Session(name);
    s.wait_for("schedscope · ngubiri-fpfs · 5×20 · seed 1");
    s.wait_for("▶ running");

    s.send("p");
    s.wait_for("Policy · Esc cancels");
    s.send("0");
    s.wait_for("Enter applies FPFS(maxJumps 0)");
    s.send("Enter");
    s.wait_for("✓ policy is now FPFS(maxJumps 0) + worst fit");

    s.send("i");
    s.wait_for("Inject jobs");
    s.send("Enter");
    let pane = s.wait_for("✓ injected job 1000000001");
    assert!(pane.contains("◆"), "{pane}");

    s.send("e");
    let pane = s.wait_for("estimates are now ±10 % uniform error for jobs that arrive from now on");
    assert!(
        pane.contains("policy FPFS(maxJumps 0) + worst fit"),
        "{pane}"
    );
    assert!(
        pane.contains("estimates ±10 % uniform error (new arrivals)"),
        "{pane}"
    );
    assert!(pane.contains("Queue"), "{pane}");
    assert!(!pane.contains("links:"), "no network, no line: {pane}");

    s.send("q");
    let code = wait_for_file(&exit_file);
    assert_eq!(code.trim(), "0", "exit status");
    // The terminal is restored: the console's screen is gone.
    let pane = s.capture();
    assert!(!pane.contains("Head & backfill"), "{pane}");
    let log = std::fs::read_to_string(dir.path().join("console.log")).unwrap();
    assert!(log.contains("console closes"), "{log}");
}
