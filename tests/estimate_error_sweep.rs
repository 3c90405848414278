//! How mean wait and the number of killed or requeued jobs move with the
//! estimate error E = 0, 10, 30 % under EASY and conservative backfilling on
//! the synthetic multi-cluster scenario `scenarios/backfill-estimate-error.toml`.
//! `--nocapture` prints the table.

use schedscope::runner::{RunOptions, run};
use schedscope::scenario::Scenario;
use std::path::Path;
use std::sync::atomic::AtomicU64;

fn figures(sets: &[String]) -> (f64, f64, f64, f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/backfill-estimate-error.toml");
    let mut sets = sets.to_vec();
    sets.push("run.jobs=3000".into());
    let s = Scenario::load_with(&path, &sets).unwrap();
    let r = run(&s, &RunOptions::default(), &AtomicU64::new(0)).unwrap();
    let f = |n: &str| r.summary().get(n).unwrap().mean;
    (
        f("mean_wait"),
        f("killed"),
        f("requeued"),
        f("jumped_ahead"),
    )
}

#[test]
fn estimate_error_sweep() {
    println!("| policy | on_overrun | E % | mean wait | killed | requeued | backfilled |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (policy, modes) in [
        ("easy", &["continue", "kill", "requeue"][..]),
        ("conservative", &["continue", "kill", "requeue"][..]),
    ] {
        for &overrun in modes {
            let mut row = Vec::new();
            for e in [0, 10, 30] {
                let x = figures(&[
                    format!("policy.name={policy}"),
                    format!("estimates.error_percent={e}"),
                    format!("estimates.on_overrun={overrun}"),
                ]);
                println!(
                    "| {policy} | {overrun} | {e} | {:.3} | {} | {} | {} |",
                    x.0, x.1, x.2, x.3
                );
                row.push(x);
            }
            // E = 0: estimates are exact, nothing outlives its estimate.
            assert_eq!((row[0].1, row[0].2), (0.0, 0.0));
            match overrun {
                "kill" => {
                    assert!(row[1].1 > 0.0 && row[2].1 > 0.0);
                    assert_eq!(row[2].2, 0.0);
                }
                "requeue" => {
                    assert!(row[2].2 > 0.0);
                    assert_eq!(row[2].1, 0.0);
                }
                _ => assert_eq!((row[2].1, row[2].2), (0.0, 0.0)),
            }
        }
    }
}

/// Jobs outliving their estimates make conservative backfilling give up
/// and remake reservations; the run must still be the same every time.
#[test]
fn conservative_with_overruns_is_deterministic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/backfill-estimate-error.toml");
    let sets: Vec<String> = [
        "policy.name=conservative",
        "estimates.error_percent=30",
        "run.jobs=3000",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let s = Scenario::load_with(&path, &sets).unwrap();
    let opts = RunOptions {
        keep_records: true,
        ..RunOptions::default()
    };
    let a = run(&s, &opts, &AtomicU64::new(0)).unwrap();
    let b = run(&s, &opts, &AtomicU64::new(0)).unwrap();
    assert_eq!(a.replications[0].records, b.replications[0].records);
}
