//! Lessons: a scenario's cues pause the console exactly at their time,
//! after the events of that instant, show their text in a box on an
//! 80×24 screen and select their job; `n` runs to the next cue, `.` stops
//! at one too, and a saved session keeps them. Every shipped lesson is
//! driven through all its cues, and runs headless to the same records
//! with its cues as without them.

use crossterm::event::KeyCode;
use schedscope::console::app::Pane;
use schedscope::console::session::{Request, Session};
use schedscope::console::snapshot::CueJob;
use schedscope::model::SimTime;
use schedscope::runner::{self, RunOptions};
use schedscope::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

#[path = "common/console.rs"]
mod console;
use console::Console;

/// The backfilling example with two cues: C starts ahead at 2, B ends at 5.
const TWO_CUES: &str = r#"name = "two-cues"
[platform]
shape = "1x4"
[workload]
kind = "jobs"
jobs = [
  { id = 1, submit = 0, size = 2, runtime = 20, estimate = 20 },
  { id = 2, submit = 0, size = 1, runtime = 5, estimate = 5 },
  { id = 3, submit = 1, size = 4, runtime = 5, estimate = 5 },
  { id = 4, submit = 1, size = 2, runtime = 10, estimate = 10 },
  { id = 5, submit = 2, size = 1, runtime = 10, estimate = 10 },
]
[policy]
name = "easy"
[estimates]
source = "trace"

[[timeline]]
at = 5
action = "cue"
text = "B ended: Q still waits."
select = 4

[[timeline]]
at = 2
action = "cue"
text = "C fits before H's shadow time, so EASY starts it now."
select = 5
pane = "backfill"
"#;

fn two_cues() -> Scenario {
    Scenario::parse(TWO_CUES, "two-cues", Path::new("."), &[]).unwrap()
}

/// Runs as the driver does until the session pauses (at a cue) or no
/// event is left, then publishes.
fn play(c: &mut Console) {
    while !c.session.paused && !c.session.is_done() {
        c.session.step_events(1_000);
    }
    c.publish();
}

fn message(c: &mut Console) -> String {
    c.session
        .snapshot()
        .message
        .map(|m| m.text)
        .unwrap_or_default()
}

#[test]
fn a_cue_pauses_at_its_time_and_n_goes_to_the_next() {
    let mut c = Console::on(two_cues(), 80, 24);
    play(&mut c);
    // After every event of t = 2: C arrived and started.
    assert_eq!(c.session.now(), SimTime::from_secs(2));
    assert!(c.session.paused);
    let s = c.screen();
    assert!(s.contains("Cue 1 of 2 · t = 2.0 s · job 5"), "{s}");
    assert!(
        s.contains("C fits before H's shadow time, so EASY starts it now."),
        "{s}"
    );
    assert!(s.contains("⏸ paused"), "{s}");
    assert!(s.contains("n next cue"), "{s}");
    assert_eq!(c.app.focus, Pane::Backfill);
    assert_eq!(c.app.selected_job(), Some(5), "the running job C");
    // `n` runs on to the next cue and stops there.
    c.keys(&[KeyCode::Char('n')]);
    assert!(!c.session.paused && c.session.rushing);
    assert!(
        !c.screen().contains("Cue 1 of 2"),
        "the box goes as time moves"
    );
    play(&mut c);
    assert_eq!(c.session.now(), SimTime::from_secs(5));
    let s = c.screen();
    assert!(s.contains("Cue 2 of 2 · t = 5.0 s · job 4"), "{s}");
    assert!(s.contains("B ended: Q still waits."), "{s}");
    assert!(s.contains("last cue"), "{s}");
    assert_eq!(c.app.focus, Pane::Queue);
    assert_eq!(c.app.selected_job(), Some(4), "the queued job Q");
    c.keys(&[KeyCode::Char('n')]);
    assert_eq!(
        message(&mut c),
        "no cue is left: that was the last one · Space runs on"
    );
    assert!(c.session.paused);
    // Space runs on to the end: no cue is left to stop at.
    c.keys(&[KeyCode::Char(' ')]);
    play(&mut c);
    assert!(c.session.is_done());
    assert_eq!(c.session.now(), SimTime::from_secs(35));
}

