//! Metrics: online aggregates over job records, group-wise tables and
//! confidence intervals across replications.
//!
//! Records are folded in as they arrive and never kept, so memory stays flat
//! on million-job runs.

pub mod confidence;
pub mod groups;
pub mod moldable;

pub use confidence::{Replicated, t_quantile_975};
pub use groups::{GroupBounds, Grouping};

use crate::model::{JobRecord, SimTime};
use serde::Serialize;

/// Bounded slowdown's threshold τ, in seconds.
pub const BSLD_TAU: f64 = 10.0;

/// Sums over a set of job records.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Acc {
    pub count: u64,
    pub response: f64,
    pub wait: f64,
    /// Running mean of the wait and the sum of squared deviations from it
    /// (Welford's update): a mean of squares minus a squared mean loses
    /// every digit when the waits are large and nearly equal.
    pub wait_mean: f64,
    pub wait_m2: f64,
    pub slowdown: f64,
    pub bounded_slowdown: f64,
    /// Processor-seconds used.
    pub load: f64,
}

/// Per-job figures (seconds) used by every aggregate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobFigures {
    pub wait: f64,
    pub response: f64,
    pub slowdown: f64,
    pub bounded_slowdown: f64,
    pub load: f64,
}

impl JobFigures {
    pub fn of(r: &JobRecord) -> JobFigures {
        let wait = r.wait().as_secs_f64();
        let response = r.response().as_secs_f64();
        let run = r.elapsed().as_secs_f64();
        // A job that ran for no time counts as having run for one second.
        let slowdown = response / if run > 0.0 { run } else { 1.0 };
        let bounded_slowdown = (response / run.max(BSLD_TAU)).max(1.0);
        JobFigures {
            wait,
            response,
            slowdown,
            bounded_slowdown,
            load: r.held,
        }
    }
}

impl Acc {
    pub fn add(&mut self, f: &JobFigures) {
        self.count += 1;
        self.response += f.response;
        self.wait += f.wait;
        let d = f.wait - self.wait_mean;
        self.wait_mean += d / self.count as f64;
        self.wait_m2 += d * (f.wait - self.wait_mean);
        self.slowdown += f.slowdown;
        self.bounded_slowdown += f.bounded_slowdown;
        self.load += f.load;
    }

    fn mean(&self, x: f64) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            x / self.count as f64
        }
    }

    pub fn art(&self) -> f64 {
        self.mean(self.response)
    }
    pub fn mean_wait(&self) -> f64 {
        self.mean(self.wait)
    }
    pub fn mean_slowdown(&self) -> f64 {
        self.mean(self.slowdown)
    }
    pub fn mean_bounded_slowdown(&self) -> f64 {
        self.mean(self.bounded_slowdown)
    }
    /// Population standard deviation of the wait.
    pub fn sd_wait(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        (self.wait_m2 / self.count as f64).max(0.0).sqrt()
    }
}

#[cfg(test)]
mod welford_tests {
    use super::*;

    fn waits(ws: &[f64]) -> Acc {
        let mut a = Acc::default();
        for &w in ws {
            a.add(&JobFigures {
                wait: w,
                response: w,
                slowdown: 1.0,
                bounded_slowdown: 1.0,
                load: 0.0,
            });
        }
        a
    }

    #[test]
    fn sd_wait_of_large_nearly_equal_waits() {
        // A million jobs that waited 1e9 s plus 0 or 1 s alternately: the
        // population deviation is exactly 0.5. The mean of squares (about
        // 1e18, where doubles are 128 apart) minus the squared mean gives 0
        // or a multiple of 128 here; Welford's update keeps it.
        let ws: Vec<f64> = (0..1_000_000).map(|i| 1e9 + (i % 2) as f64).collect();
        let a = waits(&ws);
        assert!((a.sd_wait() - 0.5).abs() < 1e-6, "sd {}", a.sd_wait());
        let n = ws.len() as f64;
        let sq: f64 = ws.iter().map(|w| w * w).sum();
        let m = ws.iter().sum::<f64>() / n;
        let naive = (sq / n - m * m).max(0.0).sqrt();
        assert!(
            (naive - 0.5).abs() > 0.4,
            "the naive formula happened to hold: {naive}"
        );
    }

