//! The two-site grid paper's findings (Dimitriadou and Karatza), each
//! asserted as OUR model shows it under the default readings, on paired
//! seeds: both sides of a comparison run the same replication seeds, so
//! the same arrivals, sizes and service times, and a difference is judged
//! by the 95 % half-width of the per-seed differences.
//!
//! These run a reduced study (`COMPLETIONS` completions, `REPS`
//! replications) so that `cargo test` stays fast; the paper's full study
//! (120,000 completions, 10 replications) is `study_table` in
//! `tests/grid_paper.rs` (ignored) or the sweep in docs/dimitriadou-karatza.md.
//! A finding that does not reproduce is asserted as not reproducing.

use schedscope::grid_study::{GridFigures, GridPoint, GridSummary, replicate};
use schedscope::metrics::Replicated;
use schedscope::policy::PolicyName;
use schedscope::workload::grid::GangSizes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

const SEED: u64 = 2009;
const COMPLETIONS: u64 = 20_000;
const REPS: u32 = 8;

use GangSizes::{PowerOfTwo as P2, Uniform as U};
use PolicyName as N;
use schedscope::policy::names;
const A1: N = names::GRID_1;
const A2: N = names::GRID_2;

/// One point's summary, computed once per test binary.
fn point(lambda: f64, a: N, e: f64, sizes: GangSizes) -> GridSummary {
    type Cache = Mutex<HashMap<String, Arc<OnceLock<GridSummary>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = format!("{lambda} {} {e} {}", a.as_str(), sizes.as_str());
    let cell = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(key)
        .or_default()
        .clone();
    cell.get_or_init(|| {
        let mut p = GridPoint::paper(lambda, a, e, sizes);
        p.completed = COMPLETIONS;
        let s = replicate(&p, SEED, REPS);
        let f = |r: &Replicated| format!("{:.4}±{:.4}", r.mean, r.half_width.unwrap_or(f64::NAN));
        eprintln!(
            "| {lambda} {} E={e} {} | U {} | gangs {} | RT {} | SLD {} | WRT {} | WSLD {} |",
            a.as_str(),
            sizes.as_str(),
            f(&s.utilization),
            f(&s.gangs_finished_pct),
            f(&s.rt),
            f(&s.sld),
            f(&s.wrt),
            f(&s.wsld)
        );
        s
    })
    .clone()
}

/// The per-seed differences b − a of a figure, mean ± 95 % half-width.
fn paired(a: &GridSummary, b: &GridSummary, f: fn(&GridFigures) -> f64) -> Replicated {
    assert_eq!(a.runs.len(), REPS as usize);
    assert_eq!(b.runs.len(), REPS as usize);
    let d: Vec<f64> = a
        .runs
        .iter()
        .zip(&b.runs)
        .map(|(x, y)| f(y) - f(x))
        .collect();
    Replicated::of(&d)
}

/// The difference is above zero by more than its half-width.
fn above(d: Replicated) -> bool {
    d.mean - d.half_width.expect("replicated") > 0.0
}

/// The difference is below zero by more than its half-width.
fn below(d: Replicated) -> bool {
    d.mean + d.half_width.expect("replicated") < 0.0
}

fn wrt(f: &GridFigures) -> f64 {
    f.wrt
}
fn wsld(f: &GridFigures) -> f64 {
    f.wsld
}
fn rt(f: &GridFigures) -> f64 {
    f.rt
}
fn gangs(f: &GridFigures) -> f64 {
    f.gangs_finished_pct
}
fn util(f: &GridFigures) -> f64 {
    f.utilization
}

/// Paper (Fig. 3): with power-of-two sizes approach 2 finishes about 10
/// points more gangs than approach 1. Ours: more, at λ = 12.5, by fewer
/// points (the direction reproduces, the size does not).
#[test]
fn power_of_two_approach_2_finishes_more_gangs_at_high_load() {
    let (a1, a2) = (point(12.5, A1, 0.0, P2), point(12.5, A2, 0.0, P2));
    let d = paired(&a1, &a2, gangs);
    assert!(above(d), "approach 2 − 1, % gangs finished: {d:?}");
    assert!(d.mean < 8.0, "fewer than the paper's ~10 points: {d:?}");
}

/// Paper (Fig. 3): approach 1 never completes 100 % of the power-of-two
/// gangs, even at λ = 8.3. Ours: does NOT reproduce — at λ = 8.3 approach
/// 1 finishes every gang but those in flight at the end, within half a
/// point of approach 2.
#[test]
fn power_of_two_approach_1_does_not_fall_short_at_low_load() {
    let (a1, a2) = (point(8.3, A1, 0.0, P2), point(8.3, A2, 0.0, P2));
    assert!(
        a1.gangs_finished_pct.mean > 99.0,
        "{:?}",
        a1.gangs_finished_pct
    );
    let d = paired(&a1, &a2, gangs);
    assert!(d.mean.abs() < 0.5, "approach 2 − 1 at λ = 8.3: {d:?}");
}

/// Paper (Fig. 2): with uniform sizes both approaches finish almost all
/// gangs at λ = 10 and 8.3. Ours: reproduces (≥ 99 %).
#[test]
fn uniform_gangs_almost_all_finish_at_medium_and_low_load() {
    for lambda in [10.0, 8.3] {
        for a in [A1, A2] {
            let s = point(lambda, a, 0.0, U);
            assert!(
                s.gangs_finished_pct.mean >= 99.0,
                "λ={lambda} {}: {:?}",
                a.as_str(),
                s.gangs_finished_pct
            );
        }
    }
}

