//! What a workload's job sizes look like: the histogram, the mean and the
//! share of powers of two (`schedscope workload`), drawn from the
//! workload's own generator or trace without simulating anything.

use std::collections::BTreeMap;
use std::fmt;

/// Job sizes counted: how many jobs asked for each number of processors.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SizeHistogram {
    /// Jobs per size, sizes in increasing order.
    pub counts: BTreeMap<u32, u64>,
}

/// At most this many distinct sizes are listed one per row; beyond, rows
/// hold the sizes from one power of two up to the next.
const EXACT_ROWS: usize = 64;

impl SizeHistogram {
    pub fn of(sizes: impl IntoIterator<Item = u32>) -> SizeHistogram {
        let mut h = SizeHistogram::default();
        for s in sizes {
            h.add(s);
        }
        h
    }

    /// Counts one more job of `size`.
    pub fn add(&mut self, size: u32) {
        *self.counts.entry(size).or_insert(0) += 1;
    }

    pub fn jobs(&self) -> u64 {
        self.counts.values().sum()
    }

    pub fn mean(&self) -> f64 {
        let sum: f64 = self.counts.iter().map(|(&s, &n)| s as f64 * n as f64).sum();
        sum / self.jobs().max(1) as f64
    }

    /// The share of jobs whose size is a power of two (1 counts).
    pub fn pow2_share(&self) -> f64 {
        let p: u64 = self
            .counts
            .iter()
            .filter(|(s, _)| s.is_power_of_two())
            .map(|(_, &n)| n)
            .sum();
        p as f64 / self.jobs().max(1) as f64
    }

    /// The smallest size at or below which half the jobs are.
    pub fn median(&self) -> u32 {
        let half = self.jobs().div_ceil(2);
        let mut seen = 0;
        for (&s, &n) in &self.counts {
            seen += n;
            if seen >= half {
                return s;
            }
        }
        0
    }

    /// The rows printed: (label, jobs), one per size, or per power-of-two
    /// range when there are many sizes.
    pub fn rows(&self) -> Vec<(String, u64)> {
        if self.counts.len() <= EXACT_ROWS {
            return self
                .counts
                .iter()
                .map(|(&s, &n)| (s.to_string(), n))
                .collect();
        }
        let mut bins: BTreeMap<u32, u64> = BTreeMap::new();
        for (&s, &n) in &self.counts {
            *bins.entry(s.max(1).ilog2()).or_insert(0) += n;
        }
        bins.into_iter()
            .map(|(k, n)| {
                let lo = 1u64 << k;
                (format!("{lo}–{}", 2 * lo - 1), n)
            })
            .collect()
    }
}

impl fmt::Display for SizeHistogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let jobs = self.jobs();
        if jobs == 0 {
            return writeln!(f, "0 jobs: no sizes to show");
        }
        writeln!(
            f,
            "{jobs} {} · mean size {:.2} · median {} · min {} · max {} · powers of two {:.1} %",
            if jobs == 1 { "job" } else { "jobs" },
            self.mean(),
            self.median(),
            self.counts.keys().next().copied().unwrap_or(0),
            self.counts.keys().next_back().copied().unwrap_or(0),
            100.0 * self.pow2_share()
        )?;
        writeln!(f, "{:>9} {:>9} {:>7}", "size", "jobs", "share")?;
        let rows = self.rows();
        let top = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
        for (label, n) in rows {
            let share = n as f64 / jobs.max(1) as f64;
            let bar = ((n as f64 / top as f64) * 40.0).round() as usize;
            writeln!(
                f,
                "{label:>9} {n:>9} {:>6.2} % {}",
                100.0 * share,
                "█".repeat(bar)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_jobs_reads_as_none() {
        let t = SizeHistogram::of(std::iter::empty::<u32>()).to_string();
        assert_eq!(t, "0 jobs: no sizes to show\n");
    }

    #[test]
    fn counts_mean_median_and_powers_of_two() {
        let h = SizeHistogram::of([1, 2, 2, 3, 8, 8, 8, 12]);
        assert_eq!(h.jobs(), 8);
        assert!((h.mean() - 44.0 / 8.0).abs() < 1e-12);
        assert_eq!(h.median(), 3);
        // 1, 2, 2, 8, 8, 8 of 8.
        assert!((h.pow2_share() - 0.75).abs() < 1e-12);
        let t = h.to_string();
        assert!(
            t.starts_with(
                "8 jobs · mean size 5.50 · median 3 · min 1 · max 12 · powers of two 75.0 %"
            ),
            "{t}"
        );
        assert!(
            t.contains("        8         3  37.50 % ████████████████████████████████████████"),
            "{t}"
        );
        let one = SizeHistogram::of([10]).to_string();
        assert!(one.starts_with("1 job · mean size 10.00"), "{one}");
    }

    #[test]
    fn many_sizes_are_binned_by_powers_of_two() {
        let h = SizeHistogram::of(1..=100);
        let rows = h.rows();
        assert_eq!(rows[0], ("1–1".to_string(), 1));
        assert_eq!(rows[3], ("8–15".to_string(), 8));
        assert_eq!(rows[6], ("64–127".to_string(), 37));
        assert_eq!(rows.len(), 7);
    }
}
