//! One job's detail: submit, start, estimate, actual run once ended,
//! components and clusters; on a platform with a network, a running job's
//! processing, communication and total slowdown (SP, SC, SD) and its rate.

use super::{Ctx, INJECTED, centered};
use crate::console::app::{DetailState, JobInfo};
use crate::console::format::{parts, secs};
use crate::console::snapshot::Snapshot;
use crate::engine::{QueueRow, RunningRow};
use crate::model::graph::GraphJob;
use crate::model::{ClusterIdx, JobRecord, SimTime};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

pub fn render(snap: &Snapshot, d: &DetailState, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let (mut lines, injected, graph) = match &d.info {
        JobInfo::Queued(q) => (queued(q, snap, ctx), q.injected, q.graph.clone()),
        JobInfo::Running(r) => (running(r, snap, ctx), r.injected, r.graph.clone()),
        JobInfo::Ended(r) => (ended(r, snap, ctx), r.injected, None),
        JobInfo::Gone => (
            vec![Line::raw("ended; its record has scrolled away")],
            false,
            None,
        ),
    };
    let title = format!(
        " Job {}{} · n next event · Esc closes ",
        if injected { INJECTED } else { "" },
        d.id
    );
    let w = if graph.is_some() { GRAPH_W } else { 56 };
    if let Some(g) = &graph {
        lines.extend(graph_lines(g, snap, d.id, w.min(area.width) as usize, ctx));
    }
    let rect = centered(area, w, lines.len() as u16 + 2);
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .block(ctx.block(title, None))
        .render(rect, buf);
}

/// A time as the detail shows it.
fn t(x: SimTime) -> String {
    secs(x.as_secs_f64())
}

/// The names of clusters `cs`, joined.
fn names(snap: &Snapshot, cs: &[ClusterIdx]) -> String {
    cs.iter()
        .map(|&c| {
            snap.engine
                .clusters
                .get(c as usize)
                .map_or(c.to_string(), |v| v.name.clone())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A queued job: when it came, how long it waited, its size and estimate,
/// its planned start.
fn queued(q: &QueueRow, snap: &Snapshot, ctx: &Ctx) -> Vec<Line<'static>> {
    let now = snap.engine.now;
    let mut lines = vec![
        Line::styled("queued", ctx.head()),
        Line::raw(format!("submit     {}", t(q.submit))),
        Line::raw(format!("waited     {}", t(now - q.submit))),
        Line::raw(format!("size       {} = {}", q.size, parts(&q.components))),
        Line::raw(format!("estimate   {}", t(q.estimate))),
    ];
    if let Some(p) = q.planned_start {
        lines.push(Line::raw(format!("planned    {}", t(p))));
    }
    if let Some((_, why)) = snap.why.as_ref().filter(|(id, _)| *id == q.id) {
        // `why        waits: …`, wrapped under the values' column.
        let word = format!("{}:", why.verdict.word());
        let text = format!("{word} {}", why.text);
        for (i, l) in wrap(&text, 54 - 11).into_iter().enumerate() {
            lines.push(match (i, l.strip_prefix(&word)) {
                (0, Some(rest)) => Line::from(vec![
                    Span::raw("why        "),
                    Span::styled(word.clone(), ctx.head()),
                    Span::raw(rest.to_string()),
                ]),
                _ => Line::raw(format!("           {l}")),
            });
        }
    }
    lines
}

/// `text` in lines of at most `width` characters, broken between words
/// (a word longer than a line has a line of its own).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A running job: when it came and started, where it runs, when it is
/// expected to end, how fast, and whether it was started ahead.
fn running(r: &RunningRow, snap: &Snapshot, ctx: &Ctx) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::styled("running", ctx.good()),
        Line::raw(format!("submit     {}", t(r.submit))),
        Line::raw(format!(
            "start      {} (waited {})",
            t(r.start),
            t(r.start - r.submit)
        )),
        Line::raw(format!("size       {} = {}", r.size, parts(&r.components))),
        Line::raw(format!("clusters   {}", names(snap, &r.clusters))),
        Line::raw(format!(
            "estimate   {} → ends by {}",
            t(r.estimate),
            t(r.estimated_end)
        )),
    ];
    if let Some(s) = &r.slowdown {
        lines.push(Line::raw(format!(
            "slowdown   SP {:.2} · SC {:.2} · SD {:.2}",
            s.sp, s.sc, s.sd
        )));
    }
    if r.slowdown.is_some() || r.rate != 1.0 {
        lines.push(Line::raw(format!(
            "rate       {:.3} of dedicated speed",
            r.rate
        )));
    }
    if r.expired {
        lines.push(Line::styled(
            "! running past its estimate (expired window)",
            ctx.alert(),
        ));
    }
    if r.jumped_ahead && r.graph.is_none() {
        lines.push(Line::raw("started ahead of an earlier job"));
    }
    lines
}