#[test]
fn stepping_and_paced_running_stop_at_a_cue_too() {
    // `.` one event at a time: the cue shows after the last event of t = 2.
    let sc = two_cues();
    let mut s = Session::new(sc.clone(), 1, false).unwrap();
    s.paused = true;
    let mut said = Vec::new();
    while s.cue().is_none() {
        s.handle(Request::StepEvent);
        said.push(s.snapshot().message.unwrap().text);
    }
    assert_eq!(
        said.last().unwrap(),
        "one event at t = 2.0 s: job 5 arrived; job 5 started · cue 1 of 2 at t = 2.0 s · paused · n: to the next cue · Space: run on"
    );
    assert_eq!(said.len(), 5, "{said:?}");
    // The run paced against the wall clock stops at the cue's time
    // exactly, not at the time it was asked to reach.
    let mut s = Session::new(sc.clone(), 1, false).unwrap();
    assert!(s.advance_to(SimTime::from_secs(30), usize::MAX));
    assert_eq!(s.now(), SimTime::from_secs(2));
    assert!(s.paused && s.cue().is_some_and(|c| c.number == 1));
    // Between cues the clock moves to a cue's time with no event there.
    s.handle(Request::TogglePause);
    assert!(s.cue().is_none(), "resuming closes the box");
    assert!(s.advance_to(SimTime::from_secs(30), usize::MAX));
    assert_eq!(s.now(), SimTime::from_secs(5));
    assert_eq!(s.cue().map(|c| c.number), Some(2));
    // A restart meets the first cue again.
    s.handle(Request::Restart { new_seed: false });
    s.handle(Request::TogglePause);
    s.step_events(usize::MAX);
    assert_eq!(s.now(), SimTime::from_secs(2));
    assert_eq!(s.cue().map(|c| (c.number, c.seq)), Some((1, 3)));
}

/// Two cues at one instant: the second follows the first with no event
/// between them, by `n` or by `.`.
#[test]
fn cues_at_one_instant_come_one_after_the_other() {
    let text = TWO_CUES.replace("at = 5\n", "at = 2\n");
    let sc = Scenario::parse(&text, "same-instant", Path::new("."), &[]).unwrap();
    for key in ['n', '.'] {
        let mut c = Console::on(sc.clone(), 80, 24);
        play(&mut c);
        assert_eq!(c.session.cue().map(|c| c.number), Some(1));
        assert!(c.screen().contains("B ended: Q still waits."), "{key}");
        let events = c.session.engine().counters().events;
        c.keys(&[KeyCode::Char(key)]);
        play(&mut c);
        assert_eq!(c.session.cue().map(|c| c.number), Some(2), "{key}");
        assert_eq!(c.session.now(), SimTime::from_secs(2), "{key}");
        assert_eq!(c.session.engine().counters().events, events, "{key}");
        // As written: the first entry in the file is the first cue.
        assert!(
            c.screen().contains("C fits before H's shadow time"),
            "{key}"
        );
    }
}

#[test]
fn without_cues_n_still_steps_the_selected_job() {
    let text: String = TWO_CUES.split("\n[[timeline]]").next().unwrap().to_string();
    let sc = Scenario::parse(&text, "no-cues", Path::new("."), &[]).unwrap();
    let mut c = Console::on(sc, 80, 24);
    c.session.paused = true;
    c.keys(&[KeyCode::Char('.'), KeyCode::Char('.'), KeyCode::Char('.')]);
    // Job 3 (H) heads the queue: `n` runs to its start.
    c.keys(&[KeyCode::Char('n')]);
    assert_eq!(message(&mut c), "job 3 started at t = 20.0 s");
}

