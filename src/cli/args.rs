//! The command line's words: commands, flags and their values, as clap
//! reads them.

use super::*;

#[derive(Parser, Debug)]
#[command(
    name = "schedscope",
    version,
    about = "Multi-cluster parallel-job scheduling: a live console and headless runs over one deterministic simulator",
    long_about = "With no command, schedscope opens the console on the embedded tour (scenarios/tour.toml) when \
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
        /// Say why job JOB waits at simulated second TIME, by the policy's
        /// rule (after the events up to TIME), instead of the report;
        /// repeat for more. The first replication's run.
        #[arg(long = "explain", value_name = "JOB@TIME", value_parser = parse_explain)]
        explain: Vec<(u64, f64)>,
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
    /// 95 % confidence bars, as SVG and PNG (and PDF).
    Plot {
        /// The folder given to `sweep --out`.
        dir: PathBuf,
        /// Where to write the figure: FILE.svg and FILE.png, and FILE.pdf
        /// too when FILE ends in .pdf.
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
        command: crate::cli::taskgraph::TaskgraphCommand,
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
    /// Also draw the rows as a figure, FILE.svg and FILE.png, and FILE.pdf
    /// too (its fonts embedded) when FILE ends in .pdf (see --x, --series,
    /// --metric, --where, --xlabel, --ylabel, --series-label).
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
    /// For figures: the x axis's label (the varied key's path otherwise).
    #[arg(long, value_name = "TEXT")]
    pub xlabel: Option<String>,
    /// For figures: the y axis's label (the metric's name and unit
    /// otherwise).
    #[arg(long, value_name = "TEXT")]
    pub ylabel: Option<String>,
    /// For figures: name the line of series value OLD (e.g. `phased`, for
    /// the legend's `workload.split.approach = phased`) NEW in the legend;
    /// repeatable, and NEW may hold `=`.
    #[arg(long = "series-label", value_name = "OLD=NEW")]
    pub series_labels: Vec<String>,
}

impl FigureArgs {
    pub(super) fn spec(&self) -> Result<PlotSpec, Failure> {
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
        // Split at the first `=`: a label such as `τ = 10` may hold one.
        let series_labels = self
            .series_labels
            .iter()
            .map(|l| {
                l.split_once('=')
                    .map(|(old, new)| (old.trim().to_string(), new.trim().to_string()))
                    .filter(|(old, _)| !old.is_empty())
                    .ok_or_else(|| {
                        Failure::BadInput(format!(
                            "--series-label {l}: expected OLD=NEW, a series value and its label"
                        ))
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(PlotSpec {
            x: self.x.clone(),
            series: self.series.clone(),
            metric: self.metric.clone(),
            filters,
            title: self.title.clone(),
            x_label: self.xlabel.clone(),
            y_label: self.ylabel.clone(),
            series_labels,
        })
    }
}

/// A figure's file name: `--plot DIR/` or an existing folder names no file
/// (it would write the hidden `DIR/.svg`), and the ending of a format not
/// drawn (`fig.jpg`) is refused, before anything runs.
pub(super) fn check_stem(flag: &str, stem: &Path) -> Result<(), Failure> {
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
    plot::paths(flag, stem).map_err(|e| Failure::BadInput(e.to_string()))?;
    Ok(())
}

/// Draws `rows` as `stem`.svg and `stem`.png (and `stem`.pdf) and says
/// where.
pub(super) fn draw_figure(
    flag: &str,
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
    let paths = plot::paths(flag, stem).map_err(|e| Failure::BadInput(e.to_string()))?;
    plot::write(&fig, &paths).map_err(|e| Failure::BadInput(e.to_string()))?;
    let names: Vec<String> = paths
        .all()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    match names.as_slice() {
        [rest @ .., last] if !rest.is_empty() => {
            eprintln!("wrote {} and {last}", rest.join(", "))
        }
        _ => eprintln!("wrote {}", names.join(", ")),
    }
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

pub(super) fn parse_shard(s: &str) -> Result<Shard, String> {
    Shard::parse(s).map_err(|e| match e {
        SweepError::Shard { message, .. } => message,
        other => other.to_string(),
    })
}

impl Format {
    pub(super) fn report(self) -> Report {
        match self {
            Format::Table => Report::Table,
            Format::Json => Report::Json,
            Format::Csv => Report::Csv,
        }
    }
}

pub(super) fn parse_replications(s: &str) -> Result<Replications, String> {
    if s == "auto" {
        return Ok(Replications::Auto);
    }
    let max = crate::scenario::schema::MAX_REPLICATIONS;
    match s.parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(Replications::Fixed(n)),
        _ => Err(format!(
            "expected a whole number from 1 to {max} or \"auto\", found \"{s}\""
        )),
    }
}

/// `JOB@TIME`: a job id and a simulated time in seconds.
pub(super) fn parse_explain(s: &str) -> Result<(u64, f64), String> {
    let bad = || format!("expected JOB@TIME, a job id and seconds such as 12@300, found \"{s}\"");
    let (job, at) = s.split_once('@').ok_or_else(bad)?;
    let job = job.trim().parse::<u64>().map_err(|_| bad())?;
    let at = at.trim().parse::<f64>().map_err(|_| bad())?;
    if !at.is_finite() || !(0.0..=1e12).contains(&at) {
        return Err(format!(
            "the time in \"{s}\" must be seconds from 0 to 1e12"
        ));
    }
    Ok((job, at))
}
