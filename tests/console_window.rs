//! A console on a long queue: snapshots carry the rows the console draws
//! (a window around the selection, the head, the job whose detail is open)
//! and what they carry agrees, row for row, with the whole picture.

#[path = "common/mod.rs"]
mod common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use schedscope::console::app::{App, Effect, Msg};
use schedscope::console::projection::{QueueSlice, QueueWindow, project};
use schedscope::console::session::{DEFAULT_WINDOW, Request, Session};
use schedscope::console::ui;
use schedscope::engine::{Command, InjectJob};
use schedscope::model::SimTime;
use schedscope::policy::{PolicyName, PolicySpec};
use schedscope::policy::{SharedParams, names};
use std::sync::Arc;

const QUEUED: usize = 3_000;

/// The default scenario at t = 600 s under `policy`, the machine filled by
/// one long job and `QUEUED` small jobs of varied estimates behind it.
fn long_queue(policy: PolicyName) -> Session {
    let mut s = Session::new(common::ngubiri(), 1, true).unwrap();
    s.advance_to(SimTime::from_secs(600), usize::MAX);
    s.handle(Request::Apply(Command::SetPolicy {
        policy: PolicySpec::named(policy),
    }));
    let job = |size, components: Vec<u32>, runtime, count| InjectJob {
        size,
        runtime,
        estimate: None,
        components: Some(components),
        count,
        site: None,
    };
    s.handle(Request::Apply(Command::InjectJobs {
        jobs: vec![job(100, vec![20; 5], 1e6, 1)],
    }));
    let mut k = 0;
    while s.engine().queue_len() < QUEUED {
        k += 1;
        s.handle(Request::Apply(Command::InjectJobs {
            jobs: vec![
                job(1, vec![1], 60.0 * f64::from(k % 7 + 1), 50),
                job(20, vec![20], 600.0, 1),
            ],
        }));
    }
    s
}

