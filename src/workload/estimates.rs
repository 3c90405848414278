//! Runtime estimates: what policies see instead of the actual run time.

use super::rng::{Purpose, stream};
use crate::model::{JobSpec, SimTime};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a job's estimate comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EstimateSource {
    /// The workload's own estimate where it has one (SWF requested time),
    /// else the actual run time.
    #[default]
    Auto,
    /// The actual run time: a perfect estimate.
    Exact,
    /// The workload's estimate (SWF field 9); the actual run time where the
    /// workload has none.
    Trace,
    /// The actual run time off by a uniform error of up to ±`error_percent` %.
    UniformError,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateModel {
    #[serde(default)]
    pub source: EstimateSource,
    /// E for `uniform-error`, in percent (0 ≤ E < 100).
    #[serde(default)]
    pub error_percent: f64,
}

impl EstimateModel {
    pub fn exact() -> EstimateModel {
        EstimateModel {
            source: EstimateSource::Exact,
            error_percent: 0.0,
        }
    }

    pub fn uniform_error(percent: f64) -> EstimateModel {
        EstimateModel {
            source: EstimateSource::UniformError,
            error_percent: percent,
        }
    }

    /// Checks the settings, saying what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.error_percent.is_finite() && (0.0..100.0).contains(&self.error_percent)) {
            return Err(format!(
                "error_percent must be at least 0 and below 100, found {}",
                self.error_percent
            ));
        }
        Ok(())
    }
}

impl fmt::Display for EstimateModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source {
            EstimateSource::Auto => f.write_str("workload's own, else exact"),
            EstimateSource::Exact => f.write_str("exact"),
            EstimateSource::Trace => f.write_str("trace"),
            EstimateSource::UniformError => write!(f, "±{} % uniform error", self.error_percent),
        }
    }
}

/// Applies an [`EstimateModel`] with its own random stream.
pub struct Estimator {
    model: EstimateModel,
    rng: ChaCha8Rng,
}

impl Estimator {
    pub fn new(model: EstimateModel, seed: u64) -> Estimator {
        Estimator {
            model,
            rng: stream(seed, Purpose::Estimates),
        }
    }

    pub fn model(&self) -> &EstimateModel {
        &self.model
    }

    pub fn set_model(&mut self, model: EstimateModel) {
        self.model = model;
    }

    pub fn estimate(&mut self, job: &JobSpec) -> SimTime {
        match self.model.source {
            EstimateSource::Auto | EstimateSource::Trace => job.estimate.unwrap_or(job.runtime),
            EstimateSource::Exact => job.runtime,
            EstimateSource::UniformError => {
                let e = self.model.error_percent / 100.0;
                let u: f64 = self.rng.random_range(-1.0..=1.0);
                let t = job.runtime.0 as f64 * (1.0 + e * u);
                SimTime(t.round().max(1.0) as i64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(rt: i64) -> JobSpec {
        JobSpec {
            id: 1,
            submit: SimTime::ZERO,
            size: 1,
            components: vec![1],
            runtime: SimTime::from_secs(rt),
            estimate: Some(SimTime::from_secs(2 * rt)),
            user: None,
            injected: false,
        }
    }

    #[test]
    fn uniform_error_stays_within_bounds() {
        let mut e = Estimator::new(EstimateModel::uniform_error(30.0), 7);
        let j = job(100);
        let xs: Vec<f64> = (0..10_000).map(|_| e.estimate(&j).as_secs_f64()).collect();
        assert!(xs.iter().all(|&x| (70.0..=130.0).contains(&x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 100.0).abs() < 1.0, "mean {mean}");
    }

    #[test]
    fn sources() {
        let j = job(10);
        assert_eq!(
            Estimator::new(EstimateModel::exact(), 1).estimate(&j),
            j.runtime
        );
        assert_eq!(
            Estimator::new(EstimateModel::default(), 1).estimate(&j),
            SimTime::from_secs(20)
        );
        assert!(EstimateModel::uniform_error(100.0).validate().is_err());
    }
}
