//! A sweep's result folder: `sweep.json` says what the sweep is (scenario,
//! overrides, axes, every point and its id); `points/<id>.json` holds one
//! point's outcome. Every file is written whole or not at all (a temporary
//! file, then a rename), so a shard killed at any moment leaves only
//! finished points behind, and a re-run does only what is missing; a
//! result file that does not read back is run again too.

use super::{Point, Shard, SweepError, SweepSpec, digest};
use crate::report::write_atomic;
use crate::scenario::Replications;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "sweep.json";
pub const POINTS: &str = "points";
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestAxis {
    pub key: String,
    pub values: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestPoint {
    pub id: String,
    pub settings: Vec<(String, String)>,
}

impl ManifestPoint {
    pub fn label(&self) -> String {
        self.settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What a sweep is: enough to tell two sweeps apart and to list every
/// point, whether or not it has run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema_version: u32,
    /// The scenario's path as given (for people; the digest is what counts).
    pub scenario: String,
    /// Digest of the scenario file's text.
    pub scenario_digest: String,
    pub sets: Vec<String>,
    /// The keys of a sweep file's points, which come before the axes'.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listed_keys: Vec<String>,
    pub axes: Vec<ManifestAxis>,
    /// `"auto"`, a number, or absent for the scenario's own.
    pub replications: Option<String>,
    pub seed: Option<u64>,
    pub points: Vec<ManifestPoint>,
}

impl Manifest {
    pub fn of(spec: &SweepSpec, points: &[Point]) -> Result<Manifest, SweepError> {
        let text = std::fs::read(&spec.scenario).map_err(|e| SweepError::Folder {
            path: spec.scenario.display().to_string(),
            message: format!("cannot read the scenario: {e}"),
        })?;
        Ok(Manifest {
            schema_version: SCHEMA_VERSION,
            scenario: spec.scenario.display().to_string(),
            scenario_digest: digest(&text),
            sets: spec.sets.clone(),
            listed_keys: spec.listed.iter().flat_map(|l| l.keys.clone()).collect(),
            axes: spec
                .axes
                .iter()
                .map(|a| ManifestAxis {
                    key: a.key.clone(),
                    values: a.values.clone(),
                })
                .collect(),
            replications: spec.replications.map(|r| match r {
                Replications::Auto => "auto".to_string(),
                Replications::Fixed(n) => n.to_string(),
            }),
            seed: spec.seed,
            points: points
                .iter()
                .map(|p| ManifestPoint {
                    id: p.id().to_string(),
                    settings: p.settings.clone(),
                })
                .collect(),
        })
    }

    /// The same sweep, perhaps named by another path to the same scenario.
    pub fn same_sweep(&self, other: &Manifest) -> bool {
        Manifest {
            scenario: String::new(),
            ..self.clone()
        } == Manifest {
            scenario: String::new(),
            ..other.clone()
        }
    }

    pub fn keys(&self) -> Vec<String> {
        let listed = self.listed_keys.iter().cloned();
        listed
            .chain(self.axes.iter().map(|a| a.key.clone()))
            .collect()
    }
}

/// One point's outcome, as kept in `points/<id>.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointFile {
    pub schema_version: u32,
    pub id: String,
    pub settings: Vec<(String, String)>,
    /// `"ok"` or `"failed"`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The point's JSON summary (with `"ok"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
}

impl PointFile {
    pub fn ok(point: &Point, summary: Value) -> PointFile {
        PointFile {
            schema_version: SCHEMA_VERSION,
            id: point.id().to_string(),
            settings: point.settings.clone(),
            status: "ok".into(),
            error: None,
            summary: Some(summary),
        }
    }

    pub fn failed(point: &Point, error: String) -> PointFile {
        PointFile {
            schema_version: SCHEMA_VERSION,
            id: point.id().to_string(),
            settings: point.settings.clone(),
            status: "failed".into(),
            error: Some(error),
            summary: None,
        }
    }
}

/// A result folder.
#[derive(Clone, Debug)]
pub struct Folder {
    dir: PathBuf,
}

fn folder_err(dir: &Path, message: String) -> SweepError {
    SweepError::Folder {
        path: dir.display().to_string(),
        message,
    }
}

impl Folder {
    /// Opens `dir` for `manifest`'s sweep: creates it, or checks that the
    /// sweep it already holds is this one.
    pub fn create(dir: &Path, manifest: &Manifest) -> Result<Folder, SweepError> {
        // A folder with no manifest receives a sweep only when it is empty
        // (or holds just the empty start of one): its files are not ours.
        if !dir.join(MANIFEST).exists()
            && let Ok(entries) = std::fs::read_dir(dir)
        {
            let mut others: Vec<String> = entries
                .flatten()
                .filter(|e| {
                    !(e.file_name() == POINTS
                        && std::fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_none()))
                })
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            if !others.is_empty() {
                others.sort();
                let more = others.len().saturating_sub(5);
                others.truncate(5);
                if more > 0 {
                    others.push(format!("and {more} more"));
                }
                return Err(folder_err(
                    dir,
                    format!(
                        "holds files and no {MANIFEST} ({}): not a sweep's result folder; name a new or empty folder",
                        others.join(", ")
                    ),
                ));
            }
        }
        std::fs::create_dir_all(dir.join(POINTS))
            .map_err(|e| folder_err(dir, format!("cannot create the folder: {e}")))?;
        let folder = Folder {
            dir: dir.to_path_buf(),
        };
        match folder.manifest() {
            Ok(old) if old.same_sweep(manifest) => return Ok(folder),
            Ok(old) => {
                return Err(folder_err(
                    dir,
                    format!(
                        "holds results of another sweep (of {}{}); give this one another folder",
                        old.scenario,
                        if old.scenario_digest != manifest.scenario_digest {
                            ", or of this scenario before it changed"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            Err(_) if !dir.join(MANIFEST).exists() => {}
            Err(e) => return Err(e),
        }
        let text = serde_json::to_string_pretty(manifest).unwrap_or_default() + "\n";
        write_atomic(&dir.join(MANIFEST), |w| w.write_all(text.as_bytes()))
            .map_err(|e| folder_err(dir, format!("cannot write {MANIFEST}: {e}")))?;
        Ok(folder)
    }

    /// Opens an existing result folder.
    pub fn open(dir: &Path) -> Result<(Folder, Manifest), SweepError> {
        let folder = Folder {
            dir: dir.to_path_buf(),
        };
        let m = folder.manifest()?;
        Ok((folder, m))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn manifest(&self) -> Result<Manifest, SweepError> {
        let path = self.dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            folder_err(
                &self.dir,
                format!("no readable {MANIFEST} ({e}): not a sweep's result folder"),
            )
        })?;
        serde_json::from_str(&text).map_err(|e| {
            folder_err(
                &self.dir,
                format!("{MANIFEST} is not a sweep manifest: {e}"),
            )
        })
    }

    fn point_path(&self, id: &str) -> PathBuf {
        self.dir.join(POINTS).join(format!("{id}.json"))
    }

    /// A point's outcome: `None` when the point has not run, an error
    /// message when its file cannot be read or belongs to another point.
    pub fn read(&self, point: &ManifestPoint) -> Option<Result<PointFile, String>> {
        let path = self.point_path(&point.id);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => return Some(Err(format!("{}: {e}", path.display()))),
        };
        let parsed: Result<PointFile, String> =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()));
        Some(parsed.and_then(|f| {
            if f.id != point.id || f.settings != point.settings {
                Err(format!(
                    "{}: holds the point {} rather than {}",
                    path.display(),
                    f.id,
                    point.id
                ))
            } else {
                Ok(f)
            }
        }))
    }

    /// Whether the point has a successful result.
    pub fn done(&self, point: &ManifestPoint) -> bool {
        matches!(self.read(point), Some(Ok(f)) if f.status == "ok" && f.summary.is_some())
    }

    /// Writes a point's result: into a temporary file beside it, then
    /// renamed, so that a reader (or a re-run after a kill) sees the whole
    /// file or none. Unlike reports, point files are not synced to disk one
    /// by one: on a sweep of small points that costs more than the points
    /// (about 6 ms a file here). A file left empty or cut by a machine crash
    /// does not parse, counts as not done, and is run again.
    pub fn write(&self, file: &PointFile) -> Result<(), SweepError> {
        // Compact: read by merge, not by people (`merge --format json`
        // prints them pretty).
        let text = serde_json::to_string(file).unwrap_or_default() + "\n";
        let fail = |e: std::io::Error| {
            folder_err(
                &self.dir,
                format!("cannot write the result of point {}: {e}", file.id),
            )
        };
        let path = self.point_path(&file.id);
        let mut tmp = crate::report::temp_beside(&path, "").map_err(fail)?;
        tmp.write_all(text.as_bytes()).map_err(fail)?;
        tmp.persist(&path).map_err(|e| fail(e.error))?;
        Ok(())
    }
}

/// A point that failed to run.
#[derive(Clone, Debug)]
pub struct FailedPoint {
    pub id: String,
    /// `key=value key=value`.
    pub label: String,
    pub error: String,
}

/// Opens (or starts) `dir` as the result folder of `spec`'s sweep.
pub fn prepare(
    spec: &SweepSpec,
    points: &[Point],
    dir: &Path,
) -> Result<(Folder, Manifest), SweepError> {
    let manifest = Manifest::of(spec, points)?;
    let folder = Folder::create(dir, &manifest)?;
    Ok((folder, manifest))
}

/// What one shard did.
#[derive(Clone, Debug, Default)]
pub struct ShardReport {
    pub points: usize,
    pub run: usize,
    pub already_done: usize,
    pub failed: Vec<FailedPoint>,
}

/// Runs the points of `shard` that have no result in `dir` yet, writing
/// each point's result as soon as it is known. Every point of the shard is
/// read and validated before any runs.
pub fn run_shard(spec: &SweepSpec, shard: Shard, dir: &Path) -> Result<ShardReport, SweepError> {
    let points = spec.points();
    let (folder, manifest) = prepare(spec, &points, dir)?;
    let mine: Vec<(&Point, &ManifestPoint)> = points
        .iter()
        .zip(&manifest.points)
        .enumerate()
        .filter(|(i, _)| shard.holds(*i))
        .map(|(_, p)| p)
        .collect();
    let todo: Vec<&Point> = mine
        .iter()
        .filter(|(_, m)| !folder.done(m))
        .map(|(p, _)| *p)
        .collect();
    let scenarios = todo
        .iter()
        .map(|p| spec.scenario_at(p))
        .collect::<Result<Vec<_>, _>>()?;
    let outcomes: Vec<Result<Option<FailedPoint>, SweepError>> = todo
        .par_iter()
        .zip(&scenarios)
        .map(|(p, sc)| {
            let (file, failure) = match spec.run_point(sc) {
                Ok(summary) => (PointFile::ok(p, summary), None),
                Err(e) => (
                    PointFile::failed(p, e.to_string()),
                    Some(FailedPoint {
                        id: p.id().to_string(),
                        label: p.label(),
                        error: e.to_string(),
                    }),
                ),
            };
            folder.write(&file)?;
            Ok(failure)
        })
        .collect();
    let mut report = ShardReport {
        points: mine.len(),
        run: todo.len(),
        already_done: mine.len() - todo.len(),
        failed: Vec::new(),
    };
    for o in outcomes {
        if let Some(f) = o? {
            report.failed.push(f);
        }
    }
    Ok(report)
}

/// A result folder read back: rows in sweep order, and what is missing.
#[derive(Clone, Debug)]
pub struct Gathered {
    pub manifest: Manifest,
    /// (point, summary) of every successful point, in sweep order.
    pub rows: Vec<(ManifestPoint, Value)>,
    pub missing: Vec<ManifestPoint>,
    /// Points that failed, or whose result file is unreadable.
    pub failed: Vec<(ManifestPoint, String)>,
}

impl Gathered {
    pub fn complete(&self) -> bool {
        self.missing.is_empty() && self.failed.is_empty()
    }

    /// One line per missing or failed point, by id.
    pub fn problems(&self) -> String {
        let mut out = Vec::new();
        let total = self.manifest.points.len();
        if !self.missing.is_empty() {
            out.push(format!(
                "{} of {total} points {} no result yet:",
                self.missing.len(),
                if self.missing.len() == 1 {
                    "has"
                } else {
                    "have"
                }
            ));
            for p in &self.missing {
                out.push(format!("  missing {}  {}", p.id, p.label()));
            }
        }
        if !self.failed.is_empty() {
            out.push(format!("{} of {total} points failed:", self.failed.len()));
            for (p, e) in &self.failed {
                out.push(format!("  failed  {}  {}: {e}", p.id, p.label()));
            }
        }
        out.join("\n")
    }
}

/// Reads every point's result in `dir`.
pub fn gather(dir: &Path) -> Result<Gathered, SweepError> {
    let (folder, manifest) = Folder::open(dir)?;
    let mut g = Gathered {
        manifest: manifest.clone(),
        rows: Vec::new(),
        missing: Vec::new(),
        failed: Vec::new(),
    };
    for p in manifest.points {
        match folder.read(&p) {
            None => g.missing.push(p),
            Some(Err(e)) => g.failed.push((p, e)),
            Some(Ok(f)) => match (f.status.as_str(), f.summary) {
                ("ok", Some(s)) => g.rows.push((p, s)),
                _ => {
                    let e = f.error.unwrap_or_else(|| "no summary".into());
                    g.failed.push((p, e));
                }
            },
        }
    }
    Ok(g)
}
