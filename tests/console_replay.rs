//! Replay: commands given through the console's key → request path, saved
//! with `s`, and the saved scenario run headless give identical metrics.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use schedscope::console::app::{App, Effect, JobInfo, Msg, Overlay, find_job};
use schedscope::console::session::Session;
use schedscope::model::SimTime;
use schedscope::policy::Catalogued;
use schedscope::runner;
use schedscope::scenario::Scenario;
use schedscope::workload::estimates::EstimateSource;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

fn scenario() -> Scenario {
    let sets = [
        "run.jobs=3000".to_string(),
        "run.warmup_jobs=100".to_string(),
    ];
    Scenario::parse(
        include_str!("../scenarios/default.toml"),
        "default",
        Path::new("."),
        &sets,
    )
    .unwrap()
}

fn keys(app: &mut App, session: &mut Session, keys: &[KeyCode]) {
    for &k in keys {
        for e in app.update(Msg::Key(KeyEvent::new(k, KeyModifiers::NONE))) {
            if let Effect::Send(r) = e {
                session.handle(r);
            }
        }
        app.update(Msg::Snapshot(Arc::new(session.snapshot())));
    }
}

fn run_to(session: &mut Session, secs: i64) {
    assert!(session.advance_to(SimTime::from_secs(secs), usize::MAX));
}

use KeyCode::{Char, Down, Enter};

#[test]
fn a_saved_console_run_replays_headless_to_the_same_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario();
    let seed = sc.seed();
    let mut session = Session::new(sc, seed, false)
        .unwrap()
        .with_save_dir(dir.path());
    let mut app = App::new(Arc::new(session.snapshot()));

    run_to(&mut session, 200);
    keys(&mut app, &mut session, &[Char('p'), Char('0'), Enter]);
    run_to(&mut session, 400);
    keys(&mut app, &mut session, &[Char('i'), Enter]);
    keys(&mut app, &mut session, &[Char('.'), Char('.'), Char('n')]);
    keys(&mut app, &mut session, &[Char('e')]);
    run_to(&mut session, 700);
    // Two jobs of 12 = 6+6 with a 40 s estimate.
    let form = [
        Char('i'),
        KeyCode::Backspace,
        Char('2'),
        Down,
        KeyCode::Backspace,
        KeyCode::Backspace,
        Char('1'),
        Char('2'),
        Down,
        Down,
        Char('4'),
        Char('0'),
        Down,
        Char('6'),
        Char('+'),
        Char('6'),
        Enter,
    ];
    keys(&mut app, &mut session, &form);
    run_to(&mut session, 900);
    keys(&mut app, &mut session, &[Char('p'), Char('u'), Enter]);
    keys(
        &mut app,
        &mut session,
        &[Char('E'), Char('2'), Char('5'), Enter],
    );
    assert_eq!(session.engine().command_log().len(), 6);
    keys(&mut app, &mut session, &[Char('s')]);
    let msg = app.message().unwrap().text.clone();
    assert!(msg.starts_with("✓ saved 6 commands to "), "{msg}");
    let saved: PathBuf = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "toml"))
        .unwrap();
    assert!(msg.ends_with(&saved.display().to_string()), "{msg}");

    session.run_to_end();
    let live = session.metrics().summary();
    let live_counters = session.engine().counters();

    let replay = Scenario::load(&saved).unwrap();
    let text = std::fs::read_to_string(&saved).unwrap();
    assert_eq!(text.matches("[[timeline]]").count(), 6, "{text}");
    // The scenario's bounds described its run without these commands:
    // `check` of the saved run would fail them. They are left out, and
    // the file says so.
    assert!(!text.contains("[expect]\n"), "{text}");
    assert!(!text.contains("jumped_ahead = {"), "{text}");
    assert!(text.contains("# The [expect] bounds of"), "{text}");
    let progress = AtomicU64::new(0);
    let headless = runner::run_replication(&replay, 0, seed, false, &progress).unwrap();
    assert_eq!(headless.summary, live);
    assert_eq!(headless.counters.finished, live_counters.finished);
    assert_eq!(headless.counters.started_ahead, live_counters.started_ahead);
    assert!(live.jobs > 2000);
    // A second save does not overwrite the first.
    keys(&mut app, &mut session, &[Char('s')]);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn restart_starts_over_with_the_same_or_next_seed() {
    let sc = scenario();
    let mut session = Session::new(sc, 1, true).unwrap();
    let mut app = App::new(Arc::new(session.snapshot()));
    run_to(&mut session, 300);
    let start = Session::new(scenario(), 1, true).unwrap().now();
    keys(&mut app, &mut session, &[Char('r')]);
    assert_eq!(
        session.now(),
        start,
        "back to just before the first arrival"
    );
    assert!(start < SimTime::from_secs(1));
    assert_eq!(app.message().unwrap().text, "restarted with seed 1");
    keys(&mut app, &mut session, &[Char('R')]);
    assert_eq!(app.message().unwrap().text, "restarted with seed 2");
    assert_eq!(app.snapshot.seed, 2);
}

