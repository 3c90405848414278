//! Head & backfill: why the head of the queue waits. Under a backfilling
//! policy, its reservation (the shadow time), the extra processors and every
//! running job's window up to its estimated end; under FPFS, the head's
//! jumps against maxJumps; under PAS, its last package. Windows past their
//! estimate are marked expired.

use super::{AHEAD, Ctx, EXPIRED, HEAD, INJECTED, reservations};
use crate::console::app::{Pane, windows};
use crate::console::format::{parts, short};
use crate::console::snapshot::Snapshot;
use crate::engine::RunningRow;
use crate::model::SimTime;
use crate::sched::ReservationView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

/// Width of the id column of the window rows.
const ID_W: usize = 11;

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let e = &snap.engine;
    let panel = &e.policy_state.panel;
    let title = format!(" Head & {} ", panel.title.as_deref().unwrap_or("backfill"));
    let block = ctx.block(title.as_str(), Some(Pane::Backfill));
    let inner = block.inner(area);
    block.render(area, buf);
    let now = e.now;
    let (mut lines, shadow) = head_lines(snap, ctx, inner.height as usize);
    let plan = reservations::plan(snap);
    if let Some(p) = plan {
        lines.extend(reservations::summary(p, snap, ctx));
        if e.reservations.is_empty() {
            lines.push(Line::styled("no reservation in force", ctx.dim()));
        }
    }
    // Windows: each running job from now to its estimated end.
    let running = windows(snap);
    if let Some(alert) = &panel.alert {
        lines.push(Line::styled(alert.clone(), ctx.alert()));
    }
    // Under reservations, their processors over time first: whole
    // reservations, leaving a third of the rows to the windows.
    let after_axis = (inner.height as usize).saturating_sub(lines.len() + 1);
    let shown = if plan.is_some() {
        let needed: usize = e
            .reservations
            .iter()
            .map(|r| r.processors.len().max(1))
            .sum();
        let keep = running.len().min(after_axis / 3);
        reservations::fitting(snap, needed.min(after_axis.saturating_sub(keep)))
    } else {
        Vec::new()
    };
    let horizon = running
        .iter()
        .map(|r| r.estimated_end)
        .chain(shadow)
        .chain(shown.iter().map(|r| r.finish))
        .map(|t| (t - now).as_secs_f64())
        .fold(10.0_f64, f64::max);
    let geo = Geometry::new(
        nice(horizon),
        inner.width as usize,
        shadow.map(|t| (t - now).as_secs_f64()),
    );
    lines.push(axis(&geo, ctx));
    if !shown.is_empty() {
        let left = (inner.height as usize).saturating_sub(lines.len());
        lines.extend(reserved_rows(&shown, snap, ctx, &geo, after_axis, left));
    }
    // The legend where a row is left after the windows.
    let legend = plan.is_some() && !shown.is_empty();
    let room = (inner.height as usize)
        .saturating_sub(lines.len())
        .saturating_sub(legend as usize);
    lines.extend(window_lines(&running, snap, ctx, &geo, room));
    if legend && lines.len() < inner.height as usize {
        lines.push(Line::styled(reservations::legend(), ctx.dim()));
    }
    Paragraph::new(lines).style(Style::new()).render(inner, buf);
}

/// The running jobs' windows in `room` rows, the selected one in view
/// while the pane has the focus, and a last row saying how many more run.
fn window_lines(
    running: &[&RunningRow],
    snap: &Snapshot,
    ctx: &Ctx,
    geo: &Geometry,
    room: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let shown = if running.len() > room {
        room.saturating_sub(1)
    } else {
        running.len()
    };
    let focused = ctx.focus == Pane::Backfill;
    let selected = ctx.selected_running.min(running.len().saturating_sub(1));
    let offset = if focused && selected >= shown {
        selected + 1 - shown
    } else {
        0
    };
    for (i, r) in running.iter().enumerate().skip(offset).take(shown) {
        let mut line = window_row(r, snap, ctx, geo);
        if focused && i == selected {
            line = line.style(Style::new().add_modifier(Modifier::REVERSED));
        }
        lines.push(line);
    }
    if shown < running.len() {
        lines.push(Line::styled(
            format!("… {} more running", running.len() - shown),
            ctx.dim(),
        ));
    }
    lines
}

