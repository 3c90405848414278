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

#[derive(Parser, Debug)]
#[command(
    name = "schedscope",
    version,
    about = "Multi-cluster parallel-job scheduling: a live console and headless runs over one deterministic simulator",
    long_about = "With no command, schedscope opens the console on the embedded default scenario when \
                  standard output is a terminal, and otherwise runs that scenario headless and prints its tables.",
    after_help = "Exit codes: 0 ok (also when the reader of standard output, such as `head`, closes it early: \
                  the command ends there quietly), 1 an expectation failed or a sweep's points are missing, \
                  2 bad input, 3 a run ended with jobs not accounted for, 129, 130 and 143 stopped by SIGHUP, \
                  SIGINT or SIGTERM (the console gives the terminal back first)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the live console on a scenario.
    Console {
        /// The scenario file (TOML; see scenarios/README.md).
        scenario: PathBuf,
        /// Override a scenario key by its dotted path (the value is read as TOML; a bare word is a string).
        #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
        sets: Vec<String>,
        /// The base seed, instead of the scenario's `seed`.
        #[arg(long)]
        seed: Option<u64>,
        /// Start paused before the first event: Space runs, `.` steps one event (for
        /// walking a class through a small example).
        #[arg(long)]
        paused: bool,
        /// Compare mode: run the same workload a second time with this key changed
        /// (e.g. policy.name=easy; repeat for more keys), side by side on the same
        /// simulated time. Injections and estimate flips go to both; a policy chosen
        /// with `p` changes the left side.
        #[arg(long = "compare", value_name = "KEY.PATH=VALUE")]
        compare: Vec<String>,
    },
    /// Run a scenario headless and report its metrics.
    Run {
        /// The scenario file (TOML; see scenarios/README.md).
        scenario: PathBuf,
        /// Override a scenario key by its dotted path (the value is read as TOML; a bare word is a string).
        #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
        sets: Vec<String>,
        /// Number of replications, or "auto" (until ART's 95 % half-width is within 5 %).
        #[arg(long, value_parser = parse_replications)]
        replications: Option<Replications>,
        /// The base seed, instead of the scenario's `seed`; replication r
        /// runs on a seed derived from it.
        #[arg(long)]
        seed: Option<u64>,
        /// How to print the result: tables, the JSON summary, or one CSV
        /// row per job.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Write summary.json, jobs.csv, Batsim's out_jobs.csv and the
        /// schedule as schedule.swf into this folder, as one unit
        /// (the folder must be new, empty or hold an earlier result).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run the cross product of varied keys and print one row per point.
    Sweep(Box<SweepArgs>),
    /// Print the rows of a sweep's result folder (written by `sweep --out`,
    /// perhaps in shards) as a local sweep prints them; missing and failed
    /// points are listed by id and make the exit code 1.
    Merge {
        /// The folder given to `sweep --out`.
        dir: PathBuf,
        /// How to print the rows (as `sweep --format`).
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Also print each point's paired difference from the point with
        /// KEY = BASE (as `sweep --paired`).
        #[arg(long, value_name = "KEY.PATH=BASE")]
        paired: Option<String>,
    },
    /// Draw a sweep's result folder (written by `sweep --out`) as a figure:
    /// a metric against one varied key, one line per value of another, with
    /// 95 % confidence bars, as SVG and PNG.
    Plot {
        /// The folder given to `sweep --out`.
        dir: PathBuf,
        /// Where to write the figure: FILE.svg and FILE.png.
        #[arg(long, short = 'o', value_name = "FILE")]
        out: PathBuf,
        #[command(flatten)]
        figure: FigureArgs,
    },
    /// Run scenarios and test their [expect] bounds (exit 1 when one fails, 2 when a scenario cannot be run).
    Check {
        /// Scenario files; those without [expect] bounds are passed over.
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
    },
    /// Read and validate scenarios without running them.
    Validate {
        /// Scenario files, each reported on one line.
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
    },
    /// Task graphs: schedule one (HLFET, ETF, MCP, exact), or the gap
    /// table of a Standard Task Graph set against its optimal makespans.
    Taskgraph {
        #[command(subcommand)]
        command: crate::taskgraph::command::TaskgraphCommand,
    },
    /// List every policy with what it does and the parameters it reads.
    Policies,
    /// List every workload kind with what it is and the keys it reads.
    Workloads,
    /// A scenario's workload without running it: the job-size histogram,
    /// the mean and median size and the share of powers of two.
    Workload {
        /// The scenario file (TOML; see scenarios/README.md).
        scenario: PathBuf,
        /// Override a scenario key by its dotted path (the value is read as TOML; a bare word is a string).
        #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
        sets: Vec<String>,
        /// Jobs to draw from a generated workload (the scenario's run.jobs
        /// otherwise); a trace or job list is read whole.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        jobs: Option<u64>,
        /// The seed, instead of the scenario's `seed`.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Standard Workload Format traces.
    Swf {
        #[command(subcommand)]
        command: SwfCommand,
    },
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The scenario every point starts from.
    pub scenario: PathBuf,
    /// A key and its values, e.g. policy.max_jumps=0,1,2,5,10; repeat for
    /// more keys (each key once, each value once, none blank).
    #[arg(
        long = "vary",
        value_name = "KEY.PATH=V1,V2,...",
        required_unless_present = "points"
    )]
    pub vary: Vec<String>,
    /// A sweep file listing points one per line: a header of keys, then one
    /// comma-separated row of values per point (`#` starts a comment); crossed
    /// with any --vary.
    #[arg(long, value_name = "FILE")]
    pub points: Option<PathBuf>,
    /// Override a scenario key at every point (the value is read as TOML; a
    /// bare word is a string); a varied key cannot also be set.
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    pub sets: Vec<String>,
    /// Replications per point, or "auto" (until ART's 95 % half-width is
    /// within 5 %); the scenario's [run] replications otherwise.
    #[arg(long, value_parser = parse_replications)]
    pub replications: Option<Replications>,
    /// Base seed of every point (the scenario's seed otherwise).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How to print the rows.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write each point's result into this folder as it finishes
    /// (sweep.json and points/ID.json); points with a result there already
    /// are skipped, so a re-run resumes.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run only the I-th of N shares of the points (I from 0), writing into
    /// --out and printing nothing; `schedscope merge DIR` prints the rows.
    #[arg(long, value_name = "I/N", requires = "out", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Instead of running, write a Slurm job-array script into --out
    /// (sweep.sbatch: one array task per shard, each calling this binary
    /// with --shard $SLURM_ARRAY_TASK_ID/N) and print its path.
    #[arg(long, requires = "out", conflicts_with = "shard")]
    pub slurm: bool,
    /// With --slurm: the number of shards, one array task each.
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: Option<u32>,
    /// With --slurm: at most M array tasks at once (--array=0-(N-1)%M).
    #[arg(long, value_name = "M", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_running: Option<u32>,
    /// With --slurm: the partition to run in (the cluster's default otherwise).
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// With --slurm: each task's time limit, as Slurm writes it (30, 2:00:00, 1-0).
    #[arg(long, requires = "slurm", value_parser = slurm::parse_time)]
    pub time: Option<String>,
    /// With --slurm: CPUs per array task; a shard runs its points on that
    /// many threads.
    #[arg(long, value_name = "C", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub cpus_per_task: u32,
    /// With --slurm: submit the script with sbatch and print the job id.
    #[arg(long, requires = "slurm")]
    pub submit: bool,
    /// Also print each point's difference from the point with KEY = BASE
    /// and the same other settings, paired seed by seed (the points share
    /// their replications' seeds): mean ± 95 % half-width, * where the
    /// interval excludes zero.
    #[arg(long, value_name = "KEY.PATH=BASE", conflicts_with_all = ["shard", "slurm"])]
    pub paired: Option<String>,
    /// Also draw the rows as a figure, FILE.svg and FILE.png (see --x,
    /// --series, --metric, --where).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["shard", "slurm"])]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub figure: FigureArgs,
}

