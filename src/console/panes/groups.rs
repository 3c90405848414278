//! Group metrics, live: the S / C / W table (switched with `g`) and the
//! overall figures of the jobs measured so far.

use super::Ctx;
use crate::console::app::Pane;
use crate::console::format::{fit, fit_int, int, num1};
use crate::console::snapshot::Snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Modifier;
use ratatui::widgets::{Row, Table, Widget};

/// Column widths: group, range, jobs, num %, load %, ART, wait, slowdown.
const WIDTHS: [u16; 8] = [5, 8, 8, 6, 6, 7, 7, 8];

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let s = &snap.summary;
    let g = ctx.grouping;
    let (excluded, warmup) = snap.warmup;
    let title = if excluded < warmup {
        format!(" Groups by {} [g] · warm-up: every job so far ", g.name())
    } else {
        format!(" Groups by {} [g] · measured jobs ", g.name())
    };
    let block = ctx.block(title, Some(Pane::Groups));
    let inner = block.inner(area);
    block.render(area, buf);
    let header = Row::new(vec![
        "group", "range", "jobs", "num %", "load %", "ART", "wait", "slowdown",
    ])
    .style(ctx.dim().add_modifier(Modifier::BOLD));
    // Every number fits its column: a decimal less, else an SI suffix.
    let [_, _, jobs_w, num_w, load_w, art_w, wait_w, slow_w] = WIDTHS.map(usize::from);
    let mut rows: Vec<Row> = s.groups[g as usize]
        .iter()
        .map(|r| {
            Row::new(vec![
                r.label.clone(),
                r.range.clone(),
                fit_int(r.count, jobs_w),
                fit(r.number_pct, num_w),
                fit(r.load_pct, load_w),
                fit(r.art, art_w),
                fit(r.mean_wait, wait_w),
                fit(r.mean_slowdown, slow_w),
            ])
        })
        .collect();
    rows.push(
        Row::new(vec![
            "all".to_string(),
            String::new(),
            fit_int(s.jobs, jobs_w),
            String::new(),
            String::new(),
            fit(s.art, art_w),
            fit(s.mean_wait, wait_w),
            fit(s.mean_slowdown, slow_w),
        ])
        .style(ctx.style(ratatui::style::Style::new().add_modifier(Modifier::BOLD))),
    );
    let table_h = (rows.len() as u16 + 1).min(inner.height);
    Table::new(rows, WIDTHS.map(Constraint::Length))
        .header(header)
        .render(
            Rect {
                height: table_h,
                ..inner
            },
            buf,
        );
    let lines = notes(snap);
    for (k, line) in lines.into_iter().enumerate() {
        let y = table_h + k as u16;
        if y >= inner.height {
            break;
        }
        ratatui::text::Line::styled(line, ctx.dim()).render(
            Rect {
                y: inner.y + y,
                height: 1,
                ..inner
            },
            buf,
        );
    }
}

/// The lines under the table: the warm-up while it lasts, then the
/// bounded slowdown, kills and requeues, and the waits of jobs started
/// ahead against those started in order.
fn notes(snap: &Snapshot) -> Vec<String> {
    let s = &snap.summary;
    let (excluded, warmup) = snap.warmup;
    if excluded < warmup {
        return vec![
            format!(
                "warm-up: the first {} jobs will not be measured ({} so far);",
                int(warmup),
                int(excluded)
            ),
            "until then the table shows every job that has ended".to_string(),
        ];
    }
    let mut first = format!("bounded slowdown {}", num1(s.mean_bounded_slowdown));
    if s.killed > 0 {
        first.push_str(&format!(" · killed {}", int(s.killed)));
    }
    if s.requeued > 0 {
        first.push_str(&format!(" · requeued {}", int(s.requeued)));
    }
    vec![
        first,
        format!(
            "{} started ahead wait {} s · in order {} s",
            int(s.jumped_ahead),
            num1(s.jumped_ahead_wait),
            num1(s.in_order_wait)
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::text;
    use crate::metrics::Grouping;

    #[test]
    fn switches_between_size_and_component_tables() {
        let snap = fixtures::snapshot();
        let area = Rect::new(0, 0, 66, 9);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("Groups by size [g]"), "{t}");
        assert!(t.contains("S4"), "{t}");
        // One job of four is in S4 (size 12); ART of all four is 32.8.
        assert!(t.contains("S4    ≥8       1        25.0"), "{t}");
        assert!(t.contains("32.8"), "{t}");
        let ctx = Ctx {
            grouping: Grouping::Components,
            ..Ctx::default()
        };
        let mut buf = Buffer::empty(area);
        render(&snap, &ctx, area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("Groups by components"), "{t}");
        assert!(t.contains("C1"), "{t}");
    }

    #[test]
    fn big_numbers_fit_their_columns() {
        let mut snap = fixtures::snapshot();
        snap.summary.art = 12_618.34;
        snap.summary.mean_wait = 1_234_567.0;
        snap.summary.mean_slowdown = 99_999.96;
        let area = Rect::new(0, 0, 66, 9);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("12 618 "), "{t}");
        assert!(!t.contains("12 618."), "{t}");
        assert!(t.contains("1.2 M "), "{t}");
        assert!(t.contains("100 000 "), "{t}");
    }
}
