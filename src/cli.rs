//! The command line: `console`, `run`, `sweep`, `check`, `validate`, and
//! (with no command) the console or, off a terminal, the default scenario
//! headless.

use crate::report;
use crate::runner::{self, RunOptions, RunResult};
use crate::scenario::{Replications, Scenario, ScenarioError};
use clap::{Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "schedscope",
    version,
    about = "Multi-cluster parallel-job scheduling: a live console and headless runs over one deterministic simulator",
    long_about = "With no command, schedscope opens the console on the embedded default scenario when \
                  standard output is a terminal, and otherwise runs that scenario headless and prints its tables."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the live console on a scenario.
    Console {
        scenario: PathBuf,
        /// Override a scenario key by its dotted path (the value is read as TOML; a bare word is a string).
        #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
        sets: Vec<String>,
        #[arg(long)]
        seed: Option<u64>,
        /// Start paused before the first event: Space runs, `.` steps one event (for
        /// walking a class through a small example).
        #[arg(long)]
        paused: bool,
    },
    /// Run a scenario headless and report its metrics.
    Run {
        scenario: PathBuf,
        /// Override a scenario key by its dotted path (the value is read as TOML; a bare word is a string).
        #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
        sets: Vec<String>,
        /// Number of replications, or "auto" (until ART's 95 % half-width is within 5 %).
        #[arg(long, value_parser = parse_replications)]
        replications: Option<Replications>,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Write summary.json and jobs.csv into this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run the cross product of varied keys and print one row per point.
    Sweep {
        scenario: PathBuf,
        /// A key and its values, e.g. policy.max_jumps=0,1,2,5,10 (repeatable).
        #[arg(long = "vary", value_name = "KEY.PATH=V1,V2,...", required = true)]
        vary: Vec<String>,
        #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
        sets: Vec<String>,
        #[arg(long, value_parser = parse_replications)]
        replications: Option<Replications>,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Run scenarios and test their [expect] bounds (exit 1 when one fails).
    Check {
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
    },
    /// Read and validate scenarios without running them.
    Validate {
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
    },
    /// Standard Workload Format traces.
    Swf {
        #[command(subcommand)]
        command: SwfCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum SwfCommand {
    /// Jobs, submit span, processors and skipped lines by reason.
    Info {
        #[arg(required = true)]
        traces: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
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
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Self {
        match e {
            ScenarioError::Internal(c) => Failure::Internal(c.to_string()),
            e => Failure::BadInput(e.to_string()),
        }
    }
}

impl Failure {
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Expectation => 1,
            Failure::BadInput(_) | Failure::Other(_) => 2,
            Failure::Internal(_) => 3,
        }
    }
}

/// Runs the command; what to print on stdout goes to stdout here.
pub fn execute(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        None if std::io::stdout().is_terminal() => {
            let scenario = Scenario::embedded_default();
            let seed = scenario.seed();
            crate::console::run(scenario, seed, false).map_err(Failure::Other)
        }
        Some(Command::Console {
            scenario,
            sets,
            seed,
            paused,
        }) => {
            let sc = Scenario::load_with(&scenario, &sets)?;
            if !std::io::stdout().is_terminal() {
                return Err(Failure::BadInput(format!(
                    "the console needs a terminal on standard output; `schedscope run {}` runs it headless",
                    scenario.display()
                )));
            }
            let seed = seed.unwrap_or(sc.seed());
            crate::console::run(sc, seed, paused).map_err(Failure::Other)
        }
        None => {
            let scenario = Scenario::embedded_default();
            let result = run_with_progress(&scenario, &RunOptions::default())?;
            print!("{}", report::table::render(&scenario, &result));
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
            let opts = RunOptions {
                replications,
                seed,
                keep_records: out.is_some() || format == Format::Csv,
            };
            let result = run_with_progress(&sc, &opts)?;
            if let Some(dir) = &out {
                write_out(dir, &sc, &result)?;
            }
            match format {
                Format::Table => print!("{}", report::table::render(&sc, &result)),
                Format::Json => print!(
                    "{}",
                    report::json::to_text(&report::json::summary(&sc, &result))
                ),
                Format::Csv => {
                    let mut stdout = std::io::stdout().lock();
                    report::csv::write_jobs(&mut stdout, &result, sc.group_bounds())
                        .map_err(|e| Failure::Other(e.into()))?;
                }
            }
            Ok(())
        }
        Some(Command::Sweep {
            scenario,
            vary,
            sets,
            replications,
            seed,
            format,
        }) => sweep(&scenario, &vary, &sets, replications, seed, format),
        Some(Command::Check { scenarios }) => check(&scenarios),
        Some(Command::Swf {
            command: SwfCommand::Info { traces },
        }) => {
            for (i, t) in traces.iter().enumerate() {
                let trace = crate::workload::swf::read_path(t)
                    .map_err(|e| Failure::BadInput(e.to_string()))?;
                if i > 0 {
                    println!();
                }
                let text = crate::workload::swf::info(&trace).to_string();
                print!("{text}");
                if !text.ends_with('\n') {
                    println!();
                }
            }
            Ok(())
        }
        Some(Command::Validate { scenarios }) => {
            let mut bad = Vec::new();
            for p in &scenarios {
                match Scenario::load(p) {
                    Ok(s) => println!("ok    {} ({})", p.display(), s.name()),
                    Err(e) => {
                        println!("error {}", p.display());
                        bad.push(e.to_string());
                    }
                }
            }
            if bad.is_empty() {
                Ok(())
            } else {
                Err(Failure::BadInput(bad.join("\n")))
            }
        }
    }
}

fn write_out(dir: &Path, sc: &Scenario, result: &RunResult) -> Result<(), Failure> {
    let io = |what: &str, e: std::io::Error| {
        Failure::BadInput(format!("{}: cannot write {what}: {e}", dir.display()))
    };
    std::fs::create_dir_all(dir).map_err(|e| io("the folder", e))?;
    let summary = report::json::to_text(&report::json::summary(sc, result));
    report::write_atomic(&dir.join("summary.json"), |w| {
        w.write_all(summary.as_bytes())
    })
    .map_err(|e| io("summary.json", e))?;
    report::write_atomic(&dir.join("jobs.csv"), |w| {
        report::csv::write_jobs(w, result, sc.group_bounds())
    })
    .map_err(|e| io("jobs.csv", e))?;
    Ok(())
}

/// Runs with a progress bar on stderr once the run takes longer than a
/// moment (never when stderr is not a terminal).
pub fn run_with_progress(sc: &Scenario, opts: &RunOptions) -> Result<RunResult, Failure> {
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
    let result = runner::run(sc, opts, &progress);
    done.store(true, Ordering::Relaxed);
    if let Some(h) = bar {
        let _ = h.join();
    }
    Ok(result?)
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
                    "{msg} {bar:40} {pos}/{len} jobs ({per_sec}, eta {eta})",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
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

/// The points of a sweep: the cross product of every `--vary`.
pub fn sweep_points(vary: &[String]) -> Result<Vec<Vec<(String, String)>>, Failure> {
    let mut points: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for v in vary {
        let (key, values) = v
            .split_once('=')
            .ok_or_else(|| Failure::BadInput(format!("--vary {v}: expected KEY.PATH=V1,V2,...")))?;
        let values: Vec<&str> = values
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if values.is_empty() {
            return Err(Failure::BadInput(format!("--vary {v}: no values given")));
        }
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |val| {
                    let mut q = p.clone();
                    q.push((key.trim().to_string(), val.to_string()));
                    q
                })
            })
            .collect();
    }
    Ok(points)
}

