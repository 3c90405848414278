//! Compare mode: the same workload under two policies side by side, on the
//! same simulated time. Each side shows its policy, queue and processors;
//! below, one table gives each group's figures under both and the
//! difference, right minus left, with its sign (green where the right
//! policy does better, red where it does worse).

use super::{Ctx, clusters, queue};
use crate::console::format::{fit, fit_int, int};
use crate::console::snapshot::Snapshot;
use crate::metrics::GroupRow;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, Widget};

/// Column widths: group, jobs L, jobs R, ART L, ART R, ΔART, wait L,
/// wait R, Δwait.
const WIDTHS: [u16; 9] = [6, 7, 7, 8, 8, 9, 8, 8, 9];

/// The two sides and the table, in `area`.
pub fn render(left: &Snapshot, right: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let g = ctx.grouping as usize;
    let table_h = (left.summary.groups[g].len() as u16 + 4).min(area.height / 2);
    let [sides, table] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(table_h)]).areas(area);
    let [l, r] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)]).areas(sides);
    side(left, "◧ left", ctx, l, buf);
    side(right, "◨ right", ctx, r, buf);
    differences(left, right, ctx, table, buf);
}

/// One side: its policy and clock, its queue, its processors.
fn side(snap: &Snapshot, which: &str, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let n = snap.engine.clusters.len() as u16;
    let maps = (n + 2).min(area.height.saturating_sub(6).max(3));
    let [title, q, c] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(maps),
    ])
    .areas(area);
    let e = &snap.engine;
    Paragraph::new(Line::from(vec![
        Span::styled(format!(" {which} "), ctx.head()),
        Span::styled(e.policy_label.clone(), ctx.fg(Color::Cyan)),
        Span::styled(format!(" · done {}", int(e.counters.finished)), ctx.dim()),
    ]))
    .render(title, buf);
    queue::render(snap, ctx, q, buf);
    clusters::render(snap, ctx, c, buf);
}

fn differences(left: &Snapshot, right: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let g = ctx.grouping;
    let block = ctx.block(
        format!(
            " Left vs right by {} [g] · Δ = right − left, measured jobs ",
            g.name()
        ),
        None,
    );
    let inner = block.inner(area);
    block.render(area, buf);
    let header = Row::new(vec![
        "group", "jobs ◧", "jobs ◨", "ART ◧", "ART ◨", "ΔART", "wait ◧", "wait ◨", "Δwait",
    ])
    .style(ctx.dim().add_modifier(Modifier::BOLD));
    let w = WIDTHS.map(usize::from);
    let (ls, rs) = (&left.summary, &right.summary);
    let overall = |jobs, art, mean_wait| GroupRow {
        label: "all".into(),
        range: String::new(),
        count: jobs,
        number_pct: 100.0,
        load_pct: 100.0,
        art,
        mean_wait,
        mean_slowdown: 0.0,
    };
    let all_l = overall(ls.jobs, ls.art, ls.mean_wait);
    let all_r = overall(rs.jobs, rs.art, rs.mean_wait);
    let pairs = ls.groups[g as usize]
        .iter()
        .zip(rs.groups[g as usize].iter())
        .chain(std::iter::once((&all_l, &all_r)));
    let rows: Vec<Row> = pairs
        .map(|(a, b)| {
            Row::new(vec![
                Line::raw(a.label.clone()),
                Line::raw(fit_int(a.count, w[1])),
                Line::raw(fit_int(b.count, w[2])),
                Line::raw(fit(a.art, w[3])),
                Line::raw(fit(b.art, w[4])),
                delta(a.art, b.art, a.count.min(b.count), ctx, w[5]),
                Line::raw(fit(a.mean_wait, w[6])),
                Line::raw(fit(b.mean_wait, w[7])),
                delta(a.mean_wait, b.mean_wait, a.count.min(b.count), ctx, w[8]),
            ])
        })
        .collect();
    Table::new(rows, WIDTHS.map(Constraint::Length))
        .header(header)
        .render(inner, buf);
}

/// `b − a` with its sign; lower is better for every figure shown, so a
/// negative difference is green. Blank until both sides measured a job.
fn delta(a: f64, b: f64, jobs: u64, ctx: &Ctx, width: usize) -> Line<'static> {
    if jobs == 0 || !a.is_finite() || !b.is_finite() {
        return Line::raw("");
    }
    let d = b - a;
    let text = if d > 0.0 {
        format!("+{}", fit(d, width.saturating_sub(1)))
    } else if d < 0.0 {
        format!("−{}", fit(-d, width.saturating_sub(1)))
    } else {
        "0".to_string()
    };
    let color = if d < 0.0 {
        Color::Green
    } else if d > 0.0 {
        Color::Red
    } else {
        Color::Reset
    };
    Line::styled(text, ctx.style(Style::new().fg(color)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::text;

    #[test]
    fn signs_say_which_side_does_better() {
        let ctx = Ctx::default();
        let t = |l: Line| {
            l.spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        };
        assert_eq!(t(delta(10.0, 7.5, 3, &ctx, 9)), "−2.5");
        assert_eq!(t(delta(10.0, 12.0, 3, &ctx, 9)), "+2.0");
        assert_eq!(t(delta(10.0, 10.0, 3, &ctx, 9)), "0");
        assert_eq!(t(delta(10.0, 7.0, 0, &ctx, 9)), "");
    }

    #[test]
    fn both_sides_and_the_table_are_drawn() {
        let left = crate::console::fixtures::snapshot();
        let right = crate::console::fixtures::snapshot();
        let area = Rect::new(0, 0, 120, 30);
        let mut buf = Buffer::empty(area);
        render(&left, &right, &Ctx::default(), area, &mut buf);
        let s = text(&buf);
        assert!(s.contains("◧ left") && s.contains("◨ right"), "{s}");
        assert!(s.contains("ΔART") && s.contains("Δwait"), "{s}");
        assert!(s.lines().any(|l| l.contains("all")), "{s}");
    }
}