    #[test]
    fn sd_wait_small_cases() {
        assert_eq!(waits(&[]).sd_wait(), 0.0);
        assert_eq!(waits(&[7.0]).sd_wait(), 0.0);
        assert_eq!(
            waits(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).sd_wait(),
            2.0
        );
    }
}

/// Whether a job counts in the metrics: it is not among the first
/// `warmup_jobs` to arrive.
pub fn measured(r: &JobRecord, warmup_jobs: u64) -> bool {
    r.arrival >= warmup_jobs
}

/// Online metrics for one run.
#[derive(Clone, Debug)]
pub struct Metrics {
    bounds: GroupBounds,
    warmup_jobs: u64,
    total_processors: u64,
    pub overall: Acc,
    /// Per grouping (size, components, widest), one accumulator per group.
    groups: [Vec<Acc>; 3],
    pub jumped_ahead: Acc,
    pub in_order: Acc,
    pub killed: u64,
    pub requeued: u64,
    pub injected: u64,
    pub excluded: u64,
    /// Per SWF user id, when the workload has users.
    users: std::collections::BTreeMap<i64, Acc>,
    first_submit: Option<SimTime>,
    last_end: SimTime,
}

impl Metrics {
    pub fn new(bounds: GroupBounds, warmup_jobs: u64, total_processors: u64) -> Metrics {
        let groups = [
            vec![Acc::default(); bounds.count(Grouping::Size)],
            vec![Acc::default(); bounds.count(Grouping::Components)],
            vec![Acc::default(); bounds.count(Grouping::Widest)],
        ];
        Metrics {
            bounds,
            warmup_jobs,
            total_processors,
            overall: Acc::default(),
            groups,
            jumped_ahead: Acc::default(),
            in_order: Acc::default(),
            killed: 0,
            requeued: 0,
            users: Default::default(),
            injected: 0,
            excluded: 0,
            first_submit: None,
            last_end: SimTime::ZERO,
        }
    }

    pub fn bounds(&self) -> &GroupBounds {
        &self.bounds
    }

    /// Folds in one job; jobs among the first `warmup_jobs` to arrive are
    /// counted as excluded and nothing else.
    pub fn record(&mut self, r: &JobRecord) {
        if !measured(r, self.warmup_jobs) {
            self.excluded += 1;
            return;
        }
        let f = JobFigures::of(r);
        self.overall.add(&f);
        for g in Grouping::ALL {
            let i = self.bounds.group_of(g, r);
            self.groups[g as usize][i].add(&f);
        }
        if r.jumped_ahead {
            self.jumped_ahead.add(&f);
        } else {
            self.in_order.add(&f);
        }
        self.killed += r.killed as u64;
        self.requeued += r.requeues as u64;
        if let Some(u) = r.user {
            self.users.entry(u).or_default().add(&f);
        }
        self.injected += r.injected as u64;
        self.first_submit = Some(self.first_submit.map_or(r.submit, |s| s.min(r.submit)));
        self.last_end = self.last_end.max(r.end);
    }

    /// From the first measured submit to the last measured end, in seconds.
    pub fn makespan(&self) -> f64 {
        match self.first_submit {
            Some(s) => (self.last_end - s).as_secs_f64(),
            None => 0.0,
        }
    }

    /// Share of processor-time used by measured jobs over the makespan.
    pub fn utilization(&self) -> f64 {
        let span = self.makespan() * self.total_processors as f64;
        if span > 0.0 {
            self.overall.load / span
        } else {
            0.0
        }
    }

