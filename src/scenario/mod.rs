//! Scenarios: a TOML file that names a platform, a workload, a policy, a run
//! plan, a command timeline and expectations. Every error names the file,
//! line and field and says what is allowed.

mod build;
mod messages;
pub mod overrides;
pub mod schema;
pub mod values;

pub use build::WorkloadFacts;
pub use schema::{Bound, Oversize, Replications, ScenarioFile};

use crate::engine::Command;
use crate::model::SimTime;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The scenario the binary opens when given none: the group-wise
/// co-allocation paper's 5 × 20 platform under FPFS(10).
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/default.toml");
pub const DEFAULT_SCENARIO_NAME: &str = "scenarios/default.toml (embedded)";

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
        let text = if sets.is_empty() {
            text.to_string()
        } else {
            overrides::apply(text, sets)?
        };
        // Line numbers are those of the text with the overrides applied.
        let origin = if sets.is_empty() {
            origin.to_string()
        } else {
            format!("{origin} (with {})", sets.join(", "))
        };
        let file = parse_file(&text, &origin)?;
        let mut s = Scenario {
            text,
            origin,
            base_dir: base_dir.to_path_buf(),
            file,
            facts: WorkloadFacts::default(),
        };
        s.facts = build::validate(&s)?;
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

    pub(crate) fn error_at(&self, span: Range<usize>, message: impl Into<String>) -> ScenarioError {
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

    /// The error `message` at the value of `path` (e.g. `["policy",
    /// "name"]`) in the scenario's text, or at its table, or for the whole
    /// file where neither is written (a `--set` may have made it).
    pub(crate) fn error_at_key(&self, path: &[&str], message: impl Into<String>) -> ScenarioError {
        let span = toml_edit::Document::parse(self.text.as_str())
            .ok()
            .and_then(|doc| {
                let mut item = doc.as_item();
                let mut best = None;
                for key in path {
                    item = item.get(key)?;
                    best = item.span().or(best);
                }
                best
            })
            .unwrap_or(0..0);
        self.error_at(span, message)
    }

    pub(crate) fn invalid(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Invalid {
            path: self.origin.clone(),
            message: message.into(),
        }
    }

    /// This scenario with `log` appended to its `[[timeline]]`: running the
    /// result headless replays an interactive session.
    pub fn save_with_log(&self, log: &[(SimTime, Command)]) -> String {
        overrides::append_timeline(&self.text, log)
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
