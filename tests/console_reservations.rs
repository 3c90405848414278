//! The console under the reservation scheduler (`ar`): reservations drawn
//! on the processor map and over time in the head & reservations pane,
//! graphs' subtasks inside and backfilled jobs in the gaps, and a graph
//! job's schedule as a Gantt chart in its detail. Whole screens at 80×24
//! and 100×30, and narrow terminals that must not panic.

use crossterm::event::KeyCode;
use schedscope::scenario::Scenario;

/// Eight processors: job 1 holds six until 2,000 s, job 2 (all eight)
/// waits behind it under FCFS with small jobs behind it; task graphs of
/// 7–12 subtasks on 4 target processors arrive over the first half hour.
/// The first reservation (asked for at 600 s) can only begin at 2,000 s,
/// and its gaps take the small jobs.
const SCENARIO: &str = r#"
name = "ar-console"
description = "8 processors, one long wide job, small jobs queued behind a full-width one, task graphs in reservations"
seed = 3

[platform]
shape = "1x8"

[workload]
kind = "jobs"
jobs = [
  { id = 1, submit = 0, size = 6, runtime = 2000, estimate = 2000 },
  { id = 2, submit = 1, size = 8, runtime = 100, estimate = 100 },
  { id = 3, submit = 2, size = 1, runtime = 20, estimate = 20 },
  { id = 4, submit = 3, size = 1, runtime = 35, estimate = 35 },
  { id = 5, submit = 4, size = 2, runtime = 15, estimate = 15 },
  { id = 6, submit = 5, size = 1, runtime = 60, estimate = 60 },
  { id = 7, submit = 6, size = 1, runtime = 10, estimate = 10 },
  { id = 8, submit = 7, size = 1, runtime = 25, estimate = 25 },
  { id = 9, submit = 8, size = 1, runtime = 40, estimate = 40 },
  { id = 10, submit = 9, size = 1, runtime = 5, estimate = 5 },
]

[graphs]
arrivals = "rate"
mean_interarrival = 150
size = "7-12"
tpes = 4
per_family = 5
until = 1800

[policy]
name = "ar"

[policy.params]
interval = 600

[estimates]
source = "trace"
"#;

#[path = "common/console.rs"]
mod console;
use console::Console;

impl Console {
    fn new(w: u16, h: u16) -> Console {
        let sc = Scenario::parse(SCENARIO, "ar-console", std::path::Path::new("."), &[]).unwrap();
        Console::on(sc, w, h)
    }
}

/// The moment the screens are taken: a reservation active with a graph's
/// subtask and a backfilled job running inside it, found by stepping 5 s
/// at a time (asserted below, so the search cannot pass vacuously).
fn busy_reservation(c: &mut Console) -> f64 {
    let mut t = 1_990.0;
    while t < 6_000.0 {
        t += 5.0;
        c.run_to(t);
        let s = c.session.snapshot();
        let Some(p) = s.engine.policy_state.panel.plan.as_deref() else {
            panic!("not the reservation scheduler")
        };
        let now = s.engine.now;
        let active: Vec<_> = s.engine.reservations.iter().filter(|r| r.active).collect();
        let on = |graph: bool| {
            p.blocks.iter().any(|b| {
                b.graph == graph
                    && b.start <= now
                    && now < b.end
                    && active.iter().any(|r| r.processors.contains(&b.processor))
            })
        };
        if on(true) && on(false) {
            return t;
        }
    }
    panic!("no reservation ran a subtask and a backfilled job at once before 6,000 s");
}

#[test]
fn reservations_on_the_map_and_over_time_at_80_by_24_and_100_by_30() {
    for (w, h) in [(80, 24), (100, 30)] {
        let mut c = Console::new(w, h);
        let t = busy_reservation(&mut c);
        let s = c.screen();
        for want in [
            "Head & reservations",
            "reservations ·",
            "graphs wait",
            "#1 p0",
            "▣",
            "▤",
            "█",
            "▓",
        ] {
            assert!(s.contains(want), "{w}×{h} at {t} s: {want} missing:\n{s}");
        }
        insta::assert_snapshot!(format!("reservations_{w}x{h}"), s);
    }
}

#[test]
fn a_graph_jobs_detail_shows_its_schedule_as_a_gantt_chart() {
    let mut c = Console::new(100, 30);
    c.run_to(1_000.0);
    let snap = c.session.snapshot();
    // The widest graph waiting (the first of them).
    let (i, id, g) = snap
        .engine
        .queue
        .rows()
        .filter_map(|(i, q)| q.graph.clone().map(|g| (i, q.id, g)))
        .max_by_key(|(i, _, g)| (g.width(), std::cmp::Reverse(*i)))
        .expect("a graph waits at 1,000 s");
    let used = g.width() as usize;
    c.keys(&vec![KeyCode::Down; i]);
    c.keys(&[KeyCode::Enter]);
    let s = c.screen();
    assert!(s.contains(&format!("Job {id}")), "{s}");
    assert!(s.contains(&format!("graph      {}", g.label)), "{s}");
    assert!(s.contains("TPEs"), "{s}");
    assert!(s.contains("Gantt      a column per"), "{s}");
    // One chart row per processor the schedule uses.
    let rows = s
        .lines()
        .filter(|l| l.contains("▕") && l.contains("P"))
        .count();
    assert!(rows >= used, "{used} rows wanted:\n{s}");
    insta::assert_snapshot!("reservations_graph_detail_100x30", s);
}

#[test]
fn narrow_and_short_terminals_draw_without_panicking() {
    let mut c = Console::new(100, 30);
    let t = busy_reservation(&mut c);
    for (w, h) in [(60, 18), (61, 19), (70, 20), (40, 10), (200, 60), (60, 15)] {
        c.resize(w, h);
        c.publish();
        let s = c.screen();
        assert!(!s.is_empty(), "{w}×{h} at {t} s");
        if w >= 80 && h >= 24 {
            assert!(s.contains("Head & reservations"), "{w}×{h}:\n{s}");
        }
    }
    // The widest: every row of the reservations in force fits.
    c.resize(200, 60);
    c.publish();
    let s = c.screen();
    assert!(
        s.contains("graph subtask"),
        "the legend shows at 200×60:\n{s}"
    );
    // A graph's detail on a short terminal is cut, not a panic.
    c.resize(60, 18);
    c.keys(&[KeyCode::Enter]);
    let _ = c.screen();
}