/// The lines above the windows: the head, its reservation and the extra
/// processors under backfilling, the policy's lines about the head
/// otherwise, then the policy's own state in its share of the pane; and
/// the head's reservation (the shadow time), if it has one.
fn head_lines(snap: &Snapshot, ctx: &Ctx, height: usize) -> (Vec<Line<'static>>, Option<SimTime>) {
    let e = &snap.engine;
    let panel = &e.policy_state.panel;
    let now = e.now;
    let mut lines: Vec<Line<'static>> = Vec::new();
    // The job the policy plans for: the one holding the reservation where
    // the policy names it (a policy that reorders the queue, such as
    // shortest job first, reserves for another than the oldest), else the
    // first in the queue.
    let planned = e
        .backfill
        .as_ref()
        .and_then(|bf| bf.head)
        .and_then(|id| e.queue.iter().find(|q| q.id == id));
    match planned.or(e.queue.first()) {
        Some(h) => lines.push(Line::from(vec![
            Span::styled(format!("{HEAD} head "), ctx.head()),
            Span::styled(
                format!("{}{}", if h.injected { INJECTED } else { "" }, h.id),
                ctx.head(),
            ),
            Span::raw(format!(
                " · {}{} · waited {} s",
                h.size,
                match h.components.is_empty() {
                    true => String::new(),
                    false => format!(" = {}", parts(&h.components)),
                },
                short((now - h.submit).as_secs_f64())
            )),
        ])),
        None => lines.push(Line::styled("queue empty: nothing waits", ctx.dim())),
    }
    let mut shadow = None;
    if let Some(bf) = &e.backfill {
        match bf.shadow {
            Some(t) => {
                shadow = Some(t);
                lines.push(Line::from(vec![
                    Span::raw("reserved at "),
                    Span::styled(format!("+{} s", short((t - now).as_secs_f64())), ctx.head()),
                    Span::raw(" (shadow time)"),
                ]));
            }
            None if !e.queue.is_empty() => {
                lines.push(Line::raw("no reservation: the head can start"))
            }
            None => {}
        }
        let extra: Vec<String> = bf
            .extra
            .iter()
            .zip(&e.clusters)
            .map(|(x, c)| format!("{} {x}", c.name))
            .collect();
        if !extra.is_empty() {
            lines.push(Line::raw(format!("extra processors: {}", extra.join(", "))));
        }
        if bf.reserved > 1 {
            lines.push(Line::raw(format!(
                "{} queued jobs hold reservations",
                bf.reserved
            )));
        }
    } else if !e.queue.is_empty() {
        lines.extend(panel.head_lines.iter().map(|l| ctx.line(l)));
    }
    // The policy's own state: at most its share of the pane, the windows
    // below keep the rest.
    let room = (height * panel.lines.share as usize / 100).saturating_sub(lines.len());
    lines.extend(panel.lines.fitted(room).iter().map(|l| ctx.line(l)));
    (lines, shadow)
}

/// One running job's window: its mark and id, a bar to its estimated end
/// (or how long ago that was), then what happened to it.
fn window_row(r: &RunningRow, snap: &Snapshot, ctx: &Ctx, geo: &Geometry) -> Line<'static> {
    let e = &snap.engine;
    let now = e.now;
    let (bar_w, shadow_col, inner_width) = (geo.bar_w, geo.shadow_col, geo.width);
    let col = |t: f64| geo.col(t);
    let mark = if r.expired {
        Span::styled(EXPIRED, ctx.alert())
    } else if r.jumped_ahead {
        Span::styled(AHEAD, ctx.fg(Color::Magenta))
    } else if r.injected {
        Span::styled(INJECTED, ctx.job(r.id))
    } else {
        Span::raw(" ")
    };
    let id = format!(
        "{}{}",
        if r.injected && (r.expired || r.jumped_ahead) {
            INJECTED
        } else {
            ""
        },
        r.id
    );
    let mut spans = vec![
        mark,
        Span::styled(format!("{id:>w$} ", w = ID_W - 1), ctx.job(r.id)),
    ];
    // What follows the window: backfilled, folded, aborted. A long
    // window is cut short so that these stay on screen.
    let tail = tail_marks(r, snap, ctx);
    // Only a row with a fold or abort mark is cut (others draw as
    // they always have).
    let marked = r.fold > 1 || r.folds > 0 || r.requeues > 0;
    let tail_w: usize = tail.iter().map(|s| s.content.chars().count()).sum();
    if r.expired {
        spans.push(Span::styled(
            format!(
                "expired {} s ago",
                short((now - r.estimated_end).as_secs_f64())
            ),
            ctx.alert(),
        ));
    } else {
        let room = inner_width.saturating_sub(ID_W + 1 + tail_w).max(1);
        let n = col((r.estimated_end - now).as_secs_f64()).max(1);
        let n = if marked { n.min(room) } else { n };
        let mut bar = String::new();
        for i in 0..bar_w.max(n) {
            if i < n {
                bar.push('█');
            } else if Some(i) == shadow_col {
                bar.push('┆');
            } else {
                bar.push(' ');
            }
        }
        spans.push(Span::styled(bar.trim_end().to_string(), ctx.job(r.id)));
    }
    spans.extend(tail);
    Line::from(spans)
}

