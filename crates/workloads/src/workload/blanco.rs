//! The package-allocation paper's workload (Blanco et al., Table I): Weibull
//! inter-arrival times (λ = 82.6, k = 0.6), Weibull run times (λ = 200,
//! k = 1), sizes from a gamma distribution (α = 4.04, β = 0.77) "adjusted
//! to the prevalence of powers of two" (Lublin), and per-node bandwidth
//! `PNBW = BSBW · 4(n − 1)/n²` (Jones).
//!
//! Readings the paper leaves open, each a scenario key:
//! * `size_reading`: the gamma draws log2 of the size (`"log2"`, the
//!   default: Lublin models log2 of the size, and a mean size of 3 would
//!   make co-allocation rare on 64 processors) or the size itself
//!   (`"size"`).
//! * `pow2_share`: the chance that a size is rounded to the nearest power
//!   of two (in log2) rather than to the nearest whole number (0.75).
//! * `sigma`: σ of every job, one value (0.5) or a uniform range.
//!
//! Sizes above the platform's processors are drawn again. Jobs leave their
//! split over clusters to the policy (no requested components). Each
//! quantity has its own random stream, so BSBW or σ never shift the
//! arrivals, sizes or run times: runs at different BSBW are paired.

use super::rng::{Purpose, stream};
use crate::model::pnbw_of;
use crate::model::{CommNeed, JobSpec, SimTime};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma, Weibull};
use serde::{Deserialize, Serialize};

/// What the gamma distribution draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SizeReading {
    /// log2 of the size.
    #[default]
    Log2,
    /// The size itself.
    Size,
}

/// σ of each job: one value, or uniform over a range.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Sigma {
    Fixed(f64),
    Uniform(f64, f64),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlancoParams {
    pub interarrival_scale: f64,
    pub interarrival_shape: f64,
    pub runtime_scale: f64,
    pub runtime_shape: f64,
    pub size_shape: f64,
    pub size_scale: f64,
    pub size_reading: SizeReading,
    pub pow2_share: f64,
    /// Bisection bandwidth, GB/s.
    pub bsbw: f64,
    pub sigma: Sigma,
    /// The largest size (the platform's processors).
    pub max_size: u32,
}

impl Default for BlancoParams {
    fn default() -> Self {
        BlancoParams {
            interarrival_scale: 82.6,
            interarrival_shape: 0.6,
            runtime_scale: 200.0,
            runtime_shape: 1.0,
            size_shape: 4.04,
            size_scale: 0.77,
            size_reading: SizeReading::Log2,
            pow2_share: 0.75,
            bsbw: 0.5,
            sigma: Sigma::Fixed(0.5),
            max_size: 64,
        }
    }
}

pub struct BlancoWorkload {
    p: BlancoParams,
    interarrival: Weibull<f64>,
    runtime: Weibull<f64>,
    size: Gamma<f64>,
    arrivals: ChaCha8Rng,
    sizes: ChaCha8Rng,
    runtimes: ChaCha8Rng,
    sigmas: ChaCha8Rng,
    now: f64,
    next_id: u64,
    remaining: Option<u64>,
}

impl BlancoWorkload {
    /// Parameters must have been validated (positive scales and shapes,
    /// shares and σ in [0, 1], `max_size` ≥ 1).
    pub fn new(p: BlancoParams, seed: u64, jobs: Option<u64>) -> BlancoWorkload {
        BlancoWorkload {
            interarrival: Weibull::new(p.interarrival_scale, p.interarrival_shape)
                .expect("validated"),
            runtime: Weibull::new(p.runtime_scale, p.runtime_shape).expect("validated"),
            size: Gamma::new(p.size_shape, p.size_scale).expect("validated"),
            arrivals: stream(seed, Purpose::Arrivals),
            sizes: stream(seed, Purpose::Sizes),
            runtimes: stream(seed, Purpose::Runtimes),
            sigmas: stream(seed, Purpose::Comm),
            p,
            now: 0.0,
            next_id: 1,
            remaining: jobs,
        }
    }

