//! Number formats shared by the panes.

pub use crate::sched::panel::{int, num1, secs};

/// A short number for columns of six: `41.2`, `9999.9`, `35.0 k`,
/// `1.2 M`, `4.0 G`.
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        "–".to_string()
    } else if x.abs() < 9_999.95 {
        format!("{x:.1}")
    } else {
        si(x)
    }
}

/// A span of simulated time in the unit that reads best: `40 s`,
/// `25 min`, `5.5 h`, `333.3 d`.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() {
        "–".to_string()
    } else if secs < 120.0 {
        format!("{secs:.0} s")
    } else if secs < 7_200.0 {
        format!("{:.0} min", secs / 60.0)
    } else if secs < 172_800.0 {
        format!("{:.1} h", secs / 3_600.0)
    } else {
        format!("{} d", num1(secs / 86_400.0))
    }
}

/// A number with an SI suffix, three significant digits at most: `999`,
/// `12.6 k`, `126 k`, `4.0 G`.
pub fn si(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let a = x.abs();
    if a < 1_000.0 {
        return format!("{x:.0}");
    }
    let (v, unit) = [(1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"), (1e15, "P")]
        .into_iter()
        .rev()
        .find(|&(u, _)| a >= u * 0.99995)
        .map(|(u, n)| (x / u, n))
        .unwrap_or((x / 1e3, "k"));
    if v.abs() < 99.95 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

/// `x` with one decimal and grouped thousands if that fits `width`
/// characters, else without the decimal, else with an SI suffix: columns
/// never cut a number (`12 618.3`, `12 618`, `12.6 k`).
pub fn fit(x: f64, width: usize) -> String {
    let full = num1(x);
    if full.chars().count() <= width || !x.is_finite() {
        return full;
    }
    let whole = int_signed(x.round());
    if whole.chars().count() <= width {
        return whole;
    }
    si(x)
}

/// A whole number grouped if it fits `width` characters, else with an SI
/// suffix: `4 000`, `4.0 G`.
pub fn fit_int(n: u64, width: usize) -> String {
    let full = int(n);
    if full.chars().count() <= width {
        full
    } else {
        si(n as f64)
    }
}

fn int_signed(x: f64) -> String {
    let sign = if x < 0.0 { "-" } else { "" };
    format!("{sign}{}", int(x.abs() as u64))
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
        assert_eq!(short(35_000.0), "35.0 k");
        assert_eq!(short(599_850.0), "600 k");
        assert_eq!(short(2.9e13), "29.0 T");
        assert_eq!(parts(&[8, 8, 8]), "8+8+8");
    }

    #[test]
    fn durations_in_the_unit_that_reads_best() {
        assert_eq!(duration(40.0), "40 s");
        assert_eq!(duration(1_500.0), "25 min");
        assert_eq!(duration(19_800.0), "5.5 h");
        assert_eq!(duration(29_000_000.0), "335.6 d");
    }

    #[test]
    fn numbers_fit_their_columns() {
        assert_eq!(si(999.0), "999");
        assert_eq!(si(12_618.3), "12.6 k");
        assert_eq!(si(126_180.0), "126 k");
        assert_eq!(si(999_999.0), "1.0 M");
        assert_eq!(si(4e9), "4.0 G");
        assert_eq!(si(-2_500.0), "-2.5 k");
        assert_eq!(fit(12_618.34, 8), "12 618.3");
        assert_eq!(fit(12_618.34, 7), "12 618");
        assert_eq!(fit(12_618.34, 5), "12.6 k");
        assert_eq!(fit(3.25, 7), "3.3");
        assert_eq!(fit(f64::NAN, 3), "–");
        assert_eq!(fit_int(4_000, 5), "4 000");
        assert_eq!(fit_int(3_999_999_984, 5), "4.0 G");
        for x in [0.0, 9.9, 99_999.9, 1.234e7, 5.5e11, 2.9e13] {
            assert!(fit(x, 7).chars().count() <= 7, "{x} → {}", fit(x, 7));
        }
    }
}
