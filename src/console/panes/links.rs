//! Inter-cluster links: a gauge per link of demand over capacity, saturated
//! links marked in red and in words; the link `b` chose marked `▶`. Where the platform has no network the
//! pane takes no room at all.

use super::{Ctx, HEAD};
use crate::console::snapshot::Snapshot;
use crate::engine::LinkView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// Gauge cells per link.
const GAUGE: usize = 20;

/// Rows the pane needs: one per link, none without a network.
pub fn height(snap: &Snapshot) -> u16 {
    snap.engine.links.len().min(8) as u16
}

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let links = &snap.engine.links;
    for (row, link) in links.iter().take(area.height as usize).enumerate() {
        let line = gauge_line(link, row == ctx.selected_link, ctx);
        let r = Rect::new(area.x, area.y + row as u16, area.width, 1);
        line.render(r, buf);
    }
}

/// One link's gauge; the link `b` chose is marked `▶`.
fn gauge_line<'a>(link: &'a LinkView, chosen: bool, ctx: &Ctx) -> Line<'a> {
    let share = if link.capacity > 0.0 {
        link.demand / link.capacity
    } else {
        0.0
    };
    let filled = ((share.min(1.0) * GAUGE as f64).round() as usize).min(GAUGE);
    let style = if link.saturated() {
        ctx.alert()
    } else {
        ctx.good()
    };
    let mut spans = vec![
        Span::styled(if chosen { HEAD } else { " " }, ctx.head()),
        Span::raw(format!("link {:<8}▕", link.name)),
        Span::styled("█".repeat(filled), style),
        Span::styled("░".repeat(GAUGE - filled), ctx.dim()),
        Span::raw(format!(
            "▏ {:>6.2} / {:<6.2} {:>4.0} %",
            link.demand,
            link.capacity,
            100.0 * share
        )),
    ];
    if link.saturated() {
        spans.push(Span::styled("  SATURATED", ctx.alert()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::{find, text};
    use ratatui::style::Color;

    #[test]
    fn no_network_takes_no_room() {
        let snap = fixtures::snapshot();
        assert_eq!(height(&snap), 0);
    }

    fn with_links() -> Snapshot {
        let mut snap = fixtures::snapshot();
        snap.engine.links = vec![
            LinkView {
                name: "c0".into(),
                demand: 0.5,
                capacity: 1.0,
            },
            LinkView {
                name: "c1".into(),
                demand: 1.3,
                capacity: 1.0,
            },
        ];
        snap
    }

    #[test]
    fn a_saturated_link_is_red_and_says_so() {
        let snap = with_links();
        assert_eq!(height(&snap), 2);
        let area = Rect::new(0, 0, 80, 2);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("▶link c0") && t.contains("50 %"), "{t}");
        assert!(t.contains(" link c1"), "{t}");
        assert!(t.contains("link c1") && t.contains("130 %"), "{t}");
        let (x, y) = find(&buf, "SATURATED").expect("marked");
        assert_eq!(y, 1, "only the second link is saturated");
        assert_eq!(buf[(x, y)].fg, Color::Red);
        // The gauge of the saturated link is full and red; the other's is
        // half full and not red.
        let (g0, _) = find(&buf, "▕").unwrap();
        assert_eq!(buf[(g0 + 1, 1)].symbol(), "█");
        assert_eq!(buf[(g0 + 20, 1)].fg, Color::Red);
        assert_eq!(buf[(g0 + 10, 0)].symbol(), "█");
        assert_eq!(buf[(g0 + 11, 0)].symbol(), "░");
        assert_ne!(buf[(g0 + 1, 0)].fg, Color::Red);
    }

    #[test]
    fn without_colour_saturation_is_still_in_words() {
        let snap = with_links();
        let area = Rect::new(0, 0, 80, 2);
        let mut buf = Buffer::empty(area);
        let ctx = Ctx {
            color: false,
            ..Ctx::default()
        };
        render(&snap, &ctx, area, &mut buf);
        assert!(text(&buf).contains("SATURATED"));
        assert!(
            buf.content().iter().all(|c| c.fg == Color::Reset),
            "no colour"
        );
    }
}
