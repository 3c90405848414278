//! The synthetic workload of Ngubiri and van Vliet: sizes from D(q) on
//! [n1, n2], exponential inter-arrival and run times, and jobs larger than
//! `thres` split into 2..=k components by the random or phased approach.

use super::rng::{Purpose, stream};
use crate::model::{JobSpec, SimTime, split_even};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use serde::{Deserialize, Serialize};

/// How a large job's number of components is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitApproach {
    /// Each of 2..=k components with probability 1/(k−1), whatever the size.
    #[default]
    Random,
    /// By size: bounds b1 < … < b(k−1) cut the large sizes into k−1 ranges
    /// of equal probability; the j-th range gets j+1 components.
    Phased,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NgubiriParams {
    pub q: f64,
    pub min_size: u32,
    pub max_size: u32,
    pub mean_interarrival: f64,
    pub mean_runtime: f64,
    /// Largest job that is not split.
    pub threshold: u32,
    /// Most components a job may have (k).
    pub max_components: u32,
    pub approach: SplitApproach,
}

impl Default for NgubiriParams {
    fn default() -> Self {
        NgubiriParams {
            q: 0.85,
            min_size: 1,
            max_size: 38,
            mean_interarrival: 0.64,
            mean_runtime: 10.0,
            threshold: 11,
            max_components: 4,
            approach: SplitApproach::Random,
        }
    }
}

/// The probability of each size in [n1, n2] under D(q): weight 3·qⁱ when i is
/// a power of two, qⁱ otherwise, normalised. With q below 1 the weights
/// fall to zero in `f64` after some thousand sizes (about 4,600 for
/// q = 0.85); the sizes from there on can never be drawn and are left out,
/// so the table holds at most that many entries whatever n2 is.
pub fn size_distribution(q: f64, n1: u32, n2: u32) -> Vec<(u32, f64)> {
    let w: Vec<(u32, f64)> = (n1..=n2)
        .map(|i| {
            // (Sizes past i32::MAX weigh nothing for any q below 1.)
            let base = if i <= i32::MAX as u32 {
                q.powi(i as i32)
            } else {
                0.0
            };
            (
                i,
                if i.is_power_of_two() {
                    3.0 * base
                } else {
                    base
                },
            )
        })
        .take_while(|&(i, x)| x > 0.0 || i == n1)
        .collect();
    let total: f64 = w.iter().map(|&(_, x)| x).sum();
    w.into_iter().map(|(i, x)| (i, x / total)).collect()
}

/// Phased bounds b1..b(k−1): a large job of size s gets j+2 components where
/// j is the number of bounds below s. Chosen from D(q) so that the k−1
/// ranges (thres, b1], (b1, b2], …, (b(k−2), n2] hold shares of the large
/// jobs as close to 1/(k−1) each as the discrete sizes allow (the largest
/// deviation is minimised).
pub fn phased_bounds(p: &NgubiriParams) -> Vec<u32> {
    let dist = size_distribution(p.q, p.min_size, p.max_size);
    let large: Vec<(u32, f64)> = dist.into_iter().filter(|&(s, _)| s > p.threshold).collect();
    let total: f64 = large.iter().map(|&(_, x)| x).sum();
    let ranges = p.max_components.saturating_sub(1) as usize;
    if ranges <= 1 || large.is_empty() || total <= 0.0 {
        return Vec::new();
    }
    // cum[i] = share of large jobs with size ≤ large[i].0
    let mut cum = Vec::with_capacity(large.len());
    let mut acc = 0.0;
    for &(_, x) in &large {
        acc += x / total;
        cum.push(acc);
    }
    let target = 1.0 / ranges as f64;
    // Dynamic programming over cut positions minimising the largest
    // deviation of any range's share from the target.
    let n = large.len();
    let share = |from: usize, to: usize| -> f64 {
        // sizes large[from..=to]
        cum[to] - if from == 0 { 0.0 } else { cum[from - 1] }
    };
    // best[r][i]: minimal max-deviation covering large[0..=i] with r+1 ranges.
    let mut best = vec![vec![f64::INFINITY; n]; ranges];
    let mut prev = vec![vec![usize::MAX; n]; ranges];
    for (i, b) in best[0].iter_mut().enumerate() {
        *b = (share(0, i) - target).abs();
    }
    for r in 1..ranges {
        for i in r..n {
            for j in (r - 1)..i {
                let d = best[r - 1][j].max((share(j + 1, i) - target).abs());
                if d < best[r][i] {
                    best[r][i] = d;
                    prev[r][i] = j;
                }
            }
        }
    }
    let mut bounds = Vec::with_capacity(ranges - 1);
    let mut i = n - 1;
    for r in (1..ranges).rev() {
        let j = prev[r][i];
        if j == usize::MAX {
            break;
        }
        bounds.push(large[j].0);
        i = j;
    }
    bounds.reverse();
    bounds
}

/// The generator: one random stream each for arrivals, sizes, run times and
/// splits.
pub struct NgubiriWorkload {
    params: NgubiriParams,
    cdf: Vec<(u32, f64)>,
    bounds: Vec<u32>,
    arrivals: ChaCha8Rng,
    sizes: ChaCha8Rng,
    runtimes: ChaCha8Rng,
    split: ChaCha8Rng,
    interarrival: Exp<f64>,
    runtime: Exp<f64>,
    now: f64,
    next_id: u64,
    remaining: Option<u64>,
}