    fn sample_size(&mut self) -> u32 {
        // Redrawn above the platform (a job that can never run); after many
        // tries (a distribution almost wholly above it), the largest size.
        for _ in 0..1000 {
            let g = self.size.sample(&mut self.sizes);
            let pow2: f64 = self.sizes.random();
            let log2 = match self.p.size_reading {
                SizeReading::Log2 => g,
                SizeReading::Size => g.max(f64::MIN_POSITIVE).log2(),
            };
            let size = if pow2 < self.p.pow2_share {
                2f64.powi(log2.round().clamp(0.0, 31.0) as i32)
            } else {
                2f64.powf(log2).round()
            }
            .max(1.0);
            if size <= self.p.max_size as f64 {
                return size as u32;
            }
        }
        self.p.max_size
    }

    fn sample_sigma(&mut self) -> f64 {
        match self.p.sigma {
            Sigma::Fixed(s) => s,
            Sigma::Uniform(a, b) => {
                let u: f64 = self.sigmas.random();
                a + (b - a) * u
            }
        }
    }
}

impl Iterator for BlancoWorkload {
    type Item = JobSpec;

    fn next(&mut self) -> Option<JobSpec> {
        if let Some(r) = &mut self.remaining {
            if *r == 0 {
                return None;
            }
            *r -= 1;
        }
        self.now += self.interarrival.sample(&mut self.arrivals);
        let size = self.sample_size();
        let runtime = self.runtime.sample(&mut self.runtimes);
        let sigma = self.sample_sigma();
        let id = self.next_id;
        self.next_id += 1;
        Some(JobSpec {
            work: None,
            id,
            submit: SimTime::from_secs_f64(self.now),
            size,
            components: Vec::new(),
            runtime: SimTime::from_secs_f64(runtime),
            estimate: None,
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: Some(CommNeed {
                pnbw: pnbw_of(self.p.bsbw, size),
                sigma,
            }),
            graph: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(p: BlancoParams, seed: u64, n: u64) -> Vec<JobSpec> {
        BlancoWorkload::new(p, seed, Some(n)).collect()
    }

    #[test]
    fn moments_follow_table_one() {
        let js = jobs(BlancoParams::default(), 7, 20_000);
        let n = js.len() as f64;
        // Weibull(λ, k): mean λ·Γ(1 + 1/k). k = 1: 200; k = 0.6: 82.6 ·
        // Γ(2.667) = 82.6 · 1.5046 = 124.3.
        let rt: f64 = js.iter().map(|j| j.runtime.as_secs_f64()).sum::<f64>() / n;
        assert!((rt - 200.0).abs() < 6.0, "mean run time {rt}");
        let last = js.last().unwrap().submit.as_secs_f64();
        assert!(
            (last / n - 124.3).abs() < 6.0,
            "mean inter-arrival {}",
            last / n
        );
        assert!(js.iter().all(|j| (1..=64).contains(&j.size)));
        let pow2 = js.iter().filter(|j| j.size.is_power_of_two()).count() as f64 / n;
        assert!(pow2 > 0.75, "share of powers of two {pow2}");
        let mean: f64 = js.iter().map(|j| j.size as f64).sum::<f64>() / n;
        assert!(mean > 6.0 && mean < 14.0, "mean size {mean}");
    }

    #[test]
    fn the_size_reading_draws_small_jobs() {
        let p = BlancoParams {
            size_reading: SizeReading::Size,
            ..BlancoParams::default()
        };
        let js = jobs(p, 7, 5_000);
        let mean: f64 = js.iter().map(|j| j.size as f64).sum::<f64>() / js.len() as f64;
        assert!(mean > 2.0 && mean < 4.5, "mean size {mean}");
    }

    #[test]
    fn bsbw_and_sigma_do_not_shift_the_other_draws() {
        let a = jobs(BlancoParams::default(), 3, 200);
        let b = jobs(
            BlancoParams {
                bsbw: 1.1,
                sigma: Sigma::Uniform(0.2, 0.8),
                ..BlancoParams::default()
            },
            3,
            200,
        );
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.submit, x.size, x.runtime), (y.submit, y.size, y.runtime));
            let (cx, cy) = (x.comm.unwrap(), y.comm.unwrap());
            assert_eq!(cx.sigma, 0.5);
            assert!((0.2..=0.8).contains(&cy.sigma));
            assert!((cy.pnbw - cx.pnbw * 1.1 / 0.5).abs() < 1e-12);
        }
    }
}
