//! A graph's schedule on `procs` target processors: for each subtask its
//! processor and start; it ends its run time later.

use super::TaskGraph;
use std::fmt::Write;

/// Where and when each subtask runs (indexed by subtask).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Number of target processors (TPEs).
    pub procs: usize,
    pub proc: Vec<usize>,
    pub start: Vec<u64>,
}

/// A broken rule of a schedule.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScheduleError {
    #[error("the schedule places {placed} subtasks, the graph has {n}")]
    Size { placed: usize, n: usize },
    #[error("subtask {task} is on processor {proc}, outside 0..{procs}")]
    Processor {
        task: usize,
        proc: usize,
        procs: usize,
    },
    #[error(
        "subtask {child} starts at {start}, before its parent {parent}'s data arrives at {ready}"
    )]
    Dependency {
        parent: usize,
        child: usize,
        start: u64,
        ready: u64,
    },
    #[error("subtasks {a} and {b} overlap on processor {proc}")]
    Overlap { a: usize, b: usize, proc: usize },
}

impl Schedule {
    /// End of subtask `t`.
    pub fn end(&self, g: &TaskGraph, t: usize) -> u64 {
        self.start[t] + g.weights[t]
    }

    /// The last end (0 for an empty graph).
    pub fn makespan(&self, g: &TaskGraph) -> u64 {
        (0..g.len()).map(|t| self.end(g, t)).max().unwrap_or(0)
    }

    /// The first start (0 for an empty graph).
    pub fn first_start(&self) -> u64 {
        self.start.iter().copied().min().unwrap_or(0)
    }

    /// Subtasks of each processor, by start (then subtask number).
    pub fn rows(&self) -> Vec<Vec<usize>> {
        let mut rows = vec![Vec::new(); self.procs];
        for t in 0..self.proc.len() {
            rows[self.proc[t]].push(t);
        }
        for r in &mut rows {
            r.sort_by_key(|&t| (self.start[t], t));
        }
        rows
    }

    /// Processors that run at least one subtask (the schedule's PEs).
    pub fn used_procs(&self) -> usize {
        self.rows().iter().filter(|r| !r.is_empty()).count()
    }

    /// Work ÷ (used processors × length from the first start to the last
    /// end): the share of the reserved processor time the graph uses.
    pub fn efficiency(&self, g: &TaskGraph) -> f64 {
        let span = self.makespan(g) - self.first_start();
        let used = self.used_procs();
        if span == 0 || used == 0 {
            return 1.0;
        }
        g.work() as f64 / (used as u64 * span) as f64
    }

    /// Checks every rule: each subtask on a processor, after its parents'
    /// data (their end, plus the edge's cost when on another processor),
    /// and no two subtasks at once on one processor (subtasks of time 0
    /// take no room).
    pub fn validate(&self, g: &TaskGraph) -> Result<(), ScheduleError> {
        let n = g.len();
        if self.proc.len() != n || self.start.len() != n {
            return Err(ScheduleError::Size {
                placed: self.proc.len().min(self.start.len()),
                n,
            });
        }
        for t in 0..n {
            if self.proc[t] >= self.procs {
                return Err(ScheduleError::Processor {
                    task: t,
                    proc: self.proc[t],
                    procs: self.procs,
                });
            }
            for &(p, c) in &g.preds[t] {
                let ready = self.end(g, p) + if self.proc[p] != self.proc[t] { c } else { 0 };
                if self.start[t] < ready {
                    return Err(ScheduleError::Dependency {
                        parent: p,
                        child: t,
                        start: self.start[t],
                        ready,
                    });
                }
            }
        }
        for (q, row) in self.rows().iter().enumerate() {
            let busy: Vec<usize> = row.iter().copied().filter(|&t| g.weights[t] > 0).collect();
            for w in busy.windows(2) {
                if self.end(g, w[0]) > self.start[w[1]] {
                    return Err(ScheduleError::Overlap {
                        a: w[0],
                        b: w[1],
                        proc: q,
                    });
                }
            }
        }
        Ok(())
    }

    /// The schedule as text: one line per processor listing
    /// `T<subtask>@<start>-<end>`, then a chart with one column per time
    /// unit when the makespan is at most `chart_width`.
    pub fn render(&self, g: &TaskGraph, chart_width: u64) -> String {
        let mut out = String::new();
        let rows = self.rows();
        let ms = self.makespan(g);
        for (q, row) in rows.iter().enumerate() {
            let _ = write!(out, "P{q:<3}");
            for &t in row {
                let _ = write!(out, " T{t}@{}-{}", self.start[t], self.end(g, t));
            }
            out.push('\n');
        }
        if ms > 0 && ms <= chart_width {
            out.push('\n');
            for (q, row) in rows.iter().enumerate() {
                let mut line = vec!['.'; ms as usize];
                for &t in row {
                    let mark = char::from_digit((t % 36) as u32, 36).unwrap_or('#');
                    for c in &mut line[self.start[t] as usize..self.end(g, t) as usize] {
                        *c = mark;
                    }
                }
                let _ = writeln!(out, "P{q:<3} |{}|", line.into_iter().collect::<String>());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> TaskGraph {
        TaskGraph::new(vec![2, 3], &[(0, 1, 4)]).unwrap()
    }

    #[test]
    fn communication_counts_only_across_processors() {
        let g = chain();
        let same = Schedule {
            procs: 2,
            proc: vec![0, 0],
            start: vec![0, 2],
        };
        assert_eq!(same.validate(&g), Ok(()));
        assert_eq!(same.makespan(&g), 5);
        let across = Schedule {
            procs: 2,
            proc: vec![0, 1],
            start: vec![0, 2],
        };
        assert_eq!(
            across.validate(&g),
            Err(ScheduleError::Dependency {
                parent: 0,
                child: 1,
                start: 2,
                ready: 6
            })
        );
    }

    #[test]
    fn overlap_and_efficiency() {
        let g = TaskGraph::new(vec![2, 2], &[]).unwrap();
        let s = Schedule {
            procs: 1,
            proc: vec![0, 0],
            start: vec![0, 1],
        };
        assert_eq!(
            s.validate(&g),
            Err(ScheduleError::Overlap {
                a: 0,
                b: 1,
                proc: 0
            })
        );
        let s = Schedule {
            procs: 2,
            proc: vec![0, 1],
            start: vec![0, 1],
        };
        assert_eq!(s.validate(&g), Ok(()));
        // 4 units of work over 2 processors × 3 units.
        assert!((s.efficiency(&g) - 4.0 / 6.0).abs() < 1e-12);
    }
}
