//! The console in a real terminal: tmux runs the binary, keys go in, the
//! pane is captured. Skipped (with the reason printed) without tmux.

use std::path::{Path, PathBuf};
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
        self.wait_for_all(&[text])
    }

    /// Waits until the pane shows every one of `texts` at once: a capture
    /// can catch a frame half drawn, so what a frame shows together is
    /// waited for together. The pane on failure.
    fn wait_for_all(&self, texts: &[&str]) -> String {
        let start = Instant::now();
        loop {
            let pane = self.capture();
            if texts.iter().all(|t| pane.contains(t)) {
                return pane;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("the pane never showed all of {texts:?}:\n{pane}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the pane no longer shows `text`. A key sent right after
    /// Escape can reach the console in the same read and be taken as
    /// Alt and that key, as a terminal would send it: wait for Escape to
    /// have been read before the next key.
    fn wait_until_gone(&self, text: &str) {
        let start = Instant::now();
        loop {
            let pane = self.capture();
            if !pane.contains(text) {
                return;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("the pane kept showing {text:?}:\n{pane}");
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

/// The console with no arguments in a tmux pane of `w`×`h`, in a fresh
/// folder; `None` (with the reason printed) where tmux cannot run it.
fn start(tag: &str, w: u16, h: u16) -> Option<(Session, tempfile::TempDir, PathBuf)> {
    start_with(tag, w, h, "")
}

/// The arguments that open the group-wise co-allocation study.
fn ngubiri() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/default.toml");
    format!("console '{}'", path.display())
}

/// What a newcomer sees: no arguments open the tour, and within seconds
/// the queue, the processor maps, the links, the backfill windows and the
/// group figures all show something, at 80×24 and at 120×40.
#[test]
fn a_bare_console_opens_the_tour_and_every_view_moves() {
    let Some((s, _dir, exit_file)) = start("tour", 120, 40) else {
        return;
    };
    s.wait_for("schedscope · tour · 24/16/16/8 · seed 1");
    s.wait_for("▶ running");
    // Within ten seconds of wall time at the first speed: jobs queued and
    // backfilled, a link in use, the group table with figures.
    let pane = s.wait_for("backfilled");
    for part in [
        "Queue",
        "Clusters · a cell per processor",
        "Head & backfill",
        "Groups by size",
        "link c16b",
    ] {
        assert!(pane.contains(part), "{part} missing:\n{pane}");
    }
    let start = Instant::now();
    while !s
        .capture()
        .lines()
        .any(|l| l.contains("link c") && !l.ends_with(" 0 %"))
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no link ever carried traffic:\n{}",
            s.capture()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = tmux(&["resize-window", "-t", &s.0, "-x", "80", "-y", "24"]);
    s.wait_for_all(&["Tab → groups · history", "link c24"]);
    s.send("q");
    let code = wait_for_file(&exit_file);
    assert_eq!(code.trim(), "0", "exit status");
}

/// [`start`], with arguments for the binary.
fn start_with(
    tag: &str,
    w: u16,
    h: u16,
    args: &str,
) -> Option<(Session, tempfile::TempDir, PathBuf)> {
    if tmux(&["-V"]).is_none() {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let exit_file = dir.path().join("exit");
    let bin = env!("CARGO_BIN_EXE_schedscope");
    let name = format!("schedscope-{tag}-{}", std::process::id());
    let script = format!(
        "cd '{d}' && SCHEDSCOPE_LOG_DIR='{d}' '{bin}' {args}; echo $? > '{e}'; sleep 30",
        d = dir.path().display(),
        e = exit_file.display(),
    );
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        &name,
        "-x",
        &w.to_string(),
        "-y",
        &h.to_string(),
        "sh",
        "-c",
        &script,
    ]);
    if started.is_none() {
        eprintln!("skipped: tmux cannot start a session here");
        return None;
    }
    Some((Session(name), dir, exit_file))
}

#[test]
fn console_in_tmux_policy_inject_estimate_quit() {
    let Some((s, dir, exit_file)) = start_with("smoke", 150, 40, &ngubiri()) else {
        return;
    };
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
    s.wait_for_all(&["✓ injected job 1000000001", "◆"]);

    s.send("e");
    let pane = s.wait_for_all(&[
        "estimates are now ±10 % uniform error for jobs that arrive from now on",
        "policy FPFS(maxJumps 0) + worst fit",
        "estimates ±10 % uniform error (new arrivals)",
        "Queue",
    ]);
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

/// The mouse in a real terminal: the console asks tmux for mouse reports
/// while it runs, a click (sent as the terminal would, an SGR report) on
/// the third queued row selects that job, a second one opens its detail,
/// and `q` gives the mouse back with the rest of the terminal.
#[test]
fn console_in_tmux_takes_the_mouse_and_gives_it_back() {
    let Some((s, _dir, exit_file)) = start("mouse", 150, 40) else {
        return;
    };
    s.wait_for("▶ running");
    // The mouse is the subject here: faster, so that three jobs are soon
    // waiting (at the tour's own speed that takes a dozen seconds).
    s.send("+");
    s.send("+");
    let mouse = || tmux(&["display-message", "-p", "-t", &s.0, "#{mouse_any_flag}"]);
    assert_eq!(mouse().unwrap_or_default().trim(), "1", "mouse reports on");
    // Paused with three jobs or more waiting: the third row under the
    // queue's column headings, and its job.
    let third = |pane: &str| -> Option<(usize, String)> {
        let lines: Vec<&str> = pane.lines().collect();
        let heading = lines.iter().position(|l| l.contains("  job size "))?;
        let id = lines.get(heading + 3)?.split_whitespace().nth(1)?;
        id.parse::<u64>().ok()?;
        Some((heading + 3, id.to_string()))
    };
    let start = Instant::now();
    let (row, id) = loop {
        assert!(start.elapsed() < Duration::from_secs(30), "{}", s.capture());
        if third(&s.capture()).is_none() {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        s.send("Space");
        if let Some(found) = third(&s.wait_for("⏸ paused")) {
            break found;
        }
        s.send("Space");
        s.wait_for("▶ running");
    };
    // SGR reports count from 1: press and release of the left button.
    let click = || {
        for end in ["M", "m"] {
            let report = format!("\x1b[<0;8;{}{end}", row + 1);
            tmux(&["send-keys", "-t", &s.0, "-l", &report]).expect("tmux send-keys");
        }
    };
    click();
    s.wait_for(&format!("why {id} "));
    click();
    click();
    s.wait_for(&format!(" Job {id} · n next event"));
    s.send("Escape");
    s.wait_until_gone(&format!(" Job {id} · n next event"));
    s.send("q");
    assert_eq!(wait_for_file(&exit_file).trim(), "0", "exit status");
    assert_eq!(mouse().unwrap_or_default().trim(), "0", "mouse given back");
}

/// The compact layout in the size most terminals open at: the same
/// commands, the help scrolled to its end, and a clean exit.
#[test]
fn console_in_tmux_at_80_by_24() {
    let Some((s, _dir, exit_file)) = start_with("compact", 80, 24, &ngubiri()) else {
        return;
    };
    let pane = s.wait_for("schedscope · ngubiri-fpfs · 5×20 · seed 1");
    assert!(!pane.contains("enlarge the terminal"), "{pane}");
    let pane = s.wait_for("▶ running");
    for part in [
        "Queue",
        "Clusters · a cell per processor",
        "Head & backfill",
    ] {
        assert!(pane.contains(part), "{part} missing:\n{pane}");
    }
    assert!(pane.contains("Tab → groups · history"), "{pane}");
    assert!(pane.contains("? help q quit"), "{pane}");

    s.send("p");
    s.wait_for("Policy · Esc cancels");
    s.send("0");
    s.wait_for("Enter applies FPFS(maxJumps 0)");
    s.send("Enter");
    s.wait_for("✓ policy is now FPFS(maxJumps 0) + worst fit");

    s.send("i");
    s.wait_for("Inject jobs · Enter injects");
    s.send("Enter");
    s.wait_for_all(&["✓ injected job 1000000001", "◆"]);

    s.send("e");
    s.wait_for_all(&[
        "estimates are now ±10 % uniform error",
        "est. ±10 % uniform error",
    ]);

    s.send("?");
    s.wait_for_all(&["Help · ↑↓ PgUp PgDn scroll", "Main screen", "↓ more"]);
    s.send("End");
    s.wait_for_all(&[
        "end · Home: top",
        "Marks",
        "Estimate error prompt",
        "▶ head",
    ]);
    s.send("Escape");
    s.wait_for("Tab → groups · history");

    s.send("q");
    let code = wait_for_file(&exit_file);
    assert_eq!(code.trim(), "0", "exit status");
    let pane = s.capture();
    assert!(!pane.contains("Head & backfill"), "{pane}");
}

/// Compare mode in a real terminal: both sides step together, an injected
/// job reaches both, `q` exits 0. (The lesson's cues, which would pause
/// the run on its way to the end, are left out.)
#[test]
fn compare_mode_in_tmux() {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/teach-backfill.toml");
    let args = format!(
        "console '{}' --paused --set policy.name=fcfs --set 'timeline=[]' --compare policy.name=easy",
        scenario.display()
    );
    let Some((s, _dir, exit_file)) = start_with("compare", 120, 32, &args) else {
        return;
    };
    s.wait_for("◧ left FCFS");
    s.wait_for("◨ right EASY backfilling");
    for _ in 0..3 {
        s.send(".");
    }
    s.wait_for("one event at t = 1.0 s");
    s.send("i");
    s.wait_for("Inject jobs");
    // The form opens with a size that fits 1×4.
    s.wait_for("size         4");
    s.send("Enter");
    s.wait_for("✓ injected job 1000000001");
    s.send("Space");
    // Faster to the end: the pace is not what is tested here.
    for _ in 0..3 {
        s.send("+");
    }
    let pane = s.wait_for("■ finished");
    assert!(
        pane.matches("done 6").count() >= 2,
        "both sides ran the five jobs and the injected one:\n{pane}"
    );
    s.send("q");
    assert_eq!(wait_for_file(&exit_file).trim(), "0");
}

/// The console in a tmux pane of 120×32 in a fresh folder, its pid written
/// to `pid` there (an inner shell writes its own pid and becomes the
/// console); `then` runs in the pane's shell once the console is gone.
/// `None` (with the reason printed) where tmux cannot run it.
fn console_with_pid(tag: &str, then: &str) -> Option<(Session, tempfile::TempDir, String)> {
    if tmux(&["-V"]).is_none() {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let bin = env!("CARGO_BIN_EXE_schedscope");
    let name = format!("schedscope-{tag}-{}", std::process::id());
    let script = format!(
        "cd '{d}' && SCHEDSCOPE_LOG_DIR='{d}' sh -c 'echo $$ > \"{p}\"; exec \"{bin}\"'{then}",
        d = dir.path().display(),
        p = pid_file.display(),
    );
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &name,
        "-x",
        "120",
        "-y",
        "32",
        "sh",
        "-c",
        &script,
    ])
    .or_else(|| {
        eprintln!("skipped: tmux cannot start a session here");
        None
    })?;
    let s = Session(name);
    s.wait_for("▶ running");
    let pid = wait_for_file(&pid_file).trim().to_string();
    Some((s, dir, pid))
}

/// The console killed by `signal` in a tmux pane: the exit code, what
/// `stty -a` then says of the pane's terminal, and whether tmux still sees
/// the alternate screen on, the cursor hidden and mouse reports asked
/// for. `None` without tmux.
fn killed_by(signal: &str) -> Option<(String, String, String)> {
    // Once the console is gone, the pane's shell reads the terminal's
    // settings as the operator's shell would find them.
    let then = "; echo $? > exit.tmp; stty -a > stty; mv exit.tmp exit; sleep 30";
    let (s, dir, pid) = console_with_pid(signal, then)?;
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success(), "kill -{signal} {pid}");
    let code = wait_for_file(&dir.path().join("exit")).trim().to_string();
    let stty = std::fs::read_to_string(dir.path().join("stty")).unwrap();
    let flags = tmux(&[
        "display-message",
        "-p",
        "-t",
        &s.0,
        "alternate #{alternate_on} cursor #{cursor_flag} mouse #{mouse_any_flag}",
    ])
    .unwrap_or_default();
    Some((code, stty, flags.trim().to_string()))
}

#[test]
fn a_console_killed_by_a_signal_gives_the_terminal_back() {
    for (signal, code) in [("TERM", "143"), ("HUP", "129"), ("INT", "130")] {
        let Some((exit, stty, flags)) = killed_by(signal) else {
            return;
        };
        let words: Vec<&str> = stty.split_whitespace().collect();
        for mode in ["isig", "icanon", "echo"] {
            assert!(
                words.contains(&mode) && !words.contains(&format!("-{mode}").as_str()),
                "after SIG{signal}, `stty -a` shows {mode} off:\n{stty}"
            );
        }
        assert_eq!(
            flags, "alternate 0 cursor 1 mouse 0",
            "after SIG{signal}: the alternate screen left, the cursor shown, the mouse given back"
        );
        assert_eq!(
            exit, code,
            "SIG{signal} ends the console with 128 + its number"
        );
    }
}

/// The console's terminal goes away (its pane killed, as a closed window or
/// a dropped connection does): the console ends within a few seconds
/// instead of spinning on a terminal that is no longer there. It wrote its
/// pid into a file of its own folder; once the pane is gone the pid must
/// be gone too.
#[test]
fn a_console_whose_terminal_goes_away_ends() {
    let Some((s, _dir, pid)) = console_with_pid("gone", "") else {
        return;
    };
    let alive = || Path::new(&format!("/proc/{pid}")).exists();
    assert!(alive(), "the console runs");
    tmux(&["kill-session", "-t", &s.0]).expect("tmux kill-session");
    let start = Instant::now();
    while alive() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    if alive() {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
        panic!("the console outlived its terminal by 5 s");
    }
}
