//! The inject form: count, size, runtime, estimate, components and (on a
//! grid workload) a local job's site, each validated in place.

use super::{Ctx, INJECTED, centered};
use crate::console::inject_form::{INJECT_FIELDS, InjectForm};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

/// The form's width, borders included.
const WIDTH: u16 = 76;

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let n = line.chars().count();
        if n > 0 && n + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push(line);
    out
}

pub fn render(f: &InjectForm, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let mut lines = Vec::new();
    for (i, name) in INJECT_FIELDS.iter().enumerate().take(f.fields) {
        let on = i == f.cursor;
        let value = &f.values[i];
        let shown = if value.is_empty() && !on {
            match i {
                3 => "(estimate model)".to_string(),
                4 => "(automatic split)".to_string(),
                5 => "(none: a gang for the grid scheduler)".to_string(),
                _ => String::new(),
            }
        } else if on {
            format!("{value}▏")
        } else {
            value.clone()
        };
        lines.push(Line::from(vec![
            if on {
                Span::styled("▸ ", ctx.head())
            } else {
                Span::raw("  ")
            },
            Span::raw(format!("{name:<13}")),
            Span::styled(shown, if on { ctx.head() } else { ctx.dim() }),
        ]));
        // The error under its field, as many lines as it takes.
        if let Some(e) = &f.errors[i] {
            let room = (WIDTH as usize)
                .saturating_sub(2 + 4 + 2)
                .min(area.width as usize);
            for (k, part) in wrap(e, room.max(20)).into_iter().enumerate() {
                let lead = if k == 0 { "    ✗ " } else { "      " };
                lines.push(Line::styled(format!("{lead}{part}"), ctx.alert()));
            }
        }
    }
    lines.push(Line::raw(""));
    if f.fields > crate::console::inject_form::SITE {
        lines.push(Line::styled(
            "site: cluster 0 = c0, 1 = c1 … of a one-task local job; empty: a gang",
            ctx.dim(),
        ));
    }
    lines.push(Line::styled(
        format!("injected jobs are marked {INJECTED} in every pane"),
        ctx.dim(),
    ));
    let rect = centered(area, WIDTH, lines.len() as u16 + 2);
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

    #[test]
    fn a_long_error_wraps_under_its_field() {
        let mut snap = fixtures::snapshot();
        snap.fit = std::sync::Arc::new(crate::console::inject_form::FitRules::new(
            crate::model::Platform::uniform(5, 20),
            Some(std::sync::Arc::new(
                crate::workload::ngubiri::NgubiriParams::default(),
            )),
        ));
        let mut f = InjectForm::default();
        f.values[1] = "90".into();
        assert!(f.validate(&snap.fit).is_none());
        let area = Rect::new(0, 0, 80, 14);
        let mut buf = Buffer::empty(area);
        render(&f, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("✗ may be split as 45+45"), "{t}");
        assert!(t.contains("try 18+18+18+18+18"), "{t}");
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
    }
}
