//! Box-drawing lines and block elements as rectangles in pixels, so that
//! borders join and bars stack without gaps whatever the viewer's font.

use super::{BASELINE, CELL_H, CELL_W};

/// Line weights of a box-drawing character's arms: up, right, down, left
/// (0 none, 1 light, 2 heavy).
fn arms(c: char) -> Option<[u8; 4]> {
    // Rounded corners are drawn square.
    let a = match c {
        '\u{2500}'..='\u{254b}' => ARMS[c as usize - 0x2500],
        '╭' => [0, 1, 1, 0],
        '╮' => [0, 0, 1, 1],
        '╯' => [1, 0, 0, 1],
        '╰' => [1, 1, 0, 0],
        '\u{2574}'..='\u{257f}' => HALF_ARMS[c as usize - 0x2574],
        _ => return None,
    };
    (a != [0; 4]).then_some(a)
}

/// The arms of U+2500–U+254B in order (see [`arms`]).
const ARMS: [[u8; 4]; 76] = [
    [0, 1, 0, 1], // ─
    [0, 2, 0, 2], // ━
    [1, 0, 1, 0], // │
    [2, 0, 2, 0], // ┃
    [0, 0, 0, 0], // ┄ (dashed: the font's)
    [0, 0, 0, 0], // ┅
    [0, 0, 0, 0], // ┆
    [0, 0, 0, 0], // ┇
    [0, 0, 0, 0], // ┈
    [0, 0, 0, 0], // ┉
    [0, 0, 0, 0], // ┊
    [0, 0, 0, 0], // ┋
    [0, 1, 1, 0], // ┌
    [0, 2, 1, 0], // ┍
    [0, 1, 2, 0], // ┎
    [0, 2, 2, 0], // ┏
    [0, 0, 1, 1], // ┐
    [0, 0, 1, 2], // ┑
    [0, 0, 2, 1], // ┒
    [0, 0, 2, 2], // ┓
    [1, 1, 0, 0], // └
    [1, 2, 0, 0], // ┕
    [2, 1, 0, 0], // ┖
    [2, 2, 0, 0], // ┗
    [1, 0, 0, 1], // ┘
    [1, 0, 0, 2], // ┙
    [2, 0, 0, 1], // ┚
    [2, 0, 0, 2], // ┛
    [1, 1, 1, 0], // ├
    [1, 2, 1, 0], // ┝
    [2, 1, 1, 0], // ┞
    [1, 1, 2, 0], // ┟
    [2, 1, 2, 0], // ┠
    [2, 2, 1, 0], // ┡
    [1, 2, 2, 0], // ┢
    [2, 2, 2, 0], // ┣
    [1, 0, 1, 1], // ┤
    [1, 0, 1, 2], // ┥
    [2, 0, 1, 1], // ┦
    [1, 0, 2, 1], // ┧
    [2, 0, 2, 1], // ┨
    [2, 0, 1, 2], // ┩
    [1, 0, 2, 2], // ┪
    [2, 0, 2, 2], // ┫
    [0, 1, 1, 1], // ┬
    [0, 1, 1, 2], // ┭
    [0, 2, 1, 1], // ┮
    [0, 2, 1, 2], // ┯
    [0, 1, 2, 1], // ┰
    [0, 1, 2, 2], // ┱
    [0, 2, 2, 1], // ┲
    [0, 2, 2, 2], // ┳
    [1, 1, 0, 1], // ┴
    [1, 1, 0, 2], // ┵
    [1, 2, 0, 1], // ┶
    [1, 2, 0, 2], // ┷
    [2, 1, 0, 1], // ┸
    [2, 1, 0, 2], // ┹
    [2, 2, 0, 1], // ┺
    [2, 2, 0, 2], // ┻
    [1, 1, 1, 1], // ┼
    [1, 1, 1, 2], // ┽
    [1, 2, 1, 1], // ┾
    [1, 2, 1, 2], // ┿
    [2, 1, 1, 1], // ╀
    [1, 1, 2, 1], // ╁
    [2, 1, 2, 1], // ╂
    [2, 1, 1, 2], // ╃
    [2, 2, 1, 1], // ╄
    [1, 1, 2, 2], // ╅
    [1, 2, 2, 1], // ╆
    [2, 2, 1, 2], // ╇
    [1, 2, 2, 2], // ╈
    [2, 1, 2, 2], // ╉
    [2, 2, 2, 1], // ╊
    [2, 2, 2, 2], // ╋
];

