//! The advance-reservation steps on task-graph schedules (Sulistio,
//! Schiffmann and Buyya): a reservation of `width` processors holds several
//! graphs' schedules, packed by four steps.
//!
//! 1. **Rearrange** ([`rearrange`]): relabel a schedule's processors by the
//!    number of subtasks each runs. The reading is a setting
//!    ([`RearrangeOrder`]): busiest first (default), or least busy first,
//!    which is what the paper's example shows (PE0, PE1, PE2 of its
//!    Figure 1 become PE2, PE0, PE1). Processors without subtasks go last.
//! 2. **Move** ([`move_subtasks`]): empty the least busy processor (fewest
//!    subtasks, then lowest label) by moving each of its subtasks, at the
//!    same start, onto another used processor whose slot is empty there,
//!    busiest target first, provided every parent's data still arrives in
//!    time and every child still gets its data in time. A processor is
//!    emptied entirely or not at all; each used processor is tried once,
//!    and the result is rearranged again so the freed ones come last.
//! 3. **Interweave** ([`Reservation::interweave`]): the first graph goes in
//!    at offset 0, row r (the subtasks of its processor r) on reservation
//!    processor r. Each next graph keeps its allocation (a row stays whole
//!    on one processor, rows on distinct processors) and its timing (all
//!    rows shift by one offset): its rows, by first start, each go to the
//!    processor where they fit with the least idle time before them (ties:
//!    lowest processor); when a row fits nowhere, all its rows are delayed
//!    to the next offset at which some row would meet the end of a busy
//!    interval, and placed again.
//! 4. **Backfill** ([`Reservation::backfill`]): the idle gaps inside the
//!    reservation, by start then processor, are filled from a queue of
//!    independent jobs, each time with the job whose estimate is the
//!    largest not exceeding the gap (best fit; ties to the earlier job),
//!    starting at the gap's start; a job wider than one processor also
//!    needs the other processors idle over its estimate (lowest first).
//!    A gap that no job fits is given up.

use super::TaskGraph;
use super::schedule::Schedule;

/// How [`rearrange`] orders processors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RearrangeOrder {
    #[default]
    BusiestFirst,
    LeastBusyFirst,
}

fn counts(s: &Schedule) -> Vec<usize> {
    let mut c = vec![0; s.procs];
    for &q in &s.proc {
        c[q] += 1;
    }
    c
}

/// Step 1: the same schedule with processors relabelled by their number
/// of subtasks (ties keep the old order; empty processors last).
pub fn rearrange(s: &Schedule, order: RearrangeOrder) -> Schedule {
    let c = counts(s);
    let mut procs: Vec<usize> = (0..s.procs).collect();
    match order {
        RearrangeOrder::BusiestFirst => procs.sort_by_key(|&q| (std::cmp::Reverse(c[q]), q)),
        RearrangeOrder::LeastBusyFirst => procs.sort_by_key(|&q| (c[q] == 0, c[q], q)),
    }
    let mut label = vec![0; s.procs];
    for (new, &old) in procs.iter().enumerate() {
        label[old] = new;
    }
    Schedule {
        procs: s.procs,
        proc: s.proc.iter().map(|&q| label[q]).collect(),
        start: s.start.clone(),
    }
}

/// One subtask moved by [`move_subtasks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub task: usize,
    pub from: usize,
    pub to: usize,
}

fn free_on(g: &TaskGraph, s: &Schedule, q: usize, from: u64, to: u64, except: usize) -> bool {
    from == to
        || (0..g.len()).all(|t| {
            t == except
                || s.proc[t] != q
                || g.weights[t] == 0
                || s.end(g, t) <= from
                || s.start[t] >= to
        })
}

fn deps_hold(g: &TaskGraph, s: &Schedule, t: usize, q: usize) -> bool {
    let (st, en) = (s.start[t], s.end(g, t));
    g.preds[t]
        .iter()
        .all(|&(p, c)| s.end(g, p) + if s.proc[p] != q { c } else { 0 } <= st)
        && g.succs[t]
            .iter()
            .all(|&(k, c)| en + if s.proc[k] != q { c } else { 0 } <= s.start[k])
}

