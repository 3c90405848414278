//! Sweeps: one scenario run at every point of the cross product of varied
//! keys, and of the points a sweep file lists.
//!
//! A sweep can run in one process (rows printed at the end) or in shares
//! (`--shard I/N`) that each write one result file per point into a folder
//! ([`store`]), so that shares can run anywhere — Slurm array tasks, other
//! machines, a re-run after a crash — and `merge` prints the same rows a
//! local sweep would. Every point has an id derived from its own settings
//! ([`point`]), so a result file always names the point it belongs to.

pub mod paired;
pub mod point;
pub mod render;
pub mod slurm;
pub mod store;

pub use point::{Point, digest};

use crate::report;
use crate::runner::{self, RunOptions};
use crate::scenario::{Replications, Scenario, ScenarioError};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SweepError {
    #[error("--vary {arg}: {message}")]
    Vary { arg: String, message: String },
    #[error("{path}:{line}: {message}")]
    PointsFile {
        path: String,
        line: u64,
        message: String,
    },
    #[error("--paired {arg}: {message}")]
    Paired { arg: String, message: String },
    #[error("--shard {arg}: {message}")]
    Shard { arg: String, message: String },
    #[error("{path}: {message}")]
    Folder { path: String, message: String },
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
}

/// One varied key and its values, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<String>,
}

impl Axis {
    /// Reads `key.path=v1,v2,...`. Every value must be non-empty and given
    /// once: a dropped or doubled value would silently change the sweep.
    pub fn parse(arg: &str) -> Result<Axis, SweepError> {
        let err = |message: String| SweepError::Vary {
            arg: arg.to_string(),
            message,
        };
        let (key, values) = arg.split_once('=').ok_or_else(|| {
            err("expected KEY.PATH=V1,V2,..., e.g. policy.max_jumps=0,1,2".into())
        })?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|k| k.trim().is_empty()) {
            return Err(err(format!("\"{key}\" is not a dotted key path")));
        }
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (i, v) in values.split(',').map(str::trim).enumerate() {
            if v.is_empty() {
                return Err(err(format!(
                    "value {} is empty (values are separated by commas, none may be blank)",
                    i + 1
                )));
            }
            if !seen.insert(v) {
                return Err(err(format!("the value \"{v}\" is given twice")));
            }
            out.push(v.to_string());
        }
        Ok(Axis {
            key: key.to_string(),
            values: out,
        })
    }
}

/// Points listed one per line in a sweep file (`--points FILE`): a header
/// of keys, then one row of values per point, comma-separated (CSV: a
/// value with a comma is quoted), `#` starting a comment line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub path: PathBuf,
    pub keys: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Listed {
    /// Reads a sweep file; a row of the wrong length, a blank value, a
    /// repeated key or row is an error naming the file and line.
    pub fn read(path: &std::path::Path) -> Result<Listed, SweepError> {
        let shown = path.display().to_string();
        let err = |line: u64, message: String| SweepError::PointsFile {
            path: shown.clone(),
            line,
            message,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| err(0, format!("cannot read: {e}")))?;
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .comment(Some(b'#'))
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut keys: Option<Vec<String>> = None;
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut seen = BTreeSet::new();
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                err(line, e.to_string())
            })?;
            let line = record.position().map(|p| p.line()).unwrap_or(0);
            let fields: Vec<String> = record.iter().map(str::to_string).collect();
            if fields.iter().all(String::is_empty) {
                continue;
            }
            match &keys {
                None => {
                    let mut k = BTreeSet::new();
                    for key in &fields {
                        if key.is_empty() || key.split('.').any(|p| p.trim().is_empty()) {
                            return Err(err(line, format!("\"{key}\" is not a dotted key path")));
                        }
                        if !k.insert(key.clone()) {
                            return Err(err(line, format!("the key {key} is given twice")));
                        }
                    }
                    keys = Some(fields);
                }
                Some(k) => {
                    if fields.len() != k.len() {
                        return Err(err(
                            line,
                            format!(
                                "{} values for the {} keys of the header ({})",
                                fields.len(),
                                k.len(),
                                k.join(", ")
                            ),
                        ));
                    }
                    if let Some(i) = fields.iter().position(String::is_empty) {
                        return Err(err(line, format!("the value of {} is blank", k[i])));
                    }
                    if !seen.insert(fields.clone()) {
                        return Err(err(line, "this point is listed twice".to_string()));
                    }
                    rows.push(fields);
                }
            }
        }
        let keys = keys.ok_or_else(|| err(1, "no header line of keys".into()))?;
        if rows.is_empty() {
            return Err(err(1, "no point is listed under the header".into()));
        }
        Ok(Listed {
            path: path.to_path_buf(),
            keys,
            rows,
        })
    }
}

