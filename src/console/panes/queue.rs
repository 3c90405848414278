//! The queue: waiting jobs in queue order, the head first and marked.

use super::{Ctx, HEAD, INJECTED};
use crate::console::app::Pane;
use crate::console::format::{int, parts, short};
use crate::console::hits::{Queued, Spot};
use crate::console::snapshot::Snapshot;
use crate::engine::QueueRow;
use crate::sched::Verdict;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget};

/// Draws the queue and returns where each job's row went (for the mouse).
pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) -> Vec<Spot<Queued>> {
    let e = &snap.engine;
    let title = format!(" Queue {} ", int(e.queue.len() as u64));
    let block = ctx.block(title, Some(Pane::Queue));
    let inner = block.inner(area);
    block.render(area, buf);
    if e.queue.is_empty() {
        Line::styled(" empty: nothing waits", ctx.dim()).render(inner, buf);
        return Vec::new();
    }
    let selected = ctx.selected.min(e.queue.len() - 1);
    let why = why_line(snap, ctx, selected);
    let why_h = why_height(
        why.as_ref().map(|(text, _)| text.as_str()),
        e.queue.len(),
        inner,
    );
    let (inner, why_area) = {
        let (top, bottom) = (inner.height - why_h, why_h);
        (
            Rect {
                height: top,
                ..inner
            },
            Rect {
                y: inner.y + top,
                height: bottom,
                ..inner
            },
        )
    };
    if let Some((text, verdict)) = why.filter(|_| why_h > 0) {
        render_why(&text, verdict, ctx, why_area, buf);
    }
    let visible = inner.height.saturating_sub(1) as usize;
    let offset = if selected >= visible {
        selected + 1 - visible
    } else {
        0
    };
    // Rows the snapshot carries (the console asks for those around the
    // selection; a jump far away shows the rest on the next snapshot).
    let shown = || {
        e.queue
            .rows()
            .skip_while(move |(i, _)| *i < offset)
            .take_while(move |(i, _)| *i < offset + visible)
    };
    render_table(snap, ctx, selected, shown, inner, buf);
    // The table's rows, one a line under its header.
    shown()
        .enumerate()
        .map(|(k, (pos, q))| {
            let y = inner.y + 1 + k as u16;
            Spot::new(
                Rect::new(inner.x, y, inner.width, 1),
                Queued { pos, id: q.id },
            )
        })
        .collect()
}

/// The lines the policy's reason for the selected job takes under the
/// rows of a queue of `queue_len` jobs in `inner`: two lines where the
/// pane is tall enough, one where it is short, none where it holds only a
/// few rows; up to four where the rows leave room (a lesson's short queue
/// at 80×24).
fn why_height(why: Option<&str>, queue_len: usize, inner: Rect) -> u16 {
    let why_h = match (why.is_some(), inner.height) {
        (false, _) | (_, 0..=4) => 0,
        (_, 5..=9) => 1,
        _ => 2,
    };
    let spare = inner
        .height
        .saturating_sub(why_h)
        .saturating_sub(1 + queue_len.min(usize::from(u16::MAX)) as u16);
    match why {
        Some(text) if why_h > 0 => {
            let needs = crate::console::panes::detail::wrap(text, inner.width as usize).len();
            let needs = needs.min(usize::from(WHY_MOST)) as u16;
            (why_h + spare).min(needs).max(why_h)
        }
        _ => 0,
    }
}