const SWEEP_FIGURES: [&str; 7] = [
    "jobs",
    "art",
    "mean_wait",
    "mean_slowdown",
    "mean_bounded_slowdown",
    "utilization",
    "killed",
];

fn sweep(
    path: &Path,
    vary: &[String],
    sets: &[String],
    replications: Option<Replications>,
    seed: Option<u64>,
    format: Format,
) -> Result<(), Failure> {
    let points = sweep_points(vary)?;
    // Validate every point before running any.
    let scenarios: Vec<Scenario> = points
        .iter()
        .map(|p| {
            let mut all = sets.to_vec();
            all.extend(p.iter().map(|(k, v)| format!("{k}={v}")));
            Scenario::load_with(path, &all)
        })
        .collect::<Result<_, _>>()?;
    let opts = RunOptions {
        replications,
        seed,
        keep_records: false,
    };
    let progress = AtomicU64::new(0);
    let results: Vec<RunResult> = scenarios
        .par_iter()
        .map(|s| runner::run(s, &opts, &progress))
        .collect::<Result<_, _>>()?;
    let keys: Vec<&str> = points[0].iter().map(|(k, _)| k.as_str()).collect();
    match format {
        Format::Json => {
            let rows: Vec<serde_json::Value> = points
                .iter()
                .zip(&results)
                .zip(&scenarios)
                .map(|((p, r), s)| {
                    let mut o = serde_json::Map::new();
                    let mut point = serde_json::Map::new();
                    for (k, v) in p {
                        point.insert(k.clone(), serde_json::Value::String(v.clone()));
                    }
                    o.insert("point".into(), serde_json::Value::Object(point));
                    o.insert("summary".into(), report::json::summary(s, r));
                    serde_json::Value::Object(o)
                })
                .collect();
            print!("{}", report::json::to_text(&serde_json::Value::Array(rows)));
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(std::io::stdout().lock());
            let mut header: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
            for f in SWEEP_FIGURES {
                header.push(f.to_string());
                header.push(format!("{f}_half_width"));
            }
            w.write_record(&header)
                .map_err(|e| Failure::Other(e.into()))?;
            for (p, r) in points.iter().zip(&results) {
                let s = r.summary();
                let mut rec: Vec<String> = p.iter().map(|(_, v)| v.clone()).collect();
                for f in SWEEP_FIGURES {
                    let x = s.get(f).unwrap_or(crate::metrics::Replicated {
                        mean: 0.0,
                        half_width: None,
                    });
                    rec.push(format!("{}", x.mean));
                    rec.push(x.half_width.map(|h| format!("{h}")).unwrap_or_default());
                }
                w.write_record(&rec).map_err(|e| Failure::Other(e.into()))?;
            }
            w.flush().map_err(|e| Failure::Other(e.into()))?;
        }
        Format::Table => {
            let mut line = String::new();
            for k in &keys {
                line.push_str(&format!("{:>24} ", k));
            }
            for f in [
                "jobs",
                "ART",
                "mean wait",
                "slowdown",
                "bnd slowdown",
                "util",
            ] {
                line.push_str(&format!("{:>18} ", f));
            }
            println!("{}", line.trim_end());
            for (p, r) in points.iter().zip(&results) {
                let s = r.summary();
                let mut line = String::new();
                for (_, v) in p {
                    line.push_str(&format!("{:>24} ", v));
                }
                for (f, d) in [
                    ("jobs", 0),
                    ("art", 3),
                    ("mean_wait", 3),
                    ("mean_slowdown", 3),
                    ("mean_bounded_slowdown", 3),
                    ("utilization", 4),
                ] {
                    let x = s.get(f).unwrap_or(crate::metrics::Replicated {
                        mean: 0.0,
                        half_width: None,
                    });
                    line.push_str(&format!("{:>18} ", report::table::cell(x, d)));
                }
                println!("{}", line.trim_end());
            }
        }
    }
    Ok(())
}

fn check(paths: &[PathBuf]) -> Result<(), Failure> {
    let mut failed = false;
    for p in paths {
        let sc = Scenario::load(p)?;
        if sc.file.expect.is_empty() {
            println!("----  {} has no [expect] bounds (ran nothing)", p.display());
            continue;
        }
        let result = run_with_progress(&sc, &RunOptions::default())?;
        let s = result.summary();
        println!("{} ({})", p.display(), sc.name());
        for (name, bound) in &sc.file.expect {
            let b = bound.get_ref();
            let Some(v) = s.figure(name) else {
                return Err(Failure::BadInput(format!(
                    "{}: no figure \"{name}\"",
                    p.display()
                )));
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
                println!("  pass  {name} = {x:.4} (expected {range})");
            } else {
                failed = true;
                let by = if !lo_ok {
                    format!("{:.4} below the minimum", b.min.unwrap_or(0.0) - x)
                } else {
                    format!("{:.4} above the maximum", x - b.max.unwrap_or(0.0))
                };
                println!("  FAIL  {name} = {x:.4} (expected {range}; {by})");
            }
        }
    }
    if failed {
        Err(Failure::Expectation)
    } else {
        Ok(())
    }
}
