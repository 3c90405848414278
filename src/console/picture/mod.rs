//! Pictures of the console: a drawn ratatui [`Buffer`] as SVG or PNG, the
//! way a dark terminal shows it, for pages that cannot show a terminal.
//!
//! Both come from the same cells and the same geometry, so they agree:
//!
//! * a cell is [`CELL_W`] × [`CELL_H`] pixels, text is DejaVu Sans Mono at
//!   [`FONT_PX`] pixels to the em (the PNG's font is compiled in; the SVG
//!   names it, with `monospace` after it, and places every character at
//!   its cell so that another font keeps the columns);
//! * backgrounds are rectangles, one per run of cells of one colour;
//! * box-drawing lines (light and heavy) and block elements (eighths,
//!   halves, shades) are drawn as rectangles rather than taken from a
//!   font, so borders join and the history's bars stack without gaps in
//!   any viewer;
//! * bold, italic, dim, reversed, hidden, underlined and crossed-out are
//!   honoured; other text goes in runs of cells of one style.
//!
//! The picture is a function of the buffer alone: the same cells give the
//! same bytes.
//!
//! Colours. ratatui's named colours are the 16 ANSI colours, mapped to
//! a fixed palette (that of a common dark editor terminal):
//!
//! | ratatui | ANSI | colour |
//! |---|---|---|
//! | `Reset` (text) | – | `#cccccc` |
//! | `Reset` (background) | – | `#1e1e1e` |
//! | `Black` | 0 | `#000000` |
//! | `Red` | 1 | `#cd3131` |
//! | `Green` | 2 | `#0dbc79` |
//! | `Yellow` | 3 | `#e5e510` |
//! | `Blue` | 4 | `#2472c8` |
//! | `Magenta` | 5 | `#bc3fbc` |
//! | `Cyan` | 6 | `#11a8cd` |
//! | `Gray` | 7 | `#e5e5e5` |
//! | `DarkGray` | 8 | `#767676` |
//! | `LightRed` | 9 | `#f14c4c` |
//! | `LightGreen` | 10 | `#23d18b` |
//! | `LightYellow` | 11 | `#f5f543` |
//! | `LightBlue` | 12 | `#3b8eea` |
//! | `LightMagenta` | 13 | `#d670d6` |
//! | `LightCyan` | 14 | `#29b8db` |
//! | `White` | 15 | `#ffffff` |
//!
//! `Rgb` colours are themselves; `Indexed` ones are xterm's 256: the 16
//! above, the 6 × 6 × 6 cube and the 24 greys.

mod shapes;

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};
use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use shapes::{Rects, shape};
use std::fmt::Write as _;

/// A cell's width and height in pixels.
pub const CELL_W: u32 = 9;
pub const CELL_H: u32 = 18;
/// The text's size: pixels to the em (DejaVu Sans Mono's advance is
/// 0.602 em, 9 pixels).
pub const FONT_PX: f32 = 15.0;
/// From a cell's top to the text's baseline, in pixels.
pub const BASELINE: u32 = 14;
/// The margin around the cells, in pixels.
pub const MARGIN: u32 = 10;

/// The terminal's own background and text colours (`Color::Reset`).
pub const BACKGROUND: Rgb = [0x1e, 0x1e, 0x1e];
pub const FOREGROUND: Rgb = [0xcc, 0xcc, 0xcc];

/// The 16 ANSI colours, in ANSI order (see the module's table).
pub const ANSI: [Rgb; 16] = [
    [0x00, 0x00, 0x00],
    [0xcd, 0x31, 0x31],
    [0x0d, 0xbc, 0x79],
    [0xe5, 0xe5, 0x10],
    [0x24, 0x72, 0xc8],
    [0xbc, 0x3f, 0xbc],
    [0x11, 0xa8, 0xcd],
    [0xe5, 0xe5, 0xe5],
    [0x76, 0x76, 0x76],
    [0xf1, 0x4c, 0x4c],
    [0x23, 0xd1, 0x8b],
    [0xf5, 0xf5, 0x43],
    [0x3b, 0x8e, 0xea],
    [0xd6, 0x70, 0xd6],
    [0x29, 0xb8, 0xdb],
    [0xff, 0xff, 0xff],
];

pub type Rgb = [u8; 3];

/// `color` in the palette; `Reset` is `default`.
pub fn rgb(color: Color, default: Rgb) -> Rgb {
    let ansi = |i: usize| ANSI[i];
    match color {
        Color::Reset => default,
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => [r, g, b],
        Color::Indexed(i) => indexed(i),
    }
}

