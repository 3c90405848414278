//! Number types that check themselves while the scenario is read, so that a
//! bad value is reported at its own line and column.

use crate::model::SimTime;
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// The latest time the simulation can hold, in seconds: `i64::MAX`
/// microseconds, about 292,000 years. Later times are refused rather than
/// clamped.
pub const MAX_SECONDS: f64 = SimTime::MAX_SECS;

pub use crate::model::Shown;

macro_rules! checked {
    ($(#[$m:meta])* $name:ident, $inner:ty, $ok:expr, $what:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = <$inner>::deserialize(d)?;
                let ok: fn($inner) -> bool = $ok;
                if ok(v) {
                    Ok($name(v))
                } else {
                    Err(serde::de::Error::custom(format!(concat!("must be ", $what, ", found {}"), Shown(v))))
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

checked!(
    /// A finite number greater than zero.
    Positive, f64, |v| v.is_finite() && v > 0.0, "a number greater than 0"
);
checked!(
    /// A finite number at least zero.
    NonNegative, f64, |v| v.is_finite() && v >= 0.0, "a number at least 0"
);
checked!(
    /// A time in seconds the simulation can hold, from 0.
    Seconds, f64, |v| v.is_finite() && (0.0..=MAX_SECONDS).contains(&v),
    "a time in seconds from 0 to 9.2e12 (about 292,000 years)"
);
checked!(
    /// A time in seconds the simulation can hold, greater than 0.
    PositiveSeconds, f64, |v| v.is_finite() && v > 0.0 && v <= MAX_SECONDS,
    "a time in seconds greater than 0 and at most 9.2e12 (about 292,000 years)"
);
/// A whole number at least one (that fits in 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct AtLeastOne(pub u32);

impl<'de> Deserialize<'de> for AtLeastOne {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Read wider than it is kept, so that -1, 2^32 and "abc" get the
        // range this key takes (from 1), not that of the type it is kept in.
        struct Whole;
        impl serde::de::Visitor<'_> for Whole {
            type Value = AtLeastOne;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a whole number from 1 to {}", u32::MAX)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<AtLeastOne, E> {
                match u32::try_from(v) {
                    Ok(n) if n >= 1 => Ok(AtLeastOne(n)),
                    _ => Err(E::custom(format!(
                        "must be a whole number from 1 to {}, found {v}",
                        u32::MAX
                    ))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<AtLeastOne, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
            }
        }
        d.deserialize_i64(Whole)
    }
}

impl fmt::Display for AtLeastOne {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
checked!(
    /// A probability-like parameter strictly between 0 and 1.
    OpenUnit, f64, |v| v.is_finite() && v > 0.0 && v < 1.0, "a number strictly between 0 and 1"
);
