//! `kind = "moldable"`: moldable jobs of four application types, for
//! backfilling with virtual malleability (folding).

use super::{
    Columns, Figure, FigureFamily, FigureFold, Validated, Workload, WorkloadKindEntry,
    need_platform,
};
use crate::engine::Engine;
use crate::metrics::moldable::MoldableAcc;
use crate::metrics::{Replicated, measured};
use crate::model::{JobRecord, Platform};
use crate::report::table::cell;
use crate::scenario::schema::{OneOrMany, WorkloadSection};
use crate::scenario::values::{MAX_SECONDS, Shown};
use crate::scenario::{Scenario, ScenarioError};
use crate::workload::JobSource;
use crate::workload::moldable::{MoldableParams, MoldableWorkload};
use std::fmt::Write;
use toml::Spanned;

pub(super) const ENTRY: WorkloadKindEntry = WorkloadKindEntry {
    name: "moldable",
    summary: "moldable jobs of four application types (Downey speedups), long \
              and short, for backfilling with virtual malleability",
    keys: &[
        "utilization",
        "short_load",
        "max_size",
        "long_threshold",
        "fold_overhead",
        "max_mpl",
        "estimate_factor",
        "short_min_size",
        "speedup",
    ],
    needs_platform: true,
    family: Some(&MOLDABLE_FAMILY),
    validate: |s, w, platform| {
        let platform = need_platform(s, platform)?;
        Ok(Validated::of(moldable_params(s, w, platform)?))
    },
};

impl Workload for MoldableParams {
    fn source(&self, seed: u64, count: Option<u64>) -> Result<Box<dyn JobSource>, String> {
        Ok(Box::new(MoldableWorkload::with_count(self, seed, count)?))
    }
}