/// xterm's 256-colour palette.
fn indexed(i: u8) -> Rgb {
    match i {
        0..16 => ANSI[i as usize],
        16..232 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let c = i - 16;
            [level(c / 36), level(c / 6 % 6), level(c % 6)]
        }
        _ => {
            let v = 8 + 10 * (i - 232);
            [v, v, v]
        }
    }
}

/// `a` and `b` mixed, `k` of 255 parts `b`.
fn mix(a: Rgb, b: Rgb, k: u8) -> Rgb {
    let k = k as u32;
    std::array::from_fn(|i| ((a[i] as u32 * (255 - k) + b[i] as u32 * k + 127) / 255) as u8)
}

/// How a cell is drawn: its colours once modifiers are applied, and its
/// text's style.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Look {
    fg: Rgb,
    bg: Rgb,
    bold: bool,
    italic: bool,
}

impl Look {
    fn of(cell: &Cell) -> Look {
        let m = cell.modifier;
        let mut fg = rgb(cell.fg, FOREGROUND);
        let mut bg = rgb(cell.bg, BACKGROUND);
        if m.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        if m.contains(Modifier::DIM) {
            fg = mix(fg, bg, 110);
        }
        if m.contains(Modifier::HIDDEN) {
            fg = bg;
        }
        Look {
            fg,
            bg,
            bold: m.contains(Modifier::BOLD),
            italic: m.contains(Modifier::ITALIC),
        }
    }
}

/// A filled rectangle in pixels, `alpha` of 255 opaque.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Fill {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    rgb: Rgb,
    alpha: u8,
}

/// Adds `f` to `fills`, widening a recent one instead where `f` continues
/// it to the right (a border's run of `─` is one rectangle).
fn push(fills: &mut Vec<Fill>, f: Fill) {
    // A corner's other arm may come between: look a few back.
    let n = fills.len();
    for last in fills[n.saturating_sub(4)..].iter_mut().rev() {
        if last.y == f.y
            && last.h == f.h
            && last.rgb == f.rgb
            && last.alpha == f.alpha
            && last.x + last.w == f.x
        {
            last.w += f.w;
            return;
        }
    }
    fills.push(f);
}

/// Adds a character's rectangles to `fills` in colour `rgb`.
fn push_rects(fills: &mut Vec<Fill>, rects: Rects, rgb: Rgb) {
    for (x, y, w, h, alpha) in rects {
        push(
            fills,
            Fill {
                x,
                y,
                w,
                h,
                rgb,
                alpha,
            },
        );
    }
}

/// What the cells come to: backgrounds, then lines and blocks and
/// underlines, then text in runs.
struct Layout {
    width: u32,
    height: u32,
    backgrounds: Vec<Fill>,
    shapes: Vec<Fill>,
    runs: Vec<Run>,
}

/// Cells of one style in a row: each character with its pixel x.
struct Run {
    y: u32,
    fg: Rgb,
    bold: bool,
    italic: bool,
    chars: Vec<(u32, char)>,
}

fn layout(buf: &Buffer) -> Layout {
    let area = buf.area;
    let mut l = Layout {
        width: area.width as u32 * CELL_W + 2 * MARGIN,
        height: area.height as u32 * CELL_H + 2 * MARGIN,
        backgrounds: Vec::new(),
        shapes: Vec::new(),
        runs: Vec::new(),
    };
    for row in 0..area.height {
        let y = MARGIN + row as u32 * CELL_H;
        let mut run: Option<Run> = None;
        // Blanks seen since the run's last character: kept if the run
        // goes on in the same style.
        let mut blanks: Vec<(u32, char)> = Vec::new();
        for col in 0..area.width {
            let x = MARGIN + col as u32 * CELL_W;
            let cell = &buf[(area.x + col, area.y + row)];
            let look = Look::of(cell);
            decorate(&mut l, cell, &look, x, y);
            let m = cell.modifier;
            let symbol = cell.symbol();
            let mut chars = symbol.chars();
            let first = chars.next().unwrap_or(' ');
            let blank = symbol.trim().is_empty() || m.contains(Modifier::HIDDEN);
            let drawn = if blank {
                None
            } else {
                shape(first, x, y).filter(|_| chars.next().is_none())
            };
            if blank || drawn.is_some() {
                if let Some(rects) = drawn {
                    blanks.clear();
                    if let Some(r) = run.take() {
                        l.runs.push(r);
                    }
                    push_rects(&mut l.shapes, rects, look.fg);
                } else {
                    blanks.push((x, ' '));
                }
                continue;
            }
            let same = run
                .as_ref()
                .is_some_and(|r| (r.fg, r.bold, r.italic) == (look.fg, look.bold, look.italic));
            if !same {
                blanks.clear();
                if let Some(r) = run.take() {
                    l.runs.push(r);
                }
            }
            let r = run.get_or_insert_with(|| Run {
                y,
                fg: look.fg,
                bold: look.bold,
                italic: look.italic,
                chars: Vec::new(),
            });
            r.chars.append(&mut blanks);
            // Combining characters share their cell's position.
            r.chars.extend(symbol.chars().map(|c| (x, c)));
        }
        if let Some(r) = run.take() {
            l.runs.push(r);
        }
    }
    l
}

