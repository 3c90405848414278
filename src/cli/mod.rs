//! The command line: `console`, `run`, `sweep`, `merge`, `plot`, `check`,
//! `validate`, `taskgraph`, `swf`, and (with no command) the console or, off a terminal, the
//! default scenario headless.

// The help texts below are doc comments that clap shows as they are; the
// scenario's TOML tables they name, `[expect]` and `[run]`, are no links.
#![allow(rustdoc::broken_intra_doc_links)]

use crate::plot::{self, PlotSpec};
use crate::report;
use crate::report::out_dir::{self, OutDir};
use crate::runner::{self, RunOptions, RunResult};
use crate::scenario::{Replications, Scenario, ScenarioError};
use crate::sweep::paired::Paired;
use crate::sweep::render::{self, Report, Row};
use crate::sweep::{Shard, SweepError, SweepSpec, slurm, store};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// `print!` that hands back a write error instead of panicking: a closed
/// standard output (`schedscope check … | head -1`) ends the command
/// quietly as [`Failure::ClosedPipe`], as Unix tools end.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*).map_err(Failure::from_stdout)
    }};
}

/// `println!` as [`out!`] is `print!`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*).map_err(Failure::from_stdout)
    }};
}

mod args;
pub mod explain;
mod progress;
mod sweeps;
pub mod taskgraph;

pub use args::*;

pub use progress::run_with_progress;
use progress::with_progress;
use sweeps::{merge, plot_folder, sweep};

/// How a command ended.
#[derive(Debug)]
pub enum Failure {
    /// An `[expect]` bound failed (exit 1).
    Expectation,
    /// Bad input: a scenario, an argument, a file (exit 2).
    BadInput(String),
    /// Something else went wrong (exit 2, with the cause).
    Other(anyhow::Error),
    /// schedscope itself went wrong: a run lost jobs (exit 3).
    Internal(String),
    /// Some of the work is missing or failed: a sweep's points (exit 1).
    Incomplete(String),
    /// Standard output was closed by its reader (`| head`): the command
    /// ends there, quietly, as a Unix tool does (exit 0, nothing printed).
    ClosedPipe,
    /// The console was closed by a signal: the terminal is given back,
    /// and the exit code is 128 + the signal's number (130, 143, 129).
    Stopped(crate::console::Stopped),
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Self {
        match e {
            ScenarioError::Internal(c) => Failure::Internal(c.to_string()),
            e => Failure::BadInput(e.to_string()),
        }
    }
}

impl From<SweepError> for Failure {
    fn from(e: SweepError) -> Self {
        match e {
            SweepError::Scenario(e) => e.into(),
            e => Failure::BadInput(e.to_string()),
        }
    }
}

