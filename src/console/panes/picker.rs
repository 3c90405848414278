//! The policy picker: every policy in the catalog, then the parameters
//! the chosen one declares.

use super::{Ctx, centered};
use crate::console::hits::Spot;
use crate::console::picker::PickerState;
use crate::policy::Catalogued;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

/// Draws the picker and returns where each of its cursor rows went (a
/// policy's name, a parameter's row), for the mouse.
pub fn render(p: &PickerState, ctx: &Ctx, area: Rect, buf: &mut Buffer) -> Vec<Spot<usize>> {
    let mut lines = Vec::new();
    // Each cursor row as (line, first column, width; 0 = to the end).
    let mut places: Vec<(usize, usize, usize)> = Vec::new();
    name_rows(p, ctx, &mut lines, &mut places);
    param_rows(p, ctx, &mut lines, &mut places);
    footer(p, ctx, &mut lines);
    let rect = centered(area, 68, lines.len() as u16 + 2);
    Clear.render(rect, buf);
    let block = ctx.block(" Policy · Esc cancels ", None);
    let inner = block.inner(rect);
    Paragraph::new(lines).block(block).render(rect, buf);
    spots(places, inner)
}

/// The mark of cursor row `row`: an arrow where the cursor is.
fn cursor(p: &PickerState, ctx: &Ctx, row: usize) -> Span<'static> {
    if p.cursor == row {
        Span::styled("▸ ", ctx.head())
    } else {
        Span::raw("  ")
    }
}

/// The policies' names, the chosen one bold, with where each went.
fn name_rows(
    p: &PickerState,
    ctx: &Ctx,
    lines: &mut Vec<Line<'static>>,
    places: &mut Vec<(usize, usize, usize)>,
) {
    // One name a row while they are few; three a row once the catalog
    // grows, so the picker still fits an 80×24 terminal.
    let per_row = if p.names.len() > 6 { 3 } else { 1 };
    let mut row: Vec<Span> = Vec::new();
    for (i, name) in p.names.iter().enumerate() {
        let chosen = i == p.chosen;
        let mut style = ctx.style(ratatui::style::Style::new());
        if chosen {
            style = style.add_modifier(Modifier::BOLD);
        }
        let text = name.as_str().to_uppercase();
        let pad = if per_row > 1 {
            " ".repeat(18usize.saturating_sub(text.chars().count()))
        } else {
            String::new()
        };
        let from: usize = row.iter().map(Span::width).sum();
        let width = if per_row > 1 {
            4 + 18.max(text.chars().count())
        } else {
            0
        };
        places.push((lines.len(), from, width));
        row.push(cursor(p, ctx, i));
        row.push(Span::styled(if chosen { "● " } else { "○ " }, style));
        row.push(Span::styled(text, style));
        row.push(Span::raw(pad));
        if (i + 1) % per_row == 0 || i + 1 == p.names.len() {
            lines.push(Line::from(std::mem::take(&mut row)));
        }
    }
}

/// The chosen policy's parameters, one a row, with where each went.
fn param_rows(
    p: &PickerState,
    ctx: &Ctx,
    lines: &mut Vec<Line<'static>>,
    places: &mut Vec<(usize, usize, usize)>,
) {
    let names = p.names.len();
    for (i, param) in p.params().iter().enumerate() {
        let hint = match param.hint {
            "" => String::new(),
            h => format!("  ({h})"),
        };
        places.push((lines.len(), 0, 0));
        lines.push(Line::from(vec![
            cursor(p, ctx, names + i),
            Span::raw(format!("{:<10} ◀ {} ▶{hint}", param.title, p.shown(param))),
        ]));
    }
}

/// What Enter does, and the summary of the policy under the cursor.
fn footer(p: &PickerState, ctx: &Ctx, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::raw("Enter applies "),
        Span::styled(p.applies().label(), ctx.head()),
    ]));
    lines.push(Line::styled(
        "to the queue as it stands; running jobs keep running",
        ctx.dim(),
    ));
    let about = p.names.get(p.cursor).copied().unwrap_or(p.names[p.chosen]);
    if let Some(entry) = crate::policy::catalog::find(about) {
        let text = format!("{}: {}", about.as_str().to_uppercase(), entry.summary);
        for l in wrap(&text, 64) {
            lines.push(Line::styled(l, ctx.dim()));
        }
    }
}

/// Where each cursor row went on screen, from its (line, first column,
/// width; 0 = to the end) in `inner`; rows cut off below are left out.
fn spots(places: Vec<(usize, usize, usize)>, inner: Rect) -> Vec<Spot<usize>> {
    places
        .into_iter()
        .enumerate()
        .filter(|(_, (line, ..))| *line < inner.height as usize)
        .map(|(cursor, (line, from, width))| {
            let x = inner.x + (from as u16).min(inner.width);
            let room = inner.right() - x;
            let w = if width == 0 {
                room
            } else {
                (width as u16).min(room)
            };
            Spot::new(Rect::new(x, inner.y + line as u16, w, 1), cursor)
        })
        .collect()
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::text;
    use crate::policy::SharedParams;
    use crate::policy::{MaxJumps, PolicySpec, catalog};

    #[test]
    fn lists_every_policy_and_the_parameters() {
        let p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        let area = Rect::new(0, 0, 70, 20);
        let mut buf = Buffer::empty(area);
        render(&p, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        for name in catalog::names() {
            assert!(t.contains(&name.as_str().to_uppercase()), "{t}");
        }
        assert!(t.contains("● FPFS"), "{t}");
        assert!(t.contains("maxJumps   ◀ 10 ▶  (digits; u = ∞)"), "{t}");
        assert!(t.contains("placement  ◀ worst fit ▶"), "{t}");
        assert!(
            t.contains("Enter applies FPFS(maxJumps 10) + worst fit"),
            "{t}"
        );
        // FPFS reads no backfill order: its rows are its own.
        assert!(!t.contains("backfill"), "{t}");
    }

    #[test]
    fn many_policies_are_laid_out_three_a_row() {
        let mut p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        let few = p.names.clone();
        p.names = few.iter().cycle().take(9).copied().collect();
        let area = Rect::new(0, 0, 80, 24);
        let mut buf = Buffer::empty(area);
        render(&p, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(
            t.lines()
                .any(|l| l.contains("○ FCFS") && l.contains("● FPFS") && l.contains("○ EASY")),
            "{t}"
        );
    }
}