/// Step 2: empty processors by moving their subtasks into free slots of
/// the others (see the module's description). Returns the new schedule
/// (on the rows of `s`, not yet rearranged) and the moves made.
pub fn move_subtasks(g: &TaskGraph, s: &Schedule) -> (Schedule, Vec<Move>) {
    let mut cur = s.clone();
    let mut moves = Vec::new();
    let mut tried = vec![false; s.procs];
    loop {
        let c = counts(&cur);
        let Some(donor) = (0..cur.procs)
            .filter(|&q| c[q] > 0 && !tried[q])
            .min_by_key(|&q| (c[q], q))
        else {
            break;
        };
        tried[donor] = true;
        let mut tent = cur.clone();
        let mut tent_moves = Vec::new();
        let mut row: Vec<usize> = (0..g.len()).filter(|&t| cur.proc[t] == donor).collect();
        row.sort_by_key(|&t| (cur.start[t], t));
        let mut ok = true;
        for t in row {
            let tc = counts(&tent);
            let mut targets: Vec<usize> = (0..tent.procs)
                .filter(|&q| q != donor && tc[q] > 0)
                .collect();
            targets.sort_by_key(|&q| (std::cmp::Reverse(tc[q]), q));
            let (st, en) = (tent.start[t], tent.end(g, t));
            match targets
                .into_iter()
                .find(|&q| free_on(g, &tent, q, st, en, t) && deps_hold(g, &tent, t, q))
            {
                Some(q) => {
                    tent.proc[t] = q;
                    tent_moves.push(Move {
                        task: t,
                        from: donor,
                        to: q,
                    });
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            cur = tent;
            moves.extend(tent_moves);
        }
    }
    (cur, moves)
}

/// Steps 1 and 2 together: rearrange, move, rearrange again (freed
/// processors last).
pub fn compact(g: &TaskGraph, s: &Schedule, order: RearrangeOrder) -> Schedule {
    let (moved, _) = move_subtasks(g, &rearrange(s, order));
    rearrange(&moved, order)
}

/// What occupies a stretch of a reservation processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occupant {
    /// Subtask `task` of the reservation's graph `graph`.
    Subtask { graph: usize, task: usize },
    /// Backfilled independent job `job` (the caller's id).
    Job { job: usize },
}

/// A busy stretch [start, end) of one processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: u64,
    pub end: u64,
    pub who: Occupant,
}

/// Where one graph went: all its rows shifted by `offset`, its row r on
/// reservation processor `rows[r]` (None for a row without subtasks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub offset: u64,
    pub rows: Vec<Option<usize>>,
    /// The graph's own length (makespan of its schedule).
    pub length: u64,
}

/// An idle stretch of one processor inside the reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    pub proc: usize,
    pub start: u64,
    pub end: u64,
}

/// A job of the independent queue, as backfilling sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub job: usize,
    pub width: usize,
    pub estimate: u64,
}

/// A backfilled job: its processors and start inside the reservation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filled {
    pub job: usize,
    pub procs: Vec<usize>,
    pub start: u64,
    pub end: u64,
}

/// Why graphs cannot share a reservation.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArError {
    #[error("graph {graph} uses {used} processors, the reservation has {width}")]
    TooWide {
        graph: usize,
        used: usize,
        width: usize,
    },
}

/// A reservation of `width` processors from time 0 (relative), with its
/// busy blocks per processor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation {
    pub width: usize,
    pub busy: Vec<Vec<Block>>,
    pub placements: Vec<Placement>,
    pub filled: Vec<Filled>,
}

impl Reservation {
    pub fn new(width: usize) -> Self {
        Reservation {
            width,
            busy: vec![Vec::new(); width],
            placements: Vec::new(),
            filled: Vec::new(),
        }
    }

    /// The reservation's length: the last end of any graph's subtask.
    pub fn length(&self) -> u64 {
        self.placements
            .iter()
            .map(|p| p.offset + p.length)
            .max()
            .unwrap_or(0)
    }