/// Draws the reason under the rows: `why 12` dim and bold, the verdict
/// in its tone, the reason plain.
fn render_why(text: &str, verdict: Style, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let lines = fitted(text, area.width as usize, area.height as usize);
    let head_len = text.find(':').map_or(0, |i| i + 1);
    let id_end = "why ".len() + text[4..].find(' ').unwrap_or(0);
    let drawn: Vec<Line> = lines
        .into_iter()
        .enumerate()
        .map(|(n, l)| {
            if n == 0 && head_len > id_end && l.len() >= head_len {
                Line::from(vec![
                    Span::styled(
                        l[..id_end].to_string(),
                        ctx.dim().add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(l[id_end..head_len].to_string(), verdict),
                    Span::raw(l[head_len..].to_string()),
                ])
            } else {
                Line::raw(l)
            }
        })
        .collect();
    Paragraph::new(drawn).render(area, buf);
}

/// Draws the table of the rows `shown` gives, under its header, in
/// columns as wide as those rows need so that a narrow pane keeps the
/// times.
fn render_table<'a, I>(
    snap: &Snapshot,
    ctx: &Ctx,
    selected: usize,
    shown: impl Fn() -> I,
    area: Rect,
    buf: &mut Buffer,
) where
    I: Iterator<Item = (usize, &'a QueueRow)>,
{
    let e = &snap.engine;
    // The policy's own column: planned starts under backfilling, the head's
    // jumps under FPFS.
    let planned = e.backfill.is_some();
    let policy_col = if planned {
        "start"
    } else {
        e.policy_state.panel.note_column.as_deref().unwrap_or("")
    };
    let id_w = shown()
        .map(|(i, q)| q.id.to_string().len() + usize::from(q.injected && i == 0))
        .max()
        .unwrap_or(0)
        .max(3);
    let parts_w = shown()
        .map(|(_, q)| parts(&q.components).len())
        .max()
        .unwrap_or(0)
        .clamp(5, 12);
    let size_w = shown()
        .map(|(_, q)| q.size.to_string().len())
        .max()
        .unwrap_or(0)
        .max(4);
    let row = RowContext {
        snap,
        ctx,
        planned,
        selected,
    };
    let rows = shown().map(|(i, q)| row.of(i, q));
    // The policy's column comes before the times so that it survives a
    // narrow pane.
    let header = Row::new(vec![
        "", "job", "size", "parts", policy_col, "waited", "est",
    ])
    .style(ctx.dim().add_modifier(Modifier::BOLD));
    // A pane too narrow for every column drops the last ones whole rather
    // than squeezing them all (a squeezed job id reads as another job's).
    let mut widths = vec![1, id_w as u16, size_w as u16, parts_w as u16, 6, 6, 6];
    while widths.len() > 2 && widths.iter().sum::<u16>() + widths.len() as u16 - 1 > area.width {
        widths.pop();
    }
    Table::new(rows, widths.into_iter().map(Constraint::Length))
        .header(header)
        .column_spacing(1)
        .render(area, buf);
}

/// The most lines the reason under the rows takes.
const WHY_MOST: u16 = 4;

/// `why 12 waits: …`, the policy's reason for the queued job at position
/// `selected`, when the snapshot carries the reason for that job.
pub fn why_line(snap: &Snapshot, ctx: &Ctx, selected: usize) -> Option<(String, Style)> {
    let (id, why) = snap.why.as_ref()?;
    let row = snap.engine.queue.get(selected)?;
    if row.id != *id {
        return None;
    }
    let verdict = match why.verdict {
        Verdict::Starts => ctx.good(),
        Verdict::Waits => ctx.head(),
        Verdict::Unknown => ctx.dim(),
    };
    Some((
        format!("why {id} {}: {}", why.verdict.word(), why.text),
        verdict,
    ))
}

/// `text` in at most `rows` lines of `width`: where it does not fit, the
/// last line ends with `… ⏎` (the job's detail shows it whole).
fn fitted(text: &str, width: usize, rows: usize) -> Vec<String> {
    let mut lines = crate::console::panes::detail::wrap(text, width);
    if lines.len() > rows {
        lines.truncate(rows);
        if let Some(last) = lines.last_mut() {
            let keep = width.saturating_sub(4);
            let cut: String = last.chars().take(keep).collect();
            *last = format!("{} … ⏎", cut.trim_end());
        }
    }
    lines
}

/// What a queue row is drawn with.
struct RowContext<'a> {
    snap: &'a Snapshot,
    ctx: &'a Ctx,
    /// Planned starts in the policy's column (under backfilling).
    planned: bool,
    selected: usize,
}

