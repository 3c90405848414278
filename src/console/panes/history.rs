//! History: utilization, queue length and ART over the whole run so far,
//! a column per equal span of simulated time, the values now at the right.

use super::Ctx;
use crate::console::app::Pane;
use crate::console::format::{duration, fit, int, num1};
use crate::console::snapshot::Snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;
use ratatui::widgets::{Sparkline, Widget};

/// A series: name, values, top of the scale, value now, colour.
type Series = (&'static str, Vec<u64>, Option<u64>, String, Color);

const LABEL_W: u16 = 7;
const VALUE_W: u16 = 10;

/// The title, as long as the width allows.
fn title(span: f64, every: f64, width: usize) -> String {
    let candidates = [
        format!(
            " History · the whole run, {} · a column per {} ",
            duration(span),
            duration(every)
        ),
        format!(
            " History · {} · a column per {} ",
            duration(span),
            duration(every)
        ),
        format!(" History · {} ", duration(span)),
        " History ".to_string(),
    ];
    let last = candidates[3].clone();
    candidates
        .into_iter()
        .find(|t| t.chars().count() + 2 <= width)
        .unwrap_or(last)
}

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let h = &snap.history;
    let w = area.width.saturating_sub(2 + LABEL_W + VALUE_W) as usize;
    let cols = h.columns(w.max(1));
    let block = ctx.block(
        title(h.span(), cols.every, area.width as usize),
        Some(Pane::History),
    );
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.width <= LABEL_W + VALUE_W || inner.height == 0 {
        return;
    }
    let scaled = |v: &[f64], by: f64| -> Vec<u64> {
        v.iter().map(|x| (x * by).round().max(0.0) as u64).collect()
    };
    let series: [Series; 3] = [
        (
            "util",
            scaled(&cols.utilization, 1000.0),
            Some(1000),
            format!("{} %", num1(100.0 * snap.utilization_now())),
            Color::Green,
        ),
        (
            "queue",
            scaled(&cols.queue, 10.0),
            None,
            int(snap.engine.queue.len() as u64),
            Color::Yellow,
        ),
        (
            "ART",
            scaled(&cols.art, 10.0),
            None,
            format!("{} s", fit(snap.summary.art, VALUE_W as usize - 3)),
            Color::Cyan,
        ),
    ];
    let rows = (inner.height / 3).max(1);
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
    fn three_series_with_their_values_now() {
        let snap = fixtures::snapshot();
        let area = Rect::new(0, 0, 40, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("History · 40 s"), "{t}");
        assert!(t.contains("util"), "{t}");
        assert!(t.contains("62.5 %"), "{t}");
        assert!(t.contains("queue"), "{t}");
        assert!(t.contains("32.8 s"), "{t}");
        assert!(t.contains("█"), "{t}");
    }

    #[test]
    fn a_long_run_fits_the_pane_whole() {
        let mut snap = fixtures::snapshot();
        let h = &mut snap.history;
        h.every = 57_600.0;
        h.utilization = (0..500).map(|i| (i % 10) as f64 / 10.0).collect();
        h.queue = vec![3.0; 500];
        h.art = vec![100.0; 500];
        let area = Rect::new(0, 0, 100, 8);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        // 500 samples of 16 h in 81 columns: 4.1 d a column.
        assert!(
            t.contains("History · the whole run, 333.3 d · a column per 4.1 d"),
            "{t}"
        );
    }
}
