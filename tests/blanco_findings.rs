//! The package-allocation paper's findings (Blanco et al.), asserted as
//! what our model shows under the default readings of
//! `scenarios/blanco-pas.toml` (links 1 GB/s, σ = 0.5, sizes 2^gamma, H
//! spread evenly from Γ = 1 to 1 − H). Paired seeds: every strategy and
//! every BSBW runs the same arrivals, sizes and run times.
//!
//! `cargo test` runs a reduced study (SEEDS seeds, three BSBW values);
//! the full sweep (11 BSBW × 3 H × 3 strategies × 20 seeds) is in
//! scenarios/README.md, made with the release binary's `sweep`.

use schedscope::policy::PolicyState;
use schedscope::scenario::Scenario;
use std::path::Path;

const SEEDS: u64 = 6;

/// Mean over seeds of (ART, co-allocated share, jobs per PAS package).
fn study(policy: &str, h: f64, bsbw: f64) -> (f64, f64, f64) {
    let sets = vec![
        format!("policy.name={policy}"),
        format!("platform.heterogeneity={h}"),
        format!("workload.bsbw={bsbw}"),
        "timeline=[]".to_string(),
    ];
    let s = Scenario::load_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/blanco-pas.toml"),
        &sets,
    )
    .unwrap();
    let (mut art, mut co, mut per) = (0.0, 0.0, 0.0);
    for seed in 1..=SEEDS {
        let mut e = s.build_engine(seed, false).unwrap();
        e.run();
        e.check_conservation().unwrap();
        let per_package = match e.policy_state() {
            PolicyState::Package(p) => 100.0 / p.packages as f64,
            _ => 0.0,
        };
        let recs: Vec<_> = e.drain_records().collect();
        assert_eq!(recs.len(), 100);
        art += recs.iter().map(|r| r.response().as_secs_f64()).sum::<f64>() / 100.0;
        co += recs.iter().filter(|r| r.clusters.len() > 1).count() as f64 / 100.0;
        per += per_package;
    }
    let n = SEEDS as f64;
    (art / n, co / n, per / n)
}

/// (H, BSBW, CBS, JPR, PAS) with each (ART, co-allocated share, jobs per
/// package).
type Row = (f64, f64, (f64, f64, f64), (f64, f64, f64), (f64, f64, f64));

#[test]
fn findings_under_the_default_readings() {
    let mut rows: Vec<Row> = Vec::new();
    for h in [0.1, 0.9] {
        for bsbw in [0.2, 1.0] {
            let c = study("cbs", h, bsbw);
            let j = study("jpr", h, bsbw);
            let p = study("pas", h, bsbw);
            println!(
                "H {h} BSBW {bsbw}: ART cbs {:.0} jpr {:.0} pas {:.0} · co-alloc cbs {:.2} jpr {:.2} pas {:.2} · jobs/package {:.2}",
                c.0, j.0, p.0, c.1, j.1, p.1, p.2
            );
            rows.push((h, bsbw, c, j, p));
        }
    }
    let at = |h: f64, b: f64| *rows.iter().find(|r| r.0 == h && r.1 == b).unwrap();
    assert_eq!(rows.len(), 4);

    // 1. H = 10 %, BSBW < 0.6: the paper sees the three close. Ours does
    //    not reproduce it: JPR and PAS are within 5 % of each other, but
    //    CBS waits far longer (its 75 % chunk keeps big jobs queued).
    let (_, _, c, j, p) = at(0.1, 0.2);
    assert!((j.0 - p.0).abs() <= 0.05 * p.0, "JPR ≈ PAS");
    assert!(c.0 > 1.3 * j.0.max(p.0), "CBS far behind: not close");

    // 2. BSBW ≥ 0.8: the paper has JPR highest at every H. Ours: only at
    //    H = 90 %; at H = 10 % CBS stays the highest.
    let (_, _, c, j, p) = at(0.9, 1.0);
    assert!(j.0 > c.0 && j.0 > p.0, "JPR highest at H 90 %");
    let (_, _, c, j, _) = at(0.1, 1.0);
    assert!(c.0 > j.0, "not reproduced at H 10 %: CBS above JPR");
    // JPR is the strategy the links hurt: its ART rises with BSBW.
    assert!(
        at(0.1, 1.0).3.0 > 1.1 * at(0.1, 0.2).3.0,
        "JPR slows with BSBW"
    );

    // 3. PAS at most CBS: holds at H = 10 %; at H = 90 % PAS is above
    //    CBS (with the node limit of 300, several big packages end on an
    //    incumbent or the fallback; with 2000 nodes PAS was below CBS at
    //    BSBW 0.2, see the note in scenarios/README.md).
    for b in [0.2, 1.0] {
        let (_, _, c, _, p) = at(0.1, b);
        assert!(p.0 <= c.0, "PAS ≤ CBS at H 10 % BSBW {b}");
        let (_, _, c, _, p) = at(0.9, b);
        assert!(
            p.0 > c.0,
            "not reproduced at H 90 % BSBW {b}: PAS above CBS"
        );
    }

    // 4. H = 90 %, BSBW < 0.6: the paper has PAS and JPR beating CBS. Ours
    //    does not: both are above CBS (JPR piles jobs on the fast cluster
    //    and co-allocates onto the slowest).
    let (_, _, c, j, p) = at(0.9, 0.2);
    assert!(
        p.0 > c.0 && j.0 > c.0,
        "not reproduced: CBS lowest at H 90 %"
    );

    // 5. Co-allocated share: JPR highest, CBS lowest, PAS between, PAS's
    //    falling as BSBW rises.
    for &(h, b, c, j, p) in &rows {
        assert!(
            j.1 > p.1 && p.1 > c.1,
            "co-allocation order at H {h} BSBW {b}"
        );
    }
    for h in [0.1, 0.9] {
        assert!(
            at(h, 0.2).4.1 > at(h, 1.0).4.1,
            "PAS co-allocates less at H {h}"
        );
    }

    // 6. Jobs per package: the paper sees them fall as BSBW rises. Ours
    //    does not: the package is chosen by the selection function alone
    //    (the jobs that fit), so BSBW moves it only through run lengths.
    for h in [0.1, 0.9] {
        assert!(at(h, 1.0).4.2 >= at(h, 0.2).4.2, "not reproduced at H {h}");
        assert!(at(h, 0.2).4.2 > 1.0, "packages hold more than one job");
    }
}

/// Speed of PAS (run with `cargo test --release --test blanco_findings --
/// --ignored --nocapture`): per-run time and the package solves.
#[test]
#[ignore]
fn pas_speed() {
    let s = Scenario::load_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/blanco-pas.toml"),
        &["timeline=[]".to_string()],
    )
    .unwrap();
    let mut times = Vec::new();
    for seed in 1..=10 {
        let t = std::time::Instant::now();
        let mut e = s.build_engine(seed, false).unwrap();
        e.run();
        times.push(t.elapsed().as_secs_f64());
        if let PolicyState::Package(p) = e.policy_state() {
            println!(
                "seed {seed}: {:.3} s, {} packages, {} stopped by the node limit, {} fallbacks",
                times[times.len() - 1],
                p.packages,
                p.limited,
                p.fallbacks
            );
        }
    }
    times.sort_by(f64::total_cmp);
    println!("median {:.3} s", times[times.len() / 2]);
}
