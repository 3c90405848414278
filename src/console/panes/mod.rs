//! One file per pane. Each draws from the [`Snapshot`](crate::console::snapshot::Snapshot) alone (plus the
//! console's view settings in [`Ctx`]) into a buffer area.

pub mod backfill_windows;
pub mod clusters;
pub mod compare;
pub mod cue;
pub mod detail;
pub mod estimate_prompt;
pub mod groups;
pub mod help;
pub mod history;
pub mod inject;
pub mod links;
pub mod message;
pub mod metrics;
pub mod picker;
pub mod queue;
pub mod reservations;
pub mod status;

use super::app::Pane;
use crate::metrics::Grouping;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, BorderType, Borders};

/// How the panes are to be drawn: colour or not, which pane has the focus,
/// the selected queue row, the group table shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ctx {
    pub color: bool,
    pub focus: Pane,
    pub selected: usize,
    /// The selected window of the head & backfill pane.
    pub selected_running: usize,
    pub grouping: Grouping,
    /// The link `b` chose, marked in the links pane.
    pub selected_link: usize,
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx {
            color: true,
            focus: Pane::Queue,
            selected: 0,
            selected_running: 0,
            grouping: Grouping::Size,
            selected_link: 0,
        }
    }
}

/// Glyphs that carry meaning without colour.
pub const HEAD: &str = "▶";
pub const INJECTED: &str = "◆";
pub const EXPIRED: &str = crate::sched::panel::EXPIRED;
pub const AHEAD: &str = "↷";
pub const BUSY: &str = "■";
/// A cell of several processors, some of them busy.
pub const PART: &str = "▪";
pub const FREE: &str = "·";

/// Colours for jobs: each job keeps one in every pane.
const JOB_COLORS: [Color; 12] = [
    Color::Rgb(0x4e, 0x79, 0xa7),
    Color::Rgb(0xf2, 0x8e, 0x2b),
    Color::Rgb(0x59, 0xa1, 0x4f),
    Color::Rgb(0xb0, 0x7a, 0xa1),
    Color::Rgb(0x76, 0xb7, 0xb2),
    Color::Rgb(0xed, 0xc9, 0x48),
    Color::Rgb(0xff, 0x9d, 0xa7),
    Color::Rgb(0x9c, 0x75, 0x5f),
    Color::Rgb(0x86, 0xbc, 0xb6),
    Color::Rgb(0xd3, 0x72, 0x95),
    Color::Rgb(0x8c, 0xd1, 0x7d),
    Color::Rgb(0xa0, 0xcb, 0xe8),
];

/// The colour of job `id`, the same wherever it is drawn.
pub fn job_color(id: u64) -> Color {
    let h = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59;
    JOB_COLORS[(h as usize) % JOB_COLORS.len()]
}

impl Ctx {
    /// How a policy's tone is drawn.
    pub fn tone(&self, tone: crate::sched::Tone) -> Style {
        use crate::sched::Tone;
        match tone {
            Tone::Plain => self.style(Style::default()),
            Tone::Dim => self.dim(),
            Tone::Head => self.head(),
            Tone::Alert => self.alert(),
            Tone::Good => self.good(),
            Tone::Job(id) => self.job(id),
        }
    }

    /// A policy's line, drawn in its tones.
    pub fn line(&self, line: &crate::sched::PanelLine) -> ratatui::text::Line<'static> {
        ratatui::text::Line::from(
            line.0
                .iter()
                .map(|s| ratatui::text::Span::styled(s.text.clone(), self.tone(s.tone)))
                .collect::<Vec<_>>(),
        )
    }

    /// `style` without its colours when colour is off (modifiers stay).
    pub fn style(&self, style: Style) -> Style {
        if self.color {
            style
        } else {
            Style {
                fg: None,
                bg: None,
                underline_color: None,
                ..style
            }
        }
    }

    pub fn fg(&self, c: Color) -> Style {
        self.style(Style::new().fg(c))
    }

    pub fn dim(&self) -> Style {
        self.style(Style::new().fg(Color::DarkGray))
    }

    pub fn head(&self) -> Style {
        self.style(Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD))
    }

    pub fn alert(&self) -> Style {
        self.style(Style::new().fg(Color::Red).add_modifier(Modifier::BOLD))
    }

    pub fn good(&self) -> Style {
        self.fg(Color::Green)
    }

    pub fn job(&self, id: u64) -> Style {
        self.fg(job_color(id))
    }

    /// A pane's frame; the focused one is drawn thick.
    pub fn block<'a>(
        &self,
        title: impl Into<ratatui::text::Line<'a>>,
        pane: Option<Pane>,
    ) -> Block<'a> {
        let focused = pane.is_some_and(|p| p == self.focus);
        let b = Block::default().borders(Borders::ALL).title(title);
        if focused {
            b.border_type(BorderType::Thick)
                .border_style(self.style(Style::new().fg(Color::Cyan)))
        } else {
            b.border_style(self.dim())
        }
    }
}

/// A `w`×`h` rectangle centred in `area` (clipped to it).
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// Test helpers: a buffer's text, row by row.
#[cfg(test)]
pub(crate) mod testing {
    use ratatui::buffer::Buffer;

    pub fn rows(buf: &Buffer) -> Vec<String> {
        let a = buf.area;
        (a.y..a.y + a.height)
            .map(|y| {
                (a.x..a.x + a.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
            })
            .collect()
    }

    pub fn text(buf: &Buffer) -> String {
        rows(buf).join("\n")
    }

    /// The position of the first cell of `needle` in the buffer.
    pub fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
        let a = buf.area;
        for (i, row) in rows(buf).iter().enumerate() {
            let cells: Vec<&str> = (a.x..a.x + a.width)
                .map(|x| buf[(x, a.y + i as u16)].symbol())
                .collect();
            let first = needle.chars().next()?.to_string();
            for start in 0..cells.len() {
                if cells[start] == first {
                    let s: String = cells[start..].concat();
                    if s.starts_with(needle) {
                        return Some((a.x + start as u16, a.y + i as u16));
                    }
                }
            }
            let _ = row;
        }
        None
    }
}
