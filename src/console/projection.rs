//! The console's picture of the engine, projected from the engine's
//! read-only view ([`EngineRead`]): everything as in the whole picture
//! but the queue, of which it carries rows only for the positions the
//! console pages to, the head, and the job whose detail is open. A
//! picture of a queue of 100,000 then costs what a screenful costs.
//! Paging and the watched job are the console's: the engine knows
//! neither.

use crate::engine::{BackfillView, EngineRead, EngineSnapshot, JobKey, QueueRow};
use crate::model::SimTime;
use serde::Serialize;

/// The part of the queue a picture carries rows for: the rows from
/// position `from` (0 is the head), `rows` of them at most. The console
/// asks for what it draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueWindow {
    pub from: usize,
    pub rows: usize,
}

impl QueueWindow {
    /// Every queued job.
    pub const ALL: QueueWindow = QueueWindow {
        from: 0,
        rows: usize::MAX,
    };

    /// `margin` rows either side of position `at`.
    pub fn around(at: usize, margin: usize) -> QueueWindow {
        QueueWindow {
            from: at.saturating_sub(margin),
            rows: margin.saturating_mul(2).saturating_add(1),
        }
    }

    /// Whether positions `from..from + rows` lie inside this window.
    pub fn covers(&self, from: usize, rows: usize) -> bool {
        from >= self.from && from.saturating_add(rows) <= self.from.saturating_add(self.rows)
    }
}

/// The queue as the console's picture carries it: its length, its head,
/// and rows for one window of positions. Positions are those in the
/// whole queue.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueueSlice {
    len: usize,
    from: usize,
    rows: Vec<QueueRow>,
    /// The head's row when the window does not start at the head.
    head: Option<QueueRow>,
    /// A job asked for by id (an open detail view) outside the window:
    /// its position and row.
    watched: Option<(usize, QueueRow)>,
}

impl QueueSlice {
    /// A slice holding the whole queue.
    pub fn whole(rows: Vec<QueueRow>) -> QueueSlice {
        QueueSlice {
            len: rows.len(),
            from: 0,
            rows,
            head: None,
            watched: None,
        }
    }

    /// Jobs in the queue (all of them, not only the rows carried).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The head's row (carried whatever the window).
    pub fn first(&self) -> Option<&QueueRow> {
        self.get(0).or(self.head.as_ref())
    }

    /// The row at queue position `i`, if the slice carries it.
    pub fn get(&self, i: usize) -> Option<&QueueRow> {
        i.checked_sub(self.from).and_then(|k| self.rows.get(k))
    }

    /// The positions this slice carries rows for.
    pub fn window(&self) -> std::ops::Range<usize> {
        self.from..self.from + self.rows.len()
    }

    /// The rows carried, with their queue positions.
    pub fn rows(&self) -> impl Iterator<Item = (usize, &QueueRow)> {
        (self.from..).zip(&self.rows)
    }

    /// The rows carried.
    pub fn iter(&self) -> std::slice::Iter<'_, QueueRow> {
        self.rows.iter()
    }

    /// Whether every job in the queue has a row here.
    pub fn is_whole(&self) -> bool {
        self.from == 0 && self.rows.len() == self.len
    }

    /// The carried row of job `id` and its queue position.
    pub fn find(&self, id: u64) -> Option<(usize, &QueueRow)> {
        self.rows().find(|(_, q)| q.id == id).or_else(|| {
            self.watched
                .as_ref()
                .filter(|(_, q)| q.id == id)
                .map(|(i, q)| (*i, q))
        })
    }

    /// Sets the planned start of the row at queue position `i`, if carried.
    pub fn set_planned_start(&mut self, i: usize, start: Option<SimTime>) {
        if let Some(k) = i.checked_sub(self.from)
            && let Some(r) = self.rows.get_mut(k)
        {
            r.planned_start = start;
        }
    }

    /// Appends a row at the end of the queue (a whole slice stays whole).
    pub fn push(&mut self, row: QueueRow) {
        if self.from + self.rows.len() == self.len {
            self.rows.push(row);
        }
        self.len += 1;
    }

    /// Takes the row at queue position `i` out of the queue.
    pub fn remove(&mut self, i: usize) -> Option<QueueRow> {
        let k = i.checked_sub(self.from)?;
        (k < self.rows.len()).then(|| {
            self.len -= 1;
            self.rows.remove(k)
        })
    }
}

