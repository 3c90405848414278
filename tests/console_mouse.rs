//! The mouse in the console, on a `TestBackend`: clicks and the wheel are
//! read against the screen last drawn, as the live console reads them.
//! A click on a queued job selects it and on a busy processor selects the
//! job running there; two clicks within 400 ms open its detail; the wheel
//! moves the selection of the pane under the pointer; anywhere else a click
//! does nothing, and random mouse events over a running scenario never
//! break the console.

#[path = "common/mod.rs"]
mod common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedscope::console::app::{App, Msg, Overlay, Pane};
use schedscope::console::keymap::Mode;
use std::time::{Duration, Instant};

#[path = "common/console.rs"]
mod console;
use console::Console;

const CLICK: MouseEventKind = MouseEventKind::Down(MouseButton::Left);

/// The default scenario at 600 s: four jobs wait, every cluster is busy
/// but for a few processors.
fn at_600(w: u16, h: u16) -> Console {
    let mut c = Console::on(common::ngubiri(), w, h);
    c.run_to(600);
    c.screen();
    c
}

/// The screen's rows, cell by cell.
fn cells(c: &Console) -> Vec<Vec<String>> {
    let buf = c.terminal.backend().buffer();
    let a = buf.area;
    (a.y..a.y + a.height)
        .map(|y| {
            (a.x..a.x + a.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect()
        })
        .collect()
}

/// Where `word` is first drawn on the screen, in columns `from..to`, as a
/// word of its own (a space or a border either side).
fn find(c: &Console, word: &str, from: usize, to: usize) -> Option<(u16, u16)> {
    let w: Vec<String> = word.chars().map(String::from).collect();
    for (y, row) in cells(c).iter().enumerate() {
        for x in from..to.min(row.len()).saturating_sub(w.len()) {
            let before = x.checked_sub(1).map_or(" ", |b| row[b].as_str());
            let after = row.get(x + w.len()).map_or(" ", |s| s.as_str());
            let edge = |s: &str| s == " " || s == "┃" || s == "│" || s == "▶";
            if row[x..x + w.len()] == w[..] && edge(before) && edge(after) {
                return Some((x as u16, y as u16));
            }
        }
    }
    None
}

/// The queue pane's columns: up to the clusters' map (`c0 ▕`).
fn queue_right(c: &Console) -> usize {
    find_prefix(c, "c0 ▕").map_or(0, |(x, _)| x as usize)
}

/// Where `text` starts on the screen, anywhere.
fn find_prefix(c: &Console, text: &str) -> Option<(u16, u16)> {
    let t: Vec<String> = text.chars().map(String::from).collect();
    for (y, row) in cells(c).iter().enumerate() {
        for x in 0..row.len().saturating_sub(t.len()) {
            if row[x..x + t.len()] == t[..] {
                return Some((x as u16, y as u16));
            }
        }
    }
    None
}

/// The state a stray click must leave alone.
fn state(a: &App) -> (Pane, Pane, usize, usize, Mode, Option<u64>) {
    (
        a.focus,
        a.lower,
        a.selected,
        a.selected_running,
        a.mode(),
        a.selected_job(),
    )
}

fn event(kind: MouseEventKind, x: u16, y: u16) -> MouseEvent {
    MouseEvent {
        kind,
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    }
}

/// The third queued row on the screen: its job and where its id is drawn.
fn third_row(c: &Console) -> (u64, (u16, u16)) {
    let id = c
        .app
        .snapshot
        .engine
        .queue
        .get(2)
        .expect("three jobs wait")
        .id;
    let at = find(c, &id.to_string(), 0, queue_right(c))
        .unwrap_or_else(|| panic!("job {id} is not in the queue pane"));
    (id, at)
}

/// The first processor of cluster `c0` drawn as busy (`■`) or free (`·`):
/// where it is on the screen and the job the snapshot runs there.
fn processor(c: &Console, busy: bool) -> ((u16, u16), Option<u64>) {
    let (x0, y) = find_prefix(c, "c0 ▕").expect("the map of c0");
    let first = x0 as usize + 4;
    let row = &cells(c)[y as usize];
    let glyph = if busy { "■" } else { "·" };
    let k = row[first..]
        .iter()
        .position(|s| s == glyph)
        .unwrap_or_else(|| panic!("no {glyph} on c0"));
    let cluster = &c.app.snapshot.engine.clusters[0];
    assert_eq!(cluster.per_cell, 1, "a cell per processor at this size");
    ((x0 + 4 + k as u16, y), cluster.cells[k].job)
}

#[test]
fn a_click_on_the_third_queued_row_selects_its_job() {
    for (w, h) in [(150, 40), (80, 24)] {
        let mut c = at_600(w, h);
        let (id, (x, y)) = third_row(&c);
        assert_ne!(c.app.selected_job(), Some(id));
        // Anywhere on the row, not only on the id.
        c.mouse(CLICK, x + 6, y, Instant::now());
        assert_eq!(c.app.selected_job(), Some(id), "{w}×{h}");
        assert_eq!(c.app.focus, Pane::Queue);
        assert_eq!(c.app.mode(), Mode::Normal, "one click opens nothing");
        let s = c.screen();
        assert!(s.contains(&format!("why {id} ")), "{w}×{h}:\n{s}");
    }
}

#[test]
fn a_double_click_opens_the_jobs_detail() {
    let mut c = at_600(150, 40);
    let (id, (x, y)) = third_row(&c);
    let t0 = Instant::now();
    c.mouse(CLICK, x, y, t0);
    c.screen();
    c.mouse(CLICK, x, y, t0 + Duration::from_millis(250));
    assert_eq!(c.app.mode(), Mode::Detail);
    let s = c.screen();
    assert!(s.contains(&format!(" Job {id} · n next event")), "{s}");
    // Two clicks too far apart select, and open nothing.
    let mut c = at_600(150, 40);
    c.mouse(CLICK, x, y, t0);
    c.screen();
    c.mouse(CLICK, x, y, t0 + Duration::from_millis(600));
    assert_eq!(c.app.mode(), Mode::Normal);
    assert_eq!(c.app.selected_job(), Some(id));
    // Nor do two quick clicks on two jobs.
    let mut c = at_600(150, 40);
    let head = c.app.snapshot.engine.queue.get(0).unwrap().id;
    let (hx, hy) = find(&c, &head.to_string(), 0, queue_right(&c)).unwrap();
    c.mouse(CLICK, hx, hy, t0);
    c.screen();
    c.mouse(CLICK, x, y, t0 + Duration::from_millis(100));
    assert_eq!(c.app.mode(), Mode::Normal);
    assert_eq!(c.app.selected_job(), Some(id));
}

#[test]
fn the_wheel_moves_the_selection_of_the_pane_under_the_pointer() {
    let mut c = at_600(150, 40);
    let queue: Vec<u64> = (0..3)
        .map(|i| c.app.snapshot.engine.queue.get(i).unwrap().id)
        .collect();
    let (_, (x, y)) = third_row(&c);
    let t = Instant::now();
    c.mouse(MouseEventKind::ScrollDown, x, y, t);
    assert_eq!(c.app.selected_job(), Some(queue[1]));
    c.screen();
    c.mouse(MouseEventKind::ScrollDown, x, y, t);
    assert_eq!(c.app.selected_job(), Some(queue[2]));
    c.screen();
    c.mouse(MouseEventKind::ScrollUp, x, y, t);
    assert_eq!(c.app.selected_job(), Some(queue[1]));
    // Past the last job the wheel stays in the queue.
    for _ in 0..10 {
        c.screen();
        c.mouse(MouseEventKind::ScrollDown, x, y, t);
    }
    assert_eq!(c.app.focus, Pane::Queue);
    assert_eq!(c.app.selected + 1, c.app.snapshot.engine.queue.len());
    // Over head & backfill it walks the running jobs' windows.
    c.screen();
    let (bx, by) = find_prefix(&c, "Head & backfill").unwrap();
    c.mouse(MouseEventKind::ScrollDown, bx, by + 3, t);
    assert_eq!(c.app.focus, Pane::Backfill);
    assert_eq!(c.app.selected_running, 1);
    // Over the groups table it does nothing.
    c.screen();
    let before = state(&c.app);
    let (gx, gy) = find_prefix(&c, "Groups by size").unwrap();
    c.mouse(MouseEventKind::ScrollDown, gx, gy + 2, t);
    assert_eq!(state(&c.app), before);
}

#[test]
fn a_click_on_a_busy_processor_selects_the_job_running_there() {
    for (w, h) in [(150, 40), (80, 24)] {
        let mut c = at_600(w, h);
        let ((x, y), job) = processor(&c, true);
        let job = job.expect("a busy processor runs a job");
        let t0 = Instant::now();
        c.mouse(CLICK, x, y, t0);
        assert_eq!(c.app.focus, Pane::Backfill, "{w}×{h}");
        assert_eq!(c.app.lower, Pane::Backfill, "{w}×{h}");
        assert_eq!(c.app.selected_job(), Some(job), "{w}×{h}");
        assert_eq!(c.app.mode(), Mode::Normal);
        // Twice: its detail, running.
        c.screen();
        c.mouse(CLICK, x, y, t0 + Duration::from_millis(300));
        let Overlay::Detail(d) = &c.app.overlay else {
            panic!("{w}×{h}: no detail after a double click")
        };
        assert_eq!(d.id, job);
        let s = c.screen();
        assert!(s.contains(&format!(" Job {job} ")), "{w}×{h}:\n{s}");
        assert!(s.contains("running"), "{w}×{h}:\n{s}");
    }
}

#[test]
fn clicks_on_free_processors_borders_and_corners_do_nothing() {
    for (w, h) in [(150, 40), (80, 24)] {
        let mut c = at_600(w, h);
        // Move the selection off the head, so that a stray reset shows.
        c.keys(&[KeyCode::Down]);
        c.screen();
        let ((fx, fy), job) = processor(&c, false);
        assert_eq!(job, None, "a free processor");
        let (mx, my) = find_prefix(&c, "c0 ▕").unwrap();
        let (qx, qy) = find_prefix(&c, "┃  job").unwrap();
        let mut spots = vec![
            (fx, fy),
            (0, 0),
            (w - 1, h - 1),
            (w - 1, 0),
            (0, h - 1),
            // The queue's left border and its top border, the column
            // headings, the map's bracket and the clusters' border.
            (qx, qy),
            (qx + 3, qy - 1),
            (qx + 3, qy),
            (mx + 3, my),
            (mx - 1, my),
            (mx, my - 1),
        ];
        // Beyond the screen, as a terminal wider than its last resize
        // may report.
        spots.extend([(w, h), (u16::MAX, u16::MAX)]);
        let before = state(&c.app);
        let t = Instant::now();
        for (i, &(x, y)) in spots.iter().enumerate() {
            let effects = c.app.update(Msg::Mouse(
                event(CLICK, x, y),
                t + Duration::from_millis(50 * i as u64),
            ));
            assert!(effects.is_empty(), "{w}×{h} ({x}, {y}): {effects:?}");
            assert_eq!(state(&c.app), before, "{w}×{h}: a click at ({x}, {y})");
            c.screen();
        }
        // The same spot clicked twice quickly is no double click either.
        for ms in [0, 100] {
            c.app.update(Msg::Mouse(
                event(CLICK, fx, fy),
                t + Duration::from_millis(ms),
            ));
        }
        assert_eq!(state(&c.app), before);
    }
}

#[test]
fn clicks_in_windows_over_the_screen_are_harmless() {
    let mut c = at_600(150, 40);
    let (_, (x, y)) = third_row(&c);
    let t = Instant::now();
    // Under the help, the queue's row does not react; the wheel scrolls
    // the help where it is longer than the screen.
    c.resize(80, 24);
    c.run_to(600);
    c.keys(&[KeyCode::Char('?')]);
    c.screen();
    let before = state(&c.app);
    c.mouse(CLICK, x.min(79), y.min(23), t);
    assert_eq!(state(&c.app), before);
    c.mouse(MouseEventKind::ScrollDown, 10, 10, t);
    assert_eq!(c.app.overlay, Overlay::Help(1));
    c.keys(&[KeyCode::Esc]);
    // In the picker, a click puts the cursor on the policy clicked; Enter
    // applies it.
    c.keys(&[KeyCode::Char('p')]);
    c.screen();
    let (ex, ey) = find_prefix(&c, "EASY").expect("EASY in the picker");
    c.mouse(CLICK, ex + 1, ey, t);
    c.screen();
    let s = c.screen();
    assert!(s.contains("Enter applies EASY"), "{s}");
    c.keys(&[KeyCode::Enter]);
    let s = c.screen();
    assert!(s.contains("✓ policy is now EASY"), "{s}");
    // Over a job's detail a click opens nothing else and closes nothing.
    c.keys(&[KeyCode::Enter]);
    c.screen();
    let before = state(&c.app);
    for (x, y) in [(0, 0), (40, 12), (79, 23)] {
        c.mouse(CLICK, x, y, t);
        c.mouse(MouseEventKind::ScrollDown, x, y, t);
    }
    assert_eq!(state(&c.app), before);
    assert_eq!(c.app.mode(), Mode::Detail);
}

/// Random mouse events (every kind, any place, on and off the screen)
/// and a few keys that open and close windows, over a running scenario at
/// two sizes: the console never panics and its selection stays in range.
#[test]
fn random_mouse_events_never_break_the_console() {
    let kinds = [
        MouseEventKind::Down(MouseButton::Left),
        MouseEventKind::Down(MouseButton::Left),
        MouseEventKind::Down(MouseButton::Right),
        MouseEventKind::Down(MouseButton::Middle),
        MouseEventKind::Up(MouseButton::Left),
        MouseEventKind::Drag(MouseButton::Left),
        MouseEventKind::Moved,
        MouseEventKind::ScrollDown,
        MouseEventKind::ScrollUp,
        MouseEventKind::ScrollLeft,
        MouseEventKind::ScrollRight,
    ];
    let keys = [
        KeyCode::Esc,
        KeyCode::Esc,
        KeyCode::Char('?'),
        KeyCode::Char('p'),
        KeyCode::Enter,
        KeyCode::Tab,
        KeyCode::Char('g'),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for (w, h) in [(80, 24), (150, 40), (60, 18)] {
        let mut c = Console::on(common::ngubiri(), w, h);
        let mut t = Instant::now();
        for frame in 0..30u32 {
            c.run_to(300 + 20 * frame);
            c.screen();
            for _ in 0..25 {
                if rng.random_ratio(1, 12) {
                    let k = keys[rng.random_range(0..keys.len())];
                    let _ = c.app.update(Msg::Key(KeyEvent::new(k, KeyModifiers::NONE)));
                } else {
                    let kind = kinds[rng.random_range(0..kinds.len())];
                    let (x, y) = (rng.random_range(0..w + 3), rng.random_range(0..h + 3));
                    t += Duration::from_millis(rng.random_range(0..600));
                    c.mouse(kind, x, y, t);
                }
                c.screen();
                let a = &c.app;
                let e = &a.snapshot.engine;
                assert!(a.selected < e.queue.len().max(1), "{w}×{h}");
                assert!(a.selected_running < e.running.len().max(1), "{w}×{h}");
            }
        }
    }
}
