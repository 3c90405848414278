//! The two status lines: what runs, when, how fast, under which policy.

use super::Ctx;
use crate::console::format::{int, secs};
use crate::console::snapshot::{Snapshot, Speed};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let e = &snap.engine;
    let state = if e.done {
        Span::styled("■ finished", ctx.fg(Color::Gray))
    } else if snap.paused {
        Span::styled("⏸ paused", ctx.alert())
    } else {
        Span::styled("▶ running", ctx.good())
    };
    let speed = match snap.speed {
        Speed::Rate(_) => snap.speed.label(),
        Speed::Max => "×max (flat out)".to_string(),
    };
    let right = format!("t = {}   {speed}   ", secs(e.now.as_secs_f64()));
    let left = format!(
        " schedscope · {} · {} · seed {}",
        snap.scenario, snap.shape, snap.seed
    );
    let width = area.width as usize;
    let used = left.chars().count() + right.chars().count() + state.width();
    let pad = " ".repeat(width.saturating_sub(used + 1));
    let line1 = Line::from(vec![
        Span::styled(left, ctx.style(Style::new().add_modifier(Modifier::BOLD))),
        Span::raw(pad),
        Span::raw(right),
        state,
    ]);
    let c = &e.counters;
    let queued = e.queue.len() as u64;
    let running = e.running.len() as u64;
    let sep = Span::styled(" │ ", ctx.dim());
    let rate = (snap.events_per_sec > 0.0).then(|| format!("{} ev/s", events(snap.events_per_sec)));
    // The full line, or a compact one when the terminal is narrow.
    let full = |compact: bool| -> Vec<Span<'static>> {
        let estimates = if compact {
            format!("est. {}", e.estimates)
        } else {
            format!("estimates {} (new arrivals)", e.estimates)
        };
        let counts = if compact {
            format!(
                "arr {}  run {}  queue {}  done {}",
                int(c.arrived),
                int(running),
                int(queued),
                int(c.finished)
            )
        } else {
            format!(
                "arrived {}  running {}  queued {}  done {}",
                int(c.arrived),
                int(running),
                int(queued),
                int(c.finished)
            )
        };
        let mut spans = vec![
            Span::raw(if compact { " " } else { " policy " }),
            Span::styled(e.policy_label.clone(), ctx.fg(Color::Cyan)),
            sep.clone(),
            Span::raw(estimates),
            sep.clone(),
            Span::raw(counts),
        ];
        if let Some(r) = &rate {
            spans.push(sep.clone());
            spans.push(Span::raw(r.clone()));
        }
        spans
    };
    let mut spans = full(false);
    if spans.iter().map(|s| s.width()).sum::<usize>() > width {
        spans = full(true);
    }
    Paragraph::new(vec![line1, Line::from(spans)]).render(area, buf);
}

fn events(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.0} k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::{find, text};

    #[test]
    fn narrow_terminals_get_the_compact_line() {
        let mut snap = fixtures::snapshot();
        snap.engine.estimates = "±10 % uniform error".into();
        snap.events_per_sec = 148_000.0;
        let area = Rect::new(0, 0, 110, 2);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("est. ±10 % uniform error"), "{t}");
        assert!(t.contains("done 4 │ 148 k ev/s"), "{t}");
    }

    #[test]
    fn shows_time_speed_policy_and_counts() {
        let mut snap = fixtures::snapshot();
        snap.paused = true;
        snap.events_per_sec = 48_000.0;
        let area = Rect::new(0, 0, 150, 2);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("schedscope · test · 2×8 · seed 7"), "{t}");
        assert!(t.contains("t = 100.0 s   ×50   ⏸ paused"), "{t}");
        assert!(t.contains("FPFS(maxJumps 10) + worst fit"), "{t}");
        assert!(t.contains("queued 3"), "{t}");
        assert!(t.contains("48 k ev/s"), "{t}");
        let (x, y) = find(&buf, "⏸").unwrap();
        assert_eq!(buf[(x, y)].fg, Color::Red);
    }
}