#[test]
fn a_saved_lesson_keeps_its_cues() {
    let mut c = Console::on(two_cues(), 80, 24);
    play(&mut c);
    c.keys(&[KeyCode::Char('e')]);
    let saved = c.session.saved_text();
    let again = Scenario::parse(&saved, "saved", Path::new("."), &[]).unwrap();
    assert_eq!(again.cues(), two_cues().cues());
    assert_eq!(again.file.timeline.len(), 3, "two cues and the command");
    // The saved lesson replays: its cues pause it again.
    let mut s = Session::new(again, 1, false).unwrap();
    s.step_events(usize::MAX);
    assert_eq!(s.now(), SimTime::from_secs(2));
    assert_eq!(s.cue().map(|c| c.number), Some(1));
}

/// The shipped lessons: every `teach-*.toml`.
fn lessons() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("teach-") && n.ends_with(".toml"))
        })
        .collect();
    v.sort();
    v
}

/// The scenario's text without its cues.
fn without_cues(text: &str) -> String {
    let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
    if let Some(t) = doc
        .get_mut("timeline")
        .and_then(|t| t.as_array_of_tables_mut())
    {
        t.retain(|e| e.get("action").and_then(|a| a.as_str()) != Some("cue"));
    }
    doc.to_string()
}

#[test]
fn every_lesson_reaches_each_cue_with_its_job_at_hand() {
    let lessons = lessons();
    assert!(lessons.len() >= 8, "{lessons:?}");
    for path in lessons {
        let name = path.display().to_string();
        let sc = Scenario::load(&path).unwrap();
        let cues = sc.cues();
        assert!(!cues.is_empty(), "{name} has no cue");
        let mut c = Console::on(sc, 80, 24);
        c.session.paused = true;
        for (k, (at, cue)) in cues.iter().enumerate() {
            c.keys(&[KeyCode::Char('n')]);
            play(&mut c);
            let view = c
                .session
                .cue()
                .unwrap_or_else(|| panic!("{name}: cue {} was not reached", k + 1))
                .clone();
            assert_eq!(view.number, k + 1, "{name}");
            assert_eq!(c.session.now(), *at, "{name}: cue {}", k + 1);
            if let Some((id, place)) = view.select {
                assert_ne!(
                    place,
                    CueJob::Elsewhere,
                    "{name}: cue {} selects job {id}, neither queued nor running then",
                    k + 1
                );
                assert_eq!(c.app.selected_job(), Some(id), "{name}: cue {}", k + 1);
            }
            // The box shows the whole text at 80×24, its first words on
            // its first line.
            let screen = c.screen();
            let first: String = cue
                .text
                .split_whitespace()
                .take(4)
                .collect::<Vec<_>>()
                .join(" ");
            assert!(screen.contains(&first), "{name}: cue {}\n{screen}", k + 1);
            let last = cue.text.split_whitespace().last().unwrap();
            assert!(screen.contains(last), "{name}: cue {}\n{screen}", k + 1);
        }
    }
}

#[test]
fn a_lesson_runs_headless_as_it_would_without_its_cues() {
    let opts = RunOptions {
        keep_records: true,
        ..RunOptions::default()
    };
    for path in lessons() {
        let text = std::fs::read_to_string(&path).unwrap();
        let base = path.parent().unwrap();
        let with = Scenario::parse(&text, "with", base, &[]).unwrap();
        let without = Scenario::parse(&without_cues(&text), "without", base, &[]).unwrap();
        assert!(without.cues().is_empty());
        let a = runner::run(&with, &opts, &AtomicU64::new(0)).unwrap();
        let b = runner::run(&without, &opts, &AtomicU64::new(0)).unwrap();
        assert_eq!(a.replications.len(), b.replications.len());
        for (x, y) in a.replications.iter().zip(&b.replications) {
            assert_eq!(x.records, y.records, "{}", path.display());
            assert_eq!(x.counters, y.counters, "{}", path.display());
        }
    }
}
