//! A lesson's cue: the box that says what the run, paused at the cue's
//! time, shows. It takes rows of its own above the message line, so it
//! hides no pane; it is there only while the run stands at the cue.

use super::Ctx;
use crate::console::format;
use crate::console::snapshot::{CueView, Snapshot};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Borders, Widget};

/// Rows the box needs on a screen `width` columns wide: the cue's text
/// wrapped, and a border above and below; none without a cue.
pub fn height(snap: &Snapshot, width: u16) -> u16 {
    match &snap.cue {
        Some(cue) => wrap(&cue.text, inner_width(width)).len() as u16 + 2,
        None => 0,
    }
}

pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let Some(cue) = &snap.cue else {
        return;
    };
    if area.height < 3 {
        return;
    }
    let border = ctx.style(Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD));
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Double)
        .border_style(border)
        .title(Line::styled(title(cue), border))
        .title_bottom(Line::styled(keys(cue), ctx.dim()).right_aligned());
    let inner = block.inner(area);
    block.render(area, buf);
    let lines = wrap(&cue.text, inner_width(area.width));
    for (i, text) in lines.iter().take(inner.height as usize).enumerate() {
        let row = Rect::new(
            inner.x + 1,
            inner.y + i as u16,
            inner.width.saturating_sub(2),
            1,
        );
        Line::styled(
            text.as_str(),
            ctx.style(Style::new().add_modifier(Modifier::BOLD)),
        )
        .render(row, buf);
    }
}

/// ` Cue 2 of 4 · t = 2 s · job 5 `.
fn title(cue: &CueView) -> String {
    let mut t = format!(
        " Cue {} of {} · t = {}",
        cue.number,
        cue.count,
        format::secs(cue.at)
    );
    if let Some((id, _)) = cue.select {
        t.push_str(&format!(" · job {id}"));
    }
    t.push(' ');
    t
}

/// What moves the lesson on from here.
fn keys(cue: &CueView) -> &'static str {
    if cue.number < cue.count {
        " n next cue · Space run · . step "
    } else {
        " last cue · Space run on · . step "
    }
}

/// Text columns inside the border, with a space either side.
fn inner_width(width: u16) -> usize {
    width.saturating_sub(4).max(8) as usize
}

/// `text` in lines of at most `width` characters, broken between words
/// (a word longer than a line is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: String = word.to_string();
        loop {
            let used = line.chars().count();
            let need = word.chars().count() + usize::from(used > 0);
            if used + need <= width {
                if used > 0 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word wider than the line: cut it.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::testing::text;
    use std::sync::Arc;

    fn with_cue(text: &str, number: usize) -> Snapshot {
        let mut s = fixtures::snapshot();
        s.cue = Some(Arc::new(CueView {
            number,
            count: 3,
            seq: 1,
            at: 2.0,
            text: text.to_string(),
            select: Some((5, crate::console::snapshot::CueJob::Running)),
            pane: None,
        }));
        s
    }

    #[test]
    fn words_wrap_within_the_box() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
    }

    #[test]
    fn the_box_shows_the_text_its_time_and_the_keys() {
        let long = "C fits before H's shadow time, so EASY starts it now: it ends at 12, \
                    before H may start at 20, and it takes a processor nobody reserved.";
        let s = with_cue(long, 1);
        let h = height(&s, 80);
        assert_eq!(h, 4, "two lines of text at 80 columns");
        let area = Rect::new(0, 0, 80, h);
        let mut buf = Buffer::empty(area);
        render(&s, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("Cue 1 of 3 · t = 2"), "{t}");
        assert!(t.contains("job 5"), "{t}");
        assert!(t.contains("C fits before H's shadow time"), "{t}");
        assert!(t.contains("nobody reserved."), "{t}");
        assert!(t.contains("n next cue"), "{t}");
        let last = with_cue("done", 3);
        let mut buf = Buffer::empty(Rect::new(0, 0, 80, 3));
        render(&last, &Ctx::default(), buf.area, &mut buf);
        assert!(text(&buf).contains("last cue"), "{}", text(&buf));
        assert_eq!(height(&fixtures::snapshot(), 80), 0, "no cue, no box");
    }
}