#[test]
fn bad_commands_answer_on_the_message_line() {
    let sc = scenario();
    let mut session = Session::new(sc, 1, true).unwrap();
    let mut app = App::new(Arc::new(session.snapshot()));
    // 30 = 30 in one component cannot fit a 20-processor cluster.
    let form = [
        Char('i'),
        KeyCode::Down,
        KeyCode::Backspace,
        KeyCode::Backspace,
        Char('3'),
        Char('0'),
        Down,
        Down,
        Down,
        Char('3'),
        Char('0'),
        Enter,
    ];
    keys(&mut app, &mut session, &form);
    // The form catches it in place; nothing was sent.
    assert!(session.engine().command_log().is_empty());
    assert_eq!(app.mode(), schedscope::console::keymap::Mode::Inject);
}

/// The form knows the scenario's splitting rule: 90 processors split in
/// 2 to 4 components can never run on 5 × 20, so the form says so, stays
/// open with the 90 typed, and sends nothing.
#[test]
fn a_job_the_split_cannot_fit_is_caught_before_the_form_closes() {
    let sc = scenario();
    let mut session = Session::new(sc, 1, true).unwrap();
    let mut app = App::new(Arc::new(session.snapshot()));
    let form = [
        Char('i'),
        KeyCode::Down,
        KeyCode::Backspace,
        KeyCode::Backspace,
        Char('9'),
        Char('0'),
        Enter,
    ];
    keys(&mut app, &mut session, &form);
    assert!(session.engine().command_log().is_empty());
    let Overlay::Inject(f) = &app.overlay else {
        panic!("the form closed")
    };
    assert_eq!(f.values[1], "90");
    let e = f.errors[1].as_deref().unwrap();
    assert!(e.contains("try 18+18+18+18+18"), "{e}");
}

/// A typed estimate is the injected job's estimate whatever the scenario's
/// estimate source: with `source = "exact"` and a run time of 30 s, the
/// queue, the saved file and its headless replay all say 40 s.
#[test]
fn a_typed_estimate_wins_over_exact_estimates() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario();
    assert_eq!(sc.file.estimates.source, EstimateSource::Exact);
    let mut session = Session::new(sc, 1, false)
        .unwrap()
        .with_save_dir(dir.path());
    let mut app = App::new(Arc::new(session.snapshot()));
    run_to(&mut session, 100);
    // One job of 8 processors, 30 s, estimate 40 s.
    let form = [
        Char('i'),
        Down,
        KeyCode::Backspace,
        KeyCode::Backspace,
        Char('8'),
        Down,
        KeyCode::Backspace,
        KeyCode::Backspace,
        Char('3'),
        Char('0'),
        Down,
        Char('4'),
        Char('0'),
        Enter,
    ];
    keys(&mut app, &mut session, &form);
    let id = 1_000_000_001;
    let estimate = |snap: &schedscope::console::Snapshot| match find_job(snap, id) {
        Some(JobInfo::Queued(q)) => q.estimate,
        Some(JobInfo::Running(r)) => r.estimate,
        other => panic!("job {id}: {other:?}"),
    };
    assert_eq!(estimate(&app.snapshot), SimTime::from_secs(40));
    keys(&mut app, &mut session, &[Char('s')]);
    let saved: PathBuf = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains("estimate = 40"), "{text}");
    let replay = Scenario::load(&saved).unwrap();
    let mut engine = replay.build_engine(1, false).unwrap();
    engine.step_until(SimTime::from_secs(100));
    let snap = engine.snapshot();
    let row = snap.queue.iter().find(|q| q.id == id).map(|q| q.estimate);
    let row = row.or_else(|| snap.running.iter().find(|r| r.id == id).map(|r| r.estimate));
    assert_eq!(row, Some(SimTime::from_secs(40)));
}

/// The operator picks conservative backfilling with `p` on the teaching
/// example, paused at 0 s: every job still starts and ends, the screen
/// says so, and no error stands on the message line.
#[test]
fn switching_to_conservative_from_the_picker_keeps_every_job() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/teach-backfill.toml");
    let sc = Scenario::load(&path).unwrap();
    let seed = sc.seed();
    let mut session = Session::new(sc, seed, false).unwrap();
    let mut app = App::new(Arc::new(session.snapshot()));
    // EASY is the scenario's policy; conservative is the next row.
    keys(&mut app, &mut session, &[Char('p'), Down, Enter]);
    assert!(
        session
            .engine()
            .policy()
            .label()
            .starts_with("conservative"),
        "{}",
        session.engine().policy().label()
    );
    session.run_to_end();
    let c = session.engine().counters();
    assert_eq!((c.arrived, c.finished), (5, 5));
    assert_eq!(session.engine().check_conservation(), Ok(()));
    app.update(Msg::Snapshot(Arc::new(session.snapshot())));
    let mut terminal = Terminal::new(TestBackend::new(150, 40)).unwrap();
    terminal
        .draw(|f| {
            let area = f.area();
            schedscope::console::ui::view(&app, true, area, f.buffer_mut())
        })
        .unwrap();
    let screen = terminal.backend().to_string();
    assert!(screen.contains("conservative"), "{screen}");
    assert!(screen.contains("done 5"), "{screen}");
    assert!(!screen.contains("✗"), "{screen}");
}

