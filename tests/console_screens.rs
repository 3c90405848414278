//! Whole-screen snapshots of the console on a `TestBackend`: the default
//! scenario driven synchronously to fixed simulated times, then through
//! the same key → request path the live console uses.

#[path = "common/mod.rs"]
mod common;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use schedscope::console::app::App;
use schedscope::console::session::Session;
use schedscope::console::ui;
use schedscope::scenario::Scenario;
use std::sync::Arc;

const W: u16 = 150;
const H: u16 = 40;

#[path = "common/console.rs"]
mod console;
use console::Console;

impl Console {
    fn new() -> Console {
        Console::sized(W, H)
    }

    fn sized(w: u16, h: u16) -> Console {
        Console::on(common::ngubiri(), w, h)
    }
}

use KeyCode::{Char, Enter, Tab};

#[test]
fn default_scenario_at_fixed_times() {
    let mut c = Console::new();
    c.run_to(0);
    insta::assert_snapshot!("t0000", c.screen());
    c.run_to(600);
    insta::assert_snapshot!("t0600", c.screen());
    c.run_to(1200);
    let s = c.screen();
    assert!(s.contains("t = 1 200.0 s"), "{s}");
    insta::assert_snapshot!("t1200", s);
}

#[test]
fn after_each_command() {
    let mut c = Console::new();
    c.run_to(900);
    c.keys(&[Char('p')]);
    insta::assert_snapshot!("picker", c.screen());
    c.keys(&[Char('0'), Enter]);
    let s = c.screen();
    assert!(
        s.contains("✓ policy is now FPFS(maxJumps 0) + worst fit"),
        "{s}"
    );
    insta::assert_snapshot!("policy_fpfs0", s);
    c.keys(&[Char('i')]);
    insta::assert_snapshot!("inject_form", c.screen());
    c.keys(&[Enter]);
    c.run_to(905);
    let s = c.screen();
    assert!(s.contains("◆"), "{s}");
    insta::assert_snapshot!("injected", s);
    c.keys(&[Char('e')]);
    let s = c.screen();
    assert!(
        s.contains("estimates are now ±10 % uniform error for jobs that arrive from now on"),
        "{s}"
    );
    insta::assert_snapshot!("estimate_error_10", s);
    c.keys(&[Char('g'), Char(' ')]);
    let s = c.screen();
    assert!(s.contains("Groups by components"), "{s}");
    assert!(s.contains("⏸ paused"), "{s}");
    c.keys(&[Enter]);
    insta::assert_snapshot!("job_detail", c.screen());
    c.keys(&[Char('n')]);
    let s = c.screen();
    assert!(
        s.contains("started at t =") || s.contains("ended at t ="),
        "{s}"
    );
    c.keys(&[KeyCode::Esc, Char('?')]);
    insta::assert_snapshot!("help", c.screen());
}

/// The smallest full layout shows every pane at once; the help shows
/// every section without scrolling.
#[test]
fn full_layout_at_120_by_28() {
    let mut c = Console::sized(ui::FULL_WIDTH, ui::FULL_HEIGHT);
    c.run_to(900);
    c.keys(&[Char('e')]);
    let s = c.screen();
    for pane in [
        "Queue",
        "Clusters",
        "Head & backfill",
        "Groups",
        "History",
        "done",
    ] {
        assert!(s.contains(pane), "{pane} missing:\n{s}");
    }
    assert!(!s.contains("links:"), "{s}");
    insta::assert_snapshot!("full_120x28", s);
    c.keys(&[Char('?')]);
    let s = c.screen();
    for section in [
        "Main screen",
        "Job detail",
        "Policy picker",
        "Inject jobs form",
        "Estimate error prompt",
        "Marks",
    ] {
        assert!(s.contains(section), "{section} missing:\n{s}");
    }
    assert!(!s.contains("↓ more"), "{s}");
    insta::assert_snapshot!("help_120x28", s);
}

