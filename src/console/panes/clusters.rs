//! Cluster maps: one row of processor cells per cluster, busy cells in the
//! colour of their job (a co-allocated job shows one colour in several
//! clusters), free count and speed at the end.

use super::{BUSY, Ctx, FREE, INJECTED};
use crate::console::app::Pane;
use crate::console::snapshot::Snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use std::collections::HashSet;

/// Columns besides the cells: name, brackets, free count and speed.
fn extra(name_w: usize) -> usize {
    name_w + 1 + 2 + 14
}

/// The width the pane needs to show one cell per processor (at most 60).
pub fn wanted_width(snap: &Snapshot) -> u16 {
    let name_w = name_width(snap);
    let cells = snap
        .engine
        .clusters
        .iter()
        .map(|c| c.processors as usize)
        .max()
        .unwrap_or(0)
        .min(60);
    (cells + extra(name_w) + 2) as u16
}

fn name_width(snap: &Snapshot) -> usize {
    snap.engine
        .clusters
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(12)
}

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let clusters = &snap.engine.clusters;
    let name_w = name_width(snap);
    let room = (area.width as usize)
        .saturating_sub(2 + extra(name_w))
        .max(1);
    let widest = clusters
        .iter()
        .map(|c| c.processors as usize)
        .max()
        .unwrap_or(1);
    let per_cell = widest.div_ceil(room).max(1);
    let title = if per_cell == 1 {
        " Clusters · a cell per processor ".to_string()
    } else {
        format!(" Clusters · a cell per {per_cell} procs ")
    };
    let block = ctx.block(title, Some(Pane::Clusters));
    let inner = block.inner(area);
    block.render(area, buf);
    let injected: HashSet<u64> = snap
        .engine
        .running
        .iter()
        .filter(|r| r.injected)
        .map(|r| r.id)
        .collect();
    let mut lines = Vec::new();
    for c in clusters {
        let mut spans = vec![
            Span::raw(format!("{:>w$}", truncate(&c.name, name_w), w = name_w)),
            Span::styled(" ▕", ctx.dim()),
        ];
        for chunk in c.cells.chunks(per_cell) {
            match chunk.iter().flatten().next() {
                Some(&id) => {
                    let glyph = if injected.contains(&id) {
                        INJECTED
                    } else {
                        BUSY
                    };
                    spans.push(Span::styled(glyph, ctx.job(id)));
                }
                None => spans.push(Span::styled(FREE, ctx.dim())),
            }
        }
        spans.push(Span::styled("▏", ctx.dim()));
        let free_style = if c.free == 0 { ctx.dim() } else { ctx.good() };
        spans.push(Span::styled(format!(" {:>3} free", c.free), free_style));
        spans.push(Span::raw(format!(" ×{:.1}", c.speed)));
        lines.push(Line::from(spans));
    }
    if (inner.height as usize) > clusters.len() {
        lines.push(Line::styled(
            format!("{BUSY} colour = job  {FREE} free  {INJECTED} injected"),
            ctx.dim(),
        ));
    }
    ratatui::widgets::Paragraph::new(lines).render(inner, buf);
}

fn truncate(s: &str, w: usize) -> String {
    s.chars().take(w).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::{
        job_color,
        testing::{rows, text},
    };
    use ratatui::style::Color;

    #[test]
    fn a_co_allocated_job_has_one_colour_in_both_clusters() {
        let snap = fixtures::snapshot();
        let area = Rect::new(0, 0, 40, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("a cell per processor"), "{t}");
        let r = rows(&buf);
        assert!(r[1].starts_with("│c0 ▕■■■■◆◆··▏   2 free ×1.0"), "{}", r[1]);
        assert!(r[2].starts_with("│c1 ▕■■■■····▏   4 free ×1.0"), "{}", r[2]);
        // Job 10 runs on both clusters: the same colour in each.
        let c = job_color(10);
        assert_eq!(buf[(5, 1)].fg, c);
        assert_eq!(buf[(5, 2)].fg, c);
        assert_eq!(buf[(9, 1)].fg, job_color(1_000_000_001));
        assert_eq!(buf[(11, 1)].fg, Color::DarkGray);
    }

    #[test]
    fn big_clusters_are_scaled_and_say_so() {
        let mut snap = fixtures::snapshot();
        for c in &mut snap.engine.clusters {
            c.processors = 128;
            c.cells = vec![None; 128];
            c.free = 128;
        }
        let area = Rect::new(0, 0, 60, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        assert!(text(&buf).contains("a cell per 4 procs"), "{}", text(&buf));
    }
}