/// `b` and `B` on blanco's links: each step is a `set-link-bandwidth`
/// command in the log; saved and replayed headless it gives the metrics
/// of the live run, which differ from a run without the commands.
#[test]
fn a_link_degraded_and_restored_with_b_replays_headless() {
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new("scenarios/blanco-pas.toml");
    let sc = Scenario::load(path).unwrap();
    let seed = sc.seed();
    let mut session = Session::new(sc, seed, false)
        .unwrap()
        .with_save_dir(dir.path());
    let mut app = App::new(Arc::new(session.snapshot()));
    run_to(&mut session, 500);
    // c16a: ½, then ¼ of its start bandwidth.
    keys(&mut app, &mut session, &[Char('b'), Char('B'), Char('B')]);
    assert!(
        app.message()
            .unwrap()
            .text
            .contains("link c16a bandwidth 0.5 → 0.25"),
        "{:?}",
        app.message()
    );
    run_to(&mut session, 2_500);
    // ⅛, then restored.
    keys(&mut app, &mut session, &[Char('B'), Char('B')]);
    assert!(app.message().unwrap().text.contains("0.125 → 1"));
    assert_eq!(session.engine().command_log().len(), 4);
    keys(&mut app, &mut session, &[Char('s')]);
    let saved: PathBuf = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "toml"))
        .unwrap();
    let text = std::fs::read_to_string(&saved).unwrap();
    assert_eq!(text.matches("action = \"set-link-bandwidth\"").count(), 6);
    session.run_to_end();
    let live = session.metrics().summary();

    let progress = AtomicU64::new(0);
    let replay = Scenario::load(&saved).unwrap();
    let headless = runner::run_replication(&replay, 0, seed, false, &progress).unwrap();
    assert_eq!(headless.summary, live);
    let plain =
        runner::run_replication(&Scenario::load(path).unwrap(), 0, seed, false, &progress).unwrap();
    assert_ne!(plain.summary, live, "the degraded link changed nothing");
}

#[test]
fn a_session_saved_after_the_next_seed_and_an_injection_replays_headless() {
    use schedscope::console::app::Overlay as O;
    use schedscope::runner::RunOptions;
    let dir = tempfile::tempdir().unwrap();
    // Three replications in the file: the saved run is the console's one.
    let sets = [
        "run.jobs=3000".to_string(),
        "run.warmup_jobs=100".to_string(),
        "run.replications=3".to_string(),
    ];
    let sc = Scenario::parse(
        include_str!("../scenarios/default.toml"),
        "default",
        Path::new("."),
        &sets,
    )
    .unwrap();
    assert_eq!(sc.seed(), 1);
    let mut session = Session::new(sc, 1, false)
        .unwrap()
        .with_save_dir(dir.path());
    let mut app = App::new(Arc::new(session.snapshot()));
    run_to(&mut session, 100);
    keys(&mut app, &mut session, &[Char('R')]);
    assert_eq!(app.snapshot.seed, 2);
    run_to(&mut session, 300);
    // A run time past what the simulation holds is refused in the form,
    // by the scenario reader's rule, and nothing is sent.
    let mut form = vec![
        Char('i'),
        Down,
        Down,
        KeyCode::Backspace,
        KeyCode::Backspace,
    ];
    form.extend("999999999999999".chars().map(Char));
    form.push(Enter);
    keys(&mut app, &mut session, &form);
    let O::Inject(f) = &app.overlay else {
        panic!("the form stays open on the error")
    };
    assert!(
        f.errors[2].as_deref().is_some_and(|e| e.contains("9.2e12")),
        "{:?}",
        f.errors
    );
    assert!(session.engine().command_log().is_empty());
    // Corrected, it is injected.
    let mut fix: Vec<KeyCode> = std::iter::repeat_n(KeyCode::Backspace, 15).collect();
    fix.extend([Char('4'), Char('0'), Enter]);
    keys(&mut app, &mut session, &fix);
    assert!(matches!(app.overlay, O::None));
    assert_eq!(session.engine().command_log().len(), 1);
    keys(&mut app, &mut session, &[Char('s')]);
    let saved: PathBuf = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "toml"))
        .unwrap();
    session.run_to_end();
    let live = session.metrics().summary();

    // The seed is a key of the file, not a comment: `run` of the saved
    // file, with nothing more, replays the console's figures.
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.lines().any(|l| l.trim() == "seed = 2"), "{text}");
    let replay = Scenario::load(&saved).unwrap();
    assert_eq!(replay.seed(), 2);
    let progress = AtomicU64::new(0);
    let headless = runner::run(&replay, &RunOptions::default(), &progress).unwrap();
    assert_eq!(headless.seed, 2);
    assert_eq!(headless.replications.len(), 1);
    assert_eq!(headless.replications[0].summary, live);
    assert!(live.jobs > 2000);
}