impl Failure {
    /// A failed write to standard output: [`Failure::ClosedPipe`] when its
    /// reader has gone, else the error.
    pub fn from_stdout(e: std::io::Error) -> Self {
        // A writer such as csv's wraps the error; its cause says.
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        let mut closed = false;
        while let Some(c) = cause {
            closed |= c
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                || c.downcast_ref::<csv::Error>().is_some_and(
                    |e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe),
                );
            cause = c.source().or_else(|| {
                c.downcast_ref::<std::io::Error>()
                    .and_then(|io| io.get_ref())
                    .map(|inner| inner as &(dyn std::error::Error + 'static))
            });
        }
        if closed {
            Failure::ClosedPipe
        } else {
            Failure::Other(anyhow::Error::new(e).context("cannot write to standard output"))
        }
    }

    /// How the console ended, if not as the operator quit it.
    pub fn console(e: anyhow::Error) -> Self {
        match e.downcast_ref::<crate::console::Stopped>() {
            Some(s) => Failure::Stopped(*s),
            None => Failure::Other(e),
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::ClosedPipe => 0,
            Failure::Stopped(s) => (128 + s.0).clamp(0, 255) as u8,
            Failure::Expectation | Failure::Incomplete(_) => 1,
            Failure::BadInput(_) | Failure::Other(_) => 2,
            Failure::Internal(_) => 3,
        }
    }
}

/// The whole program: reads the command line, runs it, prints any error
/// and gives the exit code. A program that registers policies of its own
/// (`policy::catalog::register`) calls this after registering them.
pub fn main() -> std::process::ExitCode {
    use clap::Parser;
    schedscope_batsim::register();
    let cli = Cli::parse();
    match execute(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(f) => {
            match &f {
                Failure::Expectation => eprintln!("schedscope: an expectation failed"),
                // The reader of standard output has gone: nothing to say.
                Failure::ClosedPipe => {}
                Failure::BadInput(m) | Failure::Incomplete(m) | Failure::Internal(m) => {
                    eprintln!("schedscope: {m}")
                }
                Failure::Other(e) => eprintln!("schedscope: {e:#}"),
                Failure::Stopped(s) => eprintln!("schedscope: {s}"),
            }
            std::process::ExitCode::from(f.exit_code())
        }
    }
}

/// Runs the command; what to print on stdout goes to stdout here.
pub fn execute(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        None if std::io::stdout().is_terminal() => {
            let scenario = Scenario::embedded_default();
            let seed = scenario.seed();
            crate::console::run(scenario, seed, false, None).map_err(Failure::console)
        }
        Some(Command::Console {
            scenario,
            sets,
            seed,
            paused,
            compare,
        }) => {
            let sc = Scenario::load_with(&scenario, &sets)?;
            let twin = if compare.is_empty() {
                None
            } else {
                let both: Vec<String> = sets.iter().chain(&compare).cloned().collect();
                // A fault in a --compare argument is named as one.
                Some(Scenario::load_with(&scenario, &both).map_err(|e| match e {
                    ScenarioError::Override { arg, message }
                        if compare.contains(&arg) && !sets.contains(&arg) =>
                    {
                        Failure::BadInput(format!("--compare {arg}: {message}"))
                    }
                    e => e.into(),
                })?)
            };
            if !std::io::stdout().is_terminal() {
                return Err(Failure::BadInput(format!(
                    "the console needs a terminal on standard output; `schedscope run {}` runs it headless",
                    scenario.display()
                )));
            }
            let seed = seed.unwrap_or(sc.seed());
            crate::console::run(sc, seed, paused, twin).map_err(Failure::console)
        }
        None => {
            let scenario = Scenario::embedded_default();
            let result = run_with_progress(&scenario, &RunOptions::default())?;
            out!("{}", report::table::render(&scenario, &result))?;
            Ok(())
        }
        Some(Command::Run {
            scenario,
            sets,
            replications,
            seed,
            format,
            out,
            explain,
        }) => {
            let sc = Scenario::load_with(&scenario, &sets)?;
            if !explain.is_empty() {
                if out.is_some() {
                    return Err(Failure::BadInput(
                        "--explain prints its answers and writes no folder: drop --out".into(),
                    ));
                }
                let said = self::explain::explain(&sc, seed.unwrap_or(sc.seed()), &explain)?;
                return match format {
                    Format::Table => out!("{}", self::explain::lines(&said)),
                    Format::Json => outln!(
                        "{}",
                        serde_json::to_string_pretty(&said).expect("plain data")
                    ),
                    Format::Csv => {
                        let mut w = csv::Writer::from_writer(std::io::stdout().lock());
                        for s in &said {
                            w.serialize(s).map_err(|e| Failure::from_stdout(e.into()))?;
                        }
                        w.flush().map_err(Failure::from_stdout)
                    }
                };
            }
            // The folder is checked, and its staging folder made, before
            // the simulation: a bad --out costs no run.
            let out = match &out {
                Some(dir) => {
                    // The handler first: a signal between the staging
                    // folder's making and the handler would leave it.
                    out_dir::remove_on_signal().map_err(|e| Failure::Other(e.into()))?;
                    Some(OutDir::prepare(dir).map_err(|e| Failure::BadInput(e.to_string()))?)
                }
                None => None,
            };
            let opts = RunOptions {
                replications,
                seed,
                keep_records: out.is_some(),
            };
            if format == Format::Csv && out.is_none() {
                // Rows go out as jobs end: nothing is kept, however many
                // jobs the run has.
                let mut stdout = std::io::stdout().lock();
                let mut rows =
                    report::csv::JobRows::new(&mut stdout, &sc).map_err(Failure::from_stdout)?;
                let mut failed = None;
                let mut row = |rep: u32, r: &crate::model::JobRecord| match rows.row(rep, r) {
                    Ok(()) => true,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                };
                with_progress(&sc, &opts, |progress| {
                    runner::run_streaming(&sc, &opts, progress, &mut row)
                })?;
                if let Some(e) = failed {
                    return Err(Failure::from_stdout(e));
                }
                rows.finish().map_err(Failure::from_stdout)?;
                return Ok(());
            }
            let result = run_with_progress(&sc, &opts)?;
            if let Some(out) = out {
                write_out(out, &sc, &result)?;
            }
            match format {
                Format::Table => out!("{}", report::table::render(&sc, &result))?,
                Format::Json => out!(
                    "{}",
                    report::json::to_text(&report::json::summary(&sc, &result))
                )?,
                Format::Csv => {
                    let mut stdout = std::io::stdout().lock();
                    report::csv::write_jobs(&mut stdout, &result, &sc)
                        .map_err(Failure::from_stdout)?;
                }
            }
            Ok(())
        }
        Some(Command::Sweep(args)) => sweep(*args),
        Some(Command::Merge {
            dir,
            format,
            paired,
        }) => merge(&dir, format.report(), paired.as_deref()),
        Some(Command::Plot { dir, out, figure }) => {
            check_stem("--out", &out)?;
            plot_folder("--out", &dir, &out, &figure)
        }
        Some(Command::Check { scenarios }) => check(&scenarios),
        Some(Command::Policies) => {
            out!("{}", crate::policy::catalog::describe())?;
            Ok(())
        }
        Some(Command::Workloads) => {
            out!("{}", crate::scenario::kinds::describe())?;
            Ok(())
        }
        Some(Command::Workload {
            scenario,
            sets,
            jobs,
            seed,
        }) => {
            let sc = Scenario::load_with(&scenario, &sets)?;
            let seed = seed.unwrap_or(sc.seed());
            let count = jobs.or(sc.jobs_per_replication());
            let mut source = sc.job_source(seed, count)?;
            // Counted as drawn: memory grows with the distinct sizes, not
            // with the jobs.
            let mut h = crate::workload::sizes::SizeHistogram::default();
            let mut drawn = 0u64;
            while let Some(j) = source.next_job() {
                h.add(j.size);
                drawn += 1;
                if count.is_some_and(|c| drawn >= c) {
                    break;
                }
            }
            outln!("workload of {} (seed {seed})", sc.name())?;
            out!("{h}")?;
            Ok(())
        }
        Some(Command::Swf {
            command: SwfCommand::Info { traces },
        }) => {
            for (i, t) in traces.iter().enumerate() {
                let trace = crate::workload::swf::read_path(t)
                    .map_err(|e| Failure::BadInput(e.to_string()))?;
                if i > 0 {
                    outln!()?;
                }
                let text = crate::workload::swf::info(&trace).to_string();
                out!("{text}")?;
                if !text.ends_with('\n') {
                    outln!()?;
                }
            }
            Ok(())
        }
        Some(Command::Taskgraph { command }) => {
            let text = crate::cli::taskgraph::run(&command).map_err(Failure::BadInput)?;
            out!("{text}")?;
            Ok(())
        }
        Some(Command::Validate { scenarios }) => {
            let mut failed = Failed::default();
            for p in &scenarios {
                match Scenario::load(p) {
                    Ok(s) => outln!("ok      {} ({})", p.display(), s.name())?,
                    Err(e) => failed.report(&e)?,
                }
            }
            failed.into_result(scenarios.len(), "could not be read")
        }
    }
}