/// Below 120×28 the compact layout: the queue with its head, the
/// processor map, the head's story and the key metrics, with groups and
/// history a Tab away; each window fits and the help scrolls.
#[test]
fn compact_layouts_at_80_by_24_and_100_by_30() {
    for (w, h) in [(80, 24), (100, 30)] {
        let mut c = Console::sized(w, h);
        c.run_to(600);
        let s = c.screen();
        for pane in [
            "Queue 4",
            "▶ 926",
            "Clusters · a cell per",
            "Head & backfill",
            "warm-up",
            "util ",
        ] {
            assert!(s.contains(pane), "{w}×{h}: {pane} missing:\n{s}");
        }
        assert!(s.contains("Tab → groups · history"), "{s}");
        insta::assert_snapshot!(format!("compact_{w}x{h}"), s);
        c.keys(&[Tab, Tab, Tab]);
        let s = c.screen();
        assert!(s.contains("Groups by size"), "{w}×{h}:\n{s}");
        insta::assert_snapshot!(format!("compact_{w}x{h}_groups"), s);
        c.keys(&[Tab]);
        let s = c.screen();
        assert!(s.contains("History"), "{w}×{h}:\n{s}");
        c.keys(&[Tab]);
        let s = c.screen();
        assert!(s.contains("History"), "the lower pane stays: {w}×{h}:\n{s}");
        c.keys(&[KeyCode::BackTab, KeyCode::BackTab, KeyCode::BackTab]);
        assert!(c.screen().contains("Head & backfill"));

        c.keys(&[Char('p')]);
        let s = c.screen();
        assert!(
            s.contains("Enter applies FPFS(maxJumps 10)"),
            "{w}×{h}:\n{s}"
        );
        insta::assert_snapshot!(format!("picker_{w}x{h}"), s);
        c.keys(&[KeyCode::Esc, Char('i')]);
        let s = c.screen();
        assert!(s.contains("Inject jobs"), "{w}×{h}:\n{s}");
        insta::assert_snapshot!(format!("inject_{w}x{h}"), s);
        c.keys(&[KeyCode::Esc, Char('?')]);
        let s = c.screen();
        assert!(
            s.contains("Main screen") && s.contains("↓ more"),
            "{w}×{h}:\n{s}"
        );
        insta::assert_snapshot!(format!("help_{w}x{h}"), s);
        c.keys(&[KeyCode::End]);
        let s = c.screen();
        assert!(
            s.contains("Marks") && s.contains("end · Home: top"),
            "{w}×{h}:\n{s}"
        );
        insta::assert_snapshot!(format!("help_end_{w}x{h}"), s);
        c.keys(&[KeyCode::Esc, Enter]);
        let s = c.screen();
        assert!(s.contains("n next event"), "{w}×{h}:\n{s}");
    }
}

#[test]
fn too_small_terminal_asks_to_enlarge() {
    let mut c = Console::sized(50, 15);
    let s = c.screen();
    assert!(
        s.contains("enlarge the terminal to 60×18 (now 50×15)"),
        "{s}"
    );
}

#[test]
fn no_color_draws_no_colour() {
    let mut c = Console::new();
    c.run_to(300);
    let app = &c.app;
    c.terminal
        .draw(|f| {
            let area = f.area();
            ui::view(app, false, area, f.buffer_mut())
        })
        .unwrap();
    let buf = c.terminal.backend().buffer();
    assert!(
        buf.content
            .iter()
            .all(|cell| cell.fg == ratatui::style::Color::Reset
                && cell.bg == ratatui::style::Color::Reset)
    );
    assert!(c.terminal.backend().to_string().contains("▶"));
}

/// The UI loop itself, on a test backend with a live driver: it draws and
/// returns on `q`.
#[test]
fn ui_loop_draws_and_quits() {
    struct Script(Vec<Event>);
    impl ui::Events for Script {
        fn next(&mut self, _: std::time::Duration) -> std::io::Result<Option<Event>> {
            std::thread::sleep(std::time::Duration::from_millis(5));
            Ok(self.0.pop())
        }
    }
    let sc = common::ngubiri();
    let mut session = Session::new(sc, 1, true).unwrap();
    let mut app = App::new(Arc::new(session.snapshot()));
    let mut driver = schedscope::console::Driver::spawn(session).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(W, H)).unwrap();
    let mut events = Script(vec![
        Event::Key(KeyEvent::new(Char('q'), KeyModifiers::NONE)),
        Event::Key(KeyEvent::new(Char(' '), KeyModifiers::NONE)),
    ]);
    ui::run(
        &mut terminal,
        &mut app,
        &mut driver.snapshots,
        &driver.requests,
        &mut events,
        true,
    )
    .unwrap();
    driver.stop();
    assert!(app.quit);
    assert!(
        terminal
            .backend()
            .to_string()
            .contains("schedscope · ngubiri-fpfs")
    );
}

