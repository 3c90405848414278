//! `sweep`, `merge` and their figures and Slurm arrays.

use super::*;

/// A local sweep, or (with `--out`) the points of one shard written into a
/// result folder; without `--shard`, the folder's rows are printed as
/// `merge` would print them.
pub(super) fn sweep(args: SweepArgs) -> Result<(), Failure> {
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
            draw_figure("--plot", stem, &args.figure, &spec.keys(), &rows)?;
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
            "{} failed:\n{}",
            crate::sched::explain::plural(done.failed.len() as u64, "point", "points"),
            lines.join("\n")
        )));
    }
    merge(&dir, report, args.paired.as_deref())?;
    if let Some(stem) = &args.plot {
        plot_folder("--plot", &dir, stem, &args.figure)?;
    }
    Ok(())
}

/// Draws a result folder's rows.
pub(super) fn plot_folder(
    flag: &str,
    dir: &Path,
    stem: &Path,
    figure: &FigureArgs,
) -> Result<(), Failure> {
    let g = store::gather(dir)?;
    let rows: Vec<Row> = g
        .rows
        .iter()
        .map(|(p, s)| Row {
            settings: &p.settings,
            summary: s,
        })
        .collect();
    draw_figure(flag, stem, figure, &g.manifest.keys(), &rows)?;
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
pub(super) fn slurm_array(spec: &SweepSpec, args: &SweepArgs) -> Result<(), Failure> {
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
pub(super) fn merge(dir: &Path, report: Report, paired: Option<&str>) -> Result<(), Failure> {
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
