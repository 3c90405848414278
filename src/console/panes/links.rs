//! Inter-cluster links. The platform has no network model yet, so the pane
//! takes one line to say so rather than space.

use super::Ctx;
use crate::console::snapshot::Snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

/// Rows the pane needs.
pub fn height(_snap: &Snapshot) -> u16 {
    1
}

pub fn render(_snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    Line::styled(
        " links: this scenario has no inter-cluster network",
        ctx.dim(),
    )
    .render(area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::text;

    #[test]
    fn says_there_is_no_network_in_one_line() {
        let snap = fixtures::snapshot();
        assert_eq!(height(&snap), 1);
        let area = Rect::new(0, 0, 60, 1);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        assert!(text(&buf).contains("no inter-cluster network"));
    }
}
