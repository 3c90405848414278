//! The message line (the answer to the last key) and the key bar (the keys
//! that work now, from the keymap).

use super::Ctx;
use crate::console::keymap::{self, Mode};
use crate::console::snapshot::Message;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

pub fn render_message(message: Option<&Message>, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let line = match message {
        Some(m) if m.error => Line::styled(format!(" {}", m.text), ctx.alert()),
        Some(m) => Line::styled(format!(" {}", m.text), ctx.fg(Color::Green)),
        None => Line::styled(" ? lists every key", ctx.dim()),
    };
    line.render(area, buf);
}

/// The key bar, as much as the width takes: with two spaces between keys,
/// else one, else leaving out keys before `?` (help lists them all) and
/// `q`, which always stay.
pub fn render_keys(mode: Mode, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let mut items = keymap::bar(mode);
    let width = area.width as usize;
    let len = |items: &[(String, &str)], gap: usize| -> usize {
        1 + items
            .iter()
            .map(|(k, w)| k.chars().count() + 1 + w.chars().count() + gap)
            .sum::<usize>()
    };
    let keep = |k: &str| k == "?" || k == "q" || k == "Esc";
    let mut gap = 2;
    if len(&items, gap) > width {
        gap = 1;
    }
    while len(&items, gap) > width {
        match items.iter().rposition(|(k, _)| !keep(k)) {
            Some(i) => {
                items.remove(i);
            }
            None => break,
        }
    }
    let mut spans = vec![Span::raw(" ")];
    for (key, word) in items {
        spans.push(Span::styled(
            key,
            ctx.style(
                ratatui::style::Style::new()
                    .add_modifier(Modifier::BOLD)
                    .fg(Color::Cyan),
            ),
        ));
        spans.push(Span::raw(format!(" {word}{}", " ".repeat(gap))));
    }
    Line::from(spans).render(area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::{find, text};

    #[test]
    fn errors_are_red_and_the_bar_lists_the_modes_keys() {
        let area = Rect::new(0, 0, 120, 1);
        let mut buf = Buffer::empty(area);
        render_message(
            Some(&Message::error("✗ bad")),
            &Ctx::default(),
            area,
            &mut buf,
        );
        assert_eq!(buf[(1, 0)].fg, Color::Red);
        let mut buf = Buffer::empty(area);
        render_keys(Mode::Normal, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.starts_with(" Space pause  +/- speed  . step"), "{t}");
        assert!(find(&buf, "q quit").is_some(), "{t}");
    }

    #[test]
    fn a_narrow_bar_keeps_help_and_quit() {
        let area = Rect::new(0, 0, 80, 1);
        let mut buf = Buffer::empty(area);
        render_keys(Mode::Normal, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(
            t.starts_with(" Space pause +/- speed . step p policy i inject"),
            "{t}"
        );
        assert!(t.contains("? help q quit"), "{t}");
        assert!(!t.contains("save"), "{t}");
    }
}