/// Scenarios that could not be read, reported one by one as they come so
/// that the rest still run.
#[derive(Default)]
struct Failed {
    count: usize,
    missing: usize,
}

impl Failed {
    fn report(&mut self, e: &ScenarioError) -> Result<(), Failure> {
        self.count += 1;
        if e.is_missing_data() {
            self.missing += 1;
            outln!("missing {e}")
        } else {
            outln!("error   {e}")
        }
    }

    fn into_result(self, total: usize, what: &str) -> Result<(), Failure> {
        if self.count == 0 {
            return Ok(());
        }
        let missing = match self.missing {
            0 => String::new(),
            n if n == self.count => " (their data files are missing)".to_string(),
            n => format!(" ({n} of them for missing data files)"),
        };
        Err(Failure::BadInput(format!(
            "{} of {total} scenario{} {what}{missing}: see the lines above",
            self.count,
            if total == 1 { "" } else { "s" },
        )))
    }
}

/// Writes a run's files into `out` and puts them in place together.
fn write_out(out: OutDir, sc: &Scenario, result: &RunResult) -> Result<(), Failure> {
    let bad = |e: out_dir::OutDirError| Failure::BadInput(e.to_string());
    let summary = report::json::to_text(&report::json::summary(sc, result));
    out.write("summary.json", |w| w.write_all(summary.as_bytes()))
        .map_err(bad)?;
    out.write("jobs.csv", |w| report::csv::write_jobs(w, result, sc))
        .map_err(bad)?;
    report::interop::write_files(|name, write| out.write(name, write), sc, result).map_err(bad)?;
    out.commit().map_err(bad)
}

