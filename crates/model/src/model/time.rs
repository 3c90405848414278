//! Simulated time: integer microsecond ticks, exact and totally ordered.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or a span of) simulated time, in microseconds.
///
/// Integer ticks keep event ordering exact: SWF traces are whole seconds and
/// the synthetic workloads' continuous samples are rounded to the microsecond
/// once, where they enter.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct SimTime(pub i64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(i64::MAX);
    pub const TICKS_PER_SEC: i64 = 1_000_000;
    /// The latest time it can hold, in seconds: `i64::MAX` microseconds,
    /// about 292,000 years.
    pub const MAX_SECS: f64 = i64::MAX as f64 / Self::TICKS_PER_SEC as f64;

    pub fn from_secs(s: i64) -> SimTime {
        SimTime(s.saturating_mul(Self::TICKS_PER_SEC))
    }

    /// Rounds to the nearest tick; NaN and negative values must be rejected
    /// by the caller (scenario validation does).
    pub fn from_secs_f64(s: f64) -> SimTime {
        let t = (s * Self::TICKS_PER_SEC as f64).round();
        if t >= i64::MAX as f64 {
            SimTime::MAX
        } else {
            SimTime(t as i64)
        }
    }

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::TICKS_PER_SEC as f64
    }

    pub fn ticks(self) -> i64 {
        self.0
    }

    pub fn saturating_add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, o: SimTime) {
        self.0 = self.0.saturating_add(o.0);
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1} s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_whole_and_fractional_seconds() {
        assert_eq!(SimTime::from_secs(3).0, 3_000_000);
        assert_eq!(SimTime::from_secs_f64(0.64).0, 640_000);
        assert_eq!(SimTime::from_secs_f64(1.5).as_secs_f64(), 1.5);
        assert!(SimTime::from_secs(1) < SimTime::from_secs_f64(1.000001));
    }
}
