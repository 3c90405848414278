//! Numbers in messages as a user wrote them.

use std::fmt;

/// A number as a message shows it: huge and tiny ones in exponent form
/// (`1e300`, not three hundred digits).
pub struct Shown<T>(pub T);

impl fmt::Display for Shown<f64> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v != 0.0 && v.is_finite() && !(1e-4..1e9).contains(&v.abs()) {
            write!(f, "{v:e}")
        } else {
            write!(f, "{v}")
        }
    }
}

impl fmt::Display for Shown<u32> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
