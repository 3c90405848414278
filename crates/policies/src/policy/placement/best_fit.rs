//! Best fit: each component (widest first) to the cluster with the fewest
//! free processors that still holds it.

use super::{Assignment, Placement, greedy};

#[derive(Clone, Copy, Debug, Default)]
pub struct BestFit;

impl Placement for BestFit {
    fn place(&self, widths: &[u32], free: &[u32]) -> Option<Assignment> {
        greedy(widths, free, |free, used, w| {
            (0..free.len())
                .filter(|&c| !used.contains(c) && free[c] >= w)
                .min_by(|&a, &b| free[a].cmp(&free[b]).then(a.cmp(&b)))
        })
    }
}