/// Paper (Figs. 4, 5): WRT and WSLD rise with λ. Ours: reproduces, for
/// both approaches (uniform sizes, E = 0), paired between neighbouring λ.
#[test]
fn wrt_and_wsld_rise_with_the_load() {
    for a in [A1, A2] {
        let s: Vec<GridSummary> = [8.3, 10.0, 12.5]
            .iter()
            .map(|&l| point(l, a, 0.0, U))
            .collect();
        for w in s.windows(2) {
            let d = paired(&w[0], &w[1], wrt);
            assert!(above(d), "{} WRT: {d:?}", a.as_str());
            assert!(w[1].wsld.mean > w[0].wsld.mean, "{} WSLD", a.as_str());
        }
    }
}

/// Paper (Fig. 4): approach 2's WRT is lower at λ = 12.5. Ours: reproduces.
#[test]
fn approach_2_has_the_lower_wrt_at_high_load() {
    let (a1, a2) = (point(12.5, A1, 0.0, U), point(12.5, A2, 0.0, U));
    let d = paired(&a1, &a2, wrt);
    assert!(below(d), "approach 2 − 1, WRT: {d:?}");
    assert!(below(paired(&a1, &a2, wsld)), "WSLD");
}

/// Paper (Fig. 4): at λ = 8.3 the two approaches are almost the same.
/// Ours: does NOT reproduce — approach 2's WRT stays lower by more than
/// the paired noise (split gangs start at once where approach 1 waits).
#[test]
fn approach_2_wrt_stays_lower_at_low_load() {
    let (a1, a2) = (point(8.3, A1, 0.0, U), point(8.3, A2, 0.0, U));
    let d = paired(&a1, &a2, wrt);
    assert!(below(d), "approach 2 − 1, WRT at λ = 8.3: {d:?}");
}

/// Paper (Fig. 6): local RT at λ = 12.5 is a bit higher under approach 2
/// (uniform sizes). Ours: does NOT reproduce — it is lower, beyond the
/// paired noise. With power-of-two sizes, where approach 2 serves many
/// more gangs, it is higher on average (the full study: 2.068 against
/// 1.974), though not beyond the paired noise at this reduced length.
#[test]
fn local_rt_at_high_load_is_lower_under_approach_2_with_uniform_sizes() {
    let d = paired(&point(12.5, A1, 0.0, U), &point(12.5, A2, 0.0, U), rt);
    assert!(below(d), "uniform, approach 2 − 1, RT: {d:?}");
    let d = paired(&point(12.5, A1, 0.0, P2), &point(12.5, A2, 0.0, P2), rt);
    assert!(d.mean > 0.0, "power of two, approach 2 − 1, RT: {d:?}");
}

/// Paper (Figs. 8, 9, 12, 13): at λ = 12.5 WRT rises with E while local
/// RT barely moves. Ours: local RT moves less than 2 % (reproduces); WRT
/// does NOT rise with E under approach 2 (E = 30 against E = 0, paired,
/// not above the noise); under approach 1 it rises beyond the paired
/// noise in the full study (+5.95 ± 4.61 over 10 × 120,000 completions,
/// `docs/dimitriadou-karatza.md`), not at this length.
#[test]
fn estimate_error_barely_moves_local_rt_and_does_not_raise_wrt_under_approach_2() {
    for a in [A1, A2] {
        let e0 = point(12.5, a, 0.0, U);
        let e30 = point(12.5, a, 30.0, U);
        let d = paired(&e0, &e30, rt);
        assert!(d.mean.abs() < 0.02 * e0.rt.mean, "{} RT: {d:?}", a.as_str());
    }
    let d = paired(&point(12.5, A2, 0.0, U), &point(12.5, A2, 30.0, U), wrt);
    assert!(!above(d), "approach 2, WRT(E=30) − WRT(E=0): {d:?}");
    let d = paired(&point(12.5, A2, 0.0, U), &point(12.5, A2, 10.0, U), wrt);
    assert!(!above(d), "approach 2, WRT(E=10) − WRT(E=0): {d:?}");
}

/// Table II: mean processor utilization 0.880 / 0.738 / 0.635 at λ = 12.5
/// / 10 / 8.3, approach 2 a hair above approach 1. Ours: within one point
/// at λ = 10 and 8.3 for both size distributions; at λ = 12.5 with uniform
/// sizes about two points HIGH (we finish more of the gang work); approach
/// 2 at or above approach 1 everywhere.
#[test]
fn table_ii_utilization() {
    let paper = [
        (12.5, 0.87999, 0.88034),
        (10.0, 0.73785, 0.73791),
        (8.3, 0.63484, 0.63490),
    ];
    let mut within = 0;
    for sizes in [U, P2] {
        for &(lambda, p1, p2) in &paper {
            let (a1, a2) = (point(lambda, A1, 0.0, sizes), point(lambda, A2, 0.0, sizes));
            let d = paired(&a1, &a2, util);
            assert!(d.mean >= 0.0, "{} λ={lambda}: {d:?}", sizes.as_str());
            for (s, p) in [(&a1, p1), (&a2, p2)] {
                let gap = s.utilization.mean - p;
                if lambda < 12.0 {
                    assert!(gap.abs() < 0.01, "{} λ={lambda}: {gap}", sizes.as_str());
                    within += 1;
                }
            }
        }
    }
    assert_eq!(within, 8);
    let hi = point(12.5, A2, 0.0, U).utilization.mean;
    assert!(hi - 0.88034 > 0.01, "uniform λ=12.5 approach 2: {hi}");
}
