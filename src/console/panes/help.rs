//! Help: every binding of every mode, generated from the keymap, and the
//! marks the panes use. Sections flow into as many columns as the width
//! takes; what the height does not take scrolls.

use super::{AHEAD, BUSY, Ctx, EXPIRED, FREE, HEAD, INJECTED, PART, centered};
use crate::console::keymap::{self, Mode};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

/// The width of a column of help.
pub const COLUMN_W: u16 = 57;
/// Key labels up to this wide line up in a column.
const LABEL_W: usize = 12;

/// The sections in reading order: the main screen first, then the windows.
const MODES: [Mode; 5] = [
    Mode::Normal,
    Mode::Detail,
    Mode::Picker,
    Mode::Inject,
    Mode::Estimate,
];

/// Help lines for one mode: a heading, a line per binding (pairs joined).
pub fn lines(ctx: &Ctx, mode: Mode) -> Vec<Line<'static>> {
    let help = keymap::help_lines(mode);
    // Keys in a column as wide as the usual labels; a longer one pushes its
    // text along rather than every text of the section.
    let w = help
        .iter()
        .map(|(l, _)| l.chars().count())
        .filter(|&n| n <= LABEL_W)
        .max()
        .unwrap_or(0)
        + 2;
    let mut out = vec![heading(ctx, mode.title())];
    for (label, text) in help {
        let pad = w.saturating_sub(label.chars().count()).max(2);
        out.push(Line::from(vec![
            Span::styled(format!("  {label}{}", " ".repeat(pad)), ctx.fg(Color::Cyan)),
            Span::raw(text),
        ]));
    }
    out
}

fn heading(ctx: &Ctx, title: &'static str) -> Line<'static> {
    Line::styled(
        title,
        ctx.style(Style::new().add_modifier(Modifier::BOLD).fg(Color::Yellow)),
    )
}

fn marks(ctx: &Ctx) -> Vec<Line<'static>> {
    vec![
        heading(ctx, "Marks"),
        Line::raw(format!(
            "  {HEAD} head  {INJECTED} injected  {AHEAD} started ahead  {EXPIRED} expired window"
        )),
        Line::raw(format!(
            "  {BUSY} busy, colour = job  {PART} partly busy  {FREE} free"
        )),
    ]
}

fn sections(ctx: &Ctx) -> Vec<Vec<Line<'static>>> {
    let mut out: Vec<Vec<Line<'static>>> = MODES.iter().map(|&m| lines(ctx, m)).collect();
    out.push(marks(ctx));
    out
}

/// Columns for `width` cells.
fn column_count(width: u16) -> usize {
    (width / COLUMN_W).clamp(1, 3) as usize
}

