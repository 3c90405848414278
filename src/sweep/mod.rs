//! Sweeps: one scenario run at every point of the cross product of varied
//! keys.
//!
//! A sweep can run in one process (rows printed at the end) or in shares
//! (`--shard I/N`) that each write one result file per point into a folder
//! ([`store`]), so that shares can run anywhere — Slurm array tasks, other
//! machines, a re-run after a crash — and `merge` prints the same rows a
//! local sweep would. Every point has an id derived from its own settings
//! ([`point`]), so a result file always names the point it belongs to.

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

/// Everything that defines a sweep: its points and how each is run.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    pub scenario: PathBuf,
    /// `--set` overrides applied at every point, before the point's own.
    pub sets: Vec<String>,
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
            axes.push(axis);
        }
        if axes.is_empty() {
            return Err(SweepError::Vary {
                arg: String::new(),
                message: "a sweep needs at least one --vary".into(),
            });
        }
        Ok(SweepSpec {
            scenario,
            sets: sets.to_vec(),
            axes,
            replications,
            seed,
        })
    }

    /// The varied keys, in `--vary` order: the leading columns of every
    /// report.
    pub fn keys(&self) -> Vec<String> {
        self.axes.iter().map(|a| a.key.clone()).collect()
    }

    /// The cross product of the axes; the first axis varies slowest.
    pub fn points(&self) -> Vec<Point> {
        let mut points = vec![Vec::new()];
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
        Ok(report::json::summary(scenario, &result))
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