/// The row at queue position `i`; panics when the slice does not carry it
/// (as indexing a `Vec` past its end does): use [`QueueSlice::get`] where
/// it may not.
impl std::ops::Index<usize> for QueueSlice {
    type Output = QueueRow;

    fn index(&self, i: usize) -> &QueueRow {
        match self.get(i) {
            Some(r) => r,
            None => panic!(
                "queue position {i} is not in the rows carried ({:?})",
                self.window()
            ),
        }
    }
}

/// The picture of `engine` with rows for the queued jobs in `window`
/// (the queue's length and everything else as in the whole picture), for
/// the head, and for job `watched` wherever it waits.
pub fn project(
    engine: EngineRead<'_>,
    window: QueueWindow,
    watched: Option<u64>,
) -> EngineSnapshot<QueueSlice> {
    let (queue, plan) = queue_slice(engine, window, watched);
    engine.picture(queue, plan)
}

/// The rows of the queue the console draws (`window`, the head and a
/// watched job), with the policy's plan for them.
fn queue_slice(
    e: EngineRead<'_>,
    window: QueueWindow,
    watched: Option<u64>,
) -> (QueueSlice, Option<BackfillView>) {
    let queue = e.queue();
    let from = window.from.min(queue.len());
    let keys = &queue[from..from + window.rows.min(queue.len() - from)];
    // The head when the window does not carry it (it starts behind it or
    // carries no rows); a watched job outside the window (one pass over the
    // queue, only while its detail is open).
    let head = (from > 0 || keys.is_empty())
        .then(|| queue.first().copied())
        .flatten();
    let watched = watched
        .filter(|id| !keys.iter().any(|&k| e.job(k).id == *id))
        .and_then(|id| queue.iter().position(|&k| e.job(k).id == id))
        .map(|i| (i, queue[i]));
    let mut asked: Vec<JobKey> = keys.to_vec();
    asked.extend(head);
    asked.extend(watched.map(|(_, k)| k));
    // The rows come in the order asked: the window's, then the head's,
    // then the watched job's.
    let (mut rows, plan) = e.queue_rows(&asked);
    let mut beyond = rows.split_off(keys.len()).into_iter();
    let head = head.and_then(|_| beyond.next());
    let watched = watched.and_then(|(i, _)| beyond.next().map(|r| (i, r)));
    let slice = QueueSlice {
        len: queue.len(),
        from,
        rows,
        head,
        watched,
    };
    (slice, plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineConfig;
    use crate::model::{JobSpec, Platform};
    use crate::policy::SharedParams;
    use crate::sched::PolicySpec;

    fn row(id: u64) -> QueueRow {
        QueueRow {
            id,
            submit: SimTime::ZERO,
            size: 1,
            components: vec![1],
            estimate: SimTime::from_secs(10),
            injected: false,
            planned_start: None,
            graph: None,
        }
    }

    #[test]
    fn a_window_covers_the_positions_inside_it_only() {
        // Positions 7..14.
        let w = QueueWindow::around(10, 3);
        assert_eq!(w, QueueWindow { from: 7, rows: 7 });
        assert!(w.covers(7, 7), "the whole window");
        assert!(w.covers(9, 2));
        assert!(!w.covers(6, 1), "a row before it");
        assert!(!w.covers(6, 8), "starts before it, ends inside");
        assert!(!w.covers(8, 7), "starts inside, ends past it");
        assert!(!w.covers(14, 1), "the row after it");
        assert!(QueueWindow::ALL.covers(100_000, usize::MAX));
    }

    #[test]
    fn a_slice_knows_its_length_and_window_beyond_the_rows_it_carries() {
        let empty = QueueSlice::whole(Vec::new());
        assert!(empty.is_empty());
        assert_eq!(empty.window(), 0..0);
        assert!(empty.is_whole());
        // Rows for positions 3..5 of a queue of 9.
        let mut part = QueueSlice {
            len: 9,
            from: 3,
            rows: vec![row(13), row(14)],
            head: Some(row(10)),
            watched: Some((7, row(17))),
        };
        assert!(!part.is_empty());
        assert_eq!(part.len(), 9);
        assert_eq!(part.window(), 3..5);
        assert!(!part.is_whole());
        assert_eq!(part.first().map(|r| r.id), Some(10));
        assert_eq!(part.get(4).map(|r| r.id), Some(14));
        assert!(part.get(2).is_none() && part.get(5).is_none());
        assert_eq!(part.find(14).map(|(i, r)| (i, r.id)), Some((4, 14)));
        assert_eq!(part.find(17).map(|(i, r)| (i, r.id)), Some((7, 17)));
        assert!(part.find(10).is_none(), "the head is not a found row");
        // A row pushed at the end of a queue not carried to its end is
        // counted, not carried.
        part.push(row(19));
        assert_eq!((part.len(), part.window()), (10, 3..5));
        assert!(part.remove(8).is_none(), "not carried: nothing removed");
        assert!(part.remove(5).is_none(), "just past the rows carried");
        assert_eq!(part.remove(3).map(|r| r.id), Some(13));
        assert_eq!((part.len(), part.window()), (9, 3..4));
        // Rows from the head, not to the end, are not the whole queue.
        let head = QueueSlice {
            len: 3,
            rows: vec![row(1)],
            ..QueueSlice::default()
        };
        assert!(!head.is_whole());
        // A whole slice stays whole.
        let mut whole = QueueSlice::whole(vec![row(1)]);
        whole.push(row(2));
        assert!(whole.is_whole() && whole.window() == (0..2));
    }

    /// One cluster of 2 under FCFS at 1 s: jobs 1 and 2 run, 3 to 9 wait.
    fn seven_queued() -> crate::engine::Engine {
        let jobs: Vec<JobSpec> = (1..=9)
            .map(|i| JobSpec::rigid(i, SimTime::ZERO, 1, SimTime::from_secs(100)))
            .collect();
        let mut e = crate::simulation::engine(
            Platform::uniform(1, 2),
            Box::new(jobs.into_iter()),
            &PolicySpec::fcfs(),
            EngineConfig::default(),
        )
        .unwrap();
        e.step_until(SimTime::from_secs(1));
        e
    }

    fn rows(s: &EngineSnapshot<QueueSlice>) -> Vec<(usize, u64)> {
        s.queue.rows().map(|(i, r)| (i, r.id)).collect()
    }

    #[test]
    fn a_window_carries_its_rows_the_head_and_a_watched_job() {
        let e = seven_queued();
        let read = e.read();
        let whole = project(read, QueueWindow::ALL, None);
        assert_eq!(rows(&whole), (3..=9).enumerate().collect::<Vec<_>>());
        assert_eq!(
            whole.queue,
            QueueSlice::whole(e.snapshot().queue),
            "a whole queue carries no separate head"
        );
        let window = QueueWindow { from: 2, rows: 3 };
        let part = project(read, window, None);
        assert_eq!(rows(&part), [(2, 5), (3, 6), (4, 7)]);
        assert_eq!(part.queue.len(), 7);
        assert_eq!(
            part.queue.first().map(|r| r.id),
            Some(3),
            "the head, whatever the window"
        );
        assert!(part.queue.find(9).is_none());
        // A job watched outside the window comes with its position.
        let watched = project(read, window, Some(9));
        assert_eq!(watched.queue.find(9).map(|(i, r)| (i, r.id)), Some((6, 9)));
        assert_eq!(rows(&watched), rows(&part));
        // One inside the window is one of its rows, not carried twice.
        assert_eq!(project(read, window, Some(6)).queue, part.queue);
        // A window of no rows, or past the end, still carries the head.
        let none = project(read, QueueWindow { from: 0, rows: 0 }, None);
        assert_eq!(none.queue.window(), 0..0);
        assert_eq!(none.queue.first().map(|r| r.id), Some(3));
        let past = project(read, QueueWindow { from: 50, rows: 3 }, None);
        assert_eq!(past.queue.window(), 7..7);
        assert_eq!(past.queue.first().map(|r| r.id), Some(3));
    }
}
