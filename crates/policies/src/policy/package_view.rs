//! PAS's last package: its jobs and where they went, the solve, and
//! counts over the run; what the console shows of it.

use crate::model::{Platform, SimTime};
use crate::sched::panel::{int, secs};
use crate::sched::{Assignment, Panel, PanelLine, PanelLines, Tone};
use serde::Serialize;

/// PAS's last package: its jobs and where they went, the solve, and
/// counts over the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PackageView {
    /// When the package was placed.
    pub at: SimTime,
    /// (job id, its tasks per cluster).
    pub jobs: Vec<(u64, Assignment)>,
    /// Σ estimate × SD of the package under the model (seconds).
    pub objective: f64,
    /// The solver proved the allocation optimal.
    pub optimal: bool,
    /// The solver stopped before any allocation: the fallback rule placed
    /// this package.
    pub fallback: bool,
    /// Branch-and-bound nodes explored.
    pub nodes: u64,
    /// Wall-clock time of the solve (for display only: never in reports).
    #[serde(skip)]
    pub solve_micros: u64,
    /// Packages placed so far.
    pub packages: u64,
    /// Of them, solves stopped by the node limit before proving optimality.
    pub limited: u64,
    /// Of them, solves stopped before any allocation: placed by the fallback.
    pub fallbacks: u64,
}

impl PackageView {
    /// What the console shows: when the package was placed, how the solve
    /// went (optimal, stopped at the node limit, or placed by the fallback
    /// rule), the solve time, and each job with its tasks per cluster, in
    /// half the head pane at most.
    pub fn panel(&self, platform: &Platform) -> Panel {
        let p = self;
        let mut lines = Vec::new();
        let mut keep = 1;
        if p.packages == 0 {
            lines.push(PanelLine::of("no package placed yet", Tone::Dim));
        } else {
            let (solve, tone) = match (p.optimal, p.fallback) {
                (true, _) => ("optimal".to_string(), Tone::Good),
                (false, true) => ("fallback rule".to_string(), Tone::Alert),
                (false, false) => (format!("node limit ({} nodes)", int(p.nodes)), Tone::Head),
            };
            lines.push(
                PanelLine::of(
                    format!(
                        "package {} at {} · {} job{} · ",
                        int(p.packages),
                        secs(p.at.as_secs_f64()),
                        p.jobs.len(),
                        if p.jobs.len() == 1 { "" } else { "s" }
                    ),
                    Tone::Plain,
                )
                .then(solve, tone),
            );
            lines.push(PanelLine::of(
                format!(
                    "  {} · run total: {} node-limited, {} fallback",
                    solve_time(p.solve_micros),
                    int(p.limited),
                    int(p.fallbacks)
                ),
                Tone::Dim,
            ));
            keep = 2;
            let name = |c: u16| {
                platform
                    .clusters
                    .get(c as usize)
                    .map_or(c.to_string(), |v| v.name.clone())
            };
            for (id, a) in &p.jobs {
                let size: u32 = a.iter().map(|&(_, w)| w).sum();
                let split: Vec<String> =
                    a.iter().map(|&(c, w)| format!("{} {w}", name(c))).collect();
                let co = if a.len() > 1 { " co-allocated" } else { "" };
                lines.push(
                    PanelLine::of(format!("  {id:>6}"), Tone::Job(*id))
                        .then(format!(" {size:>3} → {}", split.join(" + ")), Tone::Plain)
                        .then(co, Tone::Dim),
                );
            }
        }
        Panel {
            title: Some("package".into()),
            lines: PanelLines {
                lines,
                keep,
                more: "  … {} more".into(),
                share: 50,
            },
            ..Panel::default()
        }
    }
}

/// Wall-clock solve time: `850 µs`, `12.3 ms`, `1.20 s`.
fn solve_time(micros: u64) -> String {
    if micros < 1_000 {
        format!("{micros} µs")
    } else if micros < 1_000_000 {
        format!("{:.1} ms", micros as f64 / 1e3)
    } else {
        format!("{:.2} s", micros as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(p: &PackageView, room: usize) -> String {
        p.panel(&Platform::uniform(2, 16))
            .lines
            .fitted(room)
            .iter()
            .map(PanelLine::text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn view() -> PackageView {
        PackageView {
            at: SimTime::from_secs(120),
            jobs: vec![
                (7, vec![(0, 8)]),
                (8, vec![(0, 2), (1, 4)]),
                (9, vec![(1, 1)]),
            ],
            objective: 900.0,
            optimal: true,
            fallback: false,
            nodes: 3,
            solve_micros: 4_200,
            packages: 12,
            limited: 1,
            fallbacks: 0,
        }
    }

    #[test]
    fn a_package_lists_its_jobs_and_the_solve() {
        let t = text(&view(), 10);
        assert!(
            t.contains("package 12 at 120.0 s · 3 jobs · optimal\n"),
            "{t}"
        );
        assert!(
            t.contains("  4.2 ms · run total: 1 node-limited, 0 fallback"),
            "{t}"
        );
        assert!(t.contains("     8   6 → c0 2 + c1 4 co-allocated"), "{t}");
        assert!(t.contains("     9   1 → c1 1"), "{t}");
    }

    #[test]
    fn a_short_pane_says_how_many_jobs_it_left_out() {
        let t = text(&view(), 4);
        assert!(t.contains("     7   8 → c0 8"), "{t}");
        assert!(t.contains("… 2 more"), "{t}");
        assert!(!t.contains("     9"), "{t}");
    }

    #[test]
    fn limited_and_fallback_solves_say_so() {
        let mut v = view();
        v.optimal = false;
        v.nodes = 300;
        assert!(text(&v, 1).contains("node limit (300 nodes)"));
        v.fallback = true;
        v.fallbacks = 1;
        assert!(text(&v, 1).contains("fallback rule"));
    }
}
