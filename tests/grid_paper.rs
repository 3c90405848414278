//! The two-site grid paper's findings, asserted as our model shows them
//! on paired seeds (the same seeds for the two sides of each comparison).
//! `cargo test` runs a reduced version (fewer completions, 4 replications);
//! the full study (120,000 completions, 10 replications, every λ, approach,
//! E and size distribution) is `study_table`, ignored here: run it with
//! `cargo test --release --test engine_policies grid_paper -- --ignored --nocapture`.

use schedscope::grid_study::{GridPoint, GridSummary, replicate};
use schedscope::policy::PolicyName;
use schedscope::policy::names;
use schedscope::workload::grid::GangSizes;

const SEED: u64 = 2009;

fn point(lambda: f64, a: PolicyName, e: f64, sizes: GangSizes, completed: u64) -> GridPoint {
    let mut p = GridPoint::paper(lambda, a, e, sizes);
    p.completed = completed;
    p
}

fn row(label: &str, s: &GridSummary) -> String {
    let f = |r: &schedscope::metrics::Replicated, d: usize| {
        format!("{:.d$} ± {:.d$}", r.mean, r.half_width.unwrap_or(f64::NAN))
    };
    format!(
        "| {label} | {} | {} | {} | {} | {} | {} |",
        f(&s.utilization, 4),
        f(&s.gangs_finished_pct, 1),
        f(&s.rt, 3),
        f(&s.sld, 2),
        f(&s.wrt, 2),
        f(&s.wsld, 2)
    )
}

#[test]
#[ignore = "the full study: cargo test --release --test engine_policies grid_paper -- --ignored --nocapture"]
fn study_table() {
    let t0 = std::time::Instant::now();
    println!("| point | U | % gangs | RT | SLD | WRT | WSLD |");
    println!("|---|---|---|---|---|---|---|");
    for sizes in [GangSizes::Uniform, GangSizes::PowerOfTwo] {
        for lambda in [12.5, 10.0, 8.3] {
            for a in [names::GRID_1, names::GRID_2] {
                for e in [0.0, 10.0, 30.0] {
                    let s = replicate(&point(lambda, a, e, sizes, 120_000), SEED, 10);
                    let label = format!("{} λ={lambda} {} E={e}", sizes.as_str(), a.as_str());
                    println!("{}", row(&label, &s));
                }
            }
        }
    }
    println!("study: {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
#[ignore = "speed: cargo test --release --test engine_policies grid_paper -- --ignored --nocapture"]
fn one_paper_length_run() {
    let p = point(12.5, names::GRID_2, 30.0, GangSizes::Uniform, 120_000);
    let t0 = std::time::Instant::now();
    let f = schedscope::grid_study::run_once(&p, SEED);
    println!("one run: {:.3} s {f:?}", t0.elapsed().as_secs_f64());
}