    pub fn group_rows(&self, g: Grouping) -> Vec<GroupRow> {
        let total = &self.overall;
        self.groups[g as usize]
            .iter()
            .enumerate()
            .map(|(i, a)| GroupRow {
                label: self.bounds.label(g, i),
                range: self.bounds.range_label(g, i),
                count: a.count,
                number_pct: pct(a.count as f64, total.count as f64),
                load_pct: pct(a.load, total.load),
                art: a.art(),
                mean_wait: a.mean_wait(),
                mean_slowdown: a.mean_slowdown(),
            })
            .collect()
    }

    pub fn summary(&self) -> Summary {
        Summary {
            jobs: self.overall.count,
            art: self.overall.art(),
            mean_wait: self.overall.mean_wait(),
            sd_wait: self.overall.sd_wait(),
            mean_slowdown: self.overall.mean_slowdown(),
            mean_bounded_slowdown: self.overall.mean_bounded_slowdown(),
            utilization: self.utilization(),
            makespan: self.makespan(),
            killed: self.killed,
            requeued: self.requeued,
            jumped_ahead: self.jumped_ahead.count,
            jumped_ahead_wait: self.jumped_ahead.mean_wait(),
            jumped_ahead_slowdown: self.jumped_ahead.mean_slowdown(),
            in_order_wait: self.in_order.mean_wait(),
            in_order_slowdown: self.in_order.mean_slowdown(),
            users: self
                .users
                .iter()
                .map(|(u, a)| GroupRow {
                    label: format!("u{u}"),
                    range: u.to_string(),
                    count: a.count,
                    number_pct: pct(a.count as f64, self.overall.count as f64),
                    load_pct: pct(a.load, self.overall.load),
                    art: a.art(),
                    mean_wait: a.mean_wait(),
                    mean_slowdown: a.mean_slowdown(),
                })
                .collect(),
            groups: [
                self.group_rows(Grouping::Size),
                self.group_rows(Grouping::Components),
                self.group_rows(Grouping::Widest),
            ],
        }
    }
}

fn pct(x: f64, total: f64) -> f64 {
    if total > 0.0 { 100.0 * x / total } else { 0.0 }
}

/// The overall figures, in report order: what `[expect]`, sweeps and the
/// JSON summary name them.
pub const OVERALL_FIGURES: [&str; 15] = [
    "jobs",
    "art",
    "mean_wait",
    "sd_wait",
    "mean_slowdown",
    "mean_bounded_slowdown",
    "utilization",
    "makespan",
    "killed",
    "requeued",
    "jumped_ahead",
    "jumped_ahead_wait",
    "jumped_ahead_slowdown",
    "in_order_wait",
    "in_order_slowdown",
];

/// The figures of a group row, as `[expect]` names them after
/// `groups.<grouping>.<label>.`.
pub const GROUP_FIGURES: [&str; 6] = [
    "count",
    "number_pct",
    "load_pct",
    "art",
    "mean_wait",
    "mean_slowdown",
];

/// Whether the figure `name` (dotted, as [`Summary::figure`] reads it) can
/// never be negative by its definition, so that a confidence interval
/// reaching below zero only says the replications were few or far apart:
/// a figure drawn with such an interval is cut at zero.
///
/// Every figure of a summary is, today: a count; a mean of waits or
/// responses, each measured from the job's submit to its start or end
/// (never before it); a slowdown, a response over a positive run time
/// (bounded ones are at least 1); a standard deviation; a share of jobs,
/// of load or of processor-time; a makespan from the first submit to the
/// last end. A workload kind's own figures are declared with its family
/// ([`crate::scenario::kinds::Figure::never_negative`]). A name this does
/// not know reads as possibly negative, so nothing is cut that should not
/// be.
pub fn never_negative(name: &str) -> bool {
    let overall = |n: &str| {
        matches!(
            n,
            // Counts.
            "jobs" | "killed" | "requeued" | "jumped_ahead"
            // Times from submit, and their spread.
            | "art" | "mean_wait" | "sd_wait" | "jumped_ahead_wait" | "in_order_wait"
            // Slowdowns.
            | "mean_slowdown" | "mean_bounded_slowdown" | "jumped_ahead_slowdown" | "in_order_slowdown"
            // A share of processor-time, a span of time.
            | "utilization" | "makespan"
        )
    };
    let group = |n: &str| {
        matches!(
            n,
            "count" | "number_pct" | "load_pct" | "art" | "mean_wait" | "mean_slowdown"
        )
    };
    let parts: Vec<&str> = name.split('.').collect();
    match parts.as_slice() {
        [n] | ["overall", n] => overall(n),
        ["groups", _, _, n] => group(n),
        _ => false,
    }
}

