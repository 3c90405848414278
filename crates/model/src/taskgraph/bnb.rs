//! An exact branch-and-bound for small graphs: the shortest schedule of a
//! graph on `p` processors with communication costs.
//!
//! Search space: subtasks are appended one at a time, each to the end of a
//! processor at the earliest time its processor and its data allow. Every
//! schedule can be shifted left into such a one without growing, and the
//! left-shifted optimum is reached by appending its subtasks in order of
//! (start, subtask number); so the search only follows appends whose
//! (start, number) is above the previous one's. Empty processors are
//! interchangeable: only the first is tried. A branch is cut when its
//! lower bound reaches the best makespan found (the best of HLFET, ETF and
//! MCP to begin with). Two bounds, both valid for every completion:
//!
//! * each unplaced subtask starts no earlier than the last start and its
//!   placed parents' ends (unplaced parents: their own bound plus run
//!   time), and is followed by its static level;
//! * every processor is busy up to max(its end, the last start), and the
//!   unplaced work must fit on top: ⌈(Σ that + unplaced work) ÷ p⌉.
//!
//! Run times must be positive (a subtask of time 0 may share its start
//! with its parent, which breaks the (start, number) order).

use super::TaskGraph;
use super::list::ListScheduler;
use super::schedule::Schedule;

/// Why no exact schedule was produced.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BnbError {
    #[error("subtask {0} takes no time; the exact search needs positive run times")]
    ZeroWeight(usize),
    #[error("the search visited {0} nodes without closing; the graph is too large for it")]
    Budget(u64),
}

/// The exact optimum, visiting at most `budget` search nodes.
pub fn optimal(g: &TaskGraph, p: usize, budget: u64) -> Result<Schedule, BnbError> {
    if let Some(t) = g.weights.iter().position(|&w| w == 0) {
        return Err(BnbError::ZeroWeight(t));
    }
    let p = p.max(1);
    let best = ListScheduler::ALL
        .iter()
        .map(|s| s.schedule(g, p))
        .min_by_key(|s| s.makespan(g))
        .expect("three schedulers");
    let n = g.len();
    let mut search = Search {
        g,
        p,
        sl: g.static_levels(),
        best_len: best.makespan(g),
        best,
        proc: vec![usize::MAX; n],
        start: vec![0; n],
        waiting: g.preds.iter().map(Vec::len).collect(),
        proc_end: vec![0; p],
        proc_count: vec![0; p],
        left_work: g.work(),
        nodes: 0,
        budget,
    };
    if n > 0 && g.lower_bound(p) < search.best_len {
        search.go(0, (0, 0), 0)?;
    }
    Ok(search.best)
}

struct Search<'a> {
    g: &'a TaskGraph,
    p: usize,
    sl: Vec<u64>,
    best: Schedule,
    best_len: u64,
    proc: Vec<usize>,
    start: Vec<u64>,
    waiting: Vec<usize>,
    proc_end: Vec<u64>,
    proc_count: Vec<usize>,
    left_work: u64,
    nodes: u64,
    budget: u64,
}

impl Search<'_> {
    /// `placed` subtasks are down; the last append had key `last`
    /// (start, subtask + 1; (0, 0) before the first); `span` is the
    /// makespan so far.
    fn go(&mut self, placed: usize, last: (u64, usize), span: u64) -> Result<(), BnbError> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(BnbError::Budget(self.budget));
        }
        let n = self.g.len();
        if placed == n {
            if span < self.best_len {
                self.best_len = span;
                self.best = Schedule {
                    procs: self.p,
                    proc: self.proc.clone(),
                    start: self.start.clone(),
                };
            }
            return Ok(());
        }
        if self.bound(last.0, span) >= self.best_len {
            return Ok(());
        }
        for t in 0..n {
            if self.proc[t] != usize::MAX || self.waiting[t] != 0 {
                continue;
            }
            let mut tried_empty = false;
            for q in 0..self.p {
                if self.proc_count[q] == 0 {
                    if tried_empty {
                        continue;
                    }
                    tried_empty = true;
                }
                let at = self.data_ready(t, q).max(self.proc_end[q]);
                if (at, t + 1) <= last {
                    continue;
                }
                let end = at + self.g.weights[t];
                if end.max(span) >= self.best_len {
                    continue;
                }
                let saved_end = self.proc_end[q];
                self.proc[t] = q;
                self.start[t] = at;
                self.proc_end[q] = end;
                self.proc_count[q] += 1;
                self.left_work -= self.g.weights[t];
                for &(c, _) in &self.g.succs[t] {
                    self.waiting[c] -= 1;
                }
                let r = self.go(placed + 1, (at, t + 1), span.max(end));
                for &(c, _) in &self.g.succs[t] {
                    self.waiting[c] += 1;
                }
                self.left_work += self.g.weights[t];
                self.proc_count[q] -= 1;
                self.proc_end[q] = saved_end;
                self.proc[t] = usize::MAX;
                r?;
            }
        }
        Ok(())
    }

    fn data_ready(&self, t: usize, q: usize) -> u64 {
        self.g.preds[t]
            .iter()
            .map(|&(p, c)| {
                self.start[p] + self.g.weights[p] + if self.proc[p] != q { c } else { 0 }
            })
            .max()
            .unwrap_or(0)
    }

    fn bound(&self, last_start: u64, span: u64) -> u64 {
        let g = self.g;
        let n = g.len();
        let mut lb = span;
        let mut est = vec![0u64; n];
        for t in 0..n {
            if self.proc[t] != usize::MAX {
                continue;
            }
            let mut e = last_start;
            for &(p, _) in &g.preds[t] {
                let ready = if self.proc[p] != usize::MAX {
                    self.start[p] + g.weights[p]
                } else {
                    est[p] + g.weights[p]
                };
                e = e.max(ready);
            }
            est[t] = e;
            lb = lb.max(e + self.sl[t]);
        }
        let floor: u64 = self.proc_end.iter().map(|&e| e.max(last_start)).sum();
        lb.max((floor + self.left_work).div_ceil(self.p as u64))
    }
}