/// Blanco's heterogeneous platform under PAS: Γ beside each cluster, the
/// last package in the head pane, the links with the one `b` chose
/// marked, a link degraded with `B`, and a running job's SP, SC and SD.
#[test]
fn blanco_pas_package_links_and_slowdown() {
    let sc = Scenario::load(std::path::Path::new("scenarios/blanco-pas.toml")).unwrap();
    let mut c = Console::on(sc, W, H);
    c.run_to(3_300);
    c.fixed_solve_time();
    let s = c.screen();
    for want in [
        "Head & package",
        "c16b ▕",
        "Γ1.00",
        "Γ0.83",
        "Γ0.67",
        "Γ0.50",
        "▶link c24",
        " link c8 ",
        "1.0 ms · run total: 0 node-limited, 0 fallback",
    ] {
        assert!(s.contains(want), "{want} missing:\n{s}");
    }
    insta::assert_snapshot!("blanco_pas_3300", s);
    c.keys(&[Char('b')]);
    c.fixed_solve_time();
    let s = c.screen();
    assert!(s.contains("▶link c16a"), "{s}");
    c.keys(&[Char('B'), Char('B')]);
    c.fixed_solve_time();
    let s = c.screen();
    assert!(s.contains("✓ link c16a bandwidth 0.5 → 0.25"), "{s}");
    assert!(s.contains("/ 0.25"), "{s}");
    insta::assert_snapshot!("blanco_pas_link_quarter", s);
    // The third window's job (co-allocated over c24 and c16a, whose link
    // is now saturated): focus the windows, down two, Enter.
    c.keys(&[Tab, Tab, KeyCode::Down, KeyCode::Down, Enter]);
    c.fixed_solve_time();
    let s = c.screen();
    assert!(s.contains("clusters   c24, c16a"), "{s}");
    assert!(s.contains("SC 2.00"), "{s}");
    assert!(s.contains(" of dedicated speed"), "{s}");
    insta::assert_snapshot!("blanco_pas_job_detail", s);
}

/// The two-site grid under approach 2: the head pane shows each
/// processor's queue depth (gang-headed cells in the head colour), the
/// grid queue with its gangs' sizes, gangs waiting on processor queues
/// and gangs running split across the sites.
#[test]
fn grid_two_site_queues_at_80_by_24_and_100_by_30() {
    for (w, h) in [(80, 24), (100, 30)] {
        let sc = Scenario::load(std::path::Path::new("scenarios/grid-two-site.toml")).unwrap();
        let mut c = Console::on(sc, w, h);
        c.run_to(60);
        let s = c.screen();
        for want in ["Head & grid queues", "c0  ", "c1  ", " busy, "] {
            assert!(s.contains(want), "{w}×{h}: {want} missing:\n{s}");
        }
        assert!(
            s.contains("grid queue") || s.contains("waits ") || s.contains("split "),
            "{w}×{h}:\n{s}"
        );
        insta::assert_snapshot!(format!("grid_two_site_{w}x{h}"), s);
    }
}

/// `i` on the two-site grid offers a site: a one-task job typed in at site
/// 1 through the form's keys starts on a site-1 processor (c1), whatever
/// room the other site has, and ends once.
#[test]
fn grid_inject_form_puts_a_local_job_at_the_chosen_site() {
    use KeyCode::Backspace;
    use schedscope::engine::{INJECTED_ID_BASE, JobState};
    let sc = Scenario::load(std::path::Path::new("scenarios/grid-two-site.toml")).unwrap();
    let mut c = Console::on(sc, 100, 30);
    c.run_to(60);
    c.keys(&[Char('i')]);
    // count 1; size 16 → 1; runtime 60 → 0.5; estimate and components
    // empty; site 1.
    c.keys(&[
        Tab,
        Backspace,
        Backspace,
        Char('1'),
        Tab,
        Backspace,
        Backspace,
    ]);
    c.keys(&[Char('0'), Char('.'), Char('5'), Tab, Tab, Tab, Char('1')]);
    let s = c.screen();
    assert!(s.contains("▸ site         1"), "{s}");
    insta::assert_snapshot!("grid_inject_form_100x30", s);
    c.keys(&[Enter]);
    let id = INJECTED_ID_BASE + 1;
    let s = c.screen();
    assert!(s.contains(&format!("✓ injected job {id}")), "{s}");
    let mut started_on = None;
    for _ in 0..100_000 {
        match c.session.engine().job_state(id) {
            None => break,
            Some(JobState::Running) if started_on.is_none() => {
                let snap = c.session.engine().snapshot();
                let row = snap.running.iter().find(|r| r.id == id).unwrap();
                started_on = Some(row.clusters.clone());
            }
            _ => {}
        }
        assert!(c.session.step(), "the run goes on");
    }
    assert_eq!(started_on, Some(vec![1]), "started on site 1");
    assert_eq!(c.session.engine().job_state(id), None, "it has ended");
    let snap = c.session.snapshot();
    let ends: Vec<_> = snap.recent.iter().filter(|r| r.id == id).collect();
    assert_eq!(ends.len(), 1, "ended once");
    assert_eq!(ends[0].clusters, vec![1]);
    assert!(ends[0].injected);
}