/// The group-row figure named `name`, given the row's figures in
/// [`GROUP_FIGURES`] order (plain numbers or replicated ones).
pub fn group_figure<T>(
    name: &str,
    count: T,
    number_pct: T,
    load_pct: T,
    art: T,
    mean_wait: T,
    mean_slowdown: T,
) -> Option<T> {
    let i = GROUP_FIGURES.iter().position(|f| *f == name)?;
    [count, number_pct, load_pct, art, mean_wait, mean_slowdown]
        .into_iter()
        .nth(i)
}

/// One row of a group table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupRow {
    pub label: String,
    /// The group's range, e.g. `[4, 7]`.
    pub range: String,
    pub count: u64,
    pub number_pct: f64,
    pub load_pct: f64,
    pub art: f64,
    pub mean_wait: f64,
    pub mean_slowdown: f64,
}

/// The figures of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub jobs: u64,
    pub art: f64,
    pub mean_wait: f64,
    pub sd_wait: f64,
    pub mean_slowdown: f64,
    pub mean_bounded_slowdown: f64,
    pub utilization: f64,
    pub makespan: f64,
    pub killed: u64,
    /// Aborts at the estimate followed by a return to the queue.
    pub requeued: u64,
    /// Jobs that started ahead of an earlier-queued job (FPFS jumps,
    /// backfills), and the wait and slowdown of those and of the rest.
    pub jumped_ahead: u64,
    pub jumped_ahead_wait: f64,
    pub jumped_ahead_slowdown: f64,
    pub in_order_wait: f64,
    pub in_order_slowdown: f64,
    /// One row per SWF user (empty when the workload has no users).
    pub users: Vec<GroupRow>,
    /// Size, components, widest.
    pub groups: [Vec<GroupRow>; 3],
}

impl Summary {
    /// A figure by its dotted name, as `[expect]` and sweeps use it:
    /// `art`, `mean_wait`, …, `groups.size.S4.art`.
    pub fn figure(&self, name: &str) -> Option<f64> {
        let overall = |n: &str| -> Option<f64> {
            Some(match n {
                "jobs" => self.jobs as f64,
                "art" => self.art,
                "mean_wait" => self.mean_wait,
                "sd_wait" => self.sd_wait,
                "mean_slowdown" => self.mean_slowdown,
                "mean_bounded_slowdown" => self.mean_bounded_slowdown,
                "utilization" => self.utilization,
                "makespan" => self.makespan,
                "killed" => self.killed as f64,
                "requeued" => self.requeued as f64,
                "jumped_ahead" => self.jumped_ahead as f64,
                "jumped_ahead_wait" => self.jumped_ahead_wait,
                "jumped_ahead_slowdown" => self.jumped_ahead_slowdown,
                "in_order_wait" => self.in_order_wait,
                "in_order_slowdown" => self.in_order_slowdown,
                _ => return None,
            })
        };
        let parts: Vec<&str> = name.split('.').collect();
        match parts.as_slice() {
            [n] => overall(n),
            ["overall", n] => overall(n),
            ["groups", g, label, n] => {
                let g = Grouping::from_name(g)?;
                let row = self.groups[g as usize].iter().find(|r| r.label == *label)?;
                group_figure(
                    n,
                    row.count as f64,
                    row.number_pct,
                    row.load_pct,
                    row.art,
                    row.mean_wait,
                    row.mean_slowdown,
                )
            }
            _ => None,
        }
    }