/// The cell's background, underline and strike-through, as fills.
fn decorate(l: &mut Layout, cell: &Cell, look: &Look, x: u32, y: u32) {
    if look.bg != BACKGROUND {
        let f = Fill {
            x,
            y,
            w: CELL_W,
            h: CELL_H,
            rgb: look.bg,
            alpha: 255,
        };
        push(&mut l.backgrounds, f);
    }
    let m = cell.modifier;
    for (on, at) in [
        (Modifier::UNDERLINED, BASELINE + 2),
        (Modifier::CROSSED_OUT, CELL_H / 2),
    ] {
        if m.contains(on) && !m.contains(Modifier::HIDDEN) {
            let color = if on == Modifier::UNDERLINED {
                rgb(cell.underline_color, look.fg)
            } else {
                look.fg
            };
            let f = Fill {
                x,
                y: y + at,
                w: CELL_W,
                h: 1,
                rgb: color,
                alpha: 255,
            };
            push(&mut l.shapes, f);
        }
    }
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn escape(c: char, out: &mut String) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&apos;"),
        c => out.push(c),
    }
}

/// The buffer as an SVG document.
pub fn svg(buf: &Buffer) -> String {
    let l = layout(buf);
    let mut s = String::new();
    let (w, h) = (l.width, l.height);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" xml:space="preserve" font-family="DejaVu Sans Mono, monospace" font-size="{FONT_PX}">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="{w}" height="{h}" rx="6" fill="{}"/>"#,
        hex(BACKGROUND)
    );
    for f in l.backgrounds.iter().chain(&l.shapes) {
        let _ = write!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}""#,
            f.x,
            f.y,
            f.w,
            f.h,
            hex(f.rgb)
        );
        if f.alpha != 255 {
            let _ = write!(s, r#" fill-opacity="{:.2}""#, f.alpha as f32 / 255.0);
        }
        s.push_str("/>\n");
    }
    for r in &l.runs {
        let xs: Vec<String> = r.chars.iter().map(|(x, _)| x.to_string()).collect();
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" fill="{}""#,
            xs.join(" "),
            r.y + BASELINE,
            hex(r.fg)
        );
        if r.bold {
            s.push_str(r#" font-weight="bold""#);
        }
        if r.italic {
            s.push_str(r#" font-style="italic""#);
        }
        s.push('>');
        for &(_, c) in &r.chars {
            escape(c, &mut s);
        }
        s.push_str("</text>\n");
    }
    s.push_str("</svg>\n");
    s
}

/// The fonts a PNG's text is drawn in: DejaVu Sans Mono, then DejaVu Sans
/// for characters the mono face lacks.
struct Fonts {
    mono: FontRef<'static>,
    mono_bold: FontRef<'static>,
    mono_italic: FontRef<'static>,
    mono_bold_italic: FontRef<'static>,
    sans: FontRef<'static>,
    sans_bold: FontRef<'static>,
}

impl Fonts {
    fn load() -> Fonts {
        let f = |bytes: &'static [u8]| FontRef::try_from_slice(bytes).expect("a DejaVu font");
        Fonts {
            mono: f(dejavu::sans_mono::regular()),
            mono_bold: f(dejavu::sans_mono::bold()),
            mono_italic: f(dejavu::sans_mono::oblique()),
            mono_bold_italic: f(dejavu::sans_mono::bold_oblique()),
            sans: f(dejavu::sans::regular()),
            sans_bold: f(dejavu::sans::bold()),
        }
    }

