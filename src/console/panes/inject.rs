//! The inject form: count, size, runtime, estimate and components, each
//! validated in place.

use super::{Ctx, INJECTED, centered};
use crate::console::inject_form::{INJECT_FIELDS, InjectForm};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

pub fn render(f: &InjectForm, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let mut lines = Vec::new();
    for (i, name) in INJECT_FIELDS.iter().enumerate() {
        let on = i == f.cursor;
        let value = &f.values[i];
        let shown = if value.is_empty() && !on {
            match i {
                3 => "(estimate model)".to_string(),
                4 => "(automatic split)".to_string(),
                _ => String::new(),
            }
        } else if on {
            format!("{value}▏")
        } else {
            value.clone()
        };
        let mut spans = vec![
            if on {
                Span::styled("▸ ", ctx.head())
            } else {
                Span::raw("  ")
            },
            Span::raw(format!("{name:<13}")),
            Span::styled(shown, if on { ctx.head() } else { ctx.dim() }),
        ];
        if let Some(e) = &f.errors[i] {
            spans.push(Span::styled(format!("  ✗ {e}"), ctx.alert()));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("injected jobs are marked {INJECTED} in every pane"),
        ctx.dim(),
    ));
    let rect = centered(area, 76, lines.len() as u16 + 2);
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .block(ctx.block(" Inject jobs · Enter injects · Esc cancels ", None))
        .render(rect, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::{find, text};
    use ratatui::style::Color;

    #[test]
    fn errors_show_next_to_their_field() {
        let snap = fixtures::snapshot();
        let mut f = InjectForm::default();
        f.values[4] = "8+9".into();
        assert!(f.validate(&snap.fit).is_none());
        let area = Rect::new(0, 0, 80, 12);
        let mut buf = Buffer::empty(area);
        render(&f, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("components"), "{t}");
        assert!(t.contains("✗ must add up to the size 16"), "{t}");
        let (x, y) = find(&buf, "✗").unwrap();
        assert_eq!(buf[(x, y)].fg, Color::Red);
        assert!(t.contains("(estimate model)"), "{t}");
    }
}
