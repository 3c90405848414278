//! Means and 95 % confidence half-widths across independent replications.

use serde::Serialize;

/// Student's t quantile at 0.975 for `df` degrees of freedom.
pub fn t_quantile_975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        31..=40 => 2.021,
        41..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// A figure over replications: its mean and 95 % half-width.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Replicated {
    pub mean: f64,
    /// `None` with fewer than two replications.
    pub half_width: Option<f64>,
}

impl Replicated {
    pub fn of(xs: &[f64]) -> Replicated {
        let n = xs.len();
        if n == 0 {
            return Replicated {
                mean: 0.0,
                half_width: None,
            };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n < 2 {
            return Replicated {
                mean,
                half_width: None,
            };
        }
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        Replicated {
            mean,
            half_width: Some(t_quantile_975(n - 1) * (var / n as f64).sqrt()),
        }
    }

    /// Half-width relative to the mean (∞ when unknown).
    pub fn relative_error(&self) -> f64 {
        match self.half_width {
            Some(h) if self.mean != 0.0 => h / self.mean.abs(),
            Some(_) => 0.0,
            None => f64::INFINITY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_width_of_known_sample() {
        let r = Replicated::of(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(r.mean, 3.0);
        // s = sqrt(2.5), t(4) = 2.776
        let h = 2.776 * (2.5f64 / 5.0).sqrt();
        assert!((r.half_width.unwrap() - h).abs() < 1e-12);
        assert!(Replicated::of(&[3.0]).half_width.is_none());
    }
}
