//! The key metrics on one line, for the compact layout where the groups
//! pane is not always on screen: ART, wait, slowdown, utilization now
//! (while the warm-up lasts, of every job so far, marked so).

use super::Ctx;
use crate::console::format::{int, num1};
use crate::console::snapshot::Snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let s = &snap.summary;
    let util = format!("{} %", num1(100.0 * snap.utilization_now()));
    let (excluded, warmup) = snap.warmup;
    let sep = || Span::styled(" · ", ctx.dim());
    let key = |k: &'static str| Span::styled(k, ctx.dim());
    let mut spans = vec![Span::raw(" ")];
    if excluded < warmup {
        spans.extend([
            Span::styled(
                format!("warm-up {} of {}", int(excluded), int(warmup)),
                ctx.fg(Color::Yellow),
            ),
            sep(),
        ]);
    }
    spans.extend([
        key("ART "),
        Span::styled(format!("{} s", num1(s.art)), ctx.fg(Color::Cyan)),
        sep(),
        key("wait "),
        Span::raw(format!("{} s", num1(s.mean_wait))),
        sep(),
        key("slowdown "),
        Span::raw(num1(s.mean_slowdown)),
        sep(),
    ]);
    spans.extend([key("util "), Span::styled(util, ctx.good())]);
    if excluded >= warmup {
        spans.extend([sep(), key("measured "), Span::raw(int(s.jobs))]);
    }
    Line::from(spans).render(area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::text;

    #[test]
    fn art_wait_slowdown_and_utilization_in_one_line() {
        let snap = fixtures::snapshot();
        let area = Rect::new(0, 0, 80, 1);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.starts_with(" ART 32.8 s · wait "), "{t}");
        assert!(t.contains("util 62.5 %"), "{t}");
        assert!(t.contains("measured 4"), "{t}");
        let mut snap = snap;
        snap.warmup = (3, 100);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(
            t.starts_with(" warm-up 3 of 100 · ART 32.8 s · wait "),
            "{t}"
        );
    }
}
