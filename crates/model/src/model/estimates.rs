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
    /// The actual run time times a factor drawn uniformly from
    /// [`factor_min`, `factor_max`]: users who always ask for more.
    Overestimate,
}

/// What happens to a job still running when its estimate runs out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnOverrun {
    /// Keep running: the estimate was simply wrong; reservations are
    /// recomputed from the new facts.
    #[default]
    Continue,
    /// Stop the job at its estimate (SWF walltime semantics); it is counted
    /// as killed and its work is lost.
    Kill,
    /// Abort a job that was started ahead of the queue (backfilled or
    /// jumped) and put it back in the queue at its arrival position, to run
    /// again from the start (aggressive backfilling with abort). A job that
    /// started in order keeps running.
    Requeue,
}

impl OnOverrun {
    pub fn as_str(self) -> &'static str {
        match self {
            OnOverrun::Continue => "continue",
            OnOverrun::Kill => "kill",
            OnOverrun::Requeue => "requeue",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateModel {
    #[serde(default)]
    pub source: EstimateSource,
    /// E for `uniform-error`, in percent (0 ≤ E < 100).
    #[serde(default)]
    pub error_percent: f64,
    /// The factor range for `overestimate` (1 ≤ min ≤ max).
    #[serde(default = "one")]
    pub factor_min: f64,
    #[serde(default = "one")]
    pub factor_max: f64,
    /// What happens when a running job reaches the end of its estimate.
    #[serde(default)]
    pub on_overrun: OnOverrun,
}

fn one() -> f64 {
    1.0
}

impl Default for EstimateModel {
    fn default() -> Self {
        EstimateModel {
            source: EstimateSource::default(),
            error_percent: 0.0,
            factor_min: 1.0,
            factor_max: 1.0,
            on_overrun: OnOverrun::default(),
        }
    }
}

impl EstimateModel {
    pub fn exact() -> EstimateModel {
        EstimateModel {
            source: EstimateSource::Exact,
            ..EstimateModel::default()
        }
    }

    pub fn uniform_error(percent: f64) -> EstimateModel {
        EstimateModel {
            source: EstimateSource::UniformError,
            error_percent: percent,
            ..EstimateModel::default()
        }
    }

    pub fn overestimate(factor_min: f64, factor_max: f64) -> EstimateModel {
        EstimateModel {
            source: EstimateSource::Overestimate,
            factor_min,
            factor_max,
            ..EstimateModel::default()
        }
    }

    pub fn with_overrun(mut self, on_overrun: OnOverrun) -> EstimateModel {
        self.on_overrun = on_overrun;
        self
    }

    /// Checks the settings, saying what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.error_percent.is_finite() && (0.0..100.0).contains(&self.error_percent)) {
            return Err(format!(
                "error_percent must be at least 0 and below 100, found {}",
                self.error_percent
            ));
        }
        let f_ok = |x: f64| x.is_finite() && x >= 1.0;
        if !(f_ok(self.factor_min) && f_ok(self.factor_max) && self.factor_min <= self.factor_max) {
            return Err(format!(
                "factor_min and factor_max must be at least 1 with factor_min ≤ factor_max, found {} and {}",
                self.factor_min, self.factor_max
            ));
        }
        Ok(())
    }
}

impl fmt::Display for EstimateModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source {
            EstimateSource::Auto => f.write_str("workload's own, else exact")?,
            EstimateSource::Exact => f.write_str("exact")?,
            EstimateSource::Trace => f.write_str("trace")?,
            EstimateSource::UniformError => write!(f, "±{} % uniform error", self.error_percent)?,
            EstimateSource::Overestimate => {
                write!(f, "over by ×{}–{}", self.factor_min, self.factor_max)?
            }
        }
        if self.on_overrun != OnOverrun::Continue {
            write!(f, ", {} on overrun", self.on_overrun.as_str())?;
        }
        Ok(())
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

    /// The estimate of `job`. An injected job's own estimate (typed by the
    /// operator) is kept whatever the source; the model still draws for it,
    /// so that typing one does not shift the estimates of later jobs.
    pub fn estimate(&mut self, job: &JobSpec) -> SimTime {
        let drawn = self.draw(job);
        match job.estimate {
            Some(own) if job.injected => own,
            _ => drawn,
        }
    }

    fn draw(&mut self, job: &JobSpec) -> SimTime {
        match self.model.source {
            EstimateSource::Auto | EstimateSource::Trace => job.estimate.unwrap_or(job.runtime),
            EstimateSource::Exact => job.runtime,
            EstimateSource::UniformError => {
                let e = self.model.error_percent / 100.0;
                let u: f64 = self.rng.random_range(-1.0..=1.0);
                let t = job.runtime.0 as f64 * (1.0 + e * u);
                SimTime(t.round().max(1.0) as i64)
            }
            EstimateSource::Overestimate => {
                let (lo, hi) = (self.model.factor_min, self.model.factor_max);
                let f: f64 = if hi > lo {
                    self.rng.random_range(lo..=hi)
                } else {
                    lo
                };
                SimTime((job.runtime.0 as f64 * f).round() as i64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(rt: i64) -> JobSpec {
        JobSpec {
            work: None,
            id: 1,
            submit: SimTime::ZERO,
            size: 1,
            components: vec![1],
            runtime: SimTime::from_secs(rt),
            estimate: Some(SimTime::from_secs(2 * rt)),
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: None,
            graph: None,
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
    fn an_injected_jobs_own_estimate_wins_and_keeps_the_stream() {
        let mut typed = job(100);
        typed.injected = true;
        typed.estimate = Some(SimTime::from_secs(40));
        let mut exact = Estimator::new(EstimateModel::exact(), 1);
        assert_eq!(exact.estimate(&typed), SimTime::from_secs(40));
        // A workload job's estimate is the model's to decide.
        assert_eq!(exact.estimate(&job(100)), SimTime::from_secs(100));
        // Under a random model the typed estimate takes the draw's place:
        // the jobs after it get the same estimates as without it.
        let mut a = Estimator::new(EstimateModel::uniform_error(30.0), 3);
        let mut b = Estimator::new(EstimateModel::uniform_error(30.0), 3);
        assert_eq!(a.estimate(&typed), SimTime::from_secs(40));
        b.estimate(&job(100));
        for _ in 0..10 {
            assert_eq!(a.estimate(&job(100)), b.estimate(&job(100)));
        }
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
        assert!(EstimateModel::overestimate(2.0, 1.5).validate().is_err());
        let mut over = Estimator::new(EstimateModel::overestimate(1.5, 3.0), 2);
        for _ in 0..1000 {
            let e = over.estimate(&j).as_secs_f64();
            assert!((15.0..=30.0).contains(&e), "{e}");
        }
    }
}
