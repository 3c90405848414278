//! The Kasahara STG set: every file parses with the counts and critical
//! path its own comment lines state, and HLFET, ETF and MCP never beat the
//! optimum or max(critical path, ⌈work ÷ p⌉).

mod common;

use schedscope::taskgraph::gaps::gap_table;
use schedscope::taskgraph::stg;

#[test]
fn every_stg_file_parses_with_the_counts_of_its_comments() {
    let Some(dir) = common::shared_data("stg") else {
        return;
    };
    let files = stg::find_files(&dir).unwrap();
    assert_eq!(
        files.len(),
        360,
        "the 50- and 100-subtask sets hold 180 graphs each"
    );
    for f in &files {
        let g = stg::read_path(f).unwrap_or_else(|e| panic!("{e}"));
        let c = &g.comments;
        assert_eq!(c.tasks, Some(g.graph.len()), "{}", f.display());
        assert_eq!(c.edges, Some(g.graph.edge_count()), "{}", f.display());
        assert_eq!(c.dummy_edges, Some(g.dummy_edges), "{}", f.display());
        assert_eq!(
            c.cp_length,
            Some(g.graph.critical_path()),
            "{}",
            f.display()
        );
        assert!(g.graph.len() == 50 || g.graph.len() == 100);
    }
}

#[test]
fn no_schedule_beats_the_optimum_or_the_lower_bound() {
    let Some(dir) = common::shared_data("stg/kasahara_msp") else {
        return;
    };
    let t = gap_table(&dir).unwrap();
    // 360 graphs × 4 processor counts × 3 schedulers.
    assert_eq!(t.schedules, 360 * 4 * 3);
    assert_eq!(t.violations, vec![]);
    assert_eq!(t.cells.len(), 2 * 4 * 3);
    for ((n, p, s), c) in &t.cells {
        assert_eq!(c.graphs + c.bounded, 180, "{n} {p} {s}");
        assert!(c.mean_gap >= 0.0 && c.max_gap >= c.mean_gap, "{n} {p} {s}");
        // Without communication, list scheduling is within 2 − 1/p of the
        // optimum (Graham); the gaps here are far inside that.
        assert!(
            c.max_gap < 100.0 * (1.0 - 1.0 / *p as f64),
            "{n} {p} {s}: {c:?}"
        );
    }
    println!("{}", t.render());
}
