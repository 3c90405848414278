//! Number formats shared by the panes.

/// A whole number with spaces between thousands: `19 302`.
pub fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Seconds with one decimal and grouped thousands: `12 345.6 s`.
pub fn secs(s: f64) -> String {
    format!("{} s", num1(s))
}

/// A number with one decimal and grouped thousands, without a unit.
pub fn num1(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let tenths = (x.abs() * 10.0).round() as u64;
    let sign = if x < 0.0 && tenths > 0 { "-" } else { "" };
    format!("{sign}{}.{}", int(tenths / 10), tenths % 10)
}

/// A short duration for narrow columns: `41.2`, `1.2 k`, `35 k`.
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        "–".to_string()
    } else if x.abs() < 10_000.0 {
        format!("{x:.1}")
    } else if x.abs() < 1e6 {
        format!("{:.0} k", x / 1e3)
    } else {
        format!("{:.1} M", x / 1e6)
    }
}

/// Component widths joined by `+`: `8+8+8`.
pub fn parts(components: &[u32]) -> String {
    let v: Vec<String> = components.iter().map(|c| c.to_string()).collect();
    v.join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(int(0), "0");
        assert_eq!(int(999), "999");
        assert_eq!(int(19_302), "19 302");
        assert_eq!(int(1_234_567), "1 234 567");
        assert_eq!(secs(12_345.64), "12 345.6 s");
        assert_eq!(num1(-0.01), "0.0");
        assert_eq!(short(41.23), "41.2");
        assert_eq!(short(35_000.0), "35 k");
        assert_eq!(parts(&[8, 8, 8]), "8+8+8");
    }
}