/// Everything that defines a sweep: its points and how each is run.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    pub scenario: PathBuf,
    /// `--set` overrides applied at every point, before the point's own.
    pub sets: Vec<String>,
    /// Points listed in a sweep file, crossed with the axes.
    pub listed: Option<Listed>,
    pub axes: Vec<Axis>,
    pub replications: Option<Replications>,
    pub seed: Option<u64>,
}

impl SweepSpec {
    /// Reads the `--vary` arguments; a key varied twice, or varied and also
    /// `--set`, is an error (one of the two would be silently ignored).
    pub fn new(
        scenario: PathBuf,
        vary: &[String],
        sets: &[String],
        replications: Option<Replications>,
        seed: Option<u64>,
    ) -> Result<SweepSpec, SweepError> {
        SweepSpec::with_points(scenario, None, vary, sets, replications, seed)
    }

    /// [`SweepSpec::new`], with the points of a sweep file crossed with
    /// the axes (either may be absent, not both); a key both listed and
    /// varied or set is an error.
    pub fn with_points(
        scenario: PathBuf,
        points: Option<&std::path::Path>,
        vary: &[String],
        sets: &[String],
        replications: Option<Replications>,
        seed: Option<u64>,
    ) -> Result<SweepSpec, SweepError> {
        let listed = points.map(Listed::read).transpose()?;
        let listed_keys: Vec<String> = listed.iter().flat_map(|l| l.keys.clone()).collect();
        if let Some(l) = &listed {
            for key in &l.keys {
                let set = sets
                    .iter()
                    .find(|s| s.split_once('=').is_some_and(|(k, _)| k.trim() == key));
                if let Some(s) = set {
                    return Err(SweepError::PointsFile {
                        path: l.path.display().to_string(),
                        line: 1,
                        message: format!("`{key}` is also fixed by --set {s}; drop one of the two"),
                    });
                }
            }
        }
        let mut axes: Vec<Axis> = Vec::new();
        for arg in vary {
            let axis = Axis::parse(arg)?;
            if axes.iter().any(|a| a.key == axis.key) {
                return Err(SweepError::Vary {
                    arg: arg.clone(),
                    message: format!(
                        "`{}` is already varied; give all its values in one --vary",
                        axis.key
                    ),
                });
            }
            let set = sets
                .iter()
                .find(|s| s.split_once('=').is_some_and(|(k, _)| k.trim() == axis.key));
            if let Some(s) = set {
                return Err(SweepError::Vary {
                    arg: arg.clone(),
                    message: format!(
                        "`{}` is also fixed by --set {s}; drop one of the two",
                        axis.key
                    ),
                });
            }
            if listed_keys.contains(&axis.key) {
                return Err(SweepError::Vary {
                    arg: arg.clone(),
                    message: format!(
                        "`{}` is also a key of the sweep file; drop one of the two",
                        axis.key
                    ),
                });
            }
            axes.push(axis);
        }
        if axes.is_empty() && listed.is_none() {
            return Err(SweepError::Vary {
                arg: String::new(),
                message: "a sweep needs at least one --vary or a --points file".into(),
            });
        }
        Ok(SweepSpec {
            scenario,
            sets: sets.to_vec(),
            listed,
            axes,
            replications,
            seed,
        })
    }

    /// The varied keys, in `--vary` order: the leading columns of every
    /// report.
    pub fn keys(&self) -> Vec<String> {
        let listed = self.listed.iter().flat_map(|l| l.keys.clone());
        listed
            .chain(self.axes.iter().map(|a| a.key.clone()))
            .collect()
    }

    /// The listed points (in file order, varying slowest) crossed with the
    /// axes; the first axis varies slowest of the axes.
    pub fn points(&self) -> Vec<Point> {
        let mut points: Vec<Vec<(String, String)>> = match &self.listed {
            Some(l) => l
                .rows
                .iter()
                .map(|row| l.keys.iter().cloned().zip(row.iter().cloned()).collect())
                .collect(),
            None => vec![Vec::new()],
        };
        for axis in &self.axes {
            points = points
                .into_iter()
                .flat_map(|p: Vec<(String, String)>| {
                    axis.values.iter().map(move |v| {
                        let mut q = p.clone();
                        q.push((axis.key.clone(), v.clone()));
                        q
                    })
                })
                .collect();
        }
        points.into_iter().map(Point::new).collect()
    }