/// What follows a running job's window: reserved, backfilled or jumped,
/// folded, aborted.
fn tail_marks(r: &RunningRow, snap: &Snapshot, ctx: &Ctx) -> Vec<Span<'static>> {
    let e = &snap.engine;
    let mut tail: Vec<Span> = Vec::new();
    if !r.expired && e.reservations.iter().any(|x| x.holds(r.id)) {
        tail.push(Span::styled(" reserved", ctx.dim()));
    } else if !r.expired && r.jumped_ahead {
        tail.push(Span::styled(
            if e.backfill.is_some() {
                " backfilled"
            } else {
                " jumped"
            },
            ctx.fg(Color::Magenta),
        ));
    }
    if r.fold > 1 || r.folds > 0 {
        tail.push(Span::styled(
            match r.fold {
                1 => format!(" folded {}× (expanded)", r.folds),
                f => format!(" folded ×{f}"),
            },
            ctx.alert(),
        ));
    }
    if r.requeues > 0 {
        tail.push(Span::styled(
            format!(" aborted {}×", r.requeues),
            ctx.alert(),
        ));
    }
    tail
}

/// The reservations `shown` over the windows' time axis, in `room` rows,
/// and how many others there are where `left` rows allow.
fn reserved_rows(
    shown: &[&ReservationView],
    snap: &Snapshot,
    ctx: &Ctx,
    geo: &Geometry,
    room: usize,
    left: usize,
) -> Vec<Line<'static>> {
    let mut rows = reservations::rows(
        shown,
        snap,
        ctx,
        ID_W + 1,
        geo.bar_w,
        geo.horizon / geo.bar_w as f64,
        room,
    );
    let hidden = snap.engine.reservations_total - shown.len();
    if hidden > 0 && rows.len() < left {
        rows.push(Line::styled(
            format!(
                "… {hidden} more reservation{}",
                if hidden == 1 { "" } else { "s" }
            ),
            ctx.dim(),
        ));
    }
    rows
}

/// The time axis from now to the horizon, the shadow time marked on it.
fn axis(geo: &Geometry, ctx: &Ctx) -> Line<'static> {
    let mut line = String::new();
    for i in 0..geo.bar_w {
        line.push(if i == 0 {
            '├'
        } else if Some(i) == geo.shadow_col {
            '┬'
        } else {
            '─'
        });
    }
    line.push('▶');
    Line::from(vec![
        Span::raw(format!("{:>w$} ", "now", w = ID_W)),
        Span::styled(line, ctx.dim()),
        Span::styled(format!(" +{} s", short(geo.horizon)), ctx.dim()),
    ])
}

/// Where the windows are drawn: the bar's width, the shadow time's
/// column, the pane's width and the time the bar spans.
struct Geometry {
    bar_w: usize,
    shadow_col: Option<usize>,
    width: usize,
    horizon: f64,
}

impl Geometry {
    /// The windows' geometry in a pane `width` wide over `horizon` seconds,
    /// with the shadow time `shadow` seconds from now.
    fn new(horizon: f64, width: usize, shadow: Option<f64>) -> Geometry {
        let label = format!(" +{} s", short(horizon));
        let bar_w = width
            .saturating_sub(ID_W + 2 + label.chars().count())
            .max(4);
        let mut geo = Geometry {
            bar_w,
            shadow_col: None,
            width,
            horizon,
        };
        geo.shadow_col = shadow.map(|t| geo.col(t).min(bar_w - 1));
        geo
    }

    /// The column of `t` seconds from now.
    fn col(&self, t: f64) -> usize {
        ((t / self.horizon) * self.bar_w as f64)
            .round()
            .clamp(0.0, self.bar_w as f64) as usize
    }
}

