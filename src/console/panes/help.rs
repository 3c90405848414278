//! Help: every binding of every mode, generated from the keymap.

use super::{Ctx, centered};
use crate::console::keymap::{self, Mode};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

/// Help lines for `modes`: a heading per mode, a line per binding.
pub fn lines(ctx: &Ctx, modes: &[Mode]) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for &mode in modes {
        if !out.is_empty() {
            out.push(Line::raw(""));
        }
        out.push(Line::styled(
            mode.title(),
            ctx.style(Style::new().add_modifier(Modifier::BOLD).fg(Color::Yellow)),
        ));
        for b in keymap::bindings(mode) {
            out.push(Line::from(vec![
                Span::styled(format!("  {:<12}", b.label), ctx.fg(Color::Cyan)),
                Span::raw(b.help),
            ]));
        }
    }
    out
}

/// Left column: the main screen and the job detail; right: the windows.
const LEFT: [Mode; 2] = [Mode::Normal, Mode::Detail];
const RIGHT: [Mode; 3] = [Mode::Picker, Mode::Inject, Mode::Estimate];

pub fn render(ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let left = lines(ctx, &LEFT);
    let mut right = lines(ctx, &RIGHT);
    right.push(Line::raw(""));
    right.push(Line::styled("Marks", ctx.head()));
    for m in [
        "  ▶ head of the queue   ◆ injected job",
        "  ! expired window (running past its estimate)",
        "  ↷ started ahead of an earlier job",
        "  ■ busy processor, colour = job   · free",
    ] {
        right.push(Line::raw(m));
    }
    // Room for a few wrapped lines on narrow terminals.
    let h = (left.len().max(right.len()) as u16 + 4).min(area.height);
    let rect = centered(area, area.width.saturating_sub(4).min(160), h);
    Clear.render(rect, buf);
    let block = ctx.block(" Help · Esc closes ", None);
    let inner = block.inner(rect);
    block.render(rect, buf);
    let [l, r] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)]).areas(inner);
    Paragraph::new(left)
        .wrap(Wrap { trim: false })
        .render(l, buf);
    Paragraph::new(right)
        .wrap(Wrap { trim: false })
        .render(r, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::text;

    #[test]
    fn lists_every_binding_of_the_keymap() {
        let area = Rect::new(0, 0, 200, 80);
        let mut buf = Buffer::empty(area);
        render(&Ctx::default(), area, &mut buf);
        let t = text(&buf);
        for b in keymap::KEYMAP.iter().filter(|b| b.mode != Mode::Help) {
            assert!(t.contains(b.help), "missing {:?}", b.help);
        }
        assert!(t.contains("Policy picker"), "{t}");
    }
}
