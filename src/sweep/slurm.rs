//! A sweep as a Slurm job array: one array task per shard, each calling
//! this same binary with `--shard $SLURM_ARRAY_TASK_ID/N` and writing into
//! the sweep's result folder; `schedscope merge DIR` prints the rows once
//! the tasks are done (and names the points still missing before that).

use super::{SweepError, SweepSpec};
use crate::scenario::Replications;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The script's name inside the result folder.
pub const SCRIPT: &str = "sweep.sbatch";
/// Where the array tasks' output goes, inside the result folder.
pub const LOGS: &str = "slurm";

/// How the array is cut and where it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayOptions {
    /// Array tasks, one shard each.
    pub shards: u32,
    /// At most this many tasks at once (`%M`).
    pub max_running: Option<u32>,
    pub partition: Option<String>,
    /// A Slurm time limit per task (`MM`, `HH:MM:SS`, `D-HH`, ...).
    pub time: Option<String>,
    /// CPUs per task; the points of a shard run on that many threads.
    pub cpus_per_task: u32,
}

/// `'text'` for a POSIX shell.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A value of an `#SBATCH` line: sbatch reads those lines itself, not
/// through a shell, and takes a double-quoted string as one word, with
/// `\"` for a quote inside. (A backslash, which starts an escape there and
/// in `--output`'s file pattern, and a line break cannot be written this
/// way: [`unwritable`] refuses paths with them.)
pub fn directive_word(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\\\""))
}

/// A path as literal text in `--output`'s file pattern, where `%%`
/// stands for a `%`.
fn pattern_literal(p: &Path) -> String {
    p.display().to_string().replace('%', "%%")
}