    /// The graphs' lengths one after another: the reservation without
    /// interweaving.
    pub fn serial_length(&self) -> u64 {
        self.placements.iter().map(|p| p.length).sum()
    }

    /// How much interweaving shortened the reservation, in % of the serial
    /// length.
    pub fn reduction_pct(&self) -> f64 {
        let serial = self.serial_length();
        if serial == 0 {
            return 0.0;
        }
        100.0 * (serial - self.length()) as f64 / serial as f64
    }

    fn fits(&self, q: usize, from: u64, to: u64) -> bool {
        from == to || self.busy[q].iter().all(|b| b.end <= from || b.start >= to)
    }

    fn add(&mut self, q: usize, b: Block) {
        let i = self.busy[q].partition_point(|x| (x.start, x.end) <= (b.start, b.end));
        self.busy[q].insert(i, b);
    }

    /// Step 3: adds graph `g` with its (compacted) schedule `s`; returns
    /// its index among the reservation's graphs.
    pub fn interweave(&mut self, g: &TaskGraph, s: &Schedule) -> Result<usize, ArError> {
        let idx = self.placements.len();
        let rows = s.rows();
        let intervals: Vec<Vec<(u64, u64, usize)>> = rows
            .iter()
            .map(|r| {
                r.iter()
                    .filter(|&&t| g.weights[t] > 0)
                    .map(|&t| (s.start[t], s.end(g, t), t))
                    .collect()
            })
            .collect();
        let mut order: Vec<usize> = (0..rows.len()).filter(|&r| !rows[r].is_empty()).collect();
        if order.len() > self.width {
            return Err(ArError::TooWide {
                graph: idx,
                used: order.len(),
                width: self.width,
            });
        }
        order.sort_by_key(|&r| (rows[r].first().map(|&t| s.start[t]), r));
        // Offsets at which a row's interval would begin exactly where a
        // busy block ends.
        let mut offsets: Vec<u64> = vec![0];
        for q in &self.busy {
            for b in q {
                for iv in intervals.iter().flatten() {
                    if b.end >= iv.0 {
                        offsets.push(b.end - iv.0);
                    }
                }
            }
        }
        offsets.sort_unstable();
        offsets.dedup();
        let mut chosen = None;
        for &off in &offsets {
            if let Some(map) = self.try_place(&intervals, &order, off) {
                chosen = Some((off, map));
                break;
            }
        }
        // With the largest offset every row starts after all blocks end,
        // so a placement is always found when rows ≤ width.
        let (offset, map) = chosen.expect("the last offset always fits");
        let mut placed_rows = vec![None; rows.len()];
        for (&r, &q) in order.iter().zip(&map) {
            placed_rows[r] = Some(q);
            for &(a, b, t) in &intervals[r] {
                self.add(
                    q,
                    Block {
                        start: a + offset,
                        end: b + offset,
                        who: Occupant::Subtask {
                            graph: idx,
                            task: t,
                        },
                    },
                );
            }
        }
        self.placements.push(Placement {
            offset,
            rows: placed_rows,
            length: s.makespan(g),
        });
        Ok(idx)
    }

    fn try_place(
        &self,
        iv: &[Vec<(u64, u64, usize)>],
        order: &[usize],
        off: u64,
    ) -> Option<Vec<usize>> {
        let mut used = vec![false; self.width];
        let mut map = Vec::with_capacity(order.len());
        for &r in order {
            let first = iv[r].first().map_or(off, |x| x.0 + off);
            let best = (0..self.width)
                .filter(|&q| !used[q])
                .filter(|&q| {
                    iv[r]
                        .iter()
                        .all(|&(a, b, _)| self.fits(q, a + off, b + off))
                })
                .min_by_key(|&q| {
                    let before = self.busy[q]
                        .iter()
                        .filter(|b| b.end <= first)
                        .map(|b| b.end)
                        .max()
                        .unwrap_or(0);
                    (first - before, q)
                })?;
            used[best] = true;
            map.push(best);
        }
        Some(map)
    }

