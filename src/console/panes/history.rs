//! History: utilization, queue length and ART over simulated time.

use super::Ctx;
use crate::console::app::Pane;
use crate::console::format::num1;
use crate::console::snapshot::Snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;
use ratatui::widgets::{Sparkline, Widget};

/// A series: name, values, top of the scale, latest value, colour.
type Series = (&'static str, Vec<u64>, Option<u64>, String, Color);

const LABEL_W: u16 = 7;
const VALUE_W: u16 = 10;

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let h = &snap.history;
    let title = format!(" History · a sample per {} s ", h.every);
    let block = ctx.block(title, Some(Pane::History));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.width <= LABEL_W + VALUE_W || inner.height == 0 {
        return;
    }
    let w = (inner.width - LABEL_W - VALUE_W) as usize;
    let last = |n: usize| n.saturating_sub(w);
    let util: Vec<u64> = h.utilization[last(h.utilization.len())..]
        .iter()
        .map(|u| (u * 1000.0).round() as u64)
        .collect();
    let queue: Vec<u64> = h.queue[last(h.queue.len())..].to_vec();
    let art: Vec<u64> = h.art[last(h.art.len())..]
        .iter()
        .map(|a| (a * 10.0).round().max(0.0) as u64)
        .collect();
    let series: [Series; 3] = [
        (
            "util",
            util,
            Some(1000),
            format!(
                "{} %",
                num1(100.0 * h.utilization.last().copied().unwrap_or(0.0))
            ),
            Color::Green,
        ),
        (
            "queue",
            queue,
            None,
            h.queue.last().copied().unwrap_or(0).to_string(),
            Color::Yellow,
        ),
        (
            "ART",
            art,
            None,
            format!("{} s", num1(h.art.last().copied().unwrap_or(0.0))),
            Color::Cyan,
        ),
    ];
    let rows = inner.height / 3;
    let rows = rows.max(1);
    for (i, (name, data, max, value, color)) in series.into_iter().enumerate() {
        let y = inner.y + i as u16 * rows;
        if y >= inner.y + inner.height {
            break;
        }
        let height = rows.min(inner.y + inner.height - y);
        Line::raw(name).render(Rect::new(inner.x, y, LABEL_W, 1), buf);
        let mut spark = Sparkline::default().data(&data).style(ctx.fg(color));
        if let Some(m) = max {
            spark = spark.max(m);
        }
        spark.render(Rect::new(inner.x + LABEL_W, y, w as u16, height), buf);
        Line::raw(format!(" {value}"))
            .render(Rect::new(inner.x + LABEL_W + w as u16, y, VALUE_W, 1), buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::text;

    #[test]
    fn three_series_with_their_latest_values() {
        let snap = fixtures::snapshot();
        let area = Rect::new(0, 0, 40, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("a sample per 10 s"), "{t}");
        assert!(t.contains("util"), "{t}");
        assert!(t.contains("75.0 %"), "{t}");
        assert!(t.contains("queue"), "{t}");
        assert!(t.contains("25.5 s"), "{t}");
        assert!(t.contains("█"), "{t}");
    }
}