/// Why `p` cannot be named in an `#SBATCH` line, if it cannot.
pub fn unwritable(p: &Path) -> Option<&'static str> {
    let s = p.to_string_lossy();
    if s.contains('\\') {
        Some("a backslash")
    } else if s.contains(['\n', '\r']) {
        Some("a line break")
    } else {
        None
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The arguments that run one shard of `spec` into `out` (the shard itself
/// appended by the script).
fn shard_args(spec: &SweepSpec, out: &Path) -> Vec<String> {
    let mut a = vec!["sweep".to_string(), spec.scenario.display().to_string()];
    for s in &spec.sets {
        a.push("--set".into());
        a.push(s.clone());
    }
    if let Some(l) = &spec.listed {
        a.push("--points".into());
        a.push(absolute(&l.path).display().to_string());
    }
    for axis in &spec.axes {
        a.push("--vary".into());
        a.push(format!("{}={}", axis.key, axis.values.join(",")));
    }
    if let Some(r) = spec.replications {
        a.push("--replications".into());
        a.push(match r {
            Replications::Auto => "auto".into(),
            Replications::Fixed(n) => n.to_string(),
        });
    }
    if let Some(s) = spec.seed {
        a.push("--seed".into());
        a.push(s.to_string());
    }
    a.push("--out".into());
    a.push(absolute(out).display().to_string());
    a
}

/// A Slurm time limit as `--time` takes it: `MM`, `MM:SS`, `HH:MM:SS`,
/// `D-HH`, `D-HH:MM`, `D-HH:MM:SS`, `UNLIMITED` or `INFINITE`; checked
/// here so that nothing else reaches the script's `#SBATCH` lines.
pub fn parse_time(t: &str) -> Result<String, String> {
    let bad = || {
        format!(
            "\"{t}\" is not a Slurm time limit: give MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED (e.g. 30, 2:00:00, 1-0)"
        )
    };
    if t.eq_ignore_ascii_case("unlimited") || t.eq_ignore_ascii_case("infinite") {
        return Ok(t.to_string());
    }
    let digits = |x: &str| !x.is_empty() && x.len() <= 9 && x.bytes().all(|c| c.is_ascii_digit());
    let (days, rest) = match t.split_once('-') {
        Some((d, r)) => (Some(d), r),
        None => (None, t),
    };
    if days.is_some_and(|d| !digits(d)) {
        return Err(bad());
    }
    let parts: Vec<&str> = rest.split(':').collect();
    if parts.len() > 3 || !parts.iter().all(|p| digits(p)) {
        return Err(bad());
    }
    Ok(t.to_string())
}

/// The sbatch script. `exe` is the binary the tasks call and `cwd` the
/// folder they run in (relative scenario paths are taken from it).
pub fn script(spec: &SweepSpec, opts: &ArrayOptions, out: &Path, exe: &Path, cwd: &Path) -> String {
    let out = absolute(out);
    let last = opts.shards.saturating_sub(1);
    let array = match opts.max_running {
        Some(m) => format!("0-{last}%{m}"),
        None => format!("0-{last}"),
    };
    let mut s = String::from("#!/bin/bash\n");
    s.push_str("#SBATCH --job-name=schedscope-sweep\n");
    s.push_str(&format!("#SBATCH --array={array}\n"));
    s.push_str(&format!("#SBATCH --cpus-per-task={}\n", opts.cpus_per_task));
    if let Some(p) = &opts.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = &opts.time {
        s.push_str(&format!("#SBATCH --time={t}\n"));
    }
    s.push_str(&format!(
        "#SBATCH --output={}\n",
        directive_word(&format!("{}/%A_%a.out", pattern_literal(&out.join(LOGS))))
    ));
    s.push_str(&format!(
        "#SBATCH --chdir={}\n",
        directive_word(&cwd.display().to_string())
    ));
    s.push_str(&format!(
        "# One task per shard of a {}-point sweep of {}; when every task is\n\
         # done, `schedscope merge {}` prints the rows. Submitting again\n\
         # reruns only the points without a result.\n",
        spec.points().len(),
        spec.scenario.display(),
        out.display()
    ));
    s.push_str("export RAYON_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\n");
    let args: Vec<String> = shard_args(spec, &out).iter().map(|a| quote(a)).collect();
    s.push_str(&format!(
        "exec {} {} --shard \"$SLURM_ARRAY_TASK_ID/{}\"\n",
        quote(&exe.display().to_string()),
        args.join(" "),
        opts.shards
    ));
    s
}

/// Submits `script` with `sbatch --parsable` and returns the job id.
pub fn submit(script: &Path) -> Result<String, SweepError> {
    let err = |message: String| SweepError::Folder {
        path: script.display().to_string(),
        message,
    };
    let o = Command::new("sbatch")
        .arg("--parsable")
        .arg(script)
        .output()
        .map_err(|e| {
            err(format!(
                "cannot run sbatch ({e}); is Slurm installed here? The script can be submitted by hand"
            ))
        })?;
    if !o.status.success() {
        return Err(err(format!(
            "sbatch refused it: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    // `jobid` or `jobid;cluster`.
    let out = String::from_utf8_lossy(&o.stdout);
    let id = out.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() {
        return Err(err("sbatch printed no job id".into()));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn the_script_runs_one_shard_per_task() {
        let spec = SweepSpec::new(
            "scenarios/x y.toml".into(),
            &["policy.max_jumps=0,1,2".into(), "seed=1,2".into()],
            &["run.jobs=100".into()],
            Some(Replications::Fixed(3)),
            None,
        )
        .unwrap();
        let opts = ArrayOptions {
            shards: 4,
            max_running: Some(2),
            partition: Some("short".into()),
            time: Some("0:10:00".into()),
            cpus_per_task: 2,
        };
        let s = script(
            &spec,
            &opts,
            Path::new("/r/out"),
            Path::new("/bin/schedscope"),
            Path::new("/work"),
        );
        for line in [
            "#SBATCH --array=0-3%2",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --partition=short",
            "#SBATCH --time=0:10:00",
            "#SBATCH --output=\"/r/out/slurm/%A_%a.out\"",
            "#SBATCH --chdir=\"/work\"",
            "exec '/bin/schedscope' 'sweep' 'scenarios/x y.toml' '--set' 'run.jobs=100' \
             '--vary' 'policy.max_jumps=0,1,2' '--vary' 'seed=1,2' '--replications' '3' \
             '--out' '/r/out' --shard \"$SLURM_ARRAY_TASK_ID/4\"",
        ] {
            assert!(s.lines().any(|l| l == line), "no line {line} in\n{s}");
        }
        assert!(s.contains("6-point sweep"));
    }

    #[test]
    fn paths_with_spaces_quotes_and_percents_are_one_sbatch_word() {
        let spec = SweepSpec::new(
            "scenarios/x.toml".into(),
            &["seed=1,2".into()],
            &[],
            None,
            None,
        )
        .unwrap();
        let opts = ArrayOptions {
            shards: 2,
            max_running: None,
            partition: None,
            time: None,
            cpus_per_task: 1,
        };
        let s = script(
            &spec,
            &opts,
            Path::new("/r/it's \"a\" 50% run"),
            Path::new("/bin/schedscope"),
            Path::new("/w d/\"x\" 5%"),
        );
        for line in [
            r#"#SBATCH --output="/r/it's \"a\" 50%% run/slurm/%A_%a.out""#,
            r#"#SBATCH --chdir="/w d/\"x\" 5%""#,
        ] {
            assert!(s.lines().any(|l| l == line), "no line {line} in\n{s}");
        }
        assert_eq!(unwritable(Path::new("/a b/'c\"%")), None);
        assert_eq!(unwritable(Path::new("/a\\b")), Some("a backslash"));
        assert_eq!(unwritable(Path::new("/a\nb")), Some("a line break"));
    }
}
