//! The gap table: each list scheduler's makespan against the STG set's
//! optimal makespans, per graph size and processor count.

use super::TaskGraph;
use super::list::ListScheduler;
use super::stg::{self, StgError};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// One cell: a scheduler on the graphs of one size and processor count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GapCell {
    /// Graphs with a known optimum (the gap is measured on these).
    pub graphs: usize,
    /// Graphs with only bounds (checked against the lower bound).
    pub bounded: usize,
    /// Mean and largest (makespan − optimum) ÷ optimum, in %.
    pub mean_gap: f64,
    pub max_gap: f64,
    /// Schedules equal to the optimum.
    pub optimal: usize,
}

/// A schedule below what is possible: a bug, reported rather than averaged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub graph: String,
    pub procs: usize,
    pub scheduler: &'static str,
    pub makespan: u64,
    pub floor: u64,
}

/// The table, keyed by (tasks, processors, scheduler name).
#[derive(Clone, Debug, Default)]
pub struct GapTable {
    pub cells: BTreeMap<(usize, usize, &'static str), GapCell>,
    pub violations: Vec<Violation>,
    pub schedules: usize,
}

/// Reads `Optimal_values/Case{size}_{p}_OPT.csv` under `dir` for every size
/// folder and p in 2, 4, 8, 16, schedules each graph with HLFET, ETF and
/// MCP, and checks each against the optimum (or lower bound) and
/// max(critical path, ⌈work ÷ p⌉).
pub fn gap_table(dir: &Path) -> Result<GapTable, StgError> {
    let mut table = GapTable::default();
    let mut graphs: BTreeMap<String, TaskGraph> = BTreeMap::new();
    // Per cell: sum of gaps, largest gap, graphs with an optimum, graphs
    // with bounds only, schedules at the optimum.
    type Sums = (f64, f64, usize, usize, usize);
    let mut sums: BTreeMap<(usize, usize, &'static str), Sums> = BTreeMap::new();
    for size in [50usize, 100] {
        for p in [2usize, 4, 8, 16] {
            let path = dir
                .join("Optimal_values")
                .join(format!("Case{size}_{p}_OPT.csv"));
            if !path.exists() {
                continue;
            }
            for e in stg::read_optimal(&path)? {
                if !graphs.contains_key(&e.graph) {
                    let g = stg::read_path(&dir.join(&e.graph))?.graph;
                    graphs.insert(e.graph.clone(), g);
                }
                let g = &graphs[&e.graph];
                let floor = g.lower_bound(e.procs).max(e.lower);
                for s in ListScheduler::ALL {
                    let ms = s.schedule(g, e.procs).makespan(g);
                    table.schedules += 1;
                    if ms < floor {
                        table.violations.push(Violation {
                            graph: e.graph.clone(),
                            procs: e.procs,
                            scheduler: s.name(),
                            makespan: ms,
                            floor,
                        });
                    }
                    let c = sums.entry((g.len(), e.procs, s.name())).or_default();
                    match e.optimum() {
                        Some(opt) if opt > 0 => {
                            let gap = 100.0 * (ms as f64 - opt as f64) / opt as f64;
                            c.0 += gap;
                            c.1 = c.1.max(gap);
                            c.2 += 1;
                            c.4 += usize::from(ms == opt);
                        }
                        _ => c.3 += 1,
                    }
                }
            }
        }
    }
    for (k, (sum, max, n, bounded, opt)) in sums {
        table.cells.insert(
            k,
            GapCell {
                graphs: n,
                bounded,
                mean_gap: if n > 0 { sum / n as f64 } else { 0.0 },
                max_gap: max,
                optimal: opt,
            },
        );
    }
    Ok(table)
}

impl GapTable {
    /// A Markdown table: one row per size and processor count, mean / max
    /// gap (%) per scheduler.
    pub fn render(&self) -> String {
        let mut out = String::from(
            "| tasks | p | graphs (bounds only) | HLFET mean / max % | ETF mean / max % | MCP mean / max % |\n|---|---|---|---|---|---|\n",
        );
        let mut keys: Vec<(usize, usize)> = self.cells.keys().map(|k| (k.0, k.1)).collect();
        keys.dedup();
        for (n, p) in keys {
            let first = &self.cells[&(n, p, "HLFET")];
            let _ = write!(out, "| {n} | {p} | {} ({}) |", first.graphs, first.bounded);
            for s in ListScheduler::ALL {
                let c = &self.cells[&(n, p, s.name())];
                let _ = write!(out, " {:.2} / {:.2} |", c.mean_gap, c.max_gap);
            }
            out.push('\n');
        }
        out
    }
}
