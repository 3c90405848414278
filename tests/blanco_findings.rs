//! The package-allocation paper's findings (Blanco et al.), asserted as
//! what our model shows under the default readings of
//! `scenarios/blanco-pas.toml` (links 1 GB/s, σ = 0.5, sizes 2^gamma, H
//! spread evenly from Γ = 1 to 1 − H). Paired seeds: every strategy and
//! every BSBW runs the same arrivals, sizes and run times.
//!
//! `cargo test` runs a reduced study (SEEDS seeds, three BSBW values);
//! the full sweep (11 BSBW × 3 H × 3 strategies × 20 seeds) is in
//! docs/blanco.md, made with the release binary's `sweep`.

use schedscope::policy::package_view::PackageView;
use schedscope::scenario::Scenario;
use std::path::Path;

const SEEDS: u64 = 6;

/// Mean over seeds of (ART, co-allocated share, jobs per PAS package).
fn study(policy: &str, h: f64, bsbw: f64) -> (f64, f64, f64) {
    study_with(policy, h, bsbw, &[], SEEDS)
}

/// [`study`] under another reading (`extra` scenario keys), over `seeds`.
fn study_with(policy: &str, h: f64, bsbw: f64, extra: &[&str], seeds: u64) -> (f64, f64, f64) {
    let mut sets = vec![
        format!("policy.name={policy}"),
        format!("platform.heterogeneity={h}"),
        format!("workload.bsbw={bsbw}"),
        "timeline=[]".to_string(),
    ];
    sets.extend(extra.iter().map(|k| k.to_string()));
    let s = Scenario::load_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/blanco-pas.toml"),
        &sets,
    )
    .unwrap();
    let (mut art, mut co, mut per) = (0.0, 0.0, 0.0);
    for seed in 1..=seeds {
        let mut e = s.build_engine(seed, false).unwrap();
        e.run();
        e.check_conservation().unwrap();
        let per_package = match e.policy_state().detail::<PackageView>() {
            Some(p) => 100.0 / p.packages as f64,
            None => 0.0,
        };
        let recs: Vec<_> = e.drain_records().collect();
        assert_eq!(recs.len(), 100);
        art += recs.iter().map(|r| r.response().as_secs_f64()).sum::<f64>() / 100.0;
        co += recs.iter().filter(|r| r.clusters.len() > 1).count() as f64 / 100.0;
        per += per_package;
    }
    let n = seeds as f64;
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
                "H {h} BSBW {bsbw}: ART cbs {:.0} jpr {:.0} pas {:.0} · co-alloc cbs {:.3} jpr {:.3} pas {:.3} · jobs/package {:.3}",
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

    // 3. PAS at most CBS: holds at every H and BSBW here (every package
    //    solved to its optimum; with the program alone stopped at 300
    //    nodes PAS was above CBS at H = 90 % on these seeds).
    for h in [0.1, 0.9] {
        for b in [0.2, 1.0] {
            let (_, _, c, _, p) = at(h, b);
            assert!(p.0 < c.0, "PAS below CBS at H {h} BSBW {b}");
        }
    }

    // 4. H = 90 %, BSBW < 0.6: the paper has PAS and JPR beating CBS. Ours:
    //    PAS does; JPR does not on these seeds (it piles jobs on the fast
    //    cluster and co-allocates onto the slowest; over 20 seeds it is
    //    below CBS, see docs/blanco.md: seed-dependent).
    let (_, _, c, j, p) = at(0.9, 0.2);
    assert!(p.0 < c.0, "PAS beats CBS at H 90 %");
    assert!(j.0 > c.0, "not reproduced on these seeds: JPR above CBS");

    // 5. Co-allocated share: JPR highest, CBS lowest, PAS between. PAS's
    //    share falls as BSBW rises only slightly, at H = 90 %; at H = 10 %
    //    it is flat (within a point). Below saturation many allocations tie
    //    and PAS takes the one with the fewest co-allocated jobs.
    for &(h, b, c, j, p) in &rows {
        assert!(
            j.1 > p.1 && p.1 > c.1,
            "co-allocation order at H {h} BSBW {b}"
        );
    }
    assert!(
        at(0.9, 0.2).4.1 > at(0.9, 1.0).4.1,
        "PAS co-allocates less at H 90 %"
    );
    assert!(
        (at(0.1, 0.2).4.1 - at(0.1, 1.0).4.1).abs() <= 0.01,
        "not reproduced at H 10 %: flat"
    );

    // 6. Jobs per package: the paper sees them fall as BSBW rises. Ours:
    //    no at H = 10 % (the package is chosen by the selection function
    //    alone, the jobs that fit, so BSBW moves it only through run
    //    lengths); at H = 90 % it falls, by under 3 %.
    assert!(
        at(0.1, 1.0).4.2 >= at(0.1, 0.2).4.2,
        "not reproduced at H 10 %"
    );
    assert!(at(0.9, 1.0).4.2 < at(0.9, 0.2).4.2, "falls at H 90 %");
    assert!(
        at(0.9, 1.0).4.2 > 0.97 * at(0.9, 0.2).4.2,
        "by under 3 % at H 90 %"
    );
    for h in [0.1, 0.9] {
        assert!(at(h, 0.2).4.2 > 1.0, "packages hold more than one job");
    }
}

