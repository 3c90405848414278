//! A huge platform in the console: one cluster of 16,777,216 processors
//! (the most a platform may have).
//! The snapshot holds a few hundred cells, not one per processor (that was
//! 256 MB of cells), and the map says how many processors a cell stands for.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use schedscope::console::app::{App, Msg};
use schedscope::console::session::Session;
use schedscope::console::ui;
use schedscope::engine::MAX_CELLS;
use schedscope::model::SimTime;
use schedscope::scenario::Scenario;
use std::path::Path;
use std::sync::Arc;

const HUGE: &str = r#"
name = "huge"
[platform]
shape = "1x16777216"
[workload]
kind = "jobs"
jobs = [
  { submit = 0, size = 16, runtime = 60 },
  { submit = 5, size = 300, runtime = 30 },
  { submit = 10, size = 1, runtime = 100 },
]
[policy]
name = "fcfs"
"#;

#[test]
fn a_huge_cluster_is_drawn_from_a_few_hundred_cells() {
    let sc = Scenario::parse(HUGE, "huge", Path::new("."), &[]).unwrap();
    let mut session = Session::new(sc, 1, false).unwrap();
    assert!(session.advance_to(SimTime::from_secs(20), usize::MAX));
    let snap = session.snapshot();
    let c = &snap.engine.clusters[0];
    assert_eq!(c.processors, 16_777_216);
    assert!(
        c.cells.len() <= MAX_CELLS as usize,
        "{} cells",
        c.cells.len()
    );
    assert_eq!(c.per_cell, 16_777_216u32.div_ceil(MAX_CELLS));
    // The three jobs hold 317 processors, all in the first cell.
    assert_eq!(c.cells[0].busy, 317);
    assert_eq!(c.cells[0].job, Some(1));
    assert!(c.cells[1..].iter().all(|x| x.busy == 0));
    assert_eq!(c.free, 16_777_216 - 317);

    let mut app = App::new(Arc::new(snap));
    for (w, h) in [(80, 24), (120, 28)] {
        app.update(Msg::Resize(w, h));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| {
                let area = f.area();
                ui::view(&app, true, area, f.buffer_mut())
            })
            .unwrap();
        let s = terminal.backend().to_string();
        assert!(
            s.contains("Clusters · a cell per ") || s.contains("Clusters · cell = "),
            "{w}×{h}:\n{s}"
        );
        assert!(s.contains("▪"), "the first cell is partly busy: {s}");
        assert!(s.contains("16.8 M free"), "{s}");
    }
}