    /// The face that has `c` in the style asked, and the glyph.
    fn find(&self, c: char, bold: bool, italic: bool) -> Option<(&FontRef<'static>, GlyphId)> {
        let mono = match (bold, italic) {
            (false, false) => &self.mono,
            (true, false) => &self.mono_bold,
            (false, true) => &self.mono_italic,
            (true, true) => &self.mono_bold_italic,
        };
        let sans = if bold { &self.sans_bold } else { &self.sans };
        [mono, &self.mono, sans, &self.sans]
            .into_iter()
            .map(|f| (f, f.glyph_id(c)))
            .find(|(_, g)| g.0 != 0)
    }
}

/// An RGB canvas.
struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    fn blend(&mut self, x: u32, y: u32, c: Rgb, k: u8) {
        if x >= self.width || y >= self.height || k == 0 {
            return;
        }
        let i = ((y * self.width + x) * 3) as usize;
        let p = &mut self.pixels[i..i + 3];
        let under = [p[0], p[1], p[2]];
        p.copy_from_slice(&mix(under, c, k));
    }

    fn fill(&mut self, f: &Fill) {
        for y in f.y..f.y + f.h {
            for x in f.x..f.x + f.w {
                self.blend(x, y, f.rgb, f.alpha);
            }
        }
    }
}

