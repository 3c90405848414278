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
    let width = area.width as usize;
    let line1 = first_line(snap, ctx, width);
    let e = &snap.engine;
    let c = &e.counters;
    let queued = e.queue.len() as u64;
    let running = e.running.len() as u64;
    let sep = Span::styled(" │ ", ctx.dim());
    let rate = (snap.events_per_sec > 0.0).then(|| format!("{} ev/s", events(snap.events_per_sec)));
    // From the full line down to the policy and the counts, whichever
    // fits first: the estimate setting goes last but one.
    let line = |level: u8| -> Vec<Span<'static>> {
        let mut spans = vec![
            Span::raw(if level == 0 { " policy " } else { " " }),
            Span::styled(e.policy_label.clone(), ctx.fg(Color::Cyan)),
        ];
        match level {
            0 => spans.extend([
                sep.clone(),
                Span::raw(format!("estimates {} (new arrivals)", e.estimates)),
            ]),
            1..=3 => spans.extend([sep.clone(), Span::raw(format!("est. {}", e.estimates))]),
            _ => {}
        }
        spans.push(sep.clone());
        spans.push(Span::raw(match level {
            0 => format!(
                "arrived {}  running {}  queued {}  done {}",
                int(c.arrived),
                int(running),
                int(queued),
                int(c.finished)
            ),
            1 => format!(
                "arr {}  run {}  queue {}  done {}",
                int(c.arrived),
                int(running),
                int(queued),
                int(c.finished)
            ),
            2 | 4 => format!(
                "run {}  queue {}  done {}",
                int(running),
                int(queued),
                int(c.finished)
            ),
            _ => format!("queue {}  done {}", int(queued), int(c.finished)),
        }));
        if let Some(r) = &rate
            && level < 2
        {
            spans.push(sep.clone());
            spans.push(Span::raw(r.clone()));
        }
        spans
    };
    let spans = (0..5)
        .map(line)
        .find(|s| s.iter().map(|s| s.width()).sum::<usize>() <= width)
        .unwrap_or_else(|| line(4));
    Paragraph::new(vec![line1, Line::from(spans)]).render(area, buf);
}

/// What runs and when: the scenario on the left, time, speed and state on
/// the right, the scenario cut short before the state is.
fn first_line(snap: &Snapshot, ctx: &Ctx, width: usize) -> Line<'static> {
    let e = &snap.engine;
    let state = if e.stopped {
        Span::styled("■ stopped", ctx.alert())
    } else if e.done {
        Span::styled("■ finished", ctx.fg(Color::Gray))
    } else if snap.paused {
        Span::styled("⏸ paused", ctx.alert())
    } else {
        Span::styled("▶ running", ctx.good())
    };
    let speed = match snap.speed {
        Speed::Rate(_) => snap.speed.label(),
        Speed::Max if width >= 100 => "×max (flat out)".to_string(),
        Speed::Max => "×max".to_string(),
    };
    let right = format!("t = {}   {speed}   ", secs(e.now.as_secs_f64()));
    let room = width.saturating_sub(right.chars().count() + state.width() + 2);
    let full = format!(
        " schedscope · {} · {} · seed {}",
        snap.scenario, snap.shape, snap.seed
    );
    let short = format!(" {} · {} · seed {}", snap.scenario, snap.shape, snap.seed);
    let left = if full.chars().count() <= room {
        full
    } else if short.chars().count() <= room {
        short
    } else {
        let mut s: String = short.chars().take(room.saturating_sub(1)).collect();
        s.push('…');
        s
    };
    let pad = " ".repeat(
        width.saturating_sub(left.chars().count() + right.chars().count() + state.width() + 1),
    );
    Line::from(vec![
        Span::styled(left, ctx.style(Style::new().add_modifier(Modifier::BOLD))),
        Span::raw(pad),
        Span::raw(right),
        state,
    ])
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
    fn at_80_columns_the_state_and_the_counts_stay() {
        let mut snap = fixtures::snapshot();
        snap.scenario = "trace-kth-sp2-1996-2.1-with-a-long-name".into();
        snap.engine.policy_label = "EASY backfilling (smallest first) + worst fit".into();
        snap.events_per_sec = 148_000.0;
        let area = Rect::new(0, 0, 80, 2);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("…"), "{t}");
        assert!(t.contains("t = 100.0 s   ×50   ▶ running"), "{t}");
        assert!(t.contains("est. exact │ queue 3  done 4"), "{t}");
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
