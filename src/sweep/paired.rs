//! Paired differences between a sweep's points (`--paired KEY=BASE`).
//!
//! Every point of a sweep runs its replications under the same seeds
//! (each replication's seed derives from the base seed and its index), so
//! the i-th replication of two points sees the same arrivals, sizes and
//! run times. The difference of a figure between two points is then best
//! judged replication by replication: the mean of the per-seed differences
//! with its own 95 % half-width, which is far narrower than the two
//! points' separate intervals suggest when the runs are correlated.
//!
//! A point is paired with the point that has `KEY = BASE` and the same
//! value of every other varied key. Both must have run the same seeds
//! (an `"auto"` replication count can stop two points at different
//! counts): otherwise the row says why it is not paired.

use super::SweepError;
use super::render::{Row, figure};
use crate::metrics::Replicated;
use serde_json::{Value, json};

/// `--paired KEY=BASE`: each point against the point with KEY = BASE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paired {
    pub key: String,
    pub base: String,
}

impl Paired {
    /// Reads `KEY=BASE`, where KEY is one of the sweep's `keys` and BASE
    /// one of the values some point (by its `settings`) gives it.
    pub fn parse(
        arg: &str,
        keys: &[String],
        points: &[&[(String, String)]],
    ) -> Result<Paired, SweepError> {
        let err = |message: String| SweepError::Paired {
            arg: arg.to_string(),
            message,
        };
        let (key, base) = arg
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| err("expected KEY.PATH=VALUE, e.g. estimates.error_percent=0".into()))?;
        if !keys.iter().any(|k| k == key) {
            return Err(err(format!(
                "`{key}` is not varied in this sweep (varied: {})",
                keys.join(", ")
            )));
        }
        let values: Vec<&str> = {
            let mut v: Vec<&str> = Vec::new();
            for settings in points {
                if let Some((_, x)) = settings.iter().find(|(k, _)| k == key)
                    && !v.contains(&x.as_str())
                {
                    v.push(x);
                }
            }
            v
        };
        if !values.contains(&base) {
            return Err(err(format!(
                "no point has {key} = {base} (its values: {})",
                values.join(", ")
            )));
        }
        Ok(Paired {
            key: key.to_string(),
            base: base.to_string(),
        })
    }

    /// `KEY=BASE`, as the reports name it.
    pub fn label(&self) -> String {
        format!("{}={}", self.key, self.base)
    }
}

fn value_of<'a>(r: &Row<'a>, key: &str) -> Option<&'a str> {
    r.settings
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// What a row is paired with.
#[derive(Clone, Debug, PartialEq)]
pub enum Pairing {
    /// The row is a base point itself.
    Base,
    /// Paired with the row at this index.
    With(usize),
    /// Not paired, and why.
    Unpaired(String),
}

/// Each row's pairing, in row order.
pub fn pair(rows: &[Row], paired: &Paired) -> Vec<Pairing> {
    rows.iter()
        .map(|r| {
            if value_of(r, &paired.key) == Some(paired.base.as_str()) {
                return Pairing::Base;
            }
            let base = rows.iter().position(|b| {
                value_of(b, &paired.key) == Some(paired.base.as_str())
                    && b.settings.len() == r.settings.len()
                    && b.settings
                        .iter()
                        .zip(r.settings)
                        .all(|((k, v), (k2, v2))| k == k2 && (k == &paired.key || v == v2))
            });
            let Some(b) = base else {
                return Pairing::Unpaired(format!("no point with {}", paired.label()));
            };
            match same_seeds(r.summary, rows[b].summary) {
                Ok(()) => Pairing::With(b),
                Err(why) => Pairing::Unpaired(why),
            }
        })
        .collect()
}

fn same_seeds(a: &Value, b: &Value) -> Result<(), String> {
    let seeds = |s: &Value| s.get("replication_seeds").cloned().unwrap_or(Value::Null);
    let count = |s: &Value| {
        s.get("replicates")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    };
    if count(a) == 0 || count(b) == 0 {
        return Err(
            "its result has no per-replication figures (written by an older \
                    schedscope: run the point again)"
                .into(),
        );
    }
    if seeds(a) != seeds(b) || count(a) != count(b) {
        return Err(format!(
            "the two points ran different seeds ({} and {} replications)",
            count(a),
            count(b)
        ));
    }
    // One replication pairs too: its difference has no half-width.
    Ok(())
}