/// Speed of PAS (run with `cargo test --release --test engine_policies blanco_findings --
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
        if let Some(p) = e.policy_state().detail::<PackageView>() {
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

/// 10 000 jobs under PAS at a load where packages hold several jobs
/// (inter-arrival scale 30 s instead of 82.6 s), with every package's
/// solve time (`cargo test --release --test engine_policies
/// blanco_findings::pas_10000_jobs -- --ignored --nocapture`; numbers in
/// docs/blanco.md).
#[test]
#[ignore]
fn pas_10000_jobs_solve_times() {
    let s = Scenario::load_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/blanco-pas.toml"),
        &[
            "timeline=[]".to_string(),
            "run.jobs=10000".to_string(),
            "workload.interarrival_scale=30.0".to_string(),
        ],
    )
    .unwrap();
    let t = std::time::Instant::now();
    let mut e = s.build_engine(1, false).unwrap();
    let (mut solves, mut sizes) = (Vec::new(), Vec::new());
    let mut seen = 0;
    while e.step().is_some() {
        if let Some(p) = e.policy_state().detail::<PackageView>()
            && p.packages > seen
        {
            seen = p.packages;
            solves.push(p.solve_micros);
            sizes.push(p.jobs.len());
        }
    }
    let wall = t.elapsed().as_secs_f64();
    let state = e.policy_state();
    let Some(last) = state.detail::<PackageView>() else {
        panic!("not PAS")
    };
    assert!(solves.len() > 1_000, "{} packages seen", solves.len());
    let q = |v: &[u64], f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
    let mut sorted = solves.clone();
    sorted.sort_unstable();
    let several = sizes.iter().filter(|&&n| n >= 2).count();
    println!(
        "{} jobs, {} packages in {wall:.2} s: mean {:.2} jobs per package, {:.1} % with 2 or more, largest {}",
        e.counters().finished,
        solves.len(),
        sizes.iter().sum::<usize>() as f64 / sizes.len() as f64,
        100.0 * several as f64 / sizes.len() as f64,
        sizes.iter().max().unwrap()
    );
    println!(
        "solve time per package: median {} µs, p99 {} µs, max {} µs, total {:.2} s; {} at the node limit, {} fallbacks",
        q(&sorted, 0.5),
        q(&sorted, 0.99),
        sorted.last().unwrap(),
        solves.iter().sum::<u64>() as f64 / 1e6,
        last.limited,
        last.fallbacks
    );
}

/// The other readings, 4 paired seeds (the 10-seed release sweep is in
/// docs/blanco.md). Links of 0.125 GB/s (the "1 Gb/s" reading): the
/// network slows every strategy at every BSBW, several-fold from 0.2 to
/// 1.0, not only above 0.6, and JPR has the highest ART at high BSBW — the
/// paper's second finding, which the 1 GB/s default shows at H = 90 % only.
/// The `size` reading (mean size ≈ 3): the strategies are within a few per
/// cent and the links change nothing, so none of the BSBW findings can
/// show.
#[test]
fn findings_under_the_other_readings() {
    const N: u64 = 4;
    let slow = ["platform.network.abw=0.125"];
    let h = 0.1;
    let art = |p: &str, b: f64| study_with(p, h, b, &slow, N).0;
    let (c2, j2, p2) = (art("cbs", 0.2), art("jpr", 0.2), art("pas", 0.2));
    let (c10, j10, p10) = (art("cbs", 1.0), art("jpr", 1.0), art("pas", 1.0));
    println!("abw 0.125, H 10 %: BSBW 0.2 {c2:.0} {j2:.0} {p2:.0}; 1.0 {c10:.0} {j10:.0} {p10:.0}");
    for (lo, hi) in [(c2, c10), (j2, j10), (p2, p10)] {
        assert!(hi > 3.0 * lo, "the slow links' effect: {lo:.0} → {hi:.0}");
    }
    assert!(
        j10 > c10 && j10 > p10,
        "JPR highest at BSBW 1.0: {c10:.0} {j10:.0} {p10:.0}"
    );
    let small = ["workload.size_reading=size"];
    let arts: Vec<f64> = ["cbs", "jpr", "pas"]
        .iter()
        .flat_map(|p| [0.2, 1.0].map(|b| study_with(p, 0.5, b, &small, N).0))
        .collect();
    println!("size reading, H 50 %: {arts:.0?}");
    let (lo, hi) = arts
        .iter()
        .fold((f64::MAX, 0.0_f64), |(lo, hi), &a| (lo.min(a), hi.max(a)));
    assert!(
        hi < 1.1 * lo,
        "the size reading: every strategy and BSBW within 10 %: {arts:?}"
    );
    // The links change nothing: each strategy's ART at 0.2 and 1.0 agree.
    for pair in arts.chunks(2) {
        assert!((pair[1] - pair[0]).abs() < 0.01 * pair[0], "{arts:?}");
    }
}