/// The moldable workload's keys, each checked where it is; defaults are
/// the paper's values (and schedscope's readings where the paper gives
/// none, documented in `scenarios/README.md`).
fn moldable_params(
    s: &Scenario,
    w: &WorkloadSection,
    platform: &Platform,
) -> Result<MoldableParams, ScenarioError> {
    let num = |x: &Option<Spanned<f64>>,
               key: &str,
               default: f64,
               ok: &dyn Fn(f64) -> bool,
               what: &str| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if v_.is_finite() && ok(v_) {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!("workload.{key} must be {what}, found {}", Shown(v_)),
                ))
            }
        })
    };
    let utilization = num(
        &w.utilization,
        "utilization",
        1.0,
        &|v| (0.001..=4.0).contains(&v),
        "from 0.001 to 4 (1 = 100 %)",
    )?;
    let short_load = num(
        &w.short_load,
        "short_load",
        0.2,
        &|v| (0.0..=4.0).contains(&v),
        "from 0 to 4",
    )?;
    if short_load > utilization {
        let span = w.short_load.as_ref().map_or(0..0, |x| x.span());
        let span = if span.is_empty() {
            w.utilization.as_ref().map_or(w.kind.span(), |x| x.span())
        } else {
            span
        };
        return Err(s.error_at(
            span,
            format!(
                "workload.short_load ({}) must be at most workload.utilization ({})",
                Shown(short_load),
                Shown(utilization)
            ),
        ));
    }
    let long_threshold = num(
        &w.long_threshold,
        "long_threshold",
        1000.0,
        &|v| v > 0.0 && v <= 1e9,
        "above 0 and at most 1e9 seconds",
    )?;
    let fold_overhead = num(
        &w.fold_overhead,
        "fold_overhead",
        0.1,
        &|v| (0.0..=10.0).contains(&v),
        "from 0 to 10",
    )?;
    let max_mpl = w.max_mpl.as_ref().map_or(4, |x| x.get_ref().0);
    if max_mpl > 64 {
        let span = w.max_mpl.as_ref().map_or(0..0, |x| x.span());
        return Err(s.error_at(
            span,
            format!("workload.max_mpl must be from 1 to 64, found {max_mpl}"),
        ));
    }
    let largest = platform
        .clusters
        .iter()
        .map(|c| c.processors)
        .max()
        .unwrap_or(0);
    let max_size = w
        .max_size
        .as_ref()
        .map_or(60.min(largest), |x| x.get_ref().0);
    if max_size > largest {
        let span = w.max_size.as_ref().map_or(w.kind.span(), |x| x.span());
        return Err(s.error_at(
            span,
            format!(
                "workload.max_size ({max_size}) must be at most the largest cluster ({largest} processors): a moldable job runs on one cluster"
            ),
        ));
    }
    let estimate_factor = match &w.estimate_factor {
        None => (0.5, 1.5),
        Some(v) => {
            let bad = |m: String| s.error_at(v.span(), format!("workload.estimate_factor: {m}"));
            let ok = |x: f64| x.is_finite() && x > 0.0 && x <= 1e3;
            match v.get_ref() {
                OneOrMany::One(x) if ok(*x) => (*x, *x),
                OneOrMany::Many(r) if r.len() == 2 && ok(r[0]) && ok(r[1]) && r[0] <= r[1] => {
                    (r[0], r[1])
                }
                OneOrMany::One(x) => {
                    return Err(bad(format!(
                        "a factor must be above 0 and at most 1000, found {}",
                        Shown(*x)
                    )));
                }
                OneOrMany::Many(_) => {
                    return Err(bad(
                        "give one factor or a range [low, high] with 0 < low ≤ high ≤ 1000".into(),
                    ));
                }
            }
        }
    };
    let short_min_size = w.short_min_size.as_ref().map_or(1, |x| x.get_ref().0);
    let mut speedup = crate::workload::moldable::PAPER_SPEEDUP;
    if let Some(sec) = &w.speedup {
        let sec = sec.get_ref();
        for (i, (key, entry)) in [
            ("bt_a", &sec.bt_a),
            ("cg_b", &sec.cg_b),
            ("lu_w", &sec.lu_w),
            ("sweep3d", &sec.sweep3d),
        ]
        .into_iter()
        .enumerate()
        {
            let Some(e) = entry else { continue };
            let d = e.get_ref();
            if let Some(a) = d.a {
                if !(a.is_finite() && (1.0..=1e6).contains(&a)) {
                    return Err(s.error_at_key(
                        &["workload", "speedup", key, "a"],
                        format!(
                            "workload.speedup.{key}.a (Downey's average parallelism) must be from 1 to 1e6, found {}",
                            Shown(a)
                        ),
                    ));
                }
                speedup[i].0 = a;
            }
            if let Some(sg) = d.sigma {
                if !(sg.is_finite() && (0.0..=1e3).contains(&sg)) {
                    return Err(s.error_at_key(
                        &["workload", "speedup", key, "sigma"],
                        format!(
                            "workload.speedup.{key}.sigma (Downey's variance of parallelism) must be from 0 to 1000, found {}",
                            Shown(sg)
                        ),
                    ));
                }
                speedup[i].1 = sg;
            }
        }
    }
    let types = crate::workload::moldable::types_with(
        max_size,
        long_threshold,
        fold_overhead,
        max_mpl,
        speedup,
        short_min_size,
    )
    .map_err(|m| {
        let span = w
            .short_min_size
            .as_ref()
            .map_or(w.kind.span(), |x| x.span());
        s.error_at(span, format!("workload.short_min_size: {m}"))
    })?;
    let params = MoldableParams {
        processors: platform.total_processors().min(u32::MAX as u64) as u32,
        long_load: utilization - short_load,
        short_load,
        jobs: s.file.run.jobs.0 as u64,
        types,
        estimate_factor: Some(estimate_factor),
    };
    let uspan = w.utilization.as_ref().map_or(w.kind.span(), |x| x.span());
    let generator = MoldableWorkload::new(&params, 1).map_err(|m| match &w.long_threshold {
        Some(t) if m.contains("long_threshold") => {
            s.error_at(t.span(), format!("workload.long_threshold: {m}"))
        }
        _ => s.error_at(uspan.clone(), format!("workload: {m}")),
    })?;
    // The last arrival must stay well inside the simulation's time.
    let last = generator.mean_gap() * (params.jobs as f64 + 100.0) * 4.0;
    if last > MAX_SECONDS / 2.0 {
        return Err(s.error_at(
            uspan,
            format!(
                "workload.utilization ({}) is too low for {} jobs: the arrivals would run past the simulation's time",
                Shown(utilization),
                params.jobs
            ),
        ));
    }
    Ok(params)
}

