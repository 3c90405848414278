//! First fit: each component (widest first) to the lowest-numbered cluster
//! that holds it.

use super::{Assignment, Placement, greedy};

#[derive(Clone, Copy, Debug, Default)]
pub struct FirstFit;

impl Placement for FirstFit {
    fn place(&self, widths: &[u32], free: &[u32]) -> Option<Assignment> {
        greedy(widths, free, |free, used, w| {
            (0..free.len()).find(|&c| !used.contains(c) && free[c] >= w)
        })
    }
}
