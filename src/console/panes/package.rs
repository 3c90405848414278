//! PAS's last package, drawn inside the head pane under the package
//! allocation strategy: when it was placed, how the solve went (optimal,
//! stopped at the node limit, or placed by the fallback rule), the solve
//! time, and each job with its tasks per cluster.

use super::Ctx;
use crate::console::format::{int, secs};
use crate::console::snapshot::Snapshot;
use crate::sched::PackageView;
use ratatui::text::{Line, Span};

/// The package's lines, at most `room` of them (a last line says how many
/// jobs did not fit).
pub fn lines(p: &PackageView, snap: &Snapshot, ctx: &Ctx, room: usize) -> Vec<Line<'static>> {
    if room == 0 {
        return Vec::new();
    }
    if p.packages == 0 {
        return vec![Line::styled("no package placed yet", ctx.dim())];
    }
    let (solve, style) = match (p.optimal, p.fallback) {
        (true, _) => ("optimal".to_string(), ctx.good()),
        (false, true) => ("fallback rule".to_string(), ctx.alert()),
        (false, false) => (format!("node limit ({} nodes)", int(p.nodes)), ctx.head()),
    };
    let mut out = vec![Line::from(vec![
        Span::raw(format!(
            "package {} at {} · {} job{} · ",
            int(p.packages),
            secs(p.at.as_secs_f64()),
            p.jobs.len(),
            if p.jobs.len() == 1 { "" } else { "s" }
        )),
        Span::styled(solve, style),
    ])];
    if room > 1 {
        out.push(Line::styled(
            format!(
                "  {} · run total: {} node-limited, {} fallback",
                solve_time(p.solve_micros),
                int(p.limited),
                int(p.fallbacks)
            ),
            ctx.dim(),
        ));
    }
    let name = |c: u16| {
        snap.engine
            .clusters
            .get(c as usize)
            .map_or(c.to_string(), |v| v.name.clone())
    };
    let left = room.saturating_sub(out.len());
    let shown = if p.jobs.len() > left {
        left.saturating_sub(1)
    } else {
        p.jobs.len()
    };
    for (id, a) in p.jobs.iter().take(shown) {
        let size: u32 = a.iter().map(|&(_, w)| w).sum();
        let split: Vec<String> = a.iter().map(|&(c, w)| format!("{} {w}", name(c))).collect();
        let co = if a.len() > 1 { " co-allocated" } else { "" };
        out.push(Line::from(vec![
            Span::styled(format!("  {id:>6}"), ctx.job(*id)),
            Span::raw(format!(" {size:>3} → {}", split.join(" + "))),
            Span::styled(co, ctx.dim()),
        ]));
    }
    if shown < p.jobs.len() && left > 0 {
        out.push(Line::styled(
            format!("  … {} more", p.jobs.len() - shown),
            ctx.dim(),
        ));
    }
    out
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
    use crate::console::fixtures;
    use crate::model::SimTime;

    fn text(lines: &[Line]) -> String {
        lines
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
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
        let snap = fixtures::snapshot();
        let t = text(&lines(&view(), &snap, &Ctx::default(), 10));
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
        let snap = fixtures::snapshot();
        let t = text(&lines(&view(), &snap, &Ctx::default(), 4));
        assert!(t.contains("     7   8 → c0 8"), "{t}");
        assert!(t.contains("… 2 more"), "{t}");
        assert!(!t.contains("     9"), "{t}");
    }

    #[test]
    fn limited_and_fallback_solves_say_so() {
        let snap = fixtures::snapshot();
        let mut v = view();
        v.optimal = false;
        v.nodes = 300;
        let t = text(&lines(&v, &snap, &Ctx::default(), 1));
        assert!(t.contains("node limit (300 nodes)"), "{t}");
        v.fallback = true;
        v.fallbacks = 1;
        let t = text(&lines(&v, &snap, &Ctx::default(), 1));
        assert!(t.contains("fallback rule"), "{t}");
    }
}