/// Runs every scenario that has `[expect]` bounds and tests them. A
/// scenario that cannot be read or run is reported on its own line and the
/// rest are still checked: exit 3 when a run lost jobs, else 2 when a
/// scenario could not be checked, else 1 when a bound failed.
fn check(paths: &[PathBuf]) -> Result<(), Failure> {
    let mut failed = false;
    let mut unread = Failed::default();
    // Runs that ended with jobs not accounted for: a defect of schedscope.
    let mut lost = 0;
    for p in paths {
        match crate::scenario::has_expectations(p) {
            Ok(true) => {}
            Ok(false) => {
                outln!(
                    "----    {} has no [expect] bounds (ran nothing)",
                    p.display()
                )?;
                continue;
            }
            Err(e) => {
                unread.report(&e)?;
                continue;
            }
        }
        let sc = match Scenario::load(p) {
            Ok(sc) => sc,
            Err(e) => {
                unread.report(&e)?;
                continue;
            }
        };
        let result = match run_with_progress(&sc, &RunOptions::default()) {
            Ok(r) => r,
            Err(Failure::BadInput(m)) => {
                unread.count += 1;
                outln!("error   {}: {m}", p.display())?;
                continue;
            }
            Err(Failure::Internal(m)) => {
                lost += 1;
                outln!("error   {}: {m}", p.display())?;
                continue;
            }
            Err(e) => return Err(e),
        };
        let s = result.summary();
        outln!("{} ({})", p.display(), sc.name())?;
        for (name, bound) in &sc.file.expect {
            let b = bound.get_ref();
            let Some(v) = s.figure(name) else {
                // Validation refuses unknown figures; a group a run never
                // filled has none.
                failed = true;
                outln!("  FAIL  {name}: the run has no such figure")?;
                continue;
            };
            let x = v.mean;
            let lo_ok = b.min.is_none_or(|m| x >= m);
            let hi_ok = b.max.is_none_or(|m| x <= m);
            let range = match (b.min, b.max) {
                (Some(lo), Some(hi)) => format!("[{lo}, {hi}]"),
                (Some(lo), None) => format!("≥ {lo}"),
                (None, Some(hi)) => format!("≤ {hi}"),
                (None, None) => "any".into(),
            };
            if lo_ok && hi_ok {
                outln!("  pass  {name} = {x:.4} (expected {range})")?;
            } else {
                failed = true;
                let by = if !lo_ok {
                    format!("{:.4} below the minimum", b.min.unwrap_or(0.0) - x)
                } else {
                    format!("{:.4} above the maximum", x - b.max.unwrap_or(0.0))
                };
                outln!("  FAIL  {name} = {x:.4} (expected {range}; {by})")?;
            }
        }
    }
    if lost > 0 {
        return Err(Failure::Internal(format!(
            "{lost} of {} scenario runs ended with jobs not accounted for: see the lines above",
            paths.len()
        )));
    }
    unread.into_result(paths.len(), "could not be checked")?;
    if failed {
        Err(Failure::Expectation)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::progress::rate;

    #[test]
    fn rates_read_at_a_glance() {
        assert_eq!(rate(3_874_421.354_4), "3.87 M jobs/s");
        assert_eq!(rate(874_421.0), "874 k jobs/s");
        assert_eq!(rate(12_345.6), "12.3 k jobs/s");
        assert_eq!(rate(512.4), "512 jobs/s");
        assert_eq!(rate(0.5), "0.50 jobs/s");
    }
}