/// The arms of U+2574–U+257F in order.
const HALF_ARMS: [[u8; 4]; 12] = [
    [0, 0, 0, 1], // ╴
    [1, 0, 0, 0], // ╵
    [0, 1, 0, 0], // ╶
    [0, 0, 1, 0], // ╷
    [0, 0, 0, 2], // ╸
    [2, 0, 0, 0], // ╹
    [0, 2, 0, 0], // ╺
    [0, 0, 2, 0], // ╻
    [0, 2, 0, 1], // ╼
    [1, 0, 2, 0], // ╽
    [0, 1, 0, 2], // ╾
    [2, 0, 1, 0], // ╿
];

/// Rectangles in pixels: `(x, y, w, h, alpha)`.
pub(super) type Rects = Vec<(u32, u32, u32, u32, u8)>;

/// The rectangles of `c` in a cell at (`x`, `y`), if it is drawn as
/// geometry.
pub(super) fn shape(c: char, x: u32, y: u32) -> Option<Rects> {
    let (w, h) = (CELL_W, CELL_H);
    if let Some([up, right, down, left]) = arms(c) {
        let thick = |weight: u8| if weight == 2 { 2 } else { 1 };
        let widest = thick(up.max(right).max(down).max(left));
        // Lines are centred; each arm reaches across the centre as wide
        // as the widest arm, so that corners and tees close.
        let x0 = (w - widest) / 2;
        let y0 = (h - widest) / 2;
        let mut r = Vec::new();
        if left > 0 && left == right {
            let t = thick(left);
            r.push((x, y + (h - t) / 2, w, t, 255));
        } else {
            if left > 0 {
                let t = thick(left);
                r.push((x, y + (h - t) / 2, x0 + widest, t, 255));
            }
            if right > 0 {
                let t = thick(right);
                r.push((x + x0, y + (h - t) / 2, w - x0, t, 255));
            }
        }
        if up > 0 && up == down {
            let t = thick(up);
            r.push((x + (w - t) / 2, y, t, h, 255));
        } else {
            if up > 0 {
                let t = thick(up);
                r.push((x + (w - t) / 2, y, t, y0 + widest, 255));
            }
            if down > 0 {
                let t = thick(down);
                r.push((x + (w - t) / 2, y + y0, t, h - y0, 255));
            }
        }
        return Some(r);
    }
    let eighths = |n: u32, of: u32| (of * n + 4) / 8;
    let r = match c {
        '▀' => (x, y, w, h / 2, 255),
        '▁'..='█' => {
            let n = c as u32 - 0x2580;
            let t = eighths(n, h);
            (x, y + h - t, w, t, 255)
        }
        '▉'..='▏' => {
            let n = 0x2590 - c as u32;
            (x, y, eighths(n, w).max(1), h, 255)
        }
        '▐' => (x + w - w / 2, y, w / 2, h, 255),
        '░' => (x, y, w, h, 64),
        '▒' => (x, y, w, h, 128),
        '▓' => (x, y, w, h, 191),
        '▔' => (x, y, w, eighths(1, h), 255),
        '▕' => {
            let t = eighths(1, w).max(1);
            (x + w - t, y, t, h, 255)
        }
        // Pause, which the DejaVu faces lack: two bars.
        '⏸' => {
            let top = y + BASELINE - 10;
            return Some(vec![(x + 2, top, 2, 10, 255), (x + 5, top, 2, 10, 255)]);
        }
        _ => return None,
    };
    Some(vec![r])
}