/// What a figure shows.
#[derive(Args, Debug, Clone)]
pub struct FigureArgs {
    /// For figures: the varied key along the x axis (the first varied key
    /// otherwise).
    #[arg(long, value_name = "KEY.PATH")]
    pub x: Option<String>,
    /// For figures: the varied key drawn as one line per value (otherwise
    /// the other varied key that takes several values).
    #[arg(long, value_name = "KEY.PATH")]
    pub series: Option<String>,
    /// For figures: what to draw, e.g. art, mean_wait,
    /// mean_bounded_slowdown, utilization, a group's groups.size.S1.art, or
    /// groups.size.*.art for every group along the x axis.
    #[arg(long, value_name = "FIGURE", default_value = "art")]
    pub metric: String,
    /// For figures: keep only the points where KEY has VALUE (repeatable).
    #[arg(long = "where", value_name = "KEY.PATH=VALUE")]
    pub filters: Vec<String>,
    /// For figures: the title (the scenario and the metric otherwise).
    #[arg(long)]
    pub title: Option<String>,
}

impl FigureArgs {
    fn spec(&self) -> Result<PlotSpec, Failure> {
        let filters = self
            .filters
            .iter()
            .map(|f| {
                f.split_once('=')
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                    .ok_or_else(|| {
                        Failure::BadInput(format!("--where {f}: expected KEY.PATH=VALUE"))
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(PlotSpec {
            x: self.x.clone(),
            series: self.series.clone(),
            metric: self.metric.clone(),
            filters,
            title: self.title.clone(),
        })
    }
}

/// A figure's file stem: `--plot DIR/` or an existing folder names no file
/// (it would write the hidden `DIR/.svg`), refused before anything runs.
fn check_stem(flag: &str, stem: &Path) -> Result<(), Failure> {
    let text = stem.to_string_lossy();
    let named = stem
        .file_name()
        .is_some_and(|n| n != "." && n != ".." && !n.to_string_lossy().starts_with('.'));
    if text.ends_with(std::path::MAIN_SEPARATOR) || text.ends_with('/') || stem.is_dir() || !named {
        return Err(Failure::BadInput(format!(
            "{flag} {text}: name a file, not a folder: FILE.svg and FILE.png are written (e.g. {flag} {}figure)",
            if stem.is_dir() && !text.ends_with('/') {
                format!("{text}/")
            } else {
                text.to_string()
            }
        )));
    }
    Ok(())
}

/// Draws `rows` as `stem`.svg and `stem`.png and says where.
fn draw_figure(
    stem: &Path,
    figure: &FigureArgs,
    keys: &[String],
    rows: &[Row],
) -> Result<(), Failure> {
    let spec = figure.spec()?;
    let scenario = rows
        .first()
        .and_then(|r| r.summary.get("scenario"))
        .and_then(|v| v.as_str())
        .unwrap_or("sweep");
    let fig =
        plot::figure(scenario, keys, rows, &spec).map_err(|e| Failure::BadInput(e.to_string()))?;
    let (svg, png) = plot::write(&fig, stem).map_err(|e| Failure::BadInput(e.to_string()))?;
    eprintln!("wrote {} and {}", svg.display(), png.display());
    Ok(())
}

#[derive(Subcommand, Debug)]
pub enum SwfCommand {
    /// Jobs, submit span, processors and skipped lines by reason.
    Info {
        /// Trace files, plain or gzip compressed.
        #[arg(required = true)]
        traces: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Tables for the terminal.
    Table,
    /// run: the JSON summary; sweep and merge: an array of points, each
    /// with its summary (both described in scenarios/README.md).
    Json,
    /// run: one row per job; sweep and merge: one row per point, with each
    /// figure's mean and half-width.
    Csv,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    Shard::parse(s).map_err(|e| match e {
        SweepError::Shard { message, .. } => message,
        other => other.to_string(),
    })
}

impl Format {
    fn report(self) -> Report {
        match self {
            Format::Table => Report::Table,
            Format::Json => Report::Json,
            Format::Csv => Report::Csv,
        }
    }
}

fn parse_replications(s: &str) -> Result<Replications, String> {
    if s == "auto" {
        return Ok(Replications::Auto);
    }
    match s.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(Replications::Fixed(n)),
        _ => Err(format!(
            "expected a whole number at least 1 or \"auto\", found \"{s}\""
        )),
    }
}

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
        }) => {
            let sc = Scenario::load_with(&scenario, &sets)?;
            // The folder is checked, and its staging folder made, before
            // the simulation: a bad --out costs no run.
            let out = match &out {
                Some(dir) => {
                    let out = OutDir::prepare(dir).map_err(|e| Failure::BadInput(e.to_string()))?;
                    out_dir::remove_on_signal().map_err(|e| Failure::Other(e.into()))?;
                    Some(out)
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
            plot_folder(&dir, &out, &figure)
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
            let text = crate::taskgraph::command::run(&command).map_err(Failure::BadInput)?;
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

/// Runs with a progress bar on stderr once the run takes longer than a
/// moment (never when stderr is not a terminal).
pub fn run_with_progress(sc: &Scenario, opts: &RunOptions) -> Result<RunResult, Failure> {
    with_progress(sc, opts, |progress| runner::run(sc, opts, progress))
}

/// Runs `run` with a progress bar on a terminal's standard error.
fn with_progress(
    sc: &Scenario,
    opts: &RunOptions,
    run: impl FnOnce(&AtomicU64) -> Result<RunResult, crate::scenario::ScenarioError>,
) -> Result<RunResult, Failure> {
    let progress = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let reps = match opts.replications.unwrap_or(sc.file.run.replications) {
        Replications::Fixed(n) => n as u64,
        Replications::Auto => sc.file.run.min_replications.0 as u64,
    };
    let total = sc.jobs_per_replication().unwrap_or(0) * reps;
    let bar = if std::io::stderr().is_terminal() {
        let (p, d) = (progress.clone(), done.clone());
        let name = sc.name().to_string();
        Some(std::thread::spawn(move || {
            progress_bar(&name, total, &p, &d)
        }))
    } else {
        None
    };
    let result = run(&progress);
    done.store(true, Ordering::Relaxed);
    if let Some(h) = bar {
        let _ = h.join();
    }
    let result = result?;
    // A job the policy could never run, or a timeline command that could
    // not apply, makes figures that are not the scenario's: say so and
    // report nothing.
    if let Some(trouble) = result.trouble() {
        return Err(Failure::BadInput(format!(
            "{} ({}) did not run as written:\n{trouble}",
            sc.name(),
            sc.file.policy.label()
        )));
    }
    Ok(result)
}

fn progress_bar(name: &str, total: u64, progress: &AtomicU64, done: &AtomicBool) {
    let started = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if bar.is_none() && started.elapsed() > Duration::from_millis(500) {
            let b = indicatif::ProgressBar::new(total.max(1));
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg} {bar:40} {pos}/{len} jobs ({rate}, eta {eta})",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .with_key(
                    "rate",
                    |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&rate(s.per_sec()));
                    },
                ),
            );
            b.set_message(name.to_string());
            bar = Some(b);
        }
        if let Some(b) = &bar {
            let p = progress.load(Ordering::Relaxed);
            if p > b.length().unwrap_or(0) {
                b.set_length(p);
            }
            b.set_position(p);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

/// Jobs per second to three figures: `3.87 M jobs/s`, not
/// `3,874,421.3544/s`.
fn rate(per_sec: f64) -> String {
    let (v, unit) = match per_sec {
        x if x >= 1e6 => (x / 1e6, " M"),
        x if x >= 1e3 => (x / 1e3, " k"),
        x => (x, ""),
    };
    let decimals = match v {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{v:.decimals$}{unit} jobs/s")
}

/// A local sweep, or (with `--out`) the points of one shard written into a
/// result folder; without `--shard`, the folder's rows are printed as
/// `merge` would print them.
fn sweep(args: SweepArgs) -> Result<(), Failure> {
    let spec = SweepSpec::with_points(
        args.scenario.clone(),
        args.points.as_deref(),
        &args.vary,
        &args.sets,
        args.replications,
        args.seed,
    )?;
    let report = args.format.report();
    if let Some(stem) = &args.plot {
        check_stem("--plot", stem)?;
    }
    if args.slurm {
        return slurm_array(&spec, &args);
    }
    // Checked before any point runs.
    let paired = args
        .paired
        .as_deref()
        .map(|arg| {
            let points = spec.points();
            let settings: Vec<&[(String, String)]> =
                points.iter().map(|p| p.settings.as_slice()).collect();
            Paired::parse(arg, &spec.keys(), &settings)
        })
        .transpose()?;
    let Some(dir) = args.out else {
        let points = spec.points();
        // Validate every point before running any.
        let scenarios = points
            .iter()
            .map(|p| spec.scenario_at(p))
            .collect::<Result<Vec<_>, _>>()?;
        let summaries = scenarios
            .par_iter()
            .map(|s| spec.run_point(s))
            .collect::<Result<Vec<_>, _>>()?;
        let rows: Vec<Row> = points
            .iter()
            .zip(&summaries)
            .map(|(p, s)| Row {
                settings: &p.settings,
                summary: s,
            })
            .collect();
        out!(
            "{}",
            render::render(report, &spec.keys(), &rows, paired.as_ref())
        )?;
        if let Some(stem) = &args.plot {
            draw_figure(stem, &args.figure, &spec.keys(), &rows)?;
        }
        return Ok(());
    };
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let done = store::run_shard(&spec, shard, &dir)?;
    if args.shard.is_some() {
        eprintln!(
            "shard {shard}: {} of {} points run, {} already done, {} failed ({})",
            done.run,
            done.points,
            done.already_done,
            done.failed.len(),
            dir.display()
        );
        if done.failed.is_empty() {
            return Ok(());
        }
        let lines: Vec<String> = done
            .failed
            .iter()
            .map(|f| format!("  failed  {}  {}: {}", f.id, f.label, f.error))
            .collect();
        return Err(Failure::Incomplete(format!(
            "{} points failed:\n{}",
            done.failed.len(),
            lines.join("\n")
        )));
    }
    merge(&dir, report, args.paired.as_deref())?;
    if let Some(stem) = &args.plot {
        plot_folder(&dir, stem, &args.figure)?;
    }
    Ok(())
}

/// Draws a result folder's rows.
fn plot_folder(dir: &Path, stem: &Path, figure: &FigureArgs) -> Result<(), Failure> {
    let g = store::gather(dir)?;
    let rows: Vec<Row> = g
        .rows
        .iter()
        .map(|(p, s)| Row {
            settings: &p.settings,
            summary: s,
        })
        .collect();
    draw_figure(stem, figure, &g.manifest.keys(), &rows)?;
    if g.complete() {
        Ok(())
    } else {
        Err(Failure::Incomplete(format!(
            "{}: drew the points there are; {}",
            dir.display(),
            g.problems()
        )))
    }
}

/// Writes (and with `--submit` submits) the sweep's Slurm array script.
fn slurm_array(spec: &SweepSpec, args: &SweepArgs) -> Result<(), Failure> {
    let (Some(dir), Some(shards)) = (&args.out, args.shards) else {
        return Err(Failure::BadInput(
            "--slurm needs --out DIR and --shards N (the number of array tasks)".into(),
        ));
    };
    // Both are named in #SBATCH lines; refused before anything is written.
    let cwd = std::env::current_dir().map_err(|e| Failure::Other(e.into()))?;
    for p in [
        std::path::absolute(dir).unwrap_or_else(|_| dir.clone()),
        cwd.clone(),
    ] {
        if let Some(what) = slurm::unwritable(&p) {
            return Err(SweepError::Folder {
                path: p.display().to_string(),
                message: format!(
                    "holds {what}, which an #SBATCH line cannot name: choose a folder without one"
                ),
            }
            .into());
        }
    }
    let points = spec.points();
    // Every point is read and validated here, before anything is queued.
    for p in &points {
        spec.scenario_at(p)?;
    }
    // No array task without a point to run.
    let most = u32::try_from(points.len()).unwrap_or(u32::MAX).max(1);
    let shards = if shards > most {
        eprintln!(
            "--shards {shards} for {} point{}: {most} array task{}, one point each",
            points.len(),
            if points.len() == 1 { "" } else { "s" },
            if most == 1 { "" } else { "s" }
        );
        most
    } else {
        shards
    };
    let (folder, _) = store::prepare(spec, &points, dir)?;
    let io = |what: &str, e: std::io::Error| {
        Failure::BadInput(format!("{}: cannot write {what}: {e}", dir.display()))
    };
    std::fs::create_dir_all(folder.dir().join(slurm::LOGS)).map_err(|e| io(slurm::LOGS, e))?;
    let opts = slurm::ArrayOptions {
        shards,
        max_running: args.max_running,
        partition: args.partition.clone(),
        time: args.time.clone(),
        cpus_per_task: args.cpus_per_task,
    };
    let exe = std::env::current_exe().map_err(|e| Failure::Other(e.into()))?;
    let text = slurm::script(spec, &opts, dir, &exe, &cwd);
    let path = dir.join(slurm::SCRIPT);
    report::write_atomic(&path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| io(slurm::SCRIPT, e))?;
    if args.submit {
        let id = slurm::submit(&path)?;
        eprintln!(
            "submitted {} ({} points in {shards} array tasks); when it is done: schedscope merge {}",
            path.display(),
            points.len(),
            dir.display()
        );
        outln!("{id}")?;
    } else {
        eprintln!("submit with: sbatch {}", path.display());
        outln!("{}", path.display())?;
    }
    Ok(())
}

/// Prints a result folder's rows; missing or failed points are listed on
/// stderr and make the exit code 1.
fn merge(dir: &Path, report: Report, paired: Option<&str>) -> Result<(), Failure> {
    let g = store::gather(dir)?;
    let keys = g.manifest.keys();
    let paired = paired
        .map(|arg| {
            let settings: Vec<&[(String, String)]> =
                g.rows.iter().map(|(p, _)| p.settings.as_slice()).collect();
            Paired::parse(arg, &keys, &settings)
        })
        .transpose()?;
    let rows: Vec<Row> = g
        .rows
        .iter()
        .map(|(p, s)| Row {
            settings: &p.settings,
            summary: s,
        })
        .collect();
    out!("{}", render::render(report, &keys, &rows, paired.as_ref()))?;
    if g.complete() {
        Ok(())
    } else {
        Err(Failure::Incomplete(format!(
            "{}: {}",
            dir.display(),
            g.problems()
        )))
    }
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
    use super::rate;

    #[test]
    fn rates_read_at_a_glance() {
        assert_eq!(rate(3_874_421.354_4), "3.87 M jobs/s");
        assert_eq!(rate(874_421.0), "874 k jobs/s");
        assert_eq!(rate(12_345.6), "12.3 k jobs/s");
        assert_eq!(rate(512.4), "512 jobs/s");
        assert_eq!(rate(0.5), "0.50 jobs/s");
    }
}
