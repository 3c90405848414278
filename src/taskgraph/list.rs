//! List schedulers with communication costs: each repeatedly takes a ready
//! subtask (all parents placed) and puts it on a processor.
//!
//! * **HLFET** (Adam, Chandy and Dickson 1974): the ready subtask with the
//!   highest static level (longest run-time path to an exit, without
//!   communication) goes to the processor where it can start earliest,
//!   after that processor's last subtask.
//! * **ETF** (Hwang, Chow, Anger and Lee 1989): of all ready subtasks on
//!   all processors, the pair with the earliest start; ties go to the
//!   higher static level.
//! * **MCP** (Wu and Gajski 1990): subtasks ordered by their ALAP start
//!   (critical path with communication minus the bottom level with
//!   communication), ties broken by the sorted ALAP lists of their
//!   descendants; each goes, in that order as soon as it is ready, to the
//!   processor where it can start earliest, inserted into an idle slot
//!   when one is long enough.
//!
//! Remaining ties go to the lower subtask number, then the lower
//! processor. A subtask's data from a parent is ready at the parent's end,
//! plus the edge's cost when the parent ran on another processor.

use super::TaskGraph;
use super::schedule::Schedule;

/// Which list scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListScheduler {
    Hlfet,
    Etf,
    Mcp,
}

impl ListScheduler {
    pub const ALL: [ListScheduler; 3] =
        [ListScheduler::Hlfet, ListScheduler::Etf, ListScheduler::Mcp];

    pub fn name(self) -> &'static str {
        match self {
            ListScheduler::Hlfet => "HLFET",
            ListScheduler::Etf => "ETF",
            ListScheduler::Mcp => "MCP",
        }
    }

    /// The schedule of `g` on `procs` processors (at least 1).
    pub fn schedule(self, g: &TaskGraph, procs: usize) -> Schedule {
        match self {
            ListScheduler::Hlfet => hlfet(g, procs),
            ListScheduler::Etf => etf(g, procs),
            ListScheduler::Mcp => mcp(g, procs),
        }
    }
}

/// Placement state shared by the three.
struct Builder<'a> {
    g: &'a TaskGraph,
    procs: usize,
    proc: Vec<usize>,
    start: Vec<u64>,
    placed: Vec<bool>,
    /// Unplaced parents left, per subtask.
    waiting: Vec<usize>,
    /// Busy intervals of each processor, by start.
    busy: Vec<Vec<(u64, u64)>>,
}

impl<'a> Builder<'a> {
    fn new(g: &'a TaskGraph, procs: usize) -> Self {
        let n = g.len();
        Builder {
            g,
            procs: procs.max(1),
            proc: vec![0; n],
            start: vec![0; n],
            placed: vec![false; n],
            waiting: g.preds.iter().map(Vec::len).collect(),
            busy: vec![Vec::new(); procs.max(1)],
        }
    }

    fn ready(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.g.len()).filter(|&t| !self.placed[t] && self.waiting[t] == 0)
    }

    /// When all of `t`'s data can be on processor `q`.
    fn data_ready(&self, t: usize, q: usize) -> u64 {
        self.g.preds[t]
            .iter()
            .map(|&(p, c)| {
                self.start[p] + self.g.weights[p] + if self.proc[p] != q { c } else { 0 }
            })
            .max()
            .unwrap_or(0)
    }

    /// Earliest start of `t` on `q`: after the last subtask there, or
    /// (with `insert`) in the first idle slot long enough.
    fn earliest(&self, t: usize, q: usize, insert: bool) -> u64 {
        let ready = self.data_ready(t, q);
        let w = self.g.weights[t];
        let busy = &self.busy[q];
        if !insert {
            return ready.max(busy.last().map_or(0, |b| b.1));
        }
        let mut at = ready;
        for &(s, e) in busy {
            if at + w <= s {
                return at;
            }
            at = at.max(e);
        }
        at
    }

    fn place(&mut self, t: usize, q: usize, at: u64) {
        self.proc[t] = q;
        self.start[t] = at;
        self.placed[t] = true;
        let w = self.g.weights[t];
        if w > 0 {
            let busy = &mut self.busy[q];
            let i = busy.partition_point(|b| b.0 < at);
            busy.insert(i, (at, at + w));
        }
        for &(c, _) in &self.g.succs[t] {
            self.waiting[c] -= 1;
        }
    }

    /// The processor with the earliest start for `t` (lowest on ties).
    fn best_proc(&self, t: usize, insert: bool) -> (usize, u64) {
        (0..self.procs)
            .map(|q| (q, self.earliest(t, q, insert)))
            .min_by_key(|&(q, at)| (at, q))
            .unwrap_or((0, 0))
    }

    fn finish(self) -> Schedule {
        Schedule {
            procs: self.procs,
            proc: self.proc,
            start: self.start,
        }
    }
}

/// Places subtasks in priority order (lower `rank` first) as they become ready.
fn by_priority(g: &TaskGraph, procs: usize, rank: &[usize], insert: bool) -> Schedule {
    let mut b = Builder::new(g, procs);
    for _ in 0..g.len() {
        let Some(t) = b.ready().min_by_key(|&t| (rank[t], t)) else {
            break;
        };
        let (q, at) = b.best_proc(t, insert);
        b.place(t, q, at);
    }
    b.finish()
}