#[test]
fn a_window_carries_the_rows_of_the_whole_picture() {
    for policy in [names::CONSERVATIVE, names::EASY, names::FPFS] {
        let mut s = long_queue(policy);
        let whole = s.engine().snapshot();
        let n = whole.queue.len();
        assert!(n >= QUEUED, "{policy:?}: {n} queued");
        let all = project(s.engine().read(), QueueWindow::ALL, None);
        assert_eq!(all.queue, QueueSlice::whole(whole.queue.clone()));
        if policy == names::CONSERVATIVE {
            let planned = whole
                .queue
                .iter()
                .filter(|q| q.planned_start.is_some())
                .count();
            assert!(planned >= QUEUED, "{planned} planned starts");
            let bf = whole.backfill.as_ref().expect("a plan");
            assert_eq!(bf.reserved, bf.reservations.len());
        }
        for window in [
            QueueWindow { from: 0, rows: 40 },
            QueueWindow::around(1_500, 100),
            QueueWindow {
                from: n - 10,
                rows: 500,
            },
            QueueWindow {
                from: n + 5,
                rows: 10,
            },
        ] {
            let watched = whole.queue.get(n / 3).map(|q| q.id);
            let part = project(s.engine().read(), window, watched);
            assert_eq!(part.queue.len(), n, "{policy:?} {window:?}");
            let carried = part.queue.window();
            assert!(carried.len() <= window.rows);
            assert!(carried.start >= window.from.min(n));
            for (i, row) in part.queue.rows() {
                assert_eq!(Some(row), whole.queue.get(i), "{policy:?} row {i}");
            }
            // The head, wherever the window is.
            assert_eq!(
                part.queue.first(),
                whole.queue.first(),
                "{policy:?} {window:?}"
            );
            // The watched job, with its position.
            let (i, row) = part
                .queue
                .find(watched.unwrap())
                .expect("watched job carried");
            assert_eq!((i, Some(row)), (n / 3, whole.queue.get(n / 3)));
            // Everything else as in the whole picture.
            assert_eq!(part.running, whole.running);
            assert_eq!(part.policy_state, whole.policy_state);
            if let (Some(a), Some(b)) = (&part.backfill, &whole.backfill) {
                assert_eq!((a.head, a.shadow, &a.extra), (b.head, b.shadow, &b.extra));
                assert_eq!(a.reserved, b.reserved, "{policy:?}: reservations counted");
            }
        }
        // A session's snapshot carries its default window, not the queue.
        let snap = s.snapshot();
        assert_eq!(snap.engine.queue.len(), n);
        assert_eq!(snap.engine.queue.window(), 0..DEFAULT_WINDOW.rows);
    }
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Hands the app's view requests to the session, as the driver does.
fn follow(s: &mut Session, effects: Vec<Effect>) -> usize {
    let mut views = 0;
    for e in effects {
        if let Effect::Send(r @ Request::View { .. }) = e {
            views += 1;
            s.handle(r);
        }
    }
    views
}

#[test]
fn scrolling_far_down_asks_for_the_rows_there_and_draws_them() {
    let mut s = long_queue(names::CONSERVATIVE);
    let mut app = App::new(Arc::new(s.snapshot()));
    app.update(Msg::Resize(200, 50));
    let n = s.engine().queue_len();
    // End: the selection jumps to the last row, far outside the rows the
    // snapshot carries, and the driver is asked for those around it.
    let effects = app.update(key(KeyCode::End));
    assert_eq!(app.selected, n - 1);
    assert_eq!(follow(&mut s, effects), 1, "one view request");
    let snap = Arc::new(s.snapshot());
    assert!(
        snap.engine.queue.get(n - 1).is_some(),
        "the last row is carried"
    );
    assert!(snap.engine.queue.window().len() < 1_000);
    let last = snap.engine.queue.get(n - 1).unwrap().id;
    // The selected row is carried now: the console asks for the policy's
    // reason for it, the same rows kept.
    let window = app.asked.0;
    let effects = app.update(Msg::Snapshot(snap.clone()));
    assert_eq!(
        follow(&mut s, effects),
        1,
        "the reason for the job selected"
    );
    assert_eq!(app.asked, (window, None, Some(last)));
    let snap = Arc::new(s.snapshot());
    assert_eq!(snap.why.as_ref().map(|(id, _)| *id), Some(last));
    let effects = app.update(Msg::Snapshot(snap.clone()));
    assert_eq!(follow(&mut s, effects), 0, "nothing more to ask");
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).unwrap();
    terminal
        .draw(|f| {
            let area = f.area();
            ui::view(&app, false, area, f.buffer_mut())
        })
        .unwrap();
    let screen: String = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    let lines: Vec<String> = screen
        .chars()
        .collect::<Vec<_>>()
        .chunks(200)
        .map(|c| c.iter().collect())
        .collect();
    assert!(
        screen.contains(&last.to_string()),
        "last job {last} drawn:\n{}",
        lines.join("\n")
    );
    // A few rows up stays within what is carried: the same rows, only
    // the reason asked for is the new selection's.
    let window = app.asked.0;
    for _ in 0..20 {
        let effects = app.update(key(KeyCode::Up));
        assert!(follow(&mut s, effects) <= 1);
        assert_eq!(app.asked.0, window, "no other rows asked for");
        let selected = snap.engine.queue.get(app.selected).map(|r| r.id);
        assert_eq!(app.asked.2, selected);
    }
    // Home: back to the head.
    let effects = app.update(key(KeyCode::Home));
    assert_eq!(app.selected, 0);
    assert_eq!(follow(&mut s, effects), 1);
    assert_eq!(s.snapshot().engine.queue.window().start, 0);
}

#[test]
fn an_open_detail_follows_its_job_deep_in_the_queue() {
    let mut s = long_queue(names::CONSERVATIVE);
    let mut app = App::new(Arc::new(s.snapshot()));
    app.update(Msg::Resize(120, 40));
    for _ in 0..20 {
        let effects = app.update(key(KeyCode::PageDown));
        follow(&mut s, effects);
        app.update(Msg::Snapshot(Arc::new(s.snapshot())));
    }
    let at = app.selected;
    assert!(at > DEFAULT_WINDOW.rows / 4, "selection moved down: {at}");
    let id = app.selected_job().expect("a job is selected");
    let effects = app.update(key(KeyCode::Enter));
    assert_eq!(follow(&mut s, effects), 1, "the detail's job is watched");
    let snap = s.snapshot();
    let (i, row) = snap.engine.queue.find(id).expect("carried");
    assert_eq!((i, row.id), (at, id));
    // Far outside the window, the detail's job is carried all the same,
    // with its planned start.
    let snap = project(
        s.engine().read(),
        QueueWindow { from: 0, rows: 10 },
        Some(id),
    );
    let (i, row) = snap.queue.find(id).expect("carried");
    assert_eq!((i, row.id), (at, id));
    assert!(row.planned_start.is_some(), "its planned start too");
    // Closed, the job is no longer asked for.
    let effects = app.update(key(KeyCode::Esc));
    assert_eq!(follow(&mut s, effects), 1);
    let snap = project(s.engine().read(), QueueWindow { from: 0, rows: 10 }, None);
    assert!(snap.queue.find(id).is_none());
}