/// A round number at least `x`: 10, 20, 50, 100, …
fn nice(x: f64) -> f64 {
    let mut step = 10.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if step * m >= x {
                return step * m;
            }
        }
        step *= 10.0;
        if step > 1e12 {
            return x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::{find, text};

    fn draw(snap: &Snapshot, ctx: &Ctx) -> Buffer {
        let area = Rect::new(0, 0, 50, 10);
        let mut buf = Buffer::empty(area);
        render(snap, ctx, area, &mut buf);
        buf
    }

    #[test]
    fn fpfs_shows_the_heads_jumps_against_max_jumps() {
        let buf = draw(&fixtures::snapshot(), &Ctx::default());
        let t = text(&buf);
        assert!(t.contains("head 20 · 12 = 6+6 · waited 40.0 s"), "{t}");
        assert!(t.contains("jumped 3 of 10 ▰▰▰▱▱▱▱▱▱▱"), "{t}");
        assert!(
            t.contains("needs 2 clusters, widest 6; 0 have ≥ 6 free"),
            "{t}"
        );
        let (x, y) = find(&buf, "head").unwrap();
        assert_eq!(buf[(x, y)].fg, Color::Yellow);
    }

    #[test]
    fn backfill_shows_shadow_extra_windows_and_expired_ones() {
        let mut snap = fixtures::snapshot();
        snap.engine = fixtures::with_backfill(snap.engine);
        let buf = draw(&snap, &Ctx::default());
        let t = text(&buf);
        assert!(t.contains("reserved at +30.0 s (shadow time)"), "{t}");
        assert!(t.contains("extra processors: c0 2, c1 0"), "{t}");
        assert!(t.contains("┬"), "the shadow time is on the axis: {t}");
        assert!(t.contains("+50.0 s"), "{t}");
        // The backfilled injected job is past its estimate: red, with a glyph.
        let (x, y) = find(&buf, "expired 20.0 s ago").unwrap();
        assert_eq!(buf[(x, y)].fg, Color::Red);
        assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
        assert_eq!(buf[(1, y)].symbol(), EXPIRED);
        // Job 10's window runs to its estimated end, 40 s from now.
        assert!(t.contains("10 ███"), "{t}");
    }

    #[test]
    fn moldable_marks_folds_aborts_and_the_policys_alert() {
        let mut snap = fixtures::snapshot();
        snap.engine = fixtures::with_backfill(snap.engine);
        snap.engine.policy_state.panel.alert =
            Some("! window expired: every running job was backfilled".into());
        snap.engine.running[0].fold = 4;
        snap.engine.running[0].folds = 1;
        snap.engine.running[1].requeues = 2;
        let area = Rect::new(0, 0, 70, 12);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        let (x, y) = find(&buf, "window expired: every running job was backfilled")
            .expect("the policy's alert is drawn");
        assert_eq!(buf[(x, y)].fg, Color::Red, "in the alert style");
        assert!(t.contains("folded ×4"), "{t}");
        assert!(t.contains("aborted 2×"), "{t}");
        snap.engine.policy_state.panel.alert = None;
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        assert!(!text(&buf).contains("every running job"));
    }

    #[test]
    fn expired_window_is_readable_without_colour() {
        let mut snap = fixtures::snapshot();
        snap.engine = fixtures::with_backfill(snap.engine);
        let ctx = Ctx {
            color: false,
            ..Ctx::default()
        };
        let buf = draw(&snap, &ctx);
        let (x, y) = find(&buf, "expired").unwrap();
        assert_eq!(buf[(1, y)].symbol(), EXPIRED);
        assert_eq!(buf[(x, y)].fg, Color::Reset);
    }

    #[test]
    fn the_selected_window_is_reversed_when_focused() {
        let ctx = Ctx {
            focus: Pane::Backfill,
            selected_running: 1,
            ..Ctx::default()
        };
        let buf = draw(&fixtures::snapshot(), &ctx);
        let (x, y) = find(&buf, "10 ███").unwrap();
        assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
        let (x, y) = find(&buf, "expired").unwrap();
        assert!(!buf[(x, y)].modifier.contains(Modifier::REVERSED));
    }

    #[test]
    fn nice_rounds_up() {
        assert_eq!(nice(3.0), 10.0);
        assert_eq!(nice(40.0), 50.0);
        assert_eq!(nice(101.0), 200.0);
    }
}