/// The rank (0 = first) of each subtask when sorted by `key`.
fn ranks<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&t| (key(t), t));
    let mut rank = vec![0; n];
    for (r, &t) in order.iter().enumerate() {
        rank[t] = r;
    }
    rank
}

/// HLFET: highest static level first, no insertion.
pub fn hlfet(g: &TaskGraph, procs: usize) -> Schedule {
    let sl = g.static_levels();
    let rank = ranks(g.len(), |t| std::cmp::Reverse(sl[t]));
    by_priority(g, procs, &rank, false)
}

/// ETF: the earliest (subtask, processor) start first, no insertion.
pub fn etf(g: &TaskGraph, procs: usize) -> Schedule {
    let sl = g.static_levels();
    let mut b = Builder::new(g, procs);
    for _ in 0..g.len() {
        let best = b
            .ready()
            .map(|t| {
                let (q, at) = b.best_proc(t, false);
                (at, std::cmp::Reverse(sl[t]), t, q)
            })
            .min();
        let Some((at, _, t, q)) = best else { break };
        b.place(t, q, at);
    }
    b.finish()
}

/// MCP: ALAP order (descendants' ALAP lists break ties), with insertion.
pub fn mcp(g: &TaskGraph, procs: usize) -> Schedule {
    let n = g.len();
    let bl = g.comm_bottom_levels();
    let cp = bl.iter().copied().max().unwrap_or(0);
    let alap: Vec<u64> = bl.iter().map(|&b| cp - b).collect();
    // Descendant sets, from the exits up (edges go forward).
    let words = n.div_ceil(64).max(1);
    let mut desc = vec![vec![0u64; words]; n];
    for t in (0..n).rev() {
        for &(c, _) in &g.succs[t] {
            desc[t][c / 64] |= 1 << (c % 64);
            let (lo, hi) = desc.split_at_mut(c);
            for (d, s) in lo[t].iter_mut().zip(hi[0].iter()) {
                *d |= *s;
            }
        }
    }
    let lists: Vec<Vec<u64>> = (0..n)
        .map(|t| {
            let mut l = vec![alap[t]];
            l.extend(
                (0..n)
                    .filter(|&d| desc[t][d / 64] >> (d % 64) & 1 == 1)
                    .map(|d| alap[d]),
            );
            l.sort_unstable();
            l
        })
        .collect();
    let rank = ranks(n, |t| lists[t].clone());
    by_priority(g, procs, &rank, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fork: 0 feeds 1, 2 and 3; the edge to 3 is dear.
    fn fork() -> TaskGraph {
        TaskGraph::new(vec![2, 3, 3, 1], &[(0, 1, 1), (0, 2, 1), (0, 3, 5)]).unwrap()
    }

    #[test]
    fn hlfet_on_a_fork() {
        let g = fork();
        let s = hlfet(&g, 2);
        s.validate(&g).unwrap();
        // 0 on P0 at 0; 1 (level 3) on P0 at 2; 2 on P1 at 3 (2 + cost 1);
        // 3 on P0 at 5 (P1 would be 6).
        assert_eq!(s.proc, vec![0, 0, 1, 0]);
        assert_eq!(s.start, vec![0, 2, 3, 5]);
        assert_eq!(s.makespan(&g), 6);
    }

    #[test]
    fn etf_on_a_fork() {
        let g = fork();
        let s = etf(&g, 2);
        s.validate(&g).unwrap();
        // 1, 2 and 3 all could start at 2 on P0: the highest level (1) wins;
        // then 2 at 3 on P1 (P0 frees at 5), then 3 at 5 on P0.
        assert_eq!(s.proc, vec![0, 0, 1, 0]);
        assert_eq!(s.start, vec![0, 2, 3, 5]);
    }

    #[test]
    fn mcp_inserts_into_idle_slots() {
        // 0 -> 2 costs 4 across; 1 is independent and short.
        let g = TaskGraph::new(vec![1, 1, 5], &[(0, 2, 4)]).unwrap();
        let s = mcp(&g, 1);
        s.validate(&g).unwrap();
        assert_eq!(s.makespan(&g), 7);
        let s = mcp(&g, 2);
        s.validate(&g).unwrap();
        // 0 and 2 stay together on P0; 1 fills P1.
        assert_eq!(s.proc[0], s.proc[2]);
        assert_eq!(s.makespan(&g), 6);
    }

    #[test]
    fn every_scheduler_respects_the_lower_bound_on_a_chain_and_a_set() {
        let chain = TaskGraph::new(vec![3, 4, 5], &[(0, 1, 9), (1, 2, 9)]).unwrap();
        let set = TaskGraph::new(vec![3, 3, 3, 3], &[]).unwrap();
        for s in ListScheduler::ALL {
            assert_eq!(s.schedule(&chain, 4).makespan(&chain), 12, "{}", s.name());
            assert_eq!(s.schedule(&set, 2).makespan(&set), 6, "{}", s.name());
            assert_eq!(s.schedule(&set, 4).makespan(&set), 3, "{}", s.name());
        }
    }
}
