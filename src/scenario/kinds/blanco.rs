//! `kind = "blanco"`: the package-allocation paper's generator (Table I:
//! Weibull inter-arrival and run times, bandwidth-hungry co-allocated jobs).

use super::{Validated, Workload, WorkloadKindEntry, need_platform};
use crate::model::Platform;
use crate::scenario::schema::{OneOrMany, WorkloadSection};
use crate::scenario::values::Shown;
use crate::scenario::{Scenario, ScenarioError};
use crate::workload::JobSource;
use crate::workload::blanco::{BlancoParams, BlancoWorkload, Sigma};
use toml::Spanned;

pub(super) const ENTRY: WorkloadKindEntry = WorkloadKindEntry {
    name: "blanco",
    summary: "the package-allocation paper's generator (Table I): Weibull times, \
              sizes up to the platform, a bandwidth need per job (PNBW, σ)",
    keys: &[
        "interarrival_scale",
        "interarrival_shape",
        "runtime_scale",
        "runtime_shape",
        "size_shape",
        "size_scale",
        "size_reading",
        "pow2_share",
        "bsbw",
        "sigma",
    ],
    needs_platform: true,
    family: None,
    validate: |s, w, platform| {
        let platform = need_platform(s, platform)?;
        Ok(Validated::of(blanco_params(s, w, platform)?))
    },
};

impl Workload for BlancoParams {
    fn source(&self, seed: u64, count: Option<u64>) -> Result<Box<dyn JobSource>, String> {
        Ok(Box::new(BlancoWorkload::new(self.clone(), seed, count)))
    }
}

/// The package-allocation generator's keys, each checked where it is.
fn blanco_params(
    s: &Scenario,
    w: &WorkloadSection,
    platform: &Platform,
) -> Result<BlancoParams, ScenarioError> {
    let d = BlancoParams::default();
    let positive = |x: &Option<Spanned<f64>>, key: &str, default: f64, most: f64| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if v_.is_finite() && v_ > 0.0 && v_ <= most {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!(
                        "workload.{key} must be above 0 and at most {}, found {}",
                        Shown(most),
                        Shown(v_)
                    ),
                ))
            }
        })
    };
    let unit = |x: &Option<Spanned<f64>>, key: &str, default: f64| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if (0.0..=1.0).contains(&v_) {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!("workload.{key} must be from 0 to 1, found {}", Shown(v_)),
                ))
            }
        })
    };
    let sigma = match &w.sigma {
        None => d.sigma,
        Some(v) => {
            let bad = |x: f64| {
                s.error_at(
                    v.span(),
                    format!(
                        "workload.sigma: σ must be from 0 to 1 (one value, or [low, high]), found {}",
                        Shown(x)
                    ),
                )
            };
            match v.get_ref() {
                OneOrMany::One(x) if (0.0..=1.0).contains(x) => Sigma::Fixed(*x),
                OneOrMany::One(x) => return Err(bad(*x)),
                OneOrMany::Many(r) if r.len() == 2 && r[0] <= r[1] => {
                    for &x in r {
                        if !(0.0..=1.0).contains(&x) {
                            return Err(bad(x));
                        }
                    }
                    Sigma::Uniform(r[0], r[1])
                }
                OneOrMany::Many(_) => {
                    return Err(s.error_at(
                        v.span(),
                        "workload.sigma: give one value or a range [low, high] with low ≤ high",
                    ));
                }
            }
        }
    };
    // Scales bounded so that 100 times a mean stays far inside the
    // simulation's time (9.2e12 s).
    Ok(BlancoParams {
        interarrival_scale: positive(
            &w.interarrival_scale,
            "interarrival_scale",
            d.interarrival_scale,
            1e6,
        )?,
        interarrival_shape: positive(
            &w.interarrival_shape,
            "interarrival_shape",
            d.interarrival_shape,
            100.0,
        )?
        .max(0.1),
        runtime_scale: positive(&w.runtime_scale, "runtime_scale", d.runtime_scale, 1e6)?,
        runtime_shape: positive(&w.runtime_shape, "runtime_shape", d.runtime_shape, 100.0)?
            .max(0.1),
        size_shape: positive(&w.size_shape, "size_shape", d.size_shape, 1e3)?,
        size_scale: positive(&w.size_scale, "size_scale", d.size_scale, 1e3)?,
        size_reading: w
            .size_reading
            .as_ref()
            .map_or(d.size_reading, |x| *x.get_ref()),
        pow2_share: unit(&w.pow2_share, "pow2_share", d.pow2_share)?,
        bsbw: positive(&w.bsbw, "bsbw", d.bsbw, 1e6)?,
        sigma,
        max_size: platform.total_processors().min(u32::MAX as u64) as u32,
    })
}
