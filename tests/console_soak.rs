//! The console soaked: tmux drives it flat out with random keys (picker,
//! inject form, estimate flips, pause and step, help, job detail, restarts)
//! and random terminal sizes from 60×15 to 250×80, then checks that it
//! never died, that its memory stayed flat after a warm-up, and that `q`
//! exits 0 with the terminal restored.
//!
//! Ignored by default (it runs for minutes):
//! `SCHEDSCOPE_SOAK_SECS=600 cargo test --release --test console_soak -- --ignored --nocapture`
//!
//! At scale: `SCHEDSCOPE_SOAK_ARGS` gives the console's arguments instead
//! of the default scenario, e.g. `console
//! scenarios/trace-metacentrum-2009-2.toml --set policy.name=conservative`
//! (run from the repository's root folder; relative paths are read from
//! there). A trace's queue grows for as long as it is overloaded, so memory
//! is then held to the 200 MB every trace must stay under rather than to
//! its level after the warm-up.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> Option<String> {
    let out = Command::new("tmux").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Resident memory of `pid` in KiB, from /proc.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The schedscope process under the pane's shell.
fn console_pid(session: &str) -> Option<u32> {
    let shell = tmux(&["list-panes", "-t", session, "-F", "#{pane_pid}"])?;
    let shell = shell.trim();
    let out = Command::new("pgrep")
        .args(["-P", shell, "schedscope"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()
}

/// A small deterministic generator: the same keys every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The queue length the status line shows ("queued 68 012", or "queue
/// 68 012" where the line is short of room), if the screen has one.
fn queued_on(screen: &str) -> Option<u64> {
    screen.match_indices(" queue").find_map(|(at, word)| {
        let rest = &screen[at + word.len()..];
        let rest = rest.strip_prefix('d').unwrap_or(rest).strip_prefix(' ')?;
        let digits: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ' ')
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    })
}

const KEYS: &[&str] = &[
    "p", "i", "e", "E", "Space", ".", "+", "-", "g", "Tab", "BTab", "?", "n", "Enter", "Escape",
    "Up", "Down", "Left", "Right", "j", "k", "u", "0", "1", "5", "9", "BSpace", "+", "8", "r", "R",
    "Escape", "Escape",
];

#[test]
#[ignore = "runs for minutes; see the module documentation"]
fn the_console_survives_random_keys_and_sizes() {
    if tmux(&["-V"]).is_none() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let secs: u64 = std::env::var("SCHEDSCOPE_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let args = std::env::var("SCHEDSCOPE_SOAK_ARGS").unwrap_or_default();
    // Keys left out of the mix, separated by spaces: "r R" keeps a run
    // going without restarts, so an overloaded trace's queue can grow.
    let skip = std::env::var("SCHEDSCOPE_SOAK_SKIP").unwrap_or_default();
    let skip: Vec<&str> = skip.split_whitespace().collect();
    let keys_used: Vec<&str> = KEYS.iter().copied().filter(|k| !skip.contains(k)).collect();
    assert!(!keys_used.is_empty(), "SCHEDSCOPE_SOAK_SKIP leaves no key");
    let at_scale = !args.trim().is_empty();
    let dir = tempfile::tempdir().unwrap();
    let exit_file = dir.path().join("exit");
    let bin = env!("CARGO_BIN_EXE_schedscope");
    let name = format!("schedscope-soak-{}", std::process::id());
    // The default scenario runs from a scratch folder; given arguments run
    // from the repository, where their paths are.
    let cwd = if at_scale {
        env!("CARGO_MANIFEST_DIR").to_string()
    } else {
        dir.path().display().to_string()
    };
    let script = format!(
        "cd '{cwd}' && SCHEDSCOPE_LOG_DIR='{d}' '{bin}' {args}; echo $? > '{e}'; sleep 60",
        d = dir.path().display(),
        e = exit_file.display(),
    );
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &name,
        "-x",
        "120",
        "-y",
        "40",
        "sh",
        "-c",
        &script,
    ])
    .expect("tmux starts");
    struct Kill(String);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = tmux(&["kill-session", "-t", &self.0]);
        }
    }
    let _kill = Kill(name.clone());
    std::thread::sleep(Duration::from_secs(1));
    let pid = console_pid(&name).expect("the console runs");
    let mut rng = Lcg(20261124);
    let start = Instant::now();
    let warmup = Duration::from_secs(secs / 5);
    let mut samples: Vec<(f64, u64)> = Vec::new();
    let mut next_sample = Duration::ZERO;
    let (mut keys, mut resizes) = (0u64, 0u64);
    let mut peak_queued = 0u64;
    while start.elapsed() < Duration::from_secs(secs) {
        assert!(
            !exit_file.exists(),
            "the console exited after {keys} keys: {}",
            std::fs::read_to_string(&exit_file).unwrap_or_default()
        );
        if rng.below(40) == 0 {
            let w = 60 + rng.below(191);
            let h = 15 + rng.below(66);
            tmux(&[
                "resize-window",
                "-t",
                &name,
                "-x",
                &w.to_string(),
                "-y",
                &h.to_string(),
            ]);
            resizes += 1;
        } else {
            let key = keys_used[rng.below(keys_used.len() as u64) as usize];
            // Never quit: `q` comes at the end.
            tmux(&["send-keys", "-t", &name, key]);
            keys += 1;
        }
        if start.elapsed() >= next_sample {
            let rss = rss_kib(pid).expect("the console is alive");
            samples.push((start.elapsed().as_secs_f64(), rss));
            let screen = tmux(&["capture-pane", "-p", "-t", &name]).unwrap_or_default();
            if let Some(q) = queued_on(&screen) {
                peak_queued = peak_queued.max(q);
            }
            next_sample += Duration::from_secs(5);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let after: Vec<u64> = samples
        .iter()
        .filter(|(t, _)| *t >= warmup.as_secs_f64())
        .map(|&(_, r)| r)
        .collect();
    assert!(after.len() >= 2, "too short a soak to judge memory");
    let (first, max) = (after[0], *after.iter().max().unwrap());
    println!(
        "soak: {secs} s, {keys} keys, {resizes} resizes; RSS after warm-up {first} KiB, max {max} KiB, last {} KiB",
        after[after.len() - 1]
    );
    println!("  largest queue on screen at a sample: {peak_queued}");
    for (t, r) in &samples {
        println!("  t = {t:6.1} s  RSS {r} KiB");
    }
    if at_scale {
        let peak = samples.iter().map(|s| s.1).max().unwrap_or(0);
        assert!(peak <= 200 * 1024, "memory over 200 MB: {peak} KiB");
    } else {
        // Flat: never more than a quarter (plus 8 MiB of allocator slack)
        // above where it stood after the warm-up.
        assert!(
            max <= first + first / 4 + 8 * 1024,
            "memory grew: {first} → {max} KiB"
        );
    }
    // Back to a known state, then quit.
    tmux(&["resize-window", "-t", &name, "-x", "120", "-y", "40"]);
    for _ in 0..4 {
        tmux(&["send-keys", "-t", &name, "Escape"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    // Where the run got to, for the record.
    let screen = tmux(&["capture-pane", "-p", "-t", &name]).unwrap_or_default();
    for line in screen.lines().take(3) {
        println!("  | {}", line.trim_end());
    }
    tmux(&["send-keys", "-t", &name, "q"]);
    let t0 = Instant::now();
    let code = loop {
        if let Ok(s) = std::fs::read_to_string(&exit_file)
            && s.ends_with('\n')
        {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "q did not quit");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(code.trim(), "0", "exit status");
    let pane = tmux(&["capture-pane", "-p", "-t", &name]).unwrap_or_default();
    assert!(
        !pane.contains("Space pause"),
        "terminal not restored:\n{pane}"
    );
    let log = std::fs::read_to_string(Path::new(dir.path()).join("console.log")).unwrap();
    assert!(!log.contains("panicked"), "{log}");
}

#[test]
fn the_queue_length_is_read_off_the_status_line() {
    let screen =
        "schedscope · x\n  policy EASY │ arrived 90 001  running 40  queued 68 012  done 21 949\n";
    assert_eq!(queued_on(screen), Some(68_012));
    assert_eq!(queued_on("running 0  queued 0  done 3"), Some(0));
    assert_eq!(queued_on("no status here"), None);
    // The first "queued" that gives a number (a pane may say it too).
    assert_eq!(queued_on("queued\nrunning 1  queued 7  done 0"), Some(7));
    assert_eq!(
        queued_on("arr 9  run 0  queue 12 345  done 3 │"),
        Some(12_345)
    );
    assert_eq!(queued_on("┏ Queue 5 ━━\n queued too"), None);
}