impl NgubiriWorkload {
    /// `jobs`: how many to generate, or `None` for an endless stream.
    /// Parameters must have been validated (positive means, q in (0, 1)).
    pub fn new(params: NgubiriParams, seed: u64, jobs: Option<u64>) -> NgubiriWorkload {
        let mut acc = 0.0;
        let cdf = size_distribution(params.q, params.min_size, params.max_size)
            .into_iter()
            .map(|(s, p)| {
                acc += p;
                (s, acc)
            })
            .collect();
        let bounds = phased_bounds(&params);
        NgubiriWorkload {
            interarrival: Exp::new(1.0 / params.mean_interarrival).expect("validated mean"),
            runtime: Exp::new(1.0 / params.mean_runtime).expect("validated mean"),
            params,
            cdf,
            bounds,
            arrivals: stream(seed, Purpose::Arrivals),
            sizes: stream(seed, Purpose::Sizes),
            runtimes: stream(seed, Purpose::Runtimes),
            split: stream(seed, Purpose::Split),
            now: 0.0,
            next_id: 1,
            remaining: jobs,
        }
    }

    pub fn bounds(&self) -> &[u32] {
        &self.bounds
    }

    fn sample_size(&mut self) -> u32 {
        let u: f64 = self.sizes.random();
        let i = self.cdf.partition_point(|&(_, c)| c < u);
        self.cdf[i.min(self.cdf.len() - 1)].0
    }

    /// The number of components for a job of `size` (1 when not split).
    pub fn components_for(&mut self, size: u32) -> u32 {
        split_count(&self.params, &self.bounds, size, &mut self.split)
    }
}

/// The component counts [`split_count`] chooses from for `size` (before
/// capping at the size): 1 when not split, else 2..=k under the random
/// approach or the one count of its size range under the phased one. The
/// console checks an injected job against every one of them.
pub fn split_counts(
    params: &NgubiriParams,
    bounds: &[u32],
    size: u32,
) -> std::ops::RangeInclusive<u32> {
    if size <= params.threshold || params.max_components < 2 {
        return 1..=1;
    }
    match params.approach {
        SplitApproach::Random => 2..=params.max_components,
        SplitApproach::Phased => {
            let n = 2 + bounds.iter().filter(|&&b| size > b).count() as u32;
            n..=n
        }
    }
}

/// The component count for `size` under `params` (shared with injected
/// jobs in the console).
pub fn split_count(params: &NgubiriParams, bounds: &[u32], size: u32, rng: &mut ChaCha8Rng) -> u32 {
    let counts = split_counts(params, bounds, size);
    let n = match params.approach {
        // A split job draws under the random approach, even from one count.
        SplitApproach::Random if *counts.start() > 1 => rng.random_range(counts),
        _ => *counts.start(),
    };
    n.min(size)
}

impl Iterator for NgubiriWorkload {
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
        let n = self.components_for(size);
        let id = self.next_id;
        self.next_id += 1;
        Some(JobSpec {
            work: None,
            id,
            submit: SimTime::from_secs_f64(self.now),
            size,
            components: split_even(size, n),
            runtime: SimTime::from_secs_f64(runtime),
            estimate: None,
            user: None,
            injected: false,
            home: None,
            app: None,
            comm: None,
            graph: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_sums_to_one_and_favours_powers_of_two() {
        let d = size_distribution(0.85, 1, 38);
        let total: f64 = d.iter().map(|&(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        let p = |s: u32| d[(s - 1) as usize].1;
        assert!(p(4) > p(3));
        assert!((p(4) / p(5) - 3.0 / 0.85).abs() < 1e-9);
    }

    /// A size range of four billion holds a table of the sizes that can be
    /// drawn only: the weights are zero in `f64` after some thousands.
    #[test]
    fn a_huge_size_range_keeps_only_the_sizes_that_weigh_something() {
        let d = size_distribution(0.85, 1, u32::MAX);
        assert!(d.len() < 10_000, "{} entries", d.len());
        assert!(d.iter().enumerate().all(|(i, &(s, _))| s as usize == i + 1));
        let total: f64 = d.iter().map(|&(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        // The sizes left out would not change the weights of those kept.
        let small = size_distribution(0.85, 1, 38);
        assert!((d[3].1 / d[4].1 - small[3].1 / small[4].1).abs() < 1e-12);
        // A range that starts where the weights are already zero keeps
        // its first size, so that the table is never empty.
        assert_eq!(size_distribution(0.85, 100_000, 100_010).len(), 1);
    }

    #[test]
    fn phased_bounds_are_increasing_and_large() {
        let b = phased_bounds(&NgubiriParams::default());
        assert_eq!(b.len(), 2);
        assert!(b[0] > 11 && b[0] < b[1] && b[1] < 38, "{b:?}");
    }

    #[test]
    fn same_seed_same_jobs() {
        let a: Vec<_> = NgubiriWorkload::new(NgubiriParams::default(), 3, Some(100)).collect();
        let b: Vec<_> = NgubiriWorkload::new(NgubiriParams::default(), 3, Some(100)).collect();
        let c: Vec<_> = NgubiriWorkload::new(NgubiriParams::default(), 4, Some(100)).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 100);
        assert!(a.windows(2).all(|w| w[0].submit <= w[1].submit));
        for j in &a {
            assert_eq!(j.components.iter().sum::<u32>(), j.size);
        }
    }
}