/// The `moldable` kind's family of figures: long and short moldable jobs
/// apart (rigid jobs, such as injected ones, are left out), and what
/// folding and aborts did. Jobs among the first `[run] warmup_jobs` are
/// left out, as from the common figures.
pub static MOLDABLE_FAMILY: FigureFamily = FigureFamily {
    name: "moldable",
    title: "moldable",
    figures: &[
        Figure::counted("long.jobs", "long jobs", 0, None),
        Figure::counted("long.response", "long response", 1, Some("long resp")),
        Figure::counted("long.execution", "long execution", 1, Some("long exec")),
        Figure::counted("long.wait", "long wait", 1, Some("long wait")),
        Figure::counted("long.wait_sd", "long sd of wait", 1, Some("long wait sd")),
        Figure::counted("long.partition", "long partition", 2, Some("long part")),
        Figure::counted("short.jobs", "short jobs", 0, None),
        Figure::counted("short.response", "short response", 1, Some("short resp")),
        Figure::counted("short.execution", "short execution", 1, Some("short exec")),
        Figure::counted("short.wait", "short wait", 1, Some("short wait")),
        Figure::counted(
            "short.wait_sd",
            "short sd of wait",
            1,
            Some("short wait sd"),
        ),
        Figure::counted("short.partition", "short partition", 2, Some("short part")),
        Figure::counted("moldable.aborted", "aborted", 1, Some("aborted")),
        Figure::counted("moldable.folded", "folded", 1, Some("folded")),
        Figure::counted("moldable.expanded", "expanded", 1, Some("expanded")),
        Figure::counted("moldable.work_lost", "work lost", 1, Some("work lost")),
    ],
    columns: Columns::After(COLUMNS),
    csv: COLUMNS,
    block,
    fold: |warmup_jobs| {
        Box::new(MoldableFold {
            acc: MoldableAcc::default(),
            warmup_jobs,
        })
    },
};

/// A sweep's columns and CSV figures: each class's times and partition,
/// then the counts.
const COLUMNS: &[&str] = &[
    "long.response",
    "long.execution",
    "long.wait",
    "long.wait_sd",
    "long.partition",
    "short.response",
    "short.execution",
    "short.wait",
    "short.wait_sd",
    "short.partition",
    "moldable.aborted",
    "moldable.folded",
    "moldable.expanded",
    "moldable.work_lost",
];

/// A run's table: a line per class, then the counts.
fn block(family: &FigureFamily, values: &[Replicated]) -> String {
    let f = |n: &str| family.value(values, n).unwrap_or(Replicated::ZERO);
    let mut out = String::from(
        "  moldable            jobs         response        execution             wait       sd of wait        partition\n",
    );
    for c in ["long", "short"] {
        let _ = writeln!(
            out,
            "  {c:<8} {:>13} {:>16} {:>16} {:>16} {:>16} {:>16}",
            cell(f(&format!("{c}.jobs")), 0),
            cell(f(&format!("{c}.response")), 1),
            cell(f(&format!("{c}.execution")), 1),
            cell(f(&format!("{c}.wait")), 1),
            cell(f(&format!("{c}.wait_sd")), 1),
            cell(f(&format!("{c}.partition")), 2),
        );
    }
    let _ = writeln!(
        out,
        "  aborted {} · folded {} · expanded {} · work lost {} s",
        cell(f("moldable.aborted"), 1),
        cell(f("moldable.folded"), 1),
        cell(f("moldable.expanded"), 1),
        cell(f("moldable.work_lost"), 1),
    );
    out
}

/// One run's moldable jobs, past the warm-up.
struct MoldableFold {
    acc: MoldableAcc,
    warmup_jobs: u64,
}

impl FigureFold for MoldableFold {
    fn record(&mut self, r: &JobRecord) {
        if measured(r, self.warmup_jobs) {
            self.acc.add(r);
        }
    }

    fn values(&self, _engine: &Engine) -> Vec<f64> {
        let f = self.acc.figures();
        MOLDABLE_FAMILY
            .names()
            .map(|n| f.figure(n).expect("a moldable figure"))
            .collect()
    }
}
