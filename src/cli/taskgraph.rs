//! `schedscope taskgraph …`: schedule one STG graph and print it, or print
//! the gap table of an STG set against its optimal makespans.

use crate::sched::explain::plural;
use crate::taskgraph::ar::{self, RearrangeOrder, Reservation};
use crate::taskgraph::bnb;
use crate::taskgraph::gaps::gap_table;
use crate::taskgraph::list::ListScheduler;
use crate::taskgraph::schedule::Schedule;
use crate::taskgraph::stg;
use clap::{Subcommand, ValueEnum};
use std::fmt::Write;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum TaskgraphCommand {
    /// Schedule one task graph (STG file) on K processors and print the schedule.
    Schedule {
        /// The graph, in the Standard Task Graph format.
        file: PathBuf,
        /// Number of target processors.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=1024))]
        procs: u16,
        /// The scheduler: a list scheduler, or the exact branch-and-bound
        /// (for small graphs).
        #[arg(long, value_enum, default_value_t = SchedulerArg::Mcp)]
        scheduler: SchedulerArg,
        /// Then rearrange and move subtasks to free processors (the
        /// advance-reservation steps 1 and 2), with this processor order.
        #[arg(long, value_enum)]
        compact: Option<OrderArg>,
        /// Then interweave this many copies into one reservation of
        /// `--procs` processors and print it.
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
        copies: Option<u16>,
    },
    /// How much interweaving five graphs of one bench leaf shortens a
    /// reservation of 2 and 4 TPEs (%), per graph parameter and size.
    Reduction {
        /// Reservations per cell.
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        reservations: u64,
        /// Schedule each graph exactly (branch-and-bound) when it closes
        /// within 2 million search nodes, else by the best list scheduler.
        #[arg(long)]
        exact: bool,
    },
    /// The gap of HLFET, ETF and MCP to the optimal makespans of an STG set
    /// (a folder with 50/, 100/ and Optimal_values/).
    Gaps {
        /// The folder of the set (e.g. kasahara_msp).
        dir: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SchedulerArg {
    Hlfet,
    Etf,
    Mcp,
    /// Exact branch-and-bound (gives up after 50 million search nodes).
    Bnb,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    BusiestFirst,
    LeastBusyFirst,
}

/// Runs the command; the text to print, or a message for a bad input.
pub fn run(cmd: &TaskgraphCommand) -> Result<String, String> {
    match cmd {
        TaskgraphCommand::Schedule {
            file,
            procs,
            scheduler,
            compact,
            copies,
        } => {
            let stg = stg::read_path(file).map_err(|e| e.to_string())?;
            let g = &stg.graph;
            let p = *procs as usize;
            let (name, s) = match scheduler {
                SchedulerArg::Hlfet => ("HLFET", ListScheduler::Hlfet.schedule(g, p)),
                SchedulerArg::Etf => ("ETF", ListScheduler::Etf.schedule(g, p)),
                SchedulerArg::Mcp => ("MCP", ListScheduler::Mcp.schedule(g, p)),
                SchedulerArg::Bnb => (
                    "branch-and-bound",
                    bnb::optimal(g, p, 50_000_000)
                        .map_err(|e| format!("{}: {e}", file.display()))?,
                ),
            };
            let mut out = String::new();
            let _ = writeln!(
                out,
                "{}: {}, {}, work {}, critical path {}",
                file.display(),
                plural(g.len() as u64, "subtask", "subtasks"),
                plural(g.edge_count() as u64, "edge", "edges"),
                g.work(),
                g.critical_path()
            );
            describe(&mut out, name, g, &s, p);
            let mut s = s;
            if let Some(order) = compact {
                let order = match order {
                    OrderArg::BusiestFirst => RearrangeOrder::BusiestFirst,
                    OrderArg::LeastBusyFirst => RearrangeOrder::LeastBusyFirst,
                };
                s = ar::compact(g, &s, order);
                out.push('\n');
                describe(&mut out, "rearranged and moved", g, &s, p);
            }
            if let Some(k) = copies {
                let mut r = Reservation::new(p);
                for _ in 0..*k {
                    r.interweave(g, &s).map_err(|e| e.to_string())?;
                }
                let _ = writeln!(
                    out,
                    "\n{k} copies interwoven on {p} processors: length {} instead of {} ({:.2} % shorter), {:.1} % busy",
                    r.length(),
                    r.serial_length(),
                    r.reduction_pct(),
                    100.0 * r.utilisation()
                );
                for (i, pl) in r.placements.iter().enumerate() {
                    let rows: Vec<String> = pl
                        .rows
                        .iter()
                        .enumerate()
                        .filter_map(|(row, q)| q.map(|q| format!("row {row} on P{q}")))
                        .collect();
                    let _ = writeln!(out, "copy {i}: offset {}, {}", pl.offset, rows.join(", "));
                }
            }
            Ok(out)
        }
        TaskgraphCommand::Reduction {
            reservations,
            exact,
        } => {
            let t = crate::taskgraph::study::reduction_table(*reservations, *exact);
            let mut out = t.render();
            let _ = writeln!(
                out,
                "\n{reservations} reservations of 5 graphs per cell; {:.1} % of the graphs scheduled optimally",
                100.0 * t.optimal_share
            );
            Ok(out)
        }
        TaskgraphCommand::Gaps { dir } => {
            let t0 = std::time::Instant::now();
            let t = gap_table(dir).map_err(|e| e.to_string())?;
            if t.schedules == 0 {
                return Err(format!(
                    "{}: no Optimal_values/Case<size>_<p>_OPT.csv tables found",
                    dir.display()
                ));
            }
            let mut out = t.render();
            let _ = writeln!(
                out,
                "\n{} schedules in {:.2} s; {} below the optimum or the lower bound",
                t.schedules,
                t0.elapsed().as_secs_f64(),
                t.violations.len()
            );
            for v in &t.violations {
                let _ = writeln!(
                    out,
                    "  {} on {} processors: {} made {} < {}",
                    v.graph, v.procs, v.scheduler, v.makespan, v.floor
                );
            }
            Ok(out)
        }
    }
}

fn describe(out: &mut String, name: &str, g: &crate::taskgraph::TaskGraph, s: &Schedule, p: usize) {
    let _ = writeln!(
        out,
        "{name} on {}: makespan {} (lower bound {}), {} used, efficiency {:.1} %",
        plural(p as u64, "processor", "processors"),
        s.makespan(g),
        g.lower_bound(p),
        plural(s.used_procs() as u64, "processor", "processors"),
        100.0 * s.efficiency(g)
    );
    out.push_str(&s.render(g, 100));
}
