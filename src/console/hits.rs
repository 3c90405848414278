//! Where the last frame drew what, for the mouse: the panes' rectangles,
//! the queue's rows with their jobs, the processor cells with the job
//! running on each, the picker's rows. The view fills it while it draws
//! (each pane returns the spots it drew), so a click is read against the
//! very rectangles on the screen rather than a second copy of the layout.

use super::app::Pane;
use ratatui::layout::{Position, Rect};

/// A rectangle of the screen and what is drawn there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spot<T> {
    pub area: Rect,
    pub what: T,
}

impl<T> Spot<T> {
    pub fn new(area: Rect, what: T) -> Spot<T> {
        Spot { area, what }
    }
}

/// A queued job's row: its position in the queue and its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub pos: usize,
    pub id: u64,
}

/// The last frame's map. Empty until the first frame is drawn, and where
/// a layout has no such thing (compare mode has no pane to focus).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hits {
    /// The panes that take the focus, whole (borders included).
    pub panes: Vec<Spot<Pane>>,
    pub queue: Vec<Spot<Queued>>,
    /// A processor cell: the job running there, `None` where it is free.
    pub cells: Vec<Spot<Option<u64>>>,
    /// The policy picker's rows: the cursor row each one is.
    pub picker: Vec<Spot<usize>>,
}

/// What of `spots` is at column `x`, row `y`.
fn at<T: Copy>(spots: &[Spot<T>], x: u16, y: u16) -> Option<T> {
    let p = Position::new(x, y);
    spots.iter().find(|s| s.area.contains(p)).map(|s| s.what)
}

impl Hits {
    /// The pane at (`x`, `y`), borders included.
    pub fn pane(&self, x: u16, y: u16) -> Option<Pane> {
        at(&self.panes, x, y)
    }

    /// The queued job whose row is at (`x`, `y`).
    pub fn queued(&self, x: u16, y: u16) -> Option<Queued> {
        at(&self.queue, x, y)
    }

    /// The processor cell at (`x`, `y`): `Some(job)` on a cell, with the
    /// job running there if any.
    pub fn cell(&self, x: u16, y: u16) -> Option<Option<u64>> {
        at(&self.cells, x, y)
    }

    /// The picker row at (`x`, `y`).
    pub fn picker_row(&self, x: u16, y: u16) -> Option<usize> {
        at(&self.picker, x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spots_are_found_inside_their_rectangle_only() {
        let hits = Hits {
            queue: vec![Spot::new(Rect::new(2, 3, 10, 1), Queued { pos: 4, id: 9 })],
            ..Hits::default()
        };
        assert_eq!(hits.queued(2, 3), Some(Queued { pos: 4, id: 9 }));
        assert_eq!(hits.queued(11, 3).map(|q| q.id), Some(9));
        assert_eq!(hits.queued(12, 3), None);
        assert_eq!(hits.queued(2, 4), None);
        assert_eq!(hits.queued(1, 3), None);
        assert_eq!(hits.pane(0, 0), None);
    }
}
