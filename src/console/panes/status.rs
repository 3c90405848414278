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
    let mut spans = vec![
        Span::raw(" policy "),
        Span::styled(e.policy_label.clone(), ctx.fg(Color::Cyan)),
        sep.clone(),
        Span::raw(format!("estimates {} (new arrivals)", e.estimates)),
        sep.clone(),
        Span::raw(format!(
            "arrived {}  running {}  queued {}  done {}",
            int(c.arrived),
            int(running),
            int(queued),
            int(c.finished)
        )),
    ];
    if snap.events_per_sec > 0.0 {
        spans.push(sep);
        spans.push(Span::raw(format!("{} ev/s", events(snap.events_per_sec))));
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