/// The buffer as a PNG image (8-bit RGB).
pub fn png(buf: &Buffer) -> Vec<u8> {
    let l = layout(buf);
    let mut canvas = Canvas {
        width: l.width,
        height: l.height,
        pixels: BACKGROUND.repeat((l.width * l.height) as usize),
    };
    for f in l.backgrounds.iter().chain(&l.shapes) {
        canvas.fill(f);
    }
    let fonts = Fonts::load();
    for r in &l.runs {
        for &(x, c) in &r.chars {
            if c == ' ' {
                continue;
            }
            let Some((font, id)) = fonts.find(c, r.bold, r.italic) else {
                continue;
            };
            let em = font.units_per_em().unwrap_or(2048.0);
            let height = FONT_PX * font.height_unscaled() / em;
            let advance = font.as_scaled(PxScale::from(height)).h_advance(id);
            // A glyph wider than a cell (from the fallback face) is
            // narrowed to fit; a narrower one is centred.
            let cell = CELL_W as f32;
            let (scale, dx) = if advance > cell + 0.5 {
                let narrow = PxScale {
                    x: height * cell / advance,
                    y: height,
                };
                (narrow, 0.0)
            } else {
                (PxScale::from(height), ((cell - advance) / 2.0).max(0.0))
            };
            let at = point(x as f32 + dx, (r.y + BASELINE) as f32);
            let glyph = id.with_scale_and_position(scale, at);
            if let Some(outline) = font.outline_glyph(glyph) {
                let b = outline.px_bounds();
                let (left, top) = (b.min.x as i64, b.min.y as i64);
                outline.draw(|gx, gy, coverage| {
                    let (px, py) = (left + gx as i64, top + gy as i64);
                    if px >= 0 && py >= 0 {
                        let k = (coverage.clamp(0.0, 1.0) * 255.0).round() as u8;
                        canvas.blend(px as u32, py as u32, r.fg, k);
                    }
                });
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, canvas.width, canvas.height);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        e.set_compression(png::Compression::Best);
        e.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        let mut w = e.write_header().expect("writing to memory");
        w.write_image_data(&canvas.pixels)
            .expect("writing to memory");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    fn buffer(lines: &[&str]) -> Buffer {
        let w = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16;
        let mut b = Buffer::empty(Rect::new(0, 0, w, lines.len() as u16));
        for (y, l) in lines.iter().enumerate() {
            b.set_string(0, y as u16, l, Style::default());
        }
        b
    }

    #[test]
    fn named_colours_come_from_the_palette() {
        assert_eq!(rgb(Color::Reset, FOREGROUND), FOREGROUND);
        assert_eq!(rgb(Color::Red, FOREGROUND), [0xcd, 0x31, 0x31]);
        assert_eq!(rgb(Color::DarkGray, FOREGROUND), ANSI[8]);
        assert_eq!(rgb(Color::Rgb(1, 2, 3), FOREGROUND), [1, 2, 3]);
        assert_eq!(rgb(Color::Indexed(9), FOREGROUND), ANSI[9]);
        assert_eq!(rgb(Color::Indexed(196), FOREGROUND), [255, 0, 0]);
        assert_eq!(rgb(Color::Indexed(255), FOREGROUND), [238, 238, 238]);
    }

    #[test]
    fn text_is_escaped_and_placed_cell_by_cell() {
        let b = buffer(&["a<b & 'c'"]);
        let s = svg(&b);
        assert!(s.contains(">a&lt;b &amp; &apos;c&apos;</text>"), "{s}");
        assert!(
            s.contains(r#"<text x="10 19 28 37 46 55 64 73 82" y="24""#),
            "{s}"
        );
        assert!(s.contains(r#"font-family="DejaVu Sans Mono, monospace""#));
    }

    #[test]
    fn a_run_ends_where_the_style_changes() {
        let mut b = buffer(&["ab cd"]);
        b.set_style(Rect::new(3, 0, 2, 1), Style::new().fg(Color::Red).bold());
        let s = svg(&b);
        assert!(s.contains(r##"fill="#cccccc">ab</text>"##), "{s}");
        assert!(
            s.contains(r##"<text x="37 46" y="24" fill="#cd3131" font-weight="bold">cd</text>"##),
            "{s}"
        );
    }

    #[test]
    fn borders_are_rectangles_joined_along_a_row() {
        let b = buffer(&["┌──┐", "└──┘"]);
        let s = svg(&b);
        assert!(!s.contains("<text"), "drawn, not typed:\n{s}");
        // The top border: one rectangle across the four cells.
        assert!(
            s.contains(r#"<rect x="14" y="18" width="28" height="1""#),
            "{s}"
        );
        let heavy = svg(&buffer(&["┏━┓"]));
        assert!(heavy.contains(r#"height="2""#), "{heavy}");
    }

    #[test]
    fn blocks_fill_their_part_of_the_cell() {
        let s = svg(&buffer(&["▄█▏▕░"]));
        assert!(!s.contains("<text"), "{s}");
        // The lower half; the full block and the left eighth after it
        // join into one rectangle; a right eighth at its cell's edge.
        assert!(
            s.contains(r#"<rect x="10" y="19" width="9" height="9""#),
            "{s}"
        );
        assert!(
            s.contains(r#"<rect x="19" y="10" width="10" height="18""#),
            "{s}"
        );
        assert!(
            s.contains(r#"<rect x="45" y="10" width="1" height="18""#),
            "{s}"
        );
        // A light shade: the text colour a quarter over the background.
        assert!(
            s.contains(r##"<rect x="46" y="10" width="9" height="18" fill="#cccccc" fill-opacity="0.25"/>"##),
            "{s}"
        );
    }

    #[test]
    fn reversed_swaps_the_colours_and_backgrounds_run() {
        let mut b = buffer(&["xy z"]);
        b.set_style(Rect::new(0, 0, 3, 1), Style::new().reversed());
        let s = svg(&b);
        assert!(
            s.contains(r##"<rect x="10" y="10" width="27" height="18" fill="#cccccc"/>"##),
            "{s}"
        );
        assert!(s.contains(r##"fill="#1e1e1e">xy</text>"##), "{s}");
    }

    #[test]
    fn the_png_is_the_same_for_the_same_cells() {
        let mut b = buffer(&["┏ Queue 4 ━┓", "┃▶ 926 ■■·▕┃", "┗━━━━━━━━━━┛"]);
        b.set_style(Rect::new(7, 1, 2, 1), Style::new().fg(Color::Cyan));
        let one = png(&b);
        assert_eq!(one, png(&b));
        assert_eq!(&one[..8], b"\x89PNG\r\n\x1a\n");
        // The header's size: 12 × 3 cells and the margins.
        let w = u32::from_be_bytes(one[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(one[20..24].try_into().unwrap());
        assert_eq!((w, h), (12 * CELL_W + 2 * MARGIN, 3 * CELL_H + 2 * MARGIN));
    }

    /// Every character the console draws that is not drawn as geometry
    /// (`⏸`, which DejaVu lacks, is) has a glyph in one of the faces.
    #[test]
    fn the_console_characters_have_glyphs() {
        assert!(shape('⏸', 0, 0).is_some());
        let fonts = Fonts::load();
        let missing: String = "■·▶◆×↷–…○↓▱→↑≥Γ✗▣−±✓←▪∞Δ◨◧◀▸▤⏎▰≤●⅛½¼□┆"
            .chars()
            .filter(|&c| fonts.find(c, false, false).is_none())
            .collect();
        assert_eq!(missing, "");
    }
}