    /// The idle stretches inside [0, length), by start then processor.
    pub fn gaps(&self) -> Vec<Gap> {
        let len = self.length();
        let mut out = Vec::new();
        for (q, blocks) in self.busy.iter().enumerate() {
            let mut at = 0;
            for b in blocks {
                if b.start > at {
                    out.push(Gap {
                        proc: q,
                        start: at,
                        end: b.start.min(len),
                    });
                }
                at = at.max(b.end);
            }
            if at < len {
                out.push(Gap {
                    proc: q,
                    start: at,
                    end: len,
                });
            }
        }
        out.retain(|g| g.end > g.start);
        out.sort_by_key(|g| (g.start, g.proc));
        out
    }

    /// Step 4: fills gaps from `queue` (in queue order); returns the jobs
    /// placed, also recorded in the reservation.
    pub fn backfill(&mut self, queue: &[Candidate]) -> Vec<Filled> {
        let mut taken = vec![false; queue.len()];
        let mut given_up: Vec<(usize, u64)> = Vec::new();
        let mut out = Vec::new();
        while let Some(gap) = self
            .gaps()
            .into_iter()
            .find(|g| !given_up.contains(&(g.proc, g.start)))
        {
            let len = gap.end - gap.start;
            let mut best: Option<(usize, Vec<usize>)> = None;
            for (i, c) in queue.iter().enumerate() {
                if taken[i]
                    || c.estimate == 0
                    || c.estimate > len
                    || c.width == 0
                    || c.width > self.width
                {
                    continue;
                }
                if best
                    .as_ref()
                    .is_some_and(|(b, _)| queue[*b].estimate >= c.estimate)
                {
                    continue;
                }
                let end = gap.start + c.estimate;
                let mut procs = vec![gap.proc];
                for q in 0..self.width {
                    if procs.len() == c.width {
                        break;
                    }
                    if q != gap.proc && self.fits(q, gap.start, end) {
                        procs.push(q);
                    }
                }
                if procs.len() == c.width {
                    procs.sort_unstable();
                    best = Some((i, procs));
                }
            }
            match best {
                Some((i, procs)) => {
                    taken[i] = true;
                    let c = queue[i];
                    let end = gap.start + c.estimate;
                    for &q in &procs {
                        self.add(
                            q,
                            Block {
                                start: gap.start,
                                end,
                                who: Occupant::Job { job: c.job },
                            },
                        );
                    }
                    let f = Filled {
                        job: c.job,
                        procs,
                        start: gap.start,
                        end,
                    };
                    self.filled.push(f.clone());
                    out.push(f);
                }
                None => given_up.push((gap.proc, gap.start)),
            }
        }
        out
    }

    /// Processor time of backfilled jobs inside the reservation.
    pub fn backfill_time(&self) -> u64 {
        self.filled
            .iter()
            .map(|f| (f.end - f.start) * f.procs.len() as u64)
            .sum()
    }

    /// Busy processor time ÷ (width × length).
    pub fn utilisation(&self) -> f64 {
        let len = self.length();
        if len == 0 || self.width == 0 {
            return 0.0;
        }
        let busy: u64 = self
            .busy
            .iter()
            .flatten()
            .map(|b| b.end.min(len).saturating_sub(b.start))
            .sum();
        busy as f64 / (self.width as u64 * len) as f64
    }

    /// The schedule of graph `i` as placed (reservation processors and
    /// absolute starts), for checking it against its graph.
    pub fn placed_schedule(&self, i: usize, s: &Schedule) -> Schedule {
        let p = &self.placements[i];
        Schedule {
            procs: self.width,
            proc: s
                .proc
                .iter()
                .map(|&r| p.rows[r].expect("a row with subtasks is placed"))
                .collect(),
            start: s.start.iter().map(|&a| a + p.offset).collect(),
        }
    }

    /// Whether no two blocks overlap on a processor.
    pub fn is_disjoint(&self) -> bool {
        self.busy
            .iter()
            .all(|q| q.windows(2).all(|w| w[0].end <= w[1].start))
    }
}
