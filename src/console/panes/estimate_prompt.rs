//! The prompt for a typed estimate error.

use super::{Ctx, centered};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

pub fn render(text: &str, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let lines = vec![
        Line::from(format!("error ±{text}▏ %")),
        Line::styled(
            "0 = exact; applies to jobs that arrive from now on",
            ctx.dim(),
        ),
    ];
    let rect = centered(area, 56, 4);
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .block(ctx.block(" Estimate error · Enter sets · Esc cancels ", None))
        .render(rect, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::text;

    #[test]
    fn says_the_setting_is_for_new_arrivals() {
        let area = Rect::new(0, 0, 60, 6);
        let mut buf = Buffer::empty(area);
        render("12.5", &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("error ±12.5▏ %"), "{t}");
        assert!(t.contains("applies to jobs that arrive from now on"), "{t}");
    }
}
