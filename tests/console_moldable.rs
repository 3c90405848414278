//! The console on the moldable scenario: a folded job drawn with its fold
//! on the processor map, and the backfill pane marking folded and aborted
//! jobs and the paper's expired window.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use schedscope::console::app::{App, Msg};
use schedscope::console::projection::QueueSlice;
use schedscope::console::session::Session;
use schedscope::console::ui;
use schedscope::engine::EngineSnapshot;
use schedscope::model::SimTime;
use schedscope::scenario::Scenario;
use std::path::Path;
use std::sync::Arc;

const W: u16 = 150;
const H: u16 = 40;

/// The scenario with `sets`, run until `found` holds of a snapshot
/// (checked every 20 simulated seconds up to `until`); the screen then.
fn screen_when(
    sets: &[&str],
    until: i64,
    found: impl Fn(&EngineSnapshot<QueueSlice>) -> bool,
) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = Scenario::load_with(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/utrera-moldable.toml"
        )),
        &sets,
    )
    .unwrap();
    let seed = sc.seed();
    let mut session = Session::new(sc, seed, false).unwrap();
    let mut t = 0;
    loop {
        assert!(t <= until, "{sets:?}: never seen by {until} s");
        session.advance_to(SimTime::from_secs(t), usize::MAX);
        let snap = session.snapshot();
        if found(&snap.engine) {
            let mut app = App::new(Arc::new(snap));
            app.update(Msg::Resize(W, H));
            let mut term = Terminal::new(TestBackend::new(W, H)).unwrap();
            term.draw(|f| {
                let area = f.area();
                ui::view(&app, true, area, f.buffer_mut())
            })
            .unwrap();
            return term.backend().to_string();
        }
        t += 20;
    }
}

#[test]
fn a_folded_long_job_shows_its_fold_on_the_map() {
    let s = screen_when(&["policy.name=\"fjt4\""], 20_000, |e| {
        e.running.iter().any(|r| r.fold > 1)
    });
    assert!(
        ["22", "33", "44"].iter().any(|d| s.contains(d)),
        "fold digits on the map:\n{s}"
    );
    assert!(s.contains("folded ×f"), "the legend:\n{s}");
    insta::assert_snapshot!("moldable_fjt4_folded", s);
}

#[test]
fn bfm_folds_and_bfa_aborts_are_marked_in_the_backfill_pane() {
    let under = "workload.estimate_factor=[0.3, 1.0]";
    let s = screen_when(&["policy.params.window=\"estimate\"", under], 20_000, |e| {
        e.running.iter().any(|r| r.fold > 1 && r.jumped_ahead)
    });
    assert!(s.contains("folded ×"), "BFM's fold in the pane:\n{s}");
    insta::assert_snapshot!("moldable_bfm_fold", s);
    let s = screen_when(
        &[
            "policy.name=\"fjt1-bfa\"",
            "policy.params.window=\"estimate\"",
            under,
        ],
        20_000,
        |e| e.running.iter().any(|r| r.requeues > 0),
    );
    assert!(s.contains("aborted 1×"), "BFA's abort in the pane:\n{s}");
    insta::assert_snapshot!("moldable_bfa_abort", s);
}
