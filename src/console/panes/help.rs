//! Help: every binding of every mode, generated from the keymap.

use super::{Ctx, centered};
use crate::console::keymap::{self, Mode};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

/// The help text, one line per binding under a heading per mode.
pub fn lines(ctx: &Ctx) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        if mode == Mode::Help {
            continue;
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
    out.push(Line::raw(""));
    out.push(Line::styled(
        "Marks: ▶ head of the queue · ◆ injected · ! expired window · ↷ started ahead",
        ctx.dim(),
    ));
    out
}

pub fn render(ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let lines = lines(ctx);
    let h = (lines.len() as u16 + 2).min(area.height);
    let rect = centered(area, 96, h);
    Clear.render(rect, buf);
    let block = ctx.block(" Help · Esc closes ", None);
    Paragraph::new(lines).block(block).render(rect, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::text;

    #[test]
    fn lists_every_binding_of_the_keymap() {
        let area = Rect::new(0, 0, 100, 80);
        let mut buf = Buffer::empty(area);
        render(&Ctx::default(), area, &mut buf);
        let t = text(&buf);
        for b in keymap::KEYMAP.iter().filter(|b| b.mode != Mode::Help) {
            assert!(t.contains(b.help), "missing {:?}", b.help);
        }
        assert!(t.contains("Policy picker"), "{t}");
    }
}