/// The optimum by plain enumeration of every append sequence (every ready
/// subtask on every processor, no bounds): for checking [`optimal`] on
/// graphs of a handful of subtasks.
pub fn brute_force(g: &TaskGraph, p: usize) -> u64 {
    fn go(
        g: &TaskGraph,
        proc: &mut Vec<usize>,
        start: &mut Vec<u64>,
        proc_end: &mut Vec<u64>,
        placed: usize,
        span: u64,
        best: &mut u64,
    ) {
        let n = g.len();
        if placed == n {
            *best = (*best).min(span);
            return;
        }
        for t in 0..n {
            if proc[t] != usize::MAX || g.preds[t].iter().any(|&(q, _)| proc[q] == usize::MAX) {
                continue;
            }
            for q in 0..proc_end.len() {
                let ready = g.preds[t]
                    .iter()
                    .map(|&(a, c)| start[a] + g.weights[a] + if proc[a] != q { c } else { 0 })
                    .max()
                    .unwrap_or(0);
                let at = ready.max(proc_end[q]);
                let saved = proc_end[q];
                proc[t] = q;
                start[t] = at;
                proc_end[q] = at + g.weights[t];
                go(
                    g,
                    proc,
                    start,
                    proc_end,
                    placed + 1,
                    span.max(at + g.weights[t]),
                    best,
                );
                proc_end[q] = saved;
                proc[t] = usize::MAX;
            }
        }
    }
    let n = g.len();
    let mut best = u64::MAX;
    go(
        g,
        &mut vec![usize::MAX; n],
        &mut vec![0; n],
        &mut vec![0; p.max(1)],
        0,
        0,
        &mut best,
    );
    if n == 0 { 0 } else { best }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::taskgraph::generate::{GenParams, generate};

    #[test]
    fn optimum_of_a_fork_beats_the_list_schedulers_or_ties() {
        // 0 feeds 1..=4 with costly edges: on 2 processors the best keeps
        // the two dear children beside 0 (0, 1, 2 on one; 3 and 4 from 3).
        let g = TaskGraph::new(
            vec![2, 3, 3, 3, 3],
            &[(0, 1, 4), (0, 2, 4), (0, 3, 1), (0, 4, 1)],
        )
        .unwrap();
        let s = optimal(&g, 2, 1_000_000).unwrap();
        s.validate(&g).unwrap();
        assert_eq!(s.makespan(&g), brute_force(&g, 2));
        assert_eq!(s.makespan(&g), 9);
    }

    #[test]
    fn branch_and_bound_equals_brute_force_on_small_generated_graphs() {
        let mut checked = 0;
        for seed in 0..24u64 {
            let params = GenParams::small_for_checks(seed);
            let g = generate(&params, seed);
            assert!((4..=6).contains(&g.len()));
            for p in [2, 3] {
                let s = optimal(&g, p, 5_000_000).unwrap();
                s.validate(&g).unwrap();
                assert!(s.makespan(&g) >= g.lower_bound(p));
                assert_eq!(s.makespan(&g), brute_force(&g, p), "seed {seed} p {p}");
                checked += 1;
            }
        }
        assert_eq!(checked, 48);
    }

    #[test]
    fn zero_weights_are_refused() {
        let g = TaskGraph::new(vec![1, 0], &[]).unwrap();
        assert_eq!(optimal(&g, 2, 10), Err(BnbError::ZeroWeight(1)));
    }
}

#[cfg(test)]
mod twelve {
    use super::*;
    use crate::taskgraph::generate::{
        EdgeLength, GenParams, Meshing, SizeClass, WEIGHT_PAIRS, generate,
    };

    /// Twelve subtasks on 2 and 4 TPEs close within the budget, and the
    /// optimum is never above the best list schedule nor below the bound.
    #[test]
    fn closes_on_twelve_subtasks() {
        let mut closed = 0;
        for (i, w) in WEIGHT_PAIRS.iter().enumerate() {
            let mut p =
                GenParams::new(SizeClass::Gs7_12, Meshing::ALL[i % 4], EdgeLength::Rand, *w);
            p.sizes = 12..=12;
            let g = generate(&p, i as u64);
            assert_eq!(g.len(), 12);
            for procs in [2, 4] {
                let s = optimal(&g, procs, 20_000_000).unwrap();
                s.validate(&g).unwrap();
                let best_list = ListScheduler::ALL
                    .iter()
                    .map(|l| l.schedule(&g, procs).makespan(&g))
                    .min()
                    .unwrap();
                assert!(s.makespan(&g) <= best_list);
                assert!(s.makespan(&g) >= g.lower_bound(procs));
                closed += 1;
            }
        }
        assert_eq!(closed, 10);
    }
}
