//! Means and 95 % confidence half-widths across independent replications.

use serde::Serialize;

/// Student's t quantile at 0.975 for `df` degrees of freedom, exact (from
/// `statrs`'s inverse of the t distribution; a printed table rounds to
/// three decimals and steps between rows, 31-40 degrees sharing 2.021).
pub fn t_quantile_975(df: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    if df == 0 {
        return f64::INFINITY;
    }
    StudentsT::new(0.0, 1.0, df as f64)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(f64::INFINITY)
}

/// A figure over replications: its mean and 95 % half-width.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Replicated {
    pub mean: f64,
    /// `None` with fewer than two replications.
    pub half_width: Option<f64>,
}

impl Replicated {
    /// What a figure that was not reported reads as in a table.
    pub const ZERO: Replicated = Replicated {
        mean: 0.0,
        half_width: None,
    };

    pub fn of(xs: &[f64]) -> Replicated {
        let n = xs.len();
        if n == 0 {
            return Replicated::ZERO;
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
        // s = sqrt(2.5), t(4) = 2.776445
        let h = 2.776_445_105 * (2.5f64 / 5.0).sqrt();
        assert!((r.half_width.unwrap() - h).abs() < 1e-8);
        assert!(Replicated::of(&[3.0]).half_width.is_none());
    }

    #[test]
    fn t_quantiles_are_exact() {
        // Published values (R's qt(0.975, df)) to the digits given.
        for (df, t) in [
            (1, 12.706_204_736),
            (4, 2.776_445_105),
            (9, 2.262_157_163),
            (30, 2.042_272_456),
            (31, 2.039_513_446),
            (40, 2.021_075_390),
            (100, 1.983_971_519),
            (1000, 1.962_339_081),
        ] {
            assert!(
                (t_quantile_975(df) - t).abs() < 1e-7,
                "df {df}: {}",
                t_quantile_975(df)
            );
        }
        assert_eq!(t_quantile_975(0), f64::INFINITY);
    }
}
