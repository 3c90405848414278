//! Number types that check themselves while the scenario is read, so that a
//! bad value is reported at its own line and column.

use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

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
                    Err(serde::de::Error::custom(format!(concat!("must be ", $what, ", found {}"), v)))
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
    /// A whole number at least one.
    AtLeastOne, u32, |v| v >= 1, "a whole number at least 1"
);
checked!(
    /// A probability-like parameter strictly between 0 and 1.
    OpenUnit, f64, |v| v.is_finite() && v > 0.0 && v < 1.0, "a number strictly between 0 and 1"
);
