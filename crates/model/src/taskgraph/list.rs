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
///
/// The lists are worked out only for subtasks that tie on their ALAP
/// start, one group of tied subtasks at a time, and a group is compared
/// list by list (two lists at a time) when its lists together would hold
/// more than a few entries per subtask: memory stays linear in the graph
/// (a chain of 40,000 subtasks has no ties and needs no list at all).
pub fn mcp(g: &TaskGraph, procs: usize) -> Schedule {
    let n = g.len();
    let bl = g.comm_bottom_levels();
    let cp = bl.iter().copied().max().unwrap_or(0);
    let alap: Vec<u64> = bl.iter().map(|&b| cp - b).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&t| (alap[t], t));
    let mut walk = Descendants::new(n);
    // The most list entries a group may hold at once.
    let budget = 8 * n + 1024;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && alap[order[j]] == alap[order[i]] {
            j += 1;
        }
        if j - i > 1 {
            let group = &mut order[i..j];
            let total: usize = group.iter().map(|&t| 1 + walk.count(g, t)).sum();
            if total <= budget {
                let mut keyed: Vec<(Vec<u64>, usize)> =
                    group.iter().map(|&t| (walk.list(g, &alap, t), t)).collect();
                keyed.sort_unstable();
                for (slot, (_, t)) in group.iter_mut().zip(keyed) {
                    *slot = t;
                }
            } else {
                group.sort_by(|&a, &b| {
                    let la = walk.list(g, &alap, a);
                    let lb = walk.list(g, &alap, b);
                    la.cmp(&lb).then(a.cmp(&b))
                });
            }
        }
        i = j;
    }
    let mut rank = vec![0; n];
    for (r, &t) in order.iter().enumerate() {
        rank[t] = r;
    }
    by_priority(g, procs, &rank, true)
}

/// The descendants of one subtask at a time, by a walk over the edges
/// (which go forward), with scratch kept between walks.
struct Descendants {
    /// The walk that last reached each subtask, plus one.
    seen: Vec<usize>,
    walks: usize,
    stack: Vec<usize>,
    found: Vec<usize>,
}

impl Descendants {
    fn new(n: usize) -> Descendants {
        Descendants {
            seen: vec![0; n],
            walks: 0,
            stack: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Fills `found` with the descendants of `t` (not `t` itself).
    fn walk(&mut self, g: &TaskGraph, t: usize) {
        self.walks += 1;
        let mark = self.walks;
        self.found.clear();
        self.stack.clear();
        self.stack.push(t);
        while let Some(u) = self.stack.pop() {
            for &(c, _) in &g.succs[u] {
                if self.seen[c] != mark {
                    self.seen[c] = mark;
                    self.found.push(c);
                    self.stack.push(c);
                }
            }
        }
    }

    fn count(&mut self, g: &TaskGraph, t: usize) -> usize {
        self.walk(g, t);
        self.found.len()
    }

    /// `t`'s ALAP start and its descendants', sorted.
    fn list(&mut self, g: &TaskGraph, alap: &[u64], t: usize) -> Vec<u64> {
        self.walk(g, t);
        let mut l = Vec::with_capacity(self.found.len() + 1);
        l.push(alap[t]);
        l.extend(self.found.iter().map(|&d| alap[d]));
        l.sort_unstable();
        l
    }
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

    /// MCP's order as the paper defines it, with every descendant list
    /// built at once (memory quadratic in the subtasks).
    fn mcp_by_full_lists(g: &TaskGraph, procs: usize) -> Schedule {
        let n = g.len();
        let bl = g.comm_bottom_levels();
        let cp = bl.iter().copied().max().unwrap_or(0);
        let alap: Vec<u64> = bl.iter().map(|&b| cp - b).collect();
        let mut walk = Descendants::new(n);
        let lists: Vec<Vec<u64>> = (0..n).map(|t| walk.list(g, &alap, t)).collect();
        let rank = ranks(n, |t| lists[t].clone());
        by_priority(g, procs, &rank, true)
    }

    /// Ties broken group by group (and list by list past the budget) give
    /// the order of the full lists: on generated graphs, and on layers of
    /// equal subtasks where every subtask ties with its layer.
    #[test]
    fn mcp_orders_as_the_full_descendant_lists_do() {
        use crate::taskgraph::generate::{
            EdgeLength, GenParams, Meshing, SizeClass, WEIGHT_PAIRS, generate,
        };
        for (i, size) in [SizeClass::Gs7_12, SizeClass::Gs19_24]
            .into_iter()
            .enumerate()
        {
            for m in Meshing::ALL {
                for seed in 0..20u64 {
                    let p = GenParams::new(
                        size,
                        m,
                        EdgeLength::ALL[i],
                        WEIGHT_PAIRS[seed as usize % WEIGHT_PAIRS.len()],
                    );
                    let g = generate(&p, seed);
                    for procs in [2, 4] {
                        assert_eq!(mcp(&g, procs), mcp_by_full_lists(&g, procs));
                    }
                }
            }
        }
        // Three layers of 40 equal subtasks, each fed by the whole layer
        // before: 40-way ties whose lists (80 and 40 long) pass the budget.
        let layer = 40;
        let mut edges = Vec::new();
        for l in 0..2 {
            for a in 0..layer {
                for b in 0..layer {
                    edges.push((l * layer + a, (l + 1) * layer + b, (a + b) as u64 % 3));
                }
            }
        }
        let g = TaskGraph::new(vec![2; 3 * layer], &edges).unwrap();
        assert_eq!(mcp(&g, 4), mcp_by_full_lists(&g, 4));
    }

    /// A chain has no ties: no list is built (the quadratic lists of a
    /// 40,000-subtask chain took over 4 GB; `schedscope taskgraph
    /// schedule` on it now peaks at about 19 MB).
    #[test]
    fn mcp_on_a_long_chain_builds_no_lists() {
        let n = 5_000;
        let edges: Vec<(usize, usize, u64)> = (1..n).map(|i| (i - 1, i, 0)).collect();
        let g = TaskGraph::new(vec![3; n], &edges).unwrap();
        let s = mcp(&g, 1);
        assert_eq!(s.makespan(&g), 3 * n as u64);
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