/// Sections in order into `k` columns, a blank line between two sections
/// of a column, as short as can be: the columns' lines.
fn flow(sections: Vec<Vec<Line<'static>>>, k: usize) -> Vec<Vec<Line<'static>>> {
    let heights: Vec<usize> = sections.iter().map(Vec::len).collect();
    let total: usize = heights.iter().sum::<usize>() + heights.len().saturating_sub(1);
    // The smallest height at which the sections fit in k columns.
    let fits = |h: usize| {
        let (mut cols, mut used) = (1, 0);
        for &s in &heights {
            let need = if used == 0 { s } else { used + 1 + s };
            if need <= h {
                used = need;
            } else {
                cols += 1;
                used = s;
            }
        }
        cols <= k
    };
    let max = heights.iter().copied().max().unwrap_or(0);
    let h = (max..=total).find(|&h| fits(h)).unwrap_or(total);
    let mut cols: Vec<Vec<Line<'static>>> = vec![Vec::new()];
    for s in sections {
        let col = cols.last_mut().expect("one column");
        let need = if col.is_empty() {
            s.len()
        } else {
            col.len() + 1 + s.len()
        };
        if need > h {
            cols.push(s);
        } else {
            if !col.is_empty() {
                col.push(Line::raw(""));
            }
            col.extend(s);
        }
    }
    cols
}

/// Where the help window goes in `area`, with its columns.
fn window(ctx: &Ctx, area: Rect) -> (Rect, Vec<Vec<Line<'static>>>, usize) {
    let room = area.width.saturating_sub(4);
    let k = column_count(room.saturating_sub(2));
    let cols = flow(sections(ctx), k);
    let height = cols.iter().map(Vec::len).max().unwrap_or(0);
    let w = (COLUMN_W * cols.len() as u16 + 2).min(area.width);
    let h = (height as u16 + 2).min(area.height);
    (centered(area, w, h), cols, height)
}

/// How far the help scrolls in a terminal of `area`: the lines it does not
/// show at once.
pub fn max_scroll(area: Rect) -> u16 {
    let (rect, _, height) = window(&Ctx::default(), area);
    (height as u16).saturating_sub(rect.height.saturating_sub(2))
}

/// Lines a page holds in a terminal of `area`.
pub fn page(area: Rect) -> u16 {
    let (rect, _, _) = window(&Ctx::default(), area);
    rect.height.saturating_sub(3).max(1)
}

pub fn render(ctx: &Ctx, scroll: u16, area: Rect, buf: &mut Buffer) {
    let (rect, cols, height) = window(ctx, area);
    let visible = rect.height.saturating_sub(2) as usize;
    let top = (scroll as usize).min(height.saturating_sub(visible));
    Clear.render(rect, buf);
    let block = ctx.block(" Help · ↑↓ PgUp PgDn scroll · Esc closes ", None);
    let inner = block.inner(rect);
    block.render(rect, buf);
    for (i, col) in cols.iter().enumerate() {
        let x = inner.x + i as u16 * COLUMN_W;
        if x >= inner.x + inner.width {
            break;
        }
        let w = COLUMN_W.min(inner.x + inner.width - x);
        for (row, line) in col.iter().skip(top).take(visible).enumerate() {
            line.render(Rect::new(x, inner.y + row as u16, w, 1), buf);
        }
    }
    // Where the window stands, on its bottom border.
    if height > visible {
        let end = (top + visible).min(height);
        let more = if end < height {
            "↓ more"
        } else {
            "end · Home: top"
        };
        let text = format!(" lines {}–{end} of {height} · {more} ", top + 1);
        let w = (text.chars().count() as u16).min(rect.width.saturating_sub(2));
        let y = rect.y + rect.height - 1;
        Line::styled(text, ctx.head()).render(Rect::new(rect.x + rect.width - 1 - w, y, w, 1), buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::text;

    fn draw(w: u16, h: u16, scroll: u16) -> String {
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        render(&Ctx::default(), scroll, area, &mut buf);
        text(&buf)
    }

    #[test]
    fn lists_every_binding_of_the_keymap() {
        let t = draw(200, 80, 0);
        for mode in MODES {
            for (label, help) in keymap::help_lines(mode) {
                assert!(t.contains(&label), "missing {label:?}");
                assert!(t.contains(help), "missing {help:?}");
            }
        }
        assert!(t.contains("Policy picker"), "{t}");
        assert!(t.contains("Marks"), "{t}");
    }

    #[test]
    fn every_section_shows_at_120_by_28_without_scrolling() {
        let area = Rect::new(0, 0, 120, 28);
        assert_eq!(max_scroll(area), 0);
        let t = draw(120, 28, 0);
        for title in [
            "Main screen",
            "Job detail",
            "Policy picker",
            "Inject jobs form",
        ] {
            assert!(t.contains(title), "{title} missing:\n{t}");
        }
        for line in [
            "Estimate error prompt",
            "Marks",
            "q  ",
            "restart with the same",
        ] {
            assert!(t.contains(line), "{line} missing:\n{t}");
        }
        assert!(!t.contains("↓ more"), "{t}");
    }

    #[test]
    fn a_small_terminal_scrolls_to_the_end() {
        let area = Rect::new(0, 0, 80, 24);
        let max = max_scroll(area);
        assert!(max > 0);
        let t = draw(80, 24, 0);
        assert!(t.contains("Main screen"), "{t}");
        assert!(t.contains("↓ more"), "{t}");
        assert!(!t.contains("Marks"), "{t}");
        // Past the end is the end.
        let t = draw(80, 24, max + 10);
        assert!(t.contains("Marks"), "{t}");
        assert!(t.contains("end · Home: top"), "{t}");
        assert!(!t.contains("Main screen"), "{t}");
    }
}
