//! Progress on a terminal's standard error while runs go on.

use super::*;
use crate::policy::Catalogued;

/// Runs with a progress bar on stderr once the run takes longer than a
/// moment (never when stderr is not a terminal).
pub fn run_with_progress(sc: &Scenario, opts: &RunOptions) -> Result<RunResult, Failure> {
    with_progress(sc, opts, |progress| runner::run(sc, opts, progress))
}

/// Runs `run` with a progress bar on a terminal's standard error.
pub(super) fn with_progress(
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

pub(super) fn progress_bar(name: &str, total: u64, progress: &AtomicU64, done: &AtomicBool) {
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
pub(super) fn rate(per_sec: f64) -> String {
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