    /// Every figure name `figure` answers for this summary.
    pub fn figure_names(&self) -> Vec<String> {
        let mut v: Vec<String> = OVERALL_FIGURES.iter().map(|s| s.to_string()).collect();
        for g in Grouping::ALL {
            for r in &self.groups[g as usize] {
                for n in GROUP_FIGURES {
                    v.push(format!("groups.{}.{}.{}", g.name(), r.label, n));
                }
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(
        arrival: u64,
        size: u32,
        comps: Vec<u32>,
        submit: i64,
        start: i64,
        end: i64,
    ) -> JobRecord {
        JobRecord {
            id: arrival + 1,
            arrival,
            submit: SimTime::from_secs(submit),
            start: SimTime::from_secs(start),
            end: SimTime::from_secs(end),
            size,
            clusters: (0..comps.len() as u16).collect(),
            components: comps,
            estimate: SimTime::from_secs(end - start),
            runtime: SimTime::from_secs(end - start),
            user: None,
            injected: false,
            jumped_ahead: false,
            killed: false,
            requeues: 0,
            held: size as f64 * (end - start) as f64,
            busy: size as f64 * (end - start) as f64,
            moldable: None,
            placements: Vec::new(),
        }
    }

    #[test]
    fn aggregates_and_groups() {
        let mut m = Metrics::new(GroupBounds::default(), 0, 10);
        m.record(&rec(0, 1, vec![1], 0, 0, 10)); // S1 C1 W1, resp 10
        m.record(&rec(1, 12, vec![6, 6], 0, 10, 20)); // S4 C2 W4, resp 20
        let s = m.summary();
        assert_eq!(s.jobs, 2);
        assert!((s.art - 15.0).abs() < 1e-12);
        assert!((s.mean_wait - 5.0).abs() < 1e-12);
        assert!((s.sd_wait - 5.0).abs() < 1e-12);
        assert!((s.mean_slowdown - 1.5).abs() < 1e-12);
        // load 10 + 120 over 10 procs × 20 s
        assert!((s.utilization - 130.0 / 200.0).abs() < 1e-12);
        assert_eq!(s.figure("groups.size.S4.art"), Some(20.0));
        assert_eq!(s.figure("groups.components.C2.count"), Some(1.0));
        assert_eq!(
            s.figure("groups.widest.W4.load_pct"),
            Some(100.0 * 120.0 / 130.0)
        );
        assert_eq!(s.figure("nonsense"), None);
    }

    #[test]
    fn warmup_jobs_are_excluded() {
        let mut m = Metrics::new(GroupBounds::default(), 1, 10);
        m.record(&rec(0, 1, vec![1], 0, 0, 10));
        m.record(&rec(1, 1, vec![1], 0, 0, 4));
        assert_eq!(m.summary().jobs, 1);
        assert_eq!(m.excluded, 1);
        assert_eq!(m.summary().art, 4.0);
    }

    #[test]
    fn every_figure_of_a_summary_has_its_sign_declared() {
        // Each name a summary answers is a count, a time from submit, a
        // ratio or a share: none can be negative, so each must be known
        // as such (a new figure is declared here before it is drawn).
        let mut names: Vec<String> = OVERALL_FIGURES.iter().map(|n| n.to_string()).collect();
        names.extend(OVERALL_FIGURES.iter().map(|n| format!("overall.{n}")));
        for g in ["size", "components", "widest", "user"] {
            names.extend(GROUP_FIGURES.iter().map(|n| format!("groups.{g}.S1.{n}")));
            names.extend(GROUP_FIGURES.iter().map(|n| format!("groups.{g}.*.{n}")));
        }
        for n in &names {
            assert!(never_negative(n), "{n} is not declared never negative");
        }
        // What it does not know may be negative: nothing is cut there.
        for n in [
            "nonsense",
            "groups.size.S1.nonsense",
            "long.nonsense",
            "a.b.c",
        ] {
            assert!(!never_negative(n), "{n}");
        }
    }
}