/// The paired difference of `name` (as [`figure`] names it): the row's
/// value minus the base's, seed by seed, with its 95 % half-width.
pub fn difference(row: &Row, base: &Row, name: &str) -> Option<Replicated> {
    let values = |s: &Value| -> Option<Vec<f64>> {
        s.get("replicates")?
            .as_array()?
            .iter()
            .map(|m| figure(&json!({ "metrics": m }), name).map(|r| r.mean))
            .collect()
    };
    let (a, b) = (values(row.summary)?, values(base.summary)?);
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    Some(Replicated::of(&d))
}

/// The difference is beyond the paired noise: its interval excludes 0.
pub fn beyond_noise(d: Replicated) -> bool {
    d.half_width.is_some_and(|h| d.mean.abs() > h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(seeds: &[u64], arts: &[f64]) -> Value {
        let reps: Vec<Value> = arts
            .iter()
            .map(|a| json!({"overall": {"art": a}}))
            .collect();
        json!({"replication_seeds": seeds, "replicates": reps,
               "metrics": {"overall": {"art": arts.iter().sum::<f64>() / arts.len() as f64}}})
    }

    fn points<'a>(rows: &[Row<'a>]) -> Vec<&'a [(String, String)]> {
        rows.iter().map(|r| r.settings).collect()
    }

    fn settings(e: &str, p: &str) -> Vec<(String, String)> {
        vec![
            ("policy.name".to_string(), p.to_string()),
            ("estimates.error_percent".to_string(), e.to_string()),
        ]
    }

    #[test]
    fn differences_are_taken_seed_by_seed() {
        // The two points' own intervals overlap widely; seed by seed the
        // second is always 1 higher.
        let (s0, s1) = (
            summary(&[1, 2, 3], &[10.0, 20.0, 30.0]),
            summary(&[1, 2, 3], &[11.0, 21.0, 31.0]),
        );
        let (a, b) = (settings("0", "easy"), settings("30", "easy"));
        let rows = [
            Row {
                settings: &a,
                summary: &s0,
            },
            Row {
                settings: &b,
                summary: &s1,
            },
        ];
        let keys = vec!["policy.name".into(), "estimates.error_percent".into()];
        let p = Paired::parse("estimates.error_percent=0", &keys, &points(&rows)).unwrap();
        assert_eq!(pair(&rows, &p), vec![Pairing::Base, Pairing::With(0)]);
        let d = difference(&rows[1], &rows[0], "art").unwrap();
        assert_eq!(d.mean, 1.0);
        assert_eq!(d.half_width, Some(0.0));
        assert!(beyond_noise(Replicated {
            mean: 1.0,
            half_width: Some(0.5)
        }));
        assert!(!beyond_noise(Replicated {
            mean: 1.0,
            half_width: Some(1.5)
        }));
    }

    #[test]
    fn points_of_other_seeds_or_settings_are_not_paired() {
        let (s0, s1, s2) = (
            summary(&[1, 2], &[10.0, 20.0]),
            summary(&[1, 2, 3], &[11.0, 21.0, 31.0]),
            summary(&[1, 2], &[1.0, 2.0]),
        );
        let (a, b, c) = (
            settings("0", "easy"),
            settings("30", "easy"),
            settings("30", "fcfs"),
        );
        let rows = [
            Row {
                settings: &a,
                summary: &s0,
            },
            Row {
                settings: &b,
                summary: &s1,
            },
            Row {
                settings: &c,
                summary: &s2,
            },
        ];
        let keys = vec!["policy.name".into(), "estimates.error_percent".into()];
        let p = Paired::parse("estimates.error_percent=0", &keys, &points(&rows)).unwrap();
        let got = pair(&rows, &p);
        assert!(matches!(&got[1], Pairing::Unpaired(w) if w.contains("different seeds")));
        assert!(
            matches!(&got[2], Pairing::Unpaired(w) if w.contains("no point with estimates.error_percent=0"))
        );
        for bad in [
            "estimates.error_percent=5",
            "policy.order=arrival",
            "nonsense",
        ] {
            let e = Paired::parse(bad, &keys, &points(&rows))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(&format!("--paired {bad}: ")), "{e}");
        }
    }
}
