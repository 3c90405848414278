//! The two-site grid, drawn inside the head pane under `grid-1`/`grid-2`:
//! one row per site with a cell per processor (its queue depth; `■` busy
//! with an empty queue, `·` idle and empty; cells headed by a gang waiting
//! for its other processors in the head colour), the grid queue with its
//! gangs' sizes, the gangs waiting on processor queues, and the gangs
//! running split across sites.

use super::Ctx;
use crate::console::snapshot::Snapshot;
use crate::sched::{Assignment, GridStateView};
use ratatui::text::{Line, Span};

/// The grid's lines, at most `room` of them.
pub fn lines(g: &GridStateView, snap: &Snapshot, ctx: &Ctx, room: usize) -> Vec<Line<'static>> {
    let name = |c: u16| {
        snap.engine
            .clusters
            .get(c as usize)
            .map_or(c.to_string(), |v| v.name.clone())
    };
    let per_site = |a: &Assignment| {
        a.iter()
            .map(|&(c, w)| format!("{} {w}", name(c)))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let mut out = Vec::new();
    for (s, procs) in g.sites.iter().enumerate() {
        let busy = procs.iter().filter(|p| p.running.is_some()).count();
        let queued: u32 = procs.iter().map(|p| p.depth).sum();
        let gang_headed = procs
            .iter()
            .filter(|p| matches!(p.head, Some((_, true))))
            .count();
        let mut spans = vec![Span::raw(format!("{:<4}", name(s as u16)))];
        for p in procs {
            let (glyph, style) = match (p.depth, p.head, p.running) {
                (0, _, Some(_)) => ("■".to_string(), ctx.good()),
                (0, _, None) => ("·".to_string(), ctx.dim()),
                (d, Some((_, true)), _) => (depth(d), ctx.head()),
                (d, _, _) => (depth(d), ctx.style(Default::default())),
            };
            spans.push(Span::styled(glyph, style));
        }
        spans.push(Span::styled(
            format!(
                " {busy}/{} busy, {queued} queued, {gang_headed} gang-headed",
                procs.len()
            ),
            ctx.dim(),
        ));
        out.push(Line::from(spans));
    }
    let gangs: Vec<String> = g.grid_queue.iter().map(|(_, n)| n.to_string()).collect();
    out.push(if gangs.is_empty() {
        Line::styled("grid queue empty", ctx.dim())
    } else {
        Line::from(vec![
            Span::raw(format!("grid queue {}: sizes ", gangs.len())),
            Span::styled(gangs.join(" "), ctx.head()),
        ])
    });
    for (id, a) in &g.waiting {
        out.push(Line::from(vec![
            Span::raw("waits "),
            Span::styled(format!("{id}"), ctx.job(*id)),
            Span::raw(format!(" on queues: {}", per_site(a))),
        ]));
    }
    for (id, a) in &g.split {
        out.push(Line::from(vec![
            Span::raw("split "),
            Span::styled(format!("{id}"), ctx.job(*id)),
            Span::raw(format!(": {}", per_site(a))),
        ]));
    }
    if out.len() > room {
        let more = out.len() - room + 1;
        out.truncate(room.saturating_sub(1));
        if room > 0 {
            out.push(Line::styled(format!("… {more} more lines"), ctx.dim()));
        }
    }
    out
}

/// A queue depth in one cell: 1–9, then `+`.
fn depth(d: u32) -> String {
    if d <= 9 { d.to_string() } else { "+".into() }
}