impl RowContext<'_> {
    /// The row of the job `q`, `i`th in the queue: its mark, id, size,
    /// parts, the policy's column, how long it waited and its estimate.
    fn of(&self, i: usize, q: &QueueRow) -> Row<'static> {
        let (e, ctx) = (&self.snap.engine, self.ctx);
        let now = e.now;
        let mark = if i == 0 {
            Span::styled(HEAD, ctx.head())
        } else if q.injected {
            Span::styled(INJECTED, ctx.job(q.id))
        } else {
            Span::raw(" ")
        };
        let id = if q.injected && i == 0 {
            format!("{INJECTED}{}", q.id)
        } else {
            q.id.to_string()
        };
        let own = if self.planned {
            q.planned_start
                .map(|s| format!("+{}", short((s - now).as_secs_f64())))
                .unwrap_or_else(|| "–".into())
        } else if i == 0 {
            e.policy_state.panel.head_note.clone().unwrap_or_default()
        } else {
            String::new()
        };
        let mut style = Style::new();
        if i == 0 {
            style = ctx.head();
        }
        if i == self.selected && ctx.focus == Pane::Queue {
            style = style.add_modifier(Modifier::REVERSED);
        }
        Row::new(vec![
            Cell::from(mark),
            Cell::from(Span::styled(id, ctx.job(q.id))),
            Cell::from(q.size.to_string()),
            Cell::from(parts(&q.components)),
            Cell::from(own),
            Cell::from(short((now - q.submit).as_secs_f64())),
            Cell::from(short(q.estimate.as_secs_f64())),
        ])
        .style(style)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::{find, text};
    use ratatui::style::Color;

    /// Each job's spot is the row that shows its id, under the header,
    /// and a selection far down the queue scrolls the spots with the rows.
    #[test]
    fn the_rows_returned_are_the_rows_drawn() {
        let mut snap = fixtures::snapshot();
        let base = snap.engine.queue.get(0).unwrap().clone();
        for id in 0..30 {
            snap.engine.queue.push(QueueRow {
                id: 500 + id,
                injected: false,
                ..base.clone()
            });
        }
        let len = snap.engine.queue.len();
        for selected in [0, len - 1] {
            let ctx = Ctx {
                selected,
                ..Ctx::default()
            };
            let area = Rect::new(3, 2, 50, 9);
            let mut buf = Buffer::empty(Rect::new(0, 0, 60, 14));
            let spots = render(&snap, &ctx, area, &mut buf);
            assert!(!spots.is_empty());
            assert!(spots.iter().any(|s| s.what.pos == selected));
            for s in &spots {
                assert_eq!(s.area.height, 1);
                assert!(s.area.y > area.y + 1 && s.area.y < area.bottom() - 1);
                assert_eq!((s.area.x, s.area.width), (area.x + 1, area.width - 2));
                let row: String = (s.area.x..s.area.right())
                    .map(|x| buf[(x, s.area.y)].symbol())
                    .collect();
                let id = row.split_whitespace().find(|w| w.parse::<u64>().is_ok());
                assert_eq!(id, Some(s.what.id.to_string().as_str()), "{row}");
                assert_eq!(snap.engine.queue.get(s.what.pos).unwrap().id, s.what.id);
            }
        }
    }

    fn draw(snap: &Snapshot, ctx: &Ctx) -> Buffer {
        let area = Rect::new(0, 0, 60, 8);
        let mut buf = Buffer::empty(area);
        render(snap, ctx, area, &mut buf);
        buf
    }

    /// An 80-column console gives the queue 40 columns: long job ids stay
    /// whole and the last columns give way.
    #[test]
    fn a_narrow_pane_drops_columns_instead_of_cutting_ids() {
        let mut snap = fixtures::snapshot();
        let row = snap.engine.queue.get(1).cloned().unwrap();
        for i in 0..2 {
            let mut r = row.clone();
            r.id = 81_620 + i;
            snap.engine.queue.push(r);
        }
        let ctx = Ctx {
            selected: snap.engine.queue.len() - 1,
            ..Ctx::default()
        };
        let area = Rect::new(0, 0, 40, 8);
        let mut buf = Buffer::empty(area);
        render(&snap, &ctx, area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("81620") && t.contains("81621"), "{t}");
        assert!(!t.contains(" est"), "{t}");
        // A wide pane keeps every column.
        assert!(text(&draw(&snap, &ctx)).contains("est"));
    }

    #[test]
    fn head_is_marked_and_bold_with_its_jumps() {
        let snap = fixtures::snapshot();
        let buf = draw(&snap, &Ctx::default());
        let t = text(&buf);
        assert!(t.contains("Queue 3"), "{t}");
        assert!(t.contains("jumps"), "{t}");
        assert!(t.contains("3/10"), "{t}");
        let (x, y) = find(&buf, HEAD).unwrap();
        assert_eq!(buf[(x, y)].fg, Color::Yellow);
        assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
        // The selected row (the head, with the focus) is reversed.
        assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
        // The injected job carries its mark.
        assert!(t.contains(INJECTED), "{t}");
        assert!(t.contains("8+8"), "{t}");
    }

    #[test]
    fn planned_starts_replace_jumps_under_backfilling() {
        let mut snap = fixtures::snapshot();
        snap.engine = fixtures::with_backfill(snap.engine);
        let buf = draw(&snap, &Ctx::default());
        let t = text(&buf);
        assert!(t.contains("start"), "{t}");
        assert!(t.contains("+30.0"), "{t}");
    }

    #[test]
    fn scrolls_to_keep_the_selection_visible() {
        let mut snap = fixtures::snapshot();
        let row = snap.engine.queue.get(1).cloned().unwrap();
        for i in 0..50 {
            let mut r = row.clone();
            r.id = 500 + i;
            snap.engine.queue.push(r);
        }
        let ctx = Ctx {
            selected: 40,
            ..Ctx::default()
        };
        let t = text(&draw(&snap, &ctx));
        assert!(t.contains("537"), "{t}");
        assert!(!t.contains(HEAD), "{t}");
    }

    #[test]
    fn no_color_keeps_the_glyphs() {
        let snap = fixtures::snapshot();
        let ctx = Ctx {
            color: false,
            ..Ctx::default()
        };
        let buf = draw(&snap, &ctx);
        let (x, y) = find(&buf, HEAD).unwrap();
        assert_eq!(buf[(x, y)].fg, Color::Reset);
        assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
    }

    /// A short queue leaves rows for the reason: it takes up to four
    /// lines there, whole, instead of one cut short; a long queue keeps
    /// its rows and the reason its one line.
    #[test]
    fn the_reason_takes_the_rows_a_short_queue_leaves() {
        let mut snap = fixtures::snapshot();
        let head = snap.engine.queue.get(0).unwrap().id;
        let reason = "It is the head and does not fit now: it needs 4 processors; \
                      1 is free. Its reservation is at +19.0 s, the shadow time.";
        snap.why = Some((head, crate::sched::Explanation::waits(reason)));
        let area = Rect::new(0, 0, 40, 10);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("time."), "the whole reason:\n{t}");
        assert!(!t.contains("⏎"), "{t}");
        // Thirty more jobs: one line, cut.
        let base = snap.engine.queue.get(1).unwrap().clone();
        for id in 0..30 {
            snap.engine.queue.push(QueueRow {
                id: 500 + id,
                ..base.clone()
            });
        }
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("⏎") && !t.contains("time."), "{t}");
    }
}