/// An ended job: when it came, started and ended, where it ran, its
/// estimate and how long it actually ran.
fn ended(r: &JobRecord, snap: &Snapshot, ctx: &Ctx) -> Vec<Line<'static>> {
    vec![
        Line::styled("ended", ctx.dim()),
        Line::raw(format!("submit     {}", t(r.submit))),
        Line::raw(format!(
            "start      {} (waited {})",
            t(r.start),
            t(r.wait())
        )),
        Line::raw(format!(
            "end        {} (response {})",
            t(r.end),
            t(r.response())
        )),
        Line::raw(format!("size       {} = {}", r.size, parts(&r.components))),
        Line::raw(format!("clusters   {}", names(snap, &r.clusters))),
        Line::raw(format!("estimate   {}", t(r.estimate))),
        Line::raw(format!("actual     {}", t(r.elapsed()))),
    ]
}

/// The detail's width for a graph job (room for its Gantt chart).
const GRAPH_W: u16 = 64;

/// A graph job's lines: its family, its schedule's shape, the reservation
/// holding it (if one in the snapshot does) and its schedule as a small
/// Gantt chart, a row per target processor used, scaled to `width`.
fn graph_lines(
    g: &GraphJob,
    snap: &Snapshot,
    id: u64,
    width: usize,
    ctx: &Ctx,
) -> Vec<Line<'static>> {
    let sched = &g.schedule;
    let len = g.length_units();
    let mut lines = vec![
        Line::raw(format!("graph      {}", g.label)),
        Line::raw(format!(
            "schedule   {} subtasks · {} of {} TPEs · {} units · eff. {:.0} %",
            g.graph.len(),
            g.width(),
            g.tpes,
            len,
            100.0 * sched.efficiency(&g.graph)
        )),
    ];
    if let Some(r) = snap.engine.reservations.iter().find(|r| r.holds(id)) {
        lines.push(Line::raw(format!(
            "reserved   #{} · {} – {} · {} processors",
            r.id,
            secs(r.start.as_secs_f64()),
            secs(r.finish.as_secs_f64()),
            r.processors.len()
        )));
    }
    // Label `P0 ▕`, chart, `▏`, inside the frame.
    let chart = width.saturating_sub(2 + 5 + 1).max(1) as u64;
    let scale = len.div_ceil(chart).max(1);
    let cols = len.div_ceil(scale) as usize;
    lines.push(Line::styled(
        format!(
            "Gantt      a column per {scale} unit{} of {}",
            if scale == 1 { "" } else { "s" },
            secs(g.unit.as_secs_f64())
        ),
        ctx.dim(),
    ));
    for (q, row) in sched.rows().iter().enumerate() {
        if row.is_empty() {
            continue;
        }
        let mut spans = vec![Span::raw(format!("P{q:<2}")), Span::styled("▕", ctx.dim())];
        for c in 0..cols as u64 {
            // The subtask over the column's middle (twice the units).
            let mid = 2 * c * scale + scale;
            let on = row
                .iter()
                .copied()
                .find(|&t| 2 * sched.start[t] <= mid && mid < 2 * sched.end(&g.graph, t));
            spans.push(match on {
                Some(t) => Span::styled(
                    char::from_digit((t % 36) as u32, 36)
                        .unwrap_or('#')
                        .to_string(),
                    ctx.fg(super::job_color(t as u64)),
                ),
                None => Span::styled("·", ctx.dim()),
            });
        }
        spans.push(Span::styled("▏", ctx.dim()));
        lines.push(Line::from(spans));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::app::find_job;
    use crate::console::fixtures;
    use crate::console::panes::testing::text;

    fn draw(id: u64) -> String {
        let snap = fixtures::snapshot();
        let d = DetailState {
            id,
            info: find_job(&snap, id).unwrap(),
        };
        let area = Rect::new(0, 0, 60, 14);
        let mut buf = Buffer::empty(area);
        render(&snap, &d, &Ctx::default(), area, &mut buf);
        text(&buf)
    }

    #[test]
    fn a_job_on_a_network_shows_its_slowdown_and_rate() {
        let mut snap = fixtures::snapshot();
        let r = &mut snap.engine.running[0];
        r.slowdown = Some(crate::sched::slowdown::Slowdown {
            sp: 1.25,
            sc: 2.0,
            sd: 1.5,
        });
        r.rate = 1.0 / 1.5;
        let d = DetailState {
            id: 10,
            info: find_job(&snap, 10).unwrap(),
        };
        let area = Rect::new(0, 0, 60, 16);
        let mut buf = Buffer::empty(area);
        render(&snap, &d, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("slowdown   SP 1.25 · SC 2.00 · SD 1.50"), "{t}");
        assert!(t.contains("rate       0.667 of dedicated speed"), "{t}");
    }

    #[test]
    fn queued_running_and_ended_jobs() {
        let t = draw(20);
        assert!(t.contains("Job 20"), "{t}");
        assert!(t.contains("queued"), "{t}");
        assert!(t.contains("size       12 = 6+6"), "{t}");
        let t = draw(10);
        assert!(t.contains("clusters   c0, c1"), "{t}");
        assert!(t.contains("ends by 140.0 s"), "{t}");
        let t = draw(fixtures::INJ1);
        assert!(t.contains("Job ◆1000000001"), "{t}");
        assert!(t.contains("expired window"), "{t}");
        assert!(!t.contains("slowdown"), "{t}");
        let t = draw(3);
        assert!(t.contains("ended"), "{t}");
        assert!(t.contains("actual     40.0 s"), "{t}");
    }
}