    /// The scenario as run at `point`.
    pub fn scenario_at(&self, point: &Point) -> Result<Scenario, ScenarioError> {
        let mut all = self.sets.clone();
        all.extend(point.settings.iter().map(|(k, v)| format!("{k}={v}")));
        Scenario::load_with(&self.scenario, &all)
    }

    /// Runs one point and returns its JSON summary (the document `run
    /// --format json` prints), which every sweep report is rendered from.
    pub fn run_point(&self, scenario: &Scenario) -> Result<Value, ScenarioError> {
        let opts = RunOptions {
            replications: self.replications,
            seed: self.seed,
            keep_records: false,
        };
        let result = runner::run(scenario, &opts, &AtomicU64::new(0))?;
        let mut summary = report::json::summary(scenario, &result);
        // Each replication's figures, for paired differences between
        // points that ran the same seeds (`--paired`).
        let replicates: Vec<Value> = result
            .replications
            .iter()
            .map(|r| {
                let one = runner::RunResult {
                    seed: result.seed,
                    replications: vec![r.clone()],
                    unconverged: None,
                };
                report::json::summary(scenario, &one)["metrics"].take()
            })
            .collect();
        if let Value::Object(o) = &mut summary {
            o.insert("replicates".into(), Value::Array(replicates));
        }
        Ok(summary)
    }
}

/// The I-th of N shares of a sweep's points (0 ≤ I < N): every N-th point
/// from the I-th, so that each share gets points from every part of the
/// cross product and shares take about the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    pub fn parse(arg: &str) -> Result<Shard, SweepError> {
        let err = |message: &str| SweepError::Shard {
            arg: arg.to_string(),
            message: message.to_string(),
        };
        let (i, n) = arg
            .split_once('/')
            .ok_or_else(|| err("expected I/N, e.g. 0/4 for the first of four shares"))?;
        let i: u32 = i
            .trim()
            .parse()
            .map_err(|_| err("I must be a whole number (0 for the first share)"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| err("N must be a whole number at least 1"))?;
        if n == 0 {
            return Err(err("N must be at least 1"));
        }
        if i >= n {
            return Err(err("I counts from 0 and must be below N"));
        }
        Ok(Shard { index: i, count: n })
    }

    /// Whether the point at position `i` of the sweep is in this share.
    pub fn holds(&self, i: usize) -> bool {
        i % self.count as usize == self.index as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(vary: &[&str], sets: &[&str]) -> Result<SweepSpec, SweepError> {
        let v: Vec<String> = vary.iter().map(|s| s.to_string()).collect();
        let s: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        SweepSpec::new("x.toml".into(), &v, &s, None, None)
    }

    #[test]
    fn cross_product_first_axis_slowest() {
        let s = spec(&["a=1,2", "b=x,y,z"], &[]).unwrap();
        let p: Vec<String> = s.points().iter().map(|p| p.label()).collect();
        assert_eq!(
            p,
            [
                "a=1 b=x", "a=1 b=y", "a=1 b=z", "a=2 b=x", "a=2 b=y", "a=2 b=z"
            ]
        );
    }

    #[test]
    fn repeated_key_empty_and_doubled_values_are_errors() {
        let e = spec(&["policy.name=fcfs", "policy.name=easy"], &[]).unwrap_err();
        assert!(e.to_string().contains("already varied"), "{e}");
        let e = spec(&["policy.max_jumps=1,,2"], &[]).unwrap_err();
        assert!(e.to_string().contains("value 2 is empty"), "{e}");
        let e = spec(&["policy.max_jumps=1,2,"], &[]).unwrap_err();
        assert!(e.to_string().contains("value 3 is empty"), "{e}");
        let e = spec(&["policy.max_jumps=1,2,1"], &[]).unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        let e = spec(&["policy.max_jumps"], &[]).unwrap_err();
        assert!(e.to_string().contains("expected KEY.PATH"), "{e}");
        let e = spec(&["policy..x=1"], &[]).unwrap_err();
        assert!(e.to_string().contains("dotted key path"), "{e}");
        let e = spec(&["seed=1,2"], &["seed=3"]).unwrap_err();
        assert!(e.to_string().contains("also fixed by --set seed=3"), "{e}");
    }

    #[test]
    fn shards_partition_the_points() {
        for n in 1..=7u32 {
            let shards: Vec<Shard> = (0..n).map(|i| Shard { index: i, count: n }).collect();
            for p in 0..20 {
                assert_eq!(shards.iter().filter(|s| s.holds(p)).count(), 1);
            }
        }
        assert_eq!(Shard::parse("2/7").unwrap(), Shard { index: 2, count: 7 });
        for bad in ["7/7", "1/0", "x/2", "3", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
