//! Scenarios: a TOML file that names a platform, a workload, a policy, a run
//! plan, a command timeline and expectations. Every error names the file,
//! line and field and says what is allowed.

mod build;
pub mod kinds;
mod messages;
pub mod overrides;
mod platform;
pub mod schema;
pub mod values;

pub use build::WorkloadFacts;
pub use kinds::{Workload, WorkloadKindEntry};
pub use schema::{Bound, Cue, CuePane, Oversize, Replications, ScenarioFile};

use crate::engine::Command;
use crate::model::SimTime;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The scenario the binary opens when given none, the console's tour:
/// heterogeneous clusters with saturating links, EASY backfilling with
/// inexact estimates, and the group-wise figures (`scenarios/tour.toml`).
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/tour.toml");
pub const DEFAULT_SCENARIO_NAME: &str = "scenarios/tour.toml (embedded)";

/// Where in a scenario something is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Location {
    pub path: String,
    pub line: usize,
    pub column: usize,
    /// The offending line's text.
    pub text: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.column)
    }
}

#[derive(Debug, Error)]
pub enum ScenarioError {
    #[error("{path}: cannot read the scenario: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", at_message(.at, .message))]
    At { at: Location, message: String },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("--set {arg}: {message}")]
    Override { arg: String, message: String },
    /// A file the workload reads is not there.
    #[error("{0}")]
    MissingData(Box<MissingData>),
    /// The policy stopped the run (an external scheduler that stopped
    /// answering, say): not a defect of schedscope, nor of the scenario.
    #[error("the run stopped at t = {at}: {reason}")]
    Stopped {
        at: crate::model::SimTime,
        reason: String,
    },
    /// The run lost jobs: a defect of schedscope, not of the input.
    #[error(transparent)]
    Internal(#[from] crate::engine::Conservation),
}

impl ScenarioError {
    /// Whether the scenario is fine but a file it reads is missing.
    pub fn is_missing_data(&self) -> bool {
        matches!(self, ScenarioError::MissingData { .. })
    }
}

/// A file the workload reads is not there: said on one line, with where
/// to get it and how to point the scenario at it.
#[derive(Debug)]
pub struct MissingData {
    pub at: Location,
    /// What the file is ("the trace").
    pub what: &'static str,
    /// The path as the scenario gives it.
    pub given: String,
    /// Where it was looked for.
    pub looked: Vec<String>,
    /// Where it can be downloaded.
    pub download: Option<String>,
}

impl fmt::Display for MissingData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let given = &self.given;
        let file = Path::new(given)
            .file_name()
            .map_or_else(|| given.clone(), |n| n.to_string_lossy().into_owned());
        write!(
            f,
            "{}:{}: {} {given} is missing (looked for {}); ",
            self.at.path,
            self.at.line,
            self.what,
            self.looked.join(" and ")
        )?;
        if let Some(url) = &self.download {
            write!(f, "download it from {url} and ")?;
        }
        write!(f, "pass --set workload.path=/path/to/{file}")
    }
}

fn at_message(at: &Location, message: &str) -> String {
    format!("{at}: {message}\n    {} | {}", at.line, at.text.trim_end())
}

/// A loaded, validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file as read (with any `--set` overrides applied).
    text: String,
    /// A name for messages: the path, or the embedded default's label.
    origin: String,
    /// The folder relative paths are taken from.
    base_dir: PathBuf,
    pub file: ScenarioFile,
    pub(crate) facts: WorkloadFacts,
}

impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::load_with(path, &[])
    }

    /// Reads a scenario file and applies `--set key.path=value` overrides.
    pub fn load_with(path: &Path, sets: &[String]) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Scenario::parse(&text, &path.display().to_string(), &base, sets)
    }

    /// The embedded default scenario.
    pub fn embedded_default() -> Scenario {
        Scenario::parse(DEFAULT_SCENARIO, DEFAULT_SCENARIO_NAME, Path::new("."), &[])
            .expect("the embedded default scenario is valid")
    }

    /// Parses scenario text; `origin` names it in messages and `base_dir`
    /// anchors relative paths.
    pub fn parse(
        text: &str,
        origin: &str,
        base_dir: &Path,
        sets: &[String],
    ) -> Result<Scenario, ScenarioError> {
        // The file as written, where overrides change it.
        let original = (!sets.is_empty()).then_some(text);
        let text = if sets.is_empty() {
            text.to_string()
        } else {
            overrides::apply(text, sets)?
        };
        // Errors are found in the text with the overrides applied and told
        // in the file's lines (see `in_file_terms`).
        let origin = if sets.is_empty() {
            origin.to_string()
        } else {
            format!("{origin} (with {})", sets.join(", "))
        };
        let file = parse_file(&text, &origin).map_err(|e| in_file_terms(e, original, sets))?;
        let mut s = Scenario {
            text,
            origin,
            base_dir: base_dir.to_path_buf(),
            file,
            facts: WorkloadFacts::default(),
        };
        s.facts = build::validate(&s).map_err(|e| in_file_terms(e, original, sets))?;
        Ok(s)
    }

    pub fn name(&self) -> &str {
        &self.file.name
    }

    pub fn seed(&self) -> u64 {
        self.file.seed
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The error `message` at the text `span` of the scenario (its byte
    /// range, as a `toml::Spanned` value gives it): file, line and column.
    pub fn error_at(&self, span: Range<usize>, message: impl Into<String>) -> ScenarioError {
        if span.is_empty() && span.start == 0 {
            return ScenarioError::Invalid {
                path: self.origin.clone(),
                message: message.into(),
            };
        }
        ScenarioError::At {
            at: locate(&self.text, &self.origin, span),
            message: message.into(),
        }
    }

    pub(crate) fn location(&self, span: Range<usize>) -> Location {
        locate(&self.text, &self.origin, span)
    }

    /// Whether the scenario's text (with its `--set`s) gives `path`
    /// (e.g. `["run", "jobs"]`), rather than leaving it to its default.
    pub fn gives(&self, path: &[&str]) -> bool {
        self.written(path).is_some()
    }

    /// Where the text gives `path`: the span of its value, or of the
    /// nearest table above it that has one; `None` where it is not given.
    fn written(&self, path: &[&str]) -> Option<Option<Range<usize>>> {
        let doc = toml_edit::Document::parse(self.text.as_str()).ok()?;
        let mut item = doc.as_item();
        let mut best = None;
        for key in path {
            item = item.get(key)?;
            best = item.span().or(best);
        }
        Some(best)
    }

    /// The error `message` at the value of `path` (e.g. `["policy",
    /// "name"]`) in the scenario's text, or at its table, or for the whole
    /// file where neither is written (a `--set` may have made it).
    pub fn error_at_key(&self, path: &[&str], message: impl Into<String>) -> ScenarioError {
        let span = self.written(path).flatten().unwrap_or(0..0);
        self.error_at(span, message)
    }

    /// The error `message` about the scenario as a whole.
    pub fn invalid(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Invalid {
            path: self.origin.clone(),
            message: message.into(),
        }
    }

    /// The cues of the timeline in the order the console meets them: by
    /// time, cues at the same time as written.
    pub fn cues(&self) -> Vec<(SimTime, schema::Cue)> {
        let mut cues: Vec<(SimTime, schema::Cue)> = self
            .file
            .timeline
            .iter()
            .filter_map(|e| match &e.get_ref().what {
                schema::Timed::Cue(c) => {
                    Some((SimTime::from_secs_f64(e.get_ref().at.0), c.clone()))
                }
                schema::Timed::Command(_) => None,
            })
            .collect();
        cues.sort_by_key(|c| c.0);
        cues
    }

    /// This scenario with `log` appended to its `[[timeline]]`: running the
    /// result headless replays an interactive session.
    pub fn save_with_log(&self, log: &[(SimTime, Command)]) -> String {
        overrides::append_timeline(&self.text, log)
    }

    /// This scenario as one run on `seed` with `log` as its timeline: what
    /// `schedscope run` of the result replays to the same figures as the
    /// console showed, from any folder. The seed and a single replication
    /// are written as keys where the scenario says otherwise (a seed above
    /// the largest TOML integer, only as a note to run it with `--seed`),
    /// and a relative workload file as the full path it was read from.
    pub fn save_run(&self, seed: u64, log: &[(SimTime, Command)]) -> String {
        let mut sets = Vec::new();
        let mut note = String::new();
        if seed != self.seed() {
            if i64::try_from(seed).is_ok() {
                sets.push(format!("seed={seed}"));
            } else {
                note = format!("\n# This run used seed {seed}: run it with --seed {seed}.\n");
            }
        }
        if self.file.run.replications != Replications::Fixed(1) {
            sets.push("run.replications=1".to_string());
        }
        // The saved file goes elsewhere: a relative workload file is named
        // as this scenario found it.
        if let Some(p) = &self.file.workload.get_ref().path
            && Path::new(p.get_ref()).is_relative()
            && let Ok(full) = std::path::absolute(self.resolve(p.get_ref()))
        {
            let full = toml::Value::String(full.display().to_string());
            sets.push(format!("workload.path={full}"));
        }
        // Both keys exist in every scenario's schema: setting them cannot fail.
        let mut text = if sets.is_empty() {
            self.text.clone()
        } else {
            overrides::apply(&self.text, &sets).unwrap_or_else(|_| self.text.clone())
        };
        // The bounds describe the scenario's own run: with another seed or
        // commands they would fail `check` of this one.
        if (seed != self.seed() || !log.is_empty())
            && let Some(t) = overrides::without_table(&text, "expect")
        {
            text = t;
            let run = if log.is_empty() {
                format!("with seed {}", self.seed())
            } else {
                "without these commands".to_string()
            };
            note.push_str(&format!(
                "\n# The [expect] bounds of {} are left out: they describe its run {run}.\n",
                self.name(),
            ));
        }
        let mut out = overrides::append_timeline(&text, log);
        out.push_str(&note);
        out
    }
}

/// Reads the TOML of a scenario into its fields, without the checks across
/// fields or reading any workload file.
fn parse_file(text: &str, origin: &str) -> Result<ScenarioFile, ScenarioError> {
    toml::from_str(text).map_err(|e| {
        let message = messages::plain(e.message(), text);
        match e.span() {
            Some(span) => ScenarioError::At {
                message: match key_before(text, span.start) {
                    // "max_jumps must be …" names its key already: once,
                    // as the others do.
                    Some(key) if message.starts_with(&format!("{key} ")) => {
                        format!("`{key}`{}", &message[key.len()..])
                    }
                    Some(key) if !message.contains(&format!("`{key}`")) => {
                        format!("`{key}` {message}")
                    }
                    _ => message,
                },
                at: locate(text, origin, span),
            },
            None => ScenarioError::Invalid {
                path: origin.to_string(),
                message,
            },
        }
    })
}

/// An error at a line of the overridden text, told in the file's terms: a
/// line an override wrote is blamed on that `--set`, and a line of the
/// file is quoted at its own number in the file (an override may have
/// moved it), so that no message quotes a line the file does not have.
fn in_file_terms(e: ScenarioError, original: Option<&str>, sets: &[String]) -> ScenarioError {
    let Some(original) = original else {
        return e;
    };
    let ScenarioError::At { mut at, message } = e else {
        return e;
    };
    let lines: Vec<&str> = original.lines().collect();
    let text = at.text.trim_end();
    if lines.get(at.line.wrapping_sub(1)).map(|l| l.trim_end()) == Some(text) {
        return ScenarioError::At { at, message };
    }
    // The key of a line, `key = value`.
    let key_of = |l: &str| {
        l.split('=')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(['"', '\''])
            .to_string()
    };
    // The file's own key at its own line, with the value the override gave.
    if lines
        .get(at.line.wrapping_sub(1))
        .is_some_and(|l| l.contains('=') && key_of(l) == key_of(text))
    {
        return ScenarioError::At { at, message };
    }
    let same: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_end() == text)
        .collect();
    if let [i] = same[..] {
        at.line = i + 1;
        return ScenarioError::At { at, message };
    }
    // A line the overrides wrote: the `--set` of its key, or of a key in
    // the table whose header it is (`[workload.params]`), or the only one.
    let key = key_of(text);
    let header = text
        .trim()
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .map(|t| t.trim_matches(['[', ']']).trim().to_string());
    let arg = sets
        .iter()
        .rev()
        .find(|a| {
            a.split_once('=').is_some_and(|(p, _)| {
                let p = p.trim();
                match &header {
                    Some(h) => p
                        .strip_prefix(h.as_str())
                        .is_some_and(|r| r.starts_with('.')),
                    None => p.rsplit('.').next() == Some(key.as_str()),
                }
            })
        })
        .or(match sets {
            [one] => Some(one),
            _ => None,
        });
    match arg {
        Some(arg) => ScenarioError::Override {
            arg: arg.clone(),
            message,
        },
        None => ScenarioError::At { at, message },
    }
}

/// Whether the scenario file has `[expect]` bounds, read without its
/// workload (so that `check` can pass over a scenario with nothing to check
/// even where its trace is missing).
pub fn has_expectations(path: &Path) -> Result<bool, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(!parse_file(&text, &path.display().to_string())?
        .expect
        .is_empty())
}

/// The key whose value starts at byte `at` (`key = value`), so that a
/// message about a bad value can name its key.
fn key_before(text: &str, at: usize) -> Option<&str> {
    let before = text.get(..at)?.trim_end();
    let before = before.strip_suffix('=')?.trim_end();
    // After the last character that cannot be part of a key (which may be
    // wider than one byte).
    let start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let key = &before[start..];
    (!key.is_empty()).then_some(key)
}

/// Line and column (1-based) of a byte offset.
pub fn locate(text: &str, origin: &str, span: Range<usize>) -> Location {
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    let text_line = text[line_start..].lines().next().unwrap_or("").to_string();
    Location {
        path: origin.to_string(),
        line,
        column,
        text: text_line,
    }
}

#[cfg(test)]
mod tests;
